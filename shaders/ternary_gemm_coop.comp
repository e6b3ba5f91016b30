#version 450
// Ternary matrix x int8 activations on int8 cooperative matrices (fp32 activations).
#extension GL_GOOGLE_include_directive : require
#include "ternary_gemm_coop.glsl"
