#version 450
// Ternary matrix x int8 activations on int8 cooperative matrices (fp64 activations).
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "ternary_gemm_coop.glsl"
