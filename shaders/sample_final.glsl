// GPU sampler, phase 2 (engine/src/vulkan/gpu_sampler.h), in the last workgroup to finish phase 1: merges the slices' candidates
// into the top `select_count`, sorts them (logit descending, id ascending), then applies the CPU
// sampler's steps in its order and arithmetic (trit::Sampler::sample): min-p prefilter where there is
// no top-k cut, softmax at the temperature (double in the _f64 variant), top-p, min-p, and the draw
// r = u * mass. The sums run in one invocation in the CPU's order, so they round as the CPU's do.
// Included by sample_token.glsl after sample_select.glsl.

shared uint skey[K_MAX];
shared uint sid[K_MAX];
shared real prob[K_MAX];
shared uint s_keep;
shared real s_sum;

// Candidate a goes before b: larger logit, then lower id (padding, key 0, goes last).
bool before(uint ka, uint ia, uint kb, uint ib) { return ka > kb || (ka == kb && ia < ib); }

// Ends the step at position `pos` (invocation 0): the outputs into the state, then what greedy_step.comp
// publishes (the token in the host's ring, the next step's input, the position advanced) and the token
// into the penalty window at the next position, where it replaces the token that leaves the window. A
// failed draw leaves an id outside any vocabulary in the ring (the host reports it) and a valid input.
void finish(int token, uint status, uint kept, uint pos) {
  if (gl_LocalInvocationID.x == 0) {
    st.token = token;
    st.status = status;
    st.kept = kept;
    const bool ok = status == 0u && token >= 0;
    next_token[0] = ok ? uint(token) : 0u;
    ring[pos % pc.ring_size] = ok ? uint(token) : 0xffffffffu;
    const uint n = penalised_count();
    if (n > 0u) st.penalty_ids[(pos + 1u) % n] = token;
    step.pos0 = pos + 1u;
  }
}

