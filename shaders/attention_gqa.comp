#version 450
// A batched step's GQA attention with the persistent kernel's arithmetic (fp32 activations); the body is attention_gqa.glsl.
#extension GL_GOOGLE_include_directive : require
#include "attention_gqa.glsl"
