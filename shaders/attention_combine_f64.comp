#version 450
// Split-K attention combine (fp64 activations); the body is attention_combine.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "attention_combine.glsl"
