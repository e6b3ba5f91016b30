// The greedy order shared by greedy_step.comp and lm_head.glsl's ARGMAX variant, so both pick exactly
// trit::argmax's token: the largest logit, the first index on ties. NaN ranks below every number (a
// row of NaN gives its first index), where trit::argmax would keep a NaN found at index 0; logits hold
// no NaN unless the model is broken. Needs the subgroup extensions (basic, arithmetic).
const uint NONE = 0xffffffffu;

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

// The workgroup's best of each invocation's (key, index); invocation 0 holds the result. Every
// invocation calls it (it has a barrier).
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
