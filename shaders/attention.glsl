// Causal attention for a block of queries over the KV cache, one workgroup per (query head, token).
// Token t sits at position p = token_pos(t) and attends to positions [0, p] of its sequence, whose
// cache rows start at token_kv(t) (common.glsl; TOKENS_FROM says how this pipeline finds them); head h
// reads KV head h / (heads / kv_heads) (GQA). Keys are taken in chunks of SPLIT_KEYS with an online
// softmax (running max and sum, the accumulator rescaled per chunk), so any context length fits in fixed
// shared memory. Scores: TPK threads per key, each summing a strided slice of the head dimensions
// (neighbouring threads read neighbouring words of a key row, so a row is read in one coalesced
// sweep), KPT keys an invocation with all their loads in flight, so KPT * wg / TPK keys are scored
// at once; the slices are summed in shared memory. Values: each thread owns up to 2 pairs of
// neighbouring output dimensions (hd <= 4 * workgroup size) and walks the chunk's keys, reading value
// rows coalesced across threads.
// Split-K (splits > 1): workgroup z = s takes only keys [s * SPLIT_KEYS, (s + 1) * SPLIT_KEYS) and writes
// its partial (max, sum, unnormalized accumulator) to binding 5; attention_combine merges the splits.
// That spreads a long context over many workgroups (decode has only `heads` of them otherwise).
// TRIT_SELF_COMBINE (attention_decode*.comp, one token): no second dispatch. Only the splits that hold
// keys run; each publishes its partial and counts itself in at binding 6, and the last one to arrive
// merges them (attention_combine's arithmetic) and resets the counter: one dependent step, not two.
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool KV_F16 = true;
layout(constant_id = 2) const uint SPLIT_KEYS = 128;
layout(constant_id = 3) const uint TOKENS_FROM = FROM_PARAMS;  // common.glsl
layout(std430, binding = 1) readonly buffer Q { real q[]; };
layout(std430, binding = 2) readonly buffer KC { uint kc[]; };
layout(std430, binding = 3) readonly buffer VC { uint vc[]; };
layout(std430, binding = 4) writeonly buffer O { real o[]; };
// Partials of split s of (head h, token t) at ((t * heads + h) * splits + s) * (hd + 2): m, l, acc[hd].
#ifdef TRIT_SELF_COMBINE
layout(std430, binding = 5) coherent buffer Part { real part[]; };
layout(std430, binding = 6) coherent buffer Count { uint arrived[]; };  // per (token, head); zero between uses
shared bool last_to_arrive;
shared real wsplit[gl_WorkGroupSize.x];
#include "attention_merge.glsl"
#else
layout(std430, binding = 5) writeonly buffer Part { real part[]; };
#endif
layout(push_constant) uniform Push { uint heads; uint kv_heads; uint hd; uint splits; } pc;

const uint MAX_HD = 512;
const uint TPK = 8;  // threads per key in the score pass (the workgroup size is a multiple of 8)
// Keys an invocation scores at once (key_sums). Four made the batched steps' workgroups hold more
// registers, so fewer were resident: 4 to 8 sequences after 1,024 tokens 4% slower (H200).
const uint KPT = 2;
shared real qs[MAX_HD];
shared real ps[SPLIT_KEYS];               // the chunk's scores, then its probabilities
shared real slice[KPT * gl_WorkGroupSize.x];  // per-thread partial dot products of the score pass

#include "kv_cache.glsl"

// The score pass's sums of KPT keys over N of each key's words, every TPK-th from d2: the words of all
// KPT keys loaded before their sums, so a chunk's scores take one round trip to memory where one key after
// another took one each. Each key's sum keeps the order of one word at a time. In key_sums, of its d2,
// kb, live and dots: a macro, so each count's loops keep constant bounds (the driver unrolls them into
// registers) and the SPIR-V is the same as with the two counts written out.
#define KEY_WORDS(N)                                                                                \
  {                                                                                                 \
    uint kw[KPT * N];                                                                               \
    for (uint k = 0; k < KPT; ++k)                                                                  \
      for (uint i = 0; i < N; ++i) kw[k * N + i] = live[k] ? kc[kb[k] / 2 + d2 + i * TPK] : 0u;     \
    for (uint k = 0; k < KPT; ++k)                                                                  \
      for (uint i = 0; i < N; ++i) {                                                                \
        const real2 kk = real2(unpackHalf2x16(kw[k * N + i]));                                      \
        dots[k] += qs[2 * (d2 + i * TPK)] * kk.x + qs[2 * (d2 + i * TPK) + 1] * kk.y;               \
      }                                                                                             \
  }

