#version 450
// GPU sampler with the penalty's division checked and the softmax and cutoffs in double, as the CPU
// sampler computes them; the body is sample_token.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "sample_token.glsl"
