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
// merges them and publishes. NaN ranks below every number (a row of NaN gives its first index), where
// trit::argmax would keep a NaN found at index 0; logits hold no NaN unless the model is broken.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
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

const uint WG = gl_WorkGroupSize.x, SLICE = WG * 4u * PER, NONE = 0xffffffffu;

// Float to a key whose unsigned order is the float order (-0 and +0 alike); NaN is 0, below -inf.
uint order_key(float f) {
  if (isnan(f)) return 0u;
  const uint u = floatBitsToUint(f == 0.0 ? 0.0 : f);
  return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

// (key, index) a beats b: a larger key, or the same key at a lower index; NONE indices lose.
bool beats(uint ka, uint ia, uint kb, uint ib) {
  return ia != NONE && (ib == NONE || ka > kb || (ka == kb && ia < ib));
}

shared uint sk[64], si[64];  // one per subgroup (the host keeps workgroups within 64 subgroups)
shared bool s_last;

// The workgroup's best of each invocation's (key, index); invocation 0 holds the result.
uvec2 workgroup_best(uint k, uint i) {
  const uint mk = subgroupMax(i == NONE ? 0u : k);
  const uint mi = subgroupMin(i != NONE && k == mk ? i : NONE);
  if (subgroupElect()) {
    sk[gl_SubgroupID] = mk;
    si[gl_SubgroupID] = mi;
  }
  barrier();
  uvec2 b = uvec2(0u, NONE);
  if (gl_LocalInvocationID.x == 0u)
    for (uint g = 0u; g < gl_NumSubgroups; ++g)
      if (beats(sk[g], si[g], b.x, b.y)) b = uvec2(sk[g], si[g]);
  return b;
}

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
