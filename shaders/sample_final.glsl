// GPU sampler, phase 2 (engine/src/vulkan/gpu_sampler.h), in the last workgroup to finish phase 1: merges the slices' candidates
// into the top `select_count`, sorts them (logit descending, id ascending), then applies the CPU
// sampler's steps in its order and arithmetic (trit::Sampler::sample): min-p prefilter where there is
// no top-k cut, softmax at the temperature (double in the _f64 variant), top-p, min-p, and the draw
// r = u * mass. The sums run in one invocation in the CPU's order, so they round as the CPU's do.
// Included by sample_token.glsl after sample_select.glsl.

shared uint skey[K_MAX];
shared uint sid[K_MAX];
shared real prob[K_MAX];
const uint RANKS = (K_MAX + WG - 1u) / WG;  // candidates an invocation places in the sort
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

  // Sorted by rank, descending in the (logit, -id) order: each candidate's place is the number of
  // candidates before it (ids are distinct, so places are too). Two barriers; a bitonic sort took one
  // per pass (21 for the default top-k of 40), each with the whole workgroup.
  uint rk[RANKS], rkey[RANKS], rid[RANKS];
  for (uint r = 0u; r < RANKS; ++r) {
    const uint i = t + r * WG;
    rk[r] = 0u;
    rkey[r] = i < k ? skey[i] : 0u;
    rid[r] = i < k ? sid[i] : 0u;
  }
  for (uint j = 0u; j < k; ++j) {
    const uint kj = skey[j], ij = sid[j];
    for (uint r = 0u; r < RANKS; ++r)
      if (before(kj, ij, rkey[r], rid[r])) ++rk[r];
  }
  barrier();
  for (uint r = 0u; r < RANKS; ++r)
    if (t + r * WG < k) {
      skey[rk[r]] = rkey[r];
      sid[rk[r]] = rid[r];
    }
  barrier();

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
    // top-p: the smallest prefix whose mass reaches top_p. The kept mass is the sum of the kept
    // probabilities from 0 in order (the CPU's loop): top-p's running sum, or min-p's below.
    real mass = real(0);
    bool have_mass = false;
    if (st.top_p < 1.0) {
      uint n = 0u;
      while (n < keep) {
        mass += prob[n++];
        if (mass >= real(st.top_p)) break;
      }
      keep = n;
      have_mass = true;
    }
    // min-p relative to the most likely token; it keeps a prefix, summed again as it is scanned.
    if (st.min_p > 0.0) {
      const real floor_ = real(st.min_p) * prob[0];
      mass = real(0) + prob[0];
      uint n = 1u;
      while (n < keep && prob[n] >= floor_) mass += prob[n++];
      keep = n;
      have_mass = true;
    }
    if (!have_mass)
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
