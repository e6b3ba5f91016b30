#version 450
// RMSNorm + int8 quantization (fp32 activations); the body is rmsnorm_quant.glsl.
#extension GL_GOOGLE_include_directive : require
#include "rmsnorm_quant.glsl"
