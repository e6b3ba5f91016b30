#version 450
// Ternary matrix x int8 activations, tiled GEMM with the packed int8 dot product (fp64 activations).
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "ternary_gemm.glsl"
