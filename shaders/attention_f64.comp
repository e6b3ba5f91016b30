#version 450
// Causal GQA attention (fp64 activations); the body is attention.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "attention.glsl"
