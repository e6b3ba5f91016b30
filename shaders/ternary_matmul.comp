#version 450
// Ternary matrix x int8 activations (fp32 activations); the body is ternary_matmul.glsl.
#extension GL_GOOGLE_include_directive : require
#include "ternary_matmul.glsl"
