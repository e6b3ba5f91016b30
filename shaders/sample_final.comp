#version 450
// GPU sampler pass 2 with a float softmax (devices without shaderFloat64); the body is sample_final.glsl.
#extension GL_GOOGLE_include_directive : require
#include "sample_final.glsl"
