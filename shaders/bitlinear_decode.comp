#version 450
// The fused one-token BitLinear (fp32 activations); the body is bitlinear_decode.glsl.
#extension GL_GOOGLE_include_directive : require
#include "bitlinear_decode.glsl"
