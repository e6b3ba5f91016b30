#version 450
// The fused one-token BitLinear with the packed int8 dot product (fp64 activations); the body is bitlinear_decode.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_DOT 1
#define TRIT_F64 1
#include "bitlinear_decode.glsl"
