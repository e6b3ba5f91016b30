#version 450
// Ternary matrix x int8 activations with the packed int8 dot product (fp32 activations).
#extension GL_GOOGLE_include_directive : require
#define TRIT_DOT 1
#include "ternary_matmul.glsl"
