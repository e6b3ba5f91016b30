#version 450
// GPU sampler pass 1, fp32 penalty arithmetic; the body is sample_select.glsl.
#extension GL_GOOGLE_include_directive : require
#include "sample_select.glsl"
