#version 450
// Causal attention for a block of queries, GQA heads sharing each key row (fp32 activations).
#extension GL_GOOGLE_include_directive : require
#include "attention_block.glsl"
