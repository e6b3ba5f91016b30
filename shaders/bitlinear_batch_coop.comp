#version 450
// A batched decode step's BitLinear on int8 cooperative matrices (fp32 activations); the body is bitlinear_batch_coop.glsl.
#extension GL_GOOGLE_include_directive : require
#include "bitlinear_batch_coop.glsl"
