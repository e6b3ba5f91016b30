#version 450
// One decoder layer of one token on persistent workgroups with the packed int8 dot product and clustered subgroup adds (fp32 activations); the body is decode_layer.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_DOT 1
#define TRIT_CLUSTERED 1
#include "decode_layer.glsl"