// The invocation's words of KPT keys (every TPK-th from kpart), eight at a time, then four, then one.
// kb[i]: key i's first element (keys past the chunk's end are neither loaded nor scored).
void key_sums(inout real dots[KPT], const uint kb[KPT], const bool live[KPT], uint kpart, uint hd) {
  uint d2 = kpart;
  for (; d2 + 7 * TPK < hd / 2; d2 += 8 * TPK) KEY_WORDS(8)
  for (; d2 + 3 * TPK < hd / 2; d2 += 4 * TPK) KEY_WORDS(4)
  for (; d2 < hd / 2; d2 += TPK) {
    uint kw[KPT];
    for (uint k = 0; k < KPT; ++k) kw[k] = live[k] ? kc[kb[k] / 2 + d2] : 0u;
    for (uint k = 0; k < KPT; ++k) {
      const real2 kk = real2(unpackHalf2x16(kw[k]));
      dots[k] += qs[2 * d2] * kk.x + qs[2 * d2 + 1] * kk.y;
    }
  }
}

// a plus the chunk's weights times its value pairs of dimensions (e, e + 1), over its cnt keys, whose
// elements e lie `stride` apart from element e0 of the cache: one pair (an F16 word) a key. VPT loads in
// flight before their sums (a plain loop waits out each load's latency); the keys in order. A pair
// an invocation makes a 128-wide head one chain of loads on 64 invocations, not two. Shorter chains
// (a chunk's keys in groups on the idle invocations, or more loads in flight) cost batched steps more
// registers and resident workgroups than they save: a batched step's attention is bound by its
// dispatch's boundary and the splits' merge, not by this chain (docs/benchmarks.md).
const uint VPT = 16;
real2 value_sums(real2 a, uint e0, uint stride, uint cnt) {
  uint jj = 0;
  for (; jj + VPT <= cnt; jj += VPT) {
    kv_pair_t vw[VPT];
    for (uint i = 0; i < VPT; ++i) vw[i] = KV_LOAD_PAIR(vc, kv_word(e0 + (jj + i) * stride));
    for (uint i = 0; i < VPT; ++i) {
      const real2 vv = kv_unpack_pair(vw[i]);
      a.x += ps[jj + i] * vv.x;
      a.y += ps[jj + i] * vv.y;
    }
  }
  for (; jj < cnt; ++jj) {
    const real2 vv = kv_unpack_pair(KV_LOAD_PAIR(vc, kv_word(e0 + jj * stride)));
    a.x += ps[jj] * vv.x;
    a.y += ps[jj] * vv.y;
  }
  return a;
}

