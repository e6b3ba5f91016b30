// One work item of the grouped attention: the keys [k0, k1) of KV head g for its GQ query heads, one
// load of a key or value row serving every query head of the group. Shared by the persistent decode
// kernel (decode_layer.glsl, step 2) and a batched step's attention (attention_gqa.glsl), so the two
// compute alike. The includer declares first: the constants WG, HD, GQ, VPARTS, MAXS, KV_F16 and
// ATT_MIN_SPLIT (keys a split holds at least, a multiple of 16), `tid`, the word type ATT_WORD of a
// pair of cache elements with
//   ATT_WORD k_word(uint row, uint g, uint w), v_word(...): dimensions 2w, 2w + 1 of a key or value row;
//   real2 att_pair(ATT_WORD): the pair's two elements;
//   real group_q(uint g, uint e): element e of the q rows of KV head g's query heads;
// CLUSTER_SUM(v, n) and butterfly_sum(real, uint) (sums over aligned clusters of lanes), and the
// partials' buffer `part[]` ((m, l, acc[HD]) per split, HD + 2 apart) that merged_output reads.
const uint TPK = 8u;        // invocations per key in the score pass
const uint CH = WG / TPK;   // keys per chunk of a work item: one score pass (scores sit in ps[])
const uint VW = HD / 2u;    // dimension pairs of a value row
const uint KW = HD / 2u / TPK;  // pairs of a key row per invocation in the score pass
const uint VK = CH / VPARTS;    // value pairs per invocation per chunk
shared real qs[GQ * HD];
shared real ps[GQ * CH];
shared real hm[GQ], hl[GQ], hf[GQ];
shared real lsum[GQ * CH];  // the unshifted softmax: each score lane's running sum of its keys' weights
// The value pass's partial sums: VRED slots; with more groups than 4, the upper half adds into the
// lower half's slots first (shared memory: eight slots of double would not fit beside the rest).
const uint VRED = VPARTS > 4u ? VPARTS / 2u : VPARTS;
shared real vred[VRED * GQ * HD];
// This invocation's key and value words of the chunk [c0, c0 + cnt) of KV head g. In the persistent
// kernel a work item's first chunk is loaded before it waits for its QKV rows (wait_ready); for the others, the
// keys during the previous chunk's value pass and the values at the start of their own chunk. Loading
// the whole next chunk a chunk ahead kept its words live through all of a chunk's arithmetic, in a
// kernel at its register cap, and measured ~1% slower at every context than loading each chunk at its
// start; the keys alone, only over the value pass, ~1.5% faster than that.
// Only rows in [lo, hi) are loaded: before that wait the current token's row is not written yet.
void load_keys(inout ATT_WORD kpre[KW], uint g, uint c0, uint cnt, uint lo, uint hi) {
  const uint kslot = tid / TPK, kpart = tid % TPK;
  const uint kr = c0 + kslot;
  if (kslot < cnt && kr >= lo && kr < hi)
    for (uint i = 0; i < KW; ++i) kpre[i] = k_word(kr, g, kpart + TPK * i);
}

void load_values(inout ATT_WORD vpre[VK], uint g, uint c0, uint cnt, uint lo, uint hi) {
  const uint vw = tid % VW, vpart = tid / VW;
  if (vpart < VPARTS)
    for (uint i = 0; i < VK; ++i) {
      const uint j = vpart + VPARTS * i;
      if (j < cnt && c0 + j >= lo && c0 + j < hi) vpre[i] = v_word(c0 + j, g, vw);
    }
}

void load_chunk(inout ATT_WORD kpre[KW], inout ATT_WORD vpre[VK], uint g, uint c0, uint cnt, uint lo, uint hi) {
  load_keys(kpre, g, c0, cnt, lo, hi);
  load_values(vpre, g, c0, cnt, lo, hi);
}

