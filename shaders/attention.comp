#version 450
// Causal GQA attention (fp32 activations); the body is attention.glsl.
#extension GL_GOOGLE_include_directive : require
#include "attention.glsl"
