#version 450
// One-token causal GQA attention whose last split merges the others (fp32 activations); the body is attention.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_SELF_COMBINE 1
#include "attention.glsl"
