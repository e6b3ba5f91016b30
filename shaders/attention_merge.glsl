// Merging split-K attention partials, shared by attention_combine.glsl (a second dispatch) and the
// one-token attention whose last split merges the others (attention.glsl, TRIT_SELF_COMBINE).
// The including shader declares the partials as `part[]` ((m, l, acc[hd]) per split, `stride` apart
// from `base`) and `shared real wsplit[gl_WorkGroupSize.x]`.
//
// m = max of the splits' maxima (splits with l = 0 saw no key), o = sum_s acc_s e^(m_s - m) /
// sum_s l_s e^(m_s - m). The weights e^(m_s - m) are computed once per split (a workgroup-wide chunk
// at a time, in shared memory), not once per split and output dimension. On return acc[r] holds the
// unnormalised output of dimension tid + r * wg and l the denominator. all_saw_keys (a constant at each
// call): every split holds keys, so no weight can be zero and the checks for empty splits go (the
// self-combining decode attention merges only the splits that ran: 1.07 vs 1.39 ms per token at
// context 3,872 on the H100).
void merge_splits(uint base, uint stride, uint splits, uint hd, bool all_saw_keys, out real acc[4], out real l) {
  const uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  // Global max over the splits that saw keys (-3e38 marks none in this thread).
  real m = real(-3.0e38);
  for (uint s = tid; s < splits; s += wg)
    if (all_saw_keys || part[base + s * stride + 1] != real(0)) m = max(m, part[base + s * stride]);
  m = wg_max(m);
  for (uint r = 0; r < 4; ++r) acc[r] = real(0);
  l = real(0);
  for (uint s0 = 0; s0 < splits; s0 += wg) {
    const uint s = s0 + tid;
    real w = real(0);
    if (s < splits) {
      const real ls = part[base + s * stride + 1];
      if (all_saw_keys || ls != real(0)) w = exp_real(part[base + s * stride] - m);
      l += ls * w;
    }
    wsplit[tid] = w;
    barrier();
    const uint cnt = min(wg, splits - s0);
    for (uint r = 0; r < 4; ++r) {
      const uint d = tid + r * wg;
      if (d >= hd) break;
      real a = acc[r];
      // Eight loads in flight at a time; splits that saw no key (weight 0, stale accumulators) are
      // never read, so the sum is the same as one split at a time.
      uint i = 0;
      for (; i + 8 <= cnt; i += 8) {
        real pv[8];
        for (uint u = 0; u < 8; ++u)
          pv[u] = all_saw_keys || wsplit[i + u] != real(0) ? part[base + (s0 + i + u) * stride + 2 + d] : real(0);
        for (uint u = 0; u < 8; ++u)
          if (all_saw_keys || wsplit[i + u] != real(0)) a += pv[u] * wsplit[i + u];
      }
      for (; i < cnt; ++i)
        if (all_saw_keys || wsplit[i] != real(0)) a += part[base + (s0 + i) * stride + 2 + d] * wsplit[i];
      acc[r] = a;
    }
    barrier();
  }
  l = wg_sum(l);
}
