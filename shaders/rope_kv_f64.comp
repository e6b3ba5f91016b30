#version 450
// NeoX RoPE + KV cache append (fp64 activations); the body is rope_kv.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "rope_kv.glsl"
