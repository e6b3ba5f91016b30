#version 450
// A batched decode step's BitLinear (the packed int8 dot product, fp64 activations); the body is bitlinear_batch.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_DOT 1
#define TRIT_F64 1
#include "bitlinear_batch.glsl"
