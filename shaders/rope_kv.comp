#version 450
// NeoX RoPE + KV cache append (fp32 activations); the body is rope_kv.glsl.
#extension GL_GOOGLE_include_directive : require
#include "rope_kv.glsl"
