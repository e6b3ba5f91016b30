#version 450
// Embedding lookup (fp32 activations); the body is embed.glsl.
#extension GL_GOOGLE_include_directive : require
#include "embed.glsl"
