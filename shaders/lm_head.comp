#version 450
// Tied F16 LM head (fp32 activations); the body is lm_head.glsl.
#extension GL_GOOGLE_include_directive : require
#include "lm_head.glsl"
