#version 450
// The int8 LM head of a batched step, greedy or sampled, with its bounds on int8 cooperative matrices (fp64 activations); the body is lm_head_batch.glsl.
#extension GL_GOOGLE_include_directive : require
#define TRIT_COOP 1
#define TRIT_F64 1
#include "lm_head_batch.glsl"