// len: the logits (LIST: the list's entries) phase 1 covered.
void merge_and_draw(uint vocab, uint len, uint k, uint pos) {
  const uint t = gl_LocalInvocationID.x;
  if (k == 0u || st.penalty_count > P_MAX) {
    finish(-1, 1u, 0u, pos);
    return;
  }
  if (len == 0u) {  // an empty list: the head failed (it lists at least k rows)
    finish(-1, 2u, 0u, pos);
    return;
  }
  // The slices' regions: slice s holds min(k, its length) candidates at s * min(K_MAX, SLICE).
  const uint slices = (len + SLICE - 1u) / SLICE;
  const uint per = min(k, SLICE);
  const uint last = min(k, len - (slices - 1u) * SLICE);
  const uint total = (slices - 1u) * per + last;
  const uint region = min(K_MAX, SLICE);

  if (k == 1u) {  // greedy or top-1: the best of the slices' best, by a reduction
    uint bk = 0u, bi = 0xffffffffu;
    for (uint j = t; j < total; j += WG) {
      const uvec2 e = cand[j * region];
      if (bi == 0xffffffffu || e.x > bk || (e.x == bk && e.y < bi)) {
        bk = e.x;
        bi = e.y;
      }
    }
    const uvec2 best = wg_best(bk, bi);
    finish(int(best.y), 0u, 1u, pos);  // top-1 keeps one candidate: the draw takes it whatever u is
    return;
  }
  rs_begin(k);
  if (k < total) {
    for (uint round = 0u; round < 8u; ++round) {
      rs_clear();
      for (uint j0 = 0u; j0 < total; j0 += WG) {
        const uint j = j0 + t;
        uint d = 256u;
        if (j < total) {
          const uvec2 e = cand[(j / per) * region + j % per];
          const uvec2 c = uvec2(e.x, ~e.y);
          if (rs_matches(c)) d = rs_digit(c, round);
        }
        rs_count_digit(d);
      }
      rs_choose(round);
      if (rs_done != 0u) break;
    }
  }
  uint p2 = 1u;  // the bitonic sort's size: k rounded up to a power of two
  while (p2 < k) p2 <<= 1;
  for (uint i = t; i < p2; i += WG) {
    skey[i] = 0u;
    sid[i] = 0xffffffffu;
  }
  barrier();
  for (uint j = t; j < total; j += WG) {
    const uvec2 e = cand[(j / per) * region + j % per];
    if (rs_selected(uvec2(e.x, ~e.y))) {
      const uint at = atomicAdd(rs_count, 1u);
      if (at < k) {
        skey[at] = e.x;
        sid[at] = e.y;
      }
    }
  }
  barrier();
  if (rs_count != k) {  // cannot happen with distinct ids; reported rather than sampled wrongly
    finish(-1, 2u, rs_count, pos);
    return;
  }

  // Bitonic sort of p2 entries, descending in the (logit, -id) order.
  for (uint size = 2u; size <= p2; size <<= 1) {
    for (uint stride = size >> 1; stride > 0u; stride >>= 1) {
      for (uint q = t; q < p2 / 2u; q += WG) {
        const uint a = 2u * q - (q & (stride - 1u)), b = a + stride;
        const bool desc = (a & size) == 0u;
        const uint ka = skey[a], ia = sid[a], kb = skey[b], ib = sid[b];
        if (before(kb, ib, ka, ia) == desc) {
          skey[a] = kb; sid[a] = ib;
          skey[b] = ka; sid[b] = ia;
        }
      }
      barrier();
    }
  }

  if (st.temperature <= 0.0) {  // greedy: the largest logit, the lowest id on ties
    finish(int(sid[0]), 0u, 1u, pos);
    return;
  }

  // Min-p prefilter without top-k (CPU: logit >= max + T * ln(min_p), in float).
  if (t == 0) s_keep = k;
  barrier();
  if (prefilter(vocab)) {
    const float floor_ = key_value(skey[0]) + st.min_p_offset;
    for (uint i = t; i < k; i += WG)
      if (key_value(skey[i]) >= floor_ && (i + 1u == k || !(key_value(skey[i + 1u]) >= floor_))) s_keep = i + 1u;
    barrier();
  }
  uint keep = s_keep;

  // Softmax at temperature T: exp((logit - max) / T) in parallel, the sum in order in one invocation.
#ifdef TRIT_F64
  const double inv_t = packDouble2x32(st.inv_temperature_bits);
  const double u = packDouble2x32(draws[pos % pc.ring_size].xy);
#else
  const float inv_t = st.inv_temperature_f;
  const float u = uintBitsToFloat(draws[pos % pc.ring_size].z);
#endif
  const real mx = real(key_value(skey[0]));
  for (uint i = t; i < keep; i += WG) prob[i] = exp_real((real(key_value(skey[i])) - mx) * inv_t);
  barrier();
  if (t == 0) {
    real sum = real(0);
    for (uint i = 0u; i < keep; ++i) sum += prob[i];
    s_sum = sum;
  }
  barrier();
  const real sum = s_sum;
  for (uint i = t; i < keep; i += WG) prob[i] = prob[i] / sum;
  barrier();

  if (t == 0) {
    // top-p: the smallest prefix whose mass reaches top_p.
    if (st.top_p < 1.0) {
      real cum = real(0);
      uint n = 0u;
      while (n < keep) {
        cum += prob[n++];
        if (cum >= real(st.top_p)) break;
      }
      keep = n;
    }
    // min-p relative to the most likely token.
    if (st.min_p > 0.0) {
      const real floor_ = real(st.min_p) * prob[0];
      uint n = 1u;
      while (n < keep && prob[n] >= floor_) ++n;
      keep = n;
    }
    real mass = real(0);
    for (uint i = 0u; i < keep; ++i) mass += prob[i];
    real r = u * mass;
    int token = int(sid[keep - 1u]);
    for (uint i = 0u; i < keep; ++i) {
      r -= prob[i];
      if (r < real(0)) {
        token = int(sid[i]);
        break;
      }
    }
    finish(token, 0u, keep, pos);
  }
}
