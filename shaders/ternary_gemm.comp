#version 450
// Ternary matrix x int8 activations, tiled GEMM with the packed int8 dot product (fp32 activations).
#extension GL_GOOGLE_include_directive : require
#include "ternary_gemm.glsl"
