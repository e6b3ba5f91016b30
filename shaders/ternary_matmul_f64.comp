#version 450
// Ternary matrix x int8 activations (fp64 activations); the body is ternary_matmul.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "ternary_matmul.glsl"
