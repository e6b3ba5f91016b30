#version 450
// The end of one device-side greedy decode step: the argmax of the logits (the first index on ties,
// as trit::argmax) becomes the next step's input token, is published to the host's ring at the slot
// of this step's position, and the position advances. Only this kernel writes the step parameters,
// and it runs last, after a barrier, so every kernel of the step read the old position.
//
// Spread over workgroups of SLICE = WG * 4 * PER logits each, read as 16-byte words: one workgroup
// reading the 128,256 logits alone with 4-byte loads took ~15 us of a 1.03 ms step on the H100 (a
// step whose argmax read nothing ran 1.5% faster), bound by the latency of its loads. Each workgroup
// leaves its slice's best in `best`; the last to finish (an arrival count, as the GPU sampler does)
// merges them and publishes. The order and the tie rule are argmax.glsl's. Where the one-token LM head
// is the staged one, it does all this itself (lm_head.glsl ARGMAX) and this kernel does not run.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#include "argmax.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint PER = 4;  // 16-byte words per invocation
layout(std430, binding = 0) buffer Step { uint pos0; uint n_tokens; } step;
layout(std430, binding = 1) readonly buffer L { float logits[]; };
layout(std430, binding = 1) readonly buffer L4 { vec4 logits4[]; };
layout(std430, binding = 2) writeonly buffer T { uint next_token[]; };
layout(std430, binding = 3) writeonly buffer R { uint ring[]; };
// `done` counts the workgroups through (zero between steps); best[w]: workgroup w's (key, index).
layout(std430, binding = 4) coherent buffer S { uint done; uint pad_; uvec2 best[]; } s;
layout(push_constant) uniform Push { uint vocab; uint ring_size; } pc;

const uint WG = gl_WorkGroupSize.x, SLICE = WG * 4u * PER;
shared bool s_last;

void main() {
  const uint tid = gl_LocalInvocationID.x, w = gl_WorkGroupID.x;
  // This invocation's words in ascending order (so the first of equals stays), all loads in flight.
  uint bk = 0u, bi = NONE;
  vec4 v[PER];
  for (uint p = 0u; p < PER; ++p) {
    const uint word = w * (SLICE / 4u) + p * WG + tid;
    v[p] = 4u * word + 3u < pc.vocab ? logits4[word] : vec4(0.0);
  }
  for (uint p = 0u; p < PER; ++p) {
    const uint word = w * (SLICE / 4u) + p * WG + tid;
    for (uint c = 0u; c < 4u; ++c) {
      const uint i = 4u * word + c;
      if (i >= pc.vocab) break;
      // The last partial word is read element by element (the buffer may end within it).
      const uint k = order_key(4u * word + 3u < pc.vocab ? v[p][c] : logits[i]);
      if (bi == NONE || k > bk) {
        bk = k;
        bi = i;
      }
    }
  }
  const uvec2 mine = workgroup_best(bk, bi);
  if (tid == 0u) {
    s.best[w] = mine;
    memoryBarrierBuffer();  // release: the slot is written before this workgroup counts in
    s_last = atomicAdd(s.done, 1u) == gl_NumWorkGroups.x - 1u;
  }
  barrier();
  if (!s_last) return;
  memoryBarrierBuffer();  // acquire: every workgroup's slot is visible
  bk = 0u;
  bi = NONE;
  for (uint j = tid; j < gl_NumWorkGroups.x; j += WG) {
    const uvec2 e = s.best[j];
    if (beats(e.x, e.y, bk, bi)) {
      bk = e.x;
      bi = e.y;
    }
  }
  const uvec2 all = workgroup_best(bk, bi);
  if (tid == 0u) {
    s.done = 0u;
    const uint pos = step.pos0;
    next_token[0] = all.y;
    ring[pos % pc.ring_size] = all.y;
    step.pos0 = pos + 1u;
  }
}
