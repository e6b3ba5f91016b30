#version 450
// GPU sampler pass 2 with the softmax and cutoffs in double, as the CPU sampler; the body is sample_final.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "sample_final.glsl"
