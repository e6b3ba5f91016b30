#version 450
// GPU sampler with a float softmax (devices without shaderFloat64); the body is sample_token.glsl.
#extension GL_GOOGLE_include_directive : require
#include "sample_token.glsl"