void main() {
  const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y;
  if (t >= params.n_tokens) return;
  const uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  const uint n_all = token_pos(t, TOKENS_FROM) + 1;
  const uint kv0 = token_kv(t, TOKENS_FROM);  // the cache row of the sequence's position 0
  const bool split = pc.splits > 1;
  const uint k_begin = split ? gl_WorkGroupID.z * SPLIT_KEYS : 0;
  const uint n_ctx = split ? min(n_all, k_begin + SPLIT_KEYS) : n_all;
  const uint pbase = ((t * pc.heads + h) * pc.splits + gl_WorkGroupID.z) * (pc.hd + 2);
  if (split && k_begin >= n_all) {  // nothing to see: an empty partial (whole workgroup)
#ifdef TRIT_SELF_COMBINE
    return;  // only the splits that hold keys take part
#endif
    if (tid == 0) {
      part[pbase] = real(0);
      part[pbase + 1] = real(0);
    }
    return;
  }
  const uint qdim = pc.heads * pc.hd, kvdim = pc.kv_heads * pc.hd;
  const uint kvoff = (h / (pc.heads / pc.kv_heads)) * pc.hd;
  for (uint d = tid; d < pc.hd; d += wg) qs[d] = q[t * qdim + h * pc.hd + d];
  barrier();

  const real scale = real(1) / sqrt(real(pc.hd));  // as the reference, in the activation precision
  const uint kslot = tid / TPK, kpart = tid % TPK, kpp = wg / TPK;  // key slot, slice, keys per pass
  // The value pass's sums: invocation tid owns the pairs of dimensions (d0, d0 + 1) and (d1, d1 + 1).
  const uint d0 = 2 * tid, d1 = 2 * (tid + wg);
  const bool has0 = d0 < pc.hd, has1 = d1 < pc.hd;
  real2 acc0 = real2(0), acc1 = real2(0);
  real m = real(0), l = real(0);
  bool first = true;
  for (uint c0 = k_begin; c0 < n_ctx; c0 += SPLIT_KEYS) {
    const uint cnt = min(SPLIT_KEYS, n_ctx - c0);
    for (uint j0 = 0; j0 < cnt; j0 += KPT * kpp) {
      // This invocation's slice of keys j0 + kslot + k * kpp, k < KPT.
      real dots[KPT];
      uint kb[KPT];
      bool live[KPT];
      for (uint k = 0; k < KPT; ++k) {
        dots[k] = real(0);
        live[k] = j0 + kslot + k * kpp < cnt;
        kb[k] = (kv0 + c0 + j0 + kslot + k * kpp) * kvdim + kvoff;
      }
      if (KV_F16) {
        key_sums(dots, kb, live, kpart, pc.hd);
      } else {
        for (uint k = 0; k < KPT; ++k)
          if (live[k])
            for (uint d = kpart; d < pc.hd; d += TPK) dots[k] += qs[d] * KV_FULL_AT(kc, kv_word(kb[k] + d));
      }
      for (uint k = 0; k < KPT; ++k) slice[k * wg + tid] = dots[k];
      barrier();
      for (uint k = 0; k < KPT; ++k) {
        const uint jj = j0 + kslot + k * kpp;
        if (kpart == 0 && jj < cnt) {
          real sum = real(0);
          for (uint i = 0; i < TPK; ++i) sum += slice[k * wg + tid + i];
          ps[jj] = sum * scale;
        }
      }
      barrier();
    }
    real cmax = real(-3.0e38);
    for (uint jj = tid; jj < cnt; jj += wg) cmax = max(cmax, ps[jj]);
    cmax = wg_max(cmax);
    const real m_new = first ? cmax : max(m, cmax);
    const real factor = first ? real(0) : exp_real(m - m_new);
    real psum = real(0);
    for (uint jj = tid; jj < cnt; jj += wg) {
      const real p = exp_real(ps[jj] - m_new);
      ps[jj] = p;
      psum += p;
    }
    l = l * factor + wg_sum(psum);  // wg_sum's barriers also publish ps[]
    m = m_new;
    first = false;
    const uint e0 = (kv0 + c0) * kvdim + kvoff;  // the chunk's first value row, this head's element 0
    if (has0) acc0 = value_sums(acc0 * factor, e0 + d0, kvdim, cnt);
    if (has1) acc1 = value_sums(acc1 * factor, e0 + d1, kvdim, cnt);
    barrier();  // ps[] is rewritten by the next chunk
  }
#ifdef TRIT_SELF_COMBINE
  // Only one split holds keys (a context up to SPLIT_KEYS so far): it is the whole answer.
  const bool alone = n_all <= SPLIT_KEYS;
#else
  const bool alone = false;
#endif
  if (split && !alone) {
    if (tid == 0) {
      part[pbase] = m;
      part[pbase + 1] = l;
    }
    if (has0) {
      part[pbase + 2 + d0] = acc0.x;
      part[pbase + 3 + d0] = acc0.y;
    }
    if (has1) {
      part[pbase + 2 + d1] = acc1.x;
      part[pbase + 3 + d1] = acc1.y;
    }
#ifdef TRIT_SELF_COMBINE
    // Publish the partial, then count in; the last split to arrive sees every other partial.
    memoryBarrierBuffer();
    barrier();
    const uint n_splits = (n_all + SPLIT_KEYS - 1) / SPLIT_KEYS;
    const uint slot = t * pc.heads + h;
    if (tid == 0) last_to_arrive = atomicAdd(arrived[slot], 1u) == n_splits - 1u;
    barrier();
    if (!last_to_arrive) return;
    memoryBarrierBuffer();
    if (tid == 0) arrived[slot] = 0u;
    real merged[4];
    merge_splits((t * pc.heads + h) * pc.splits * (pc.hd + 2), pc.hd + 2, n_splits, pc.hd, true, merged, l);
    for (uint r = 0; r < 4; ++r) {
      const uint d = tid + r * wg;
      if (d >= pc.hd) break;
      o[t * qdim + h * pc.hd + d] = merged[r] / l;
    }
#endif
    return;
  }
  const uint ob = t * qdim + h * pc.hd;
  if (has0) {
    o[ob + d0] = acc0.x / l;
    o[ob + d0 + 1] = acc0.y / l;
  }
  if (has1) {
    o[ob + d1] = acc1.x / l;
    o[ob + d1 + 1] = acc1.y / l;
  }
}
