#version 450
// RMSNorm + int8 quantization (fp64 activations); the body is rmsnorm_quant.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "rmsnorm_quant.glsl"