// How the keys [0, n_all) split into work items: keys per split a multiple of 16 and ATT_MIN_SPLIT at
// least, few enough splits that every KV head has at most MAXS of them (one work item per workgroup),
// so longer contexts spread over many workgroups. Up to two chunks of keys stay in one work item a KV
// head: a second chunk costs less than publishing the splits and merging them, a third one more.
void attention_items(uint n_all, out uint split, out uint n_splits) {
  if (n_all <= 2u * CH) {
    split = n_all;
    n_splits = 1u;
    return;
  }
  const uint per = (n_all + MAXS - 1u) / MAXS;
  split = max(((per + 15u) / 16u) * 16u, ATT_MIN_SPLIT);
  n_splits = (n_all + split - 1u) / split;
}

// The softmax weights need no shift: while a head's sum of e^s over its keys stays inside
// [SOFTMAX_MIN, SOFTMAX_MAX], every weight that matters is a normal number and nothing overflows, so
// e^s loses nothing against e^(s - max) (float: a weight below the range's floor is under 1e-8 of the
// sum, below float's precision; double: scores within +-~575), and softmax is unchanged by the shift
// (the reference subtracts the max only so that float cannot overflow). Without it a chunk needs no
// maximum before its weights, so the score lanes take e^s at once and keep their own running sums
// (lsum[]): no workgroup-wide max and sum per chunk, and none of the rescaling. Where the sums leave
// the range (float: scores beyond about +-60; a degenerate model) the work item is redone with the
// running maximum (`exact`), as the fused kernels compute it.
#ifdef TRIT_F64
const double SOFTMAX_MIN = 1e-250LF, SOFTMAX_MAX = 1e250LF;
#else
const float SOFTMAX_MIN = 1e-30, SOFTMAX_MAX = 1e30;
#endif

// Score s of key slot `slot` for head h: as is for the exact pass (its softmax phase shifts it), else
// its weight e^s, added to the slot's running sum.
void put_score(uint h, uint slot, real s, bool exact) {
  if (exact) {
    ps[h * CH + slot] = s;
  } else {
    const real p = exp_real(s);
    ps[h * CH + slot] = p;
    lsum[h * CH + slot] += p;
  }
}

