#version 450
// One decoder layer of one token on persistent workgroups (fp32 activations); the body is decode_layer.glsl.
#extension GL_GOOGLE_include_directive : require
#include "decode_layer.glsl"
