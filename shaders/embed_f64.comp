#version 450
// Embedding lookup (fp64 activations); the body is embed.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "embed.glsl"
