#version 450
// Tied F16 LM head with the packed int8 dot product for its BOUNDED pass (fp32 activations); the body
// is lm_head.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_DOT 1
#include "lm_head.glsl"
