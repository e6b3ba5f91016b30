#version 450
// GPU sampler pass 1 with the repetition penalty's division checked in double; the body is sample_select.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "sample_select.glsl"
