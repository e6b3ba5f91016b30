#version 450
// A batched step's GQA attention with the persistent kernel's arithmetic (fp64 activations, F16 caches); the body is attention_gqa.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "attention_gqa.glsl"
