// GPU sampler, phase 1 (engine/src/vulkan/gpu_sampler.h), in every workgroup: takes the workgroup's
// SLICE logits (LIST: the logits of SLICE entries of the candidate list), applies the repetition penalty
// to the penalised ids among them, and writes the slice's top k candidates (in no particular order) as
// (order key, id) pairs to its region of `cand`. Included by sample_token.glsl after sample_common.glsl.

shared uint slice_key[SLICE];
shared uint slice_id[LIST ? SLICE : 1];

// The id of the slice's i-th logit.
uint slice_row(uint base, uint i) { return LIST ? slice_id[i] : base + i; }

// len: the logits (LIST: the list's entries) the slices cover.
void select_slice(uint len, uint k) {
  const uint t = gl_LocalInvocationID.x;
  const uint base = gl_WorkGroupID.x * SLICE;
  const uint n = base < len ? min(SLICE, len - base) : 0u;
  if (k == 0u) return;  // unsupported parameters: the last workgroup reports them

  if (LIST) {
    // Each id once; the head flagged the penalised ones (exactly the ids of the window, see sample_state.glsl).
    for (uint i = t; i < n; i += WG) {
      const uint e = list.ids[base + i];
      const uint id = e & ~PENALISED;
      const float l = logits[id];
      slice_key[i] = order_key((e & PENALISED) != 0u ? penalise(l, st.repeat_penalty) : l);
      slice_id[i] = id;
    }
  } else {
    for (uint i = t; i < n; i += WG) slice_key[i] = order_key(logits[base + i]);
    barrier();
    const uint np = penalised_count();
    for (uint j = t; j < np; j += WG) {
      const uint id = uint(st.penalty_ids[j]);  // negative ids become huge and fall outside
      if (id >= base && id - base < n) slice_key[id - base] = order_key(penalise(logits[id], st.repeat_penalty));
    }
  }
  const uint region = gl_WorkGroupID.x * min(K_MAX, SLICE);
  if (k == 1u) {  // greedy or top-1: the slice's best, by a reduction
    barrier();    // the penalised keys are written
    uint bk = 0u, bi = 0xffffffffu;
    for (uint i = t; i < n; i += WG) {
      // (Without LIST an invocation's ids ascend, so the first of equals stays; a list is in any order.)
      const uint id = slice_row(base, i);
      if (bi == 0xffffffffu || slice_key[i] > bk || (slice_key[i] == bk && id < bi)) {
        bk = slice_key[i];
        bi = id;
      }
    }
    const uvec2 best = wg_best(bk, bi);
    if (t == 0u) cand[region] = best;
    return;
  }
  rs_begin(min(k, n));
  if (k < n) {
    for (uint round = 0u; round < 8u; ++round) {
      rs_clear();
      for (uint i0 = 0u; i0 < n; i0 += WG) {
        const uint i = i0 + t;
        uint d = 256u;
        if (i < n) {
          const uvec2 c = uvec2(slice_key[i], ~slice_row(base, i));
          if (rs_matches(c)) d = rs_digit(c, round);
        }
        rs_count_digit(d);
      }
      rs_choose(round);
      if (rs_done != 0u) break;
    }
  }
  // The region of this workgroup holds min(k, SLICE) pairs (min(k, n) of them written).
  for (uint i = t; i < n; i += WG) {
    const uint id = slice_row(base, i);
    const uvec2 c = uvec2(slice_key[i], ~id);
    if (rs_selected(c)) cand[region + atomicAdd(rs_count, 1u)] = uvec2(c.x, id);
  }
}
