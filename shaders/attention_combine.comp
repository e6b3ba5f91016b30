#version 450
// Split-K attention combine (fp32 activations); the body is attention_combine.glsl.
#extension GL_GOOGLE_include_directive : require
#include "attention_combine.glsl"