// Keys [k0, k1) of KV head g for its GQ query heads: softmax over chunks of CH keys, without a shift
// or (exact) online with the running maximum. kpre/vpre hold the first chunk's words except rows >=
// `have` (loaded here). On return vred[] holds the value pass's partial sums (reduced by out_at), hm[]
// / hl[] the heads' shift (0 unless exact) and sum of weights.
void attend(inout ATT_WORD kpre[KW], inout ATT_WORD vpre[VK], uint g, uint k0, uint k1, uint have, bool exact) {
  const real scale = real(1) / sqrt(real(HD));
  for (uint e = tid; e < GQ * HD; e += WG) qs[e] = group_q(g, e);
  for (uint e = tid; e < GQ * CH; e += WG) lsum[e] = real(0);
  load_chunk(kpre, vpre, g, k0, min(CH, k1 - k0), have, 0xffffffffu);
  barrier();
  const uint kslot = tid / TPK, kpart = tid % TPK;
  const uint vw = tid % VW, vpart = tid / VW;
  real va[GQ][2];
  for (uint h = 0; h < GQ; ++h) va[h][0] = va[h][1] = real(0);
  bool first = true;
  for (uint c0 = k0; c0 < k1; c0 += CH) {
    const uint cnt = min(CH, k1 - c0);
    // Keys of later chunks were requested in the previous chunk's value pass; values load here, a
    // score pass and a softmax ahead of their use.
    if (c0 != k0) load_values(vpre, g, c0, cnt, 0u, 0xffffffffu);
    // Scores: TPK invocations per key, each a strided slice of the dimensions, for all GQ heads (one
    // load of a key row serves every query head of its group).
    real d[GQ];
    for (uint h = 0; h < GQ; ++h) d[h] = real(0);
    if (kslot < cnt)
      for (uint i = 0; i < KW; ++i) {
        const uint d2 = kpart + TPK * i;
        const real2 kk = att_pair(kpre[i]);
        for (uint h = 0; h < GQ; ++h) d[h] += qs[h * HD + 2u * d2] * kk.x + qs[h * HD + 2u * d2 + 1u] * kk.y;
      }
    if (GQ == 4u && TPK == 8u) {
      // Reduce-scatter over the key's 8 lanes: each level halves the values a lane carries, so the
      // four heads' sums take 4 shuffles instead of 12; lanes 2h and 2h + 1 end with head h's.
      const bool hi4 = (kpart & 4u) != 0u, hi2 = (kpart & 2u) != 0u;
      real a0 = hi4 ? d[2 % GQ] : d[0], a1 = hi4 ? d[3 % GQ] : d[1 % GQ];
      const real s0 = hi4 ? d[0] : d[2 % GQ], s1 = hi4 ? d[1 % GQ] : d[3 % GQ];
      a0 += subgroupShuffleXor(s0, 4u);
      a1 += subgroupShuffleXor(s1, 4u);
      real b = hi2 ? a1 : a0;
      b += subgroupShuffleXor(hi2 ? a0 : a1, 2u);
      b += subgroupShuffleXor(b, 1u);
      const uint h = (hi4 ? 2u : 0u) + (hi2 ? 1u : 0u);
      if ((kpart & 1u) == 0u && kslot < cnt) put_score(h, kslot, b * scale, exact);
    } else {
      for (uint h = 0; h < GQ; ++h) {
        const real sum = CLUSTER_SUM(d[h], TPK);
        if (kpart == 0u && kslot < cnt) put_score(h, kslot, sum * scale, exact);
      }
    }
    barrier();
    // Exact pass: the running maximum, the chunk's weights shifted by it; subgroup h takes head h.
    if (exact) {
      if (gl_SubgroupID < GQ) {
        const uint h = gl_SubgroupID;
        real cmax = real(-3.0e38);
        for (uint j = gl_SubgroupInvocationID; j < cnt; j += gl_SubgroupSize) cmax = max(cmax, ps[h * CH + j]);
        cmax = subgroupMax(cmax);
        const real m_new = first ? cmax : max(hm[h], cmax);
        const real factor = first ? real(0) : exp_real(hm[h] - m_new);
        real psum = real(0);
        for (uint j = gl_SubgroupInvocationID; j < cnt; j += gl_SubgroupSize) {
          const real p = exp_real(ps[h * CH + j] - m_new);
          ps[h * CH + j] = p;
          psum += p;
        }
        psum = subgroupAdd(psum);
        if (subgroupElect()) {
          hl[h] = first ? psum : hl[h] * factor + psum;
          hm[h] = m_new;
          hf[h] = factor;
        }
      }
      barrier();
    }
    // The next chunk's keys, while this chunk's values are summed (the key words are free again).
    if (c0 + CH < k1) load_keys(kpre, g, c0 + CH, min(CH, k1 - c0 - CH), 0u, 0xffffffffu);
    // Values: VW invocations per value row, VPARTS rows at a time, all GQ heads per load.
    if (vpart < VPARTS) {
      if (exact)
        for (uint h = 0; h < GQ; ++h) {
          va[h][0] *= hf[h];
          va[h][1] *= hf[h];
        }
      for (uint i = 0; i < VK; ++i) {
        const uint j = vpart + VPARTS * i;
        if (j >= cnt) break;
        const real2 vv = att_pair(vpre[i]);
        for (uint h = 0; h < GQ; ++h) {
          const real p = ps[h * CH + j];
          va[h][0] += p * vv.x;
          va[h][1] += p * vv.y;
        }
      }
    }
    first = false;
    barrier();  // ps[] is rewritten by the next chunk
  }
  if (vpart < VPARTS && vpart >= VPARTS - VRED)
    for (uint h = 0; h < GQ; ++h) {
      const uint b = ((vpart - (VPARTS - VRED)) * GQ + h) * HD + 2u * vw;
      vred[b] = va[h][0];
      vred[b + 1u] = va[h][1];
    }
  if (VPARTS > VRED) {
    barrier();
    if (vpart < VPARTS - VRED)
      for (uint h = 0; h < GQ; ++h) {
        const uint b = (vpart * GQ + h) * HD + 2u * vw;
        vred[b] += va[h][0];
        vred[b + 1u] += va[h][1];
      }
  }
  if (!exact && gl_SubgroupID < GQ) {
    const uint h = gl_SubgroupID;
    real l = real(0);
    for (uint j = gl_SubgroupInvocationID; j < CH; j += gl_SubgroupSize) l += lsum[h * CH + j];
    l = subgroupAdd(l);
    if (subgroupElect()) {
      hl[h] = l;
      hm[h] = real(0);
    }
  }
  barrier();
}

