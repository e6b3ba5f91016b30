#version 450
// Causal attention for a block of queries, GQA heads sharing each key row (fp64 activations).
#extension GL_GOOGLE_include_directive : require
#define TRIT_F64 1
#include "attention_block.glsl"
