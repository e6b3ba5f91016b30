#version 450
// The int8 LM head of a batched step, greedy or sampled (the packed int8 dot product, fp32 activations); the body is lm_head_batch.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_DOT 1
#include "lm_head_batch.glsl"
