#version 450
// A batched decode step's BitLinear (fp32 activations); the body is bitlinear_batch.glsl.
#extension GL_GOOGLE_include_directive : require
#include "bitlinear_batch.glsl"
