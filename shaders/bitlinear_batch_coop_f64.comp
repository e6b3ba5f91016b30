#version 450
// A batched decode step's BitLinear on int8 cooperative matrices (fp64 activations); the body is bitlinear_batch_coop.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "bitlinear_batch_coop.glsl"
