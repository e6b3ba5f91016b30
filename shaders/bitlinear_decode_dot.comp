#version 450
// The fused one-token BitLinear with the packed int8 dot product (fp32 activations); the body is bitlinear_decode.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_DOT 1
#include "bitlinear_decode.glsl"