// attend() without the shift, redone exactly where a head's sum left the range that keeps it lossless.
void attend_item(inout ATT_WORD kpre[KW], inout ATT_WORD vpre[VK], uint g, uint k0, uint k1, uint have) {
  // One copy of attend() in the kernel, its pass chosen at run time.
  for (uint pass = 0u; pass < 2u; ++pass) {
    attend(kpre, vpre, g, k0, k1, pass == 0u ? have : k0, pass == 1u);
    bool ok = true;
    for (uint h = 0; h < GQ; ++h) ok = ok && hl[h] >= SOFTMAX_MIN && hl[h] <= SOFTMAX_MAX;  // NaN fails
    if (ok || pass == 1u) break;
  }
}

// The unnormalised output e = h * HD + d of the last attend().
real out_at(uint e) {
  real r = real(0);
  for (uint p = 0; p < VRED; ++p) r += vred[p * GQ * HD + e];
  return r;
}

// The last attend()'s partials of split s of the head group `group` (its query heads' slots in part[]
// from (group * GQ) * MAXS on, MAXS splits a head): m, l, acc[HD].
void store_partials(uint group, uint s) {
  for (uint e = tid; e < GQ * HD; e += WG) {
    const uint h = e / HD, d = e % HD;
    const uint pb = ((group * GQ + h) * MAXS + s) * (HD + 2u);
    if (d == 0u) {
      part[pb] = hm[h];
      part[pb + 1u] = hl[h];
    }
    part[pb + 2u + d] = out_at(e);
  }
}

// The split partials of a query head (n_splits of them from split hb on), merged: o = sum_s e^(m_s - M)
// acc_s / sum_s e^(m_s - M) l_s with M the largest m_s, as `value` for output dimension d where it
// returns true (one invocation a dimension). MP invocations per output dimension, each summing every MP-th split with
// all its loads in flight; each subgroup derives the weights itself (lane s: split s, so MAXS is at most
// the subgroup size) and hands them round by shuffles: no shared memory, no workgroup barrier.
const uint MP = WG / HD >= 8u ? 8u : WG / HD >= 4u ? 4u : WG / HD >= 2u ? 2u : 1u;
const uint MPS = (MAXS + MP - 1u) / MP;  // splits per invocation at most
bool merged_output(uint hb, uint n_splits, out uint d, out real value) {
  const uint stride = HD + 2u;
  d = tid / MP;
  const uint p = tid % MP;
  const bool live = d < HD;
  real pv[MPS];
  for (uint i = 0; i < MPS; ++i) {
    const uint s2 = p + i * MP;
    pv[i] = live && s2 < n_splits ? part[(hb + s2) * stride + 2u + d] : real(0);
  }
  const uint sl = gl_SubgroupInvocationID;
  const bool has = sl < n_splits;
  const real ms = has ? part[(hb + sl) * stride] : real(-3.0e38);
  const real ls = has ? part[(hb + sl) * stride + 1u] : real(0);
  // Shifts are 0 but where a split took attend's exact pass: then no maximum and no e^0 to take.
  real ws = has ? real(1) : real(0);
  if (subgroupOr(has && ms != real(0) ? 1u : 0u) != 0u) {
    const real mx = subgroupMax(ms);
    ws = has ? exp_real(ms - mx) : real(0);
  }
  const real den = subgroupAdd(ls * ws);
  real o = real(0);
  for (uint i = 0; i < MPS; ++i) o += pv[i] * subgroupShuffle(ws, min(p + i * MP, gl_SubgroupSize - 1u));
  o = butterfly_sum(o, MP);
  value = o / den;
  return live && p == 0u;
}
