#version 450
// Tied F16 LM head (fp64 activations); the body is lm_head.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "lm_head.glsl"
