// Causal attention for a block of queries (prefill). One workgroup takes a tile of TT consecutive
// tokens and the G query heads that share one KV head (GQA): Q = TT x G queries meet every key and
// value row of the tile's context once, so a row read from memory serves Q queries instead of G (the
// previous kernel, one workgroup per token, was bound by dependent loads and barriers: 47% of prefill
// on the H100: 23.7 us per prompt token; this one takes 11.9). Per chunk of CH keys: the chunk's key and value rows
// staged in shared memory with coalesced loads, every (key, query) score in one pass, the online-softmax
// update of each query, then every (query, dimension) output in one pass; four barriers.
//
// Numerics: double (or float) throughout, like the one-token kernel, but sums are taken in another
// order (a score is one running sum over the dimensions, a probability sum over CH / 8 keys then a
// shuffle tree), so results match attention.glsl to rounding, not bit for bit.
// Token t sits at position pos0 + t and attends to positions [0, pos0 + t] of one sequence, whose cache
// rows start at kv_base (blocks are never batched steps: common.glsl).
#include "common.glsl"
#extension GL_KHR_shader_subgroup_shuffle : require
layout(local_size_x_id = 0) in;                 // 256
layout(constant_id = 1) const bool KV_F16 = true;
layout(constant_id = 2) const uint CH = 32;     // keys per chunk (8 or 16 for wide rows: Kernels::attention_block)
layout(constant_id = 3) const uint G = 4;       // query heads per KV head
layout(constant_id = 4) const uint TT = 8;      // tokens per tile; Q = TT * G <= 32
layout(constant_id = 5) const uint KROW = 17;   // uvec4s per staged key row: the row's, plus one of padding
#include "kv_cache.glsl"
layout(std430, binding = 1) readonly buffer Q { real q[]; };
layout(std430, binding = 2) readonly buffer KC { uvec4 kc[]; };
layout(std430, binding = 3) readonly buffer VC { uint vc[]; };
layout(std430, binding = 4) writeonly buffer O { real o[]; };
layout(push_constant) uniform Push { uint heads; uint kv_heads; uint hd; } pc;

const uint WG = gl_WorkGroupSize.x;
const uint NQ = TT * G;          // queries of the tile
const uint QS = WG / CH;         // score pass: query groups (CH keys x QS groups = WG)
const uint QG = (NQ + QS - 1) / QS;
const uint QP = (NQ + 3) / 4;    // value pass: 4 query groups x 64 dimension pairs
const uint TPQ = 8;              // softmax: invocations per query
const uint HDMAX = 128;
const real MASKED = real(-3.0e38);

shared real4 qs[NQ * HDMAX / 4];  // the tile's queries, [query][dimension]
shared real ps[NQ * CH];          // scores, then probabilities, [query][key]
shared real qm[NQ], ql[NQ], qf[NQ];  // running max, sum and this chunk's rescale factor
// The chunk's key rows as stored (kv_cache.glsl), staged with coalesced loads: in the score pass each
// invocation reads its own key's row, which straight from memory put a warp's 32 loads in 32 rows.
// The padding puts neighbouring rows' same word in different banks.
shared uvec4 ks[CH * KROW];
// The chunk's value rows as stored, 32-bit words (a value pass that loaded them from memory key after
// key waited on each load in turn).
const uint VW = (KROW - 1u) * 4u;
shared uint vs[CH * VW];

// Query i of the tile: token t0 + i / G, head h0 + i % G.
uint q_token(uint i) { return i / G; }

// Dimensions 8w .. 8w + 7 (F16: uvec4 w) or 4w .. 4w + 3 (full precision: KV_FULL_WORDS uvec4s from
// KV_FULL_WORDS * w) of staged key k, as reals.
void key_words(uint k, uint w, out real4 lo, out real4 hi) {
  const uint at = k * KROW + (KV_F16 ? w : KV_FULL_WORDS * w);
  const uvec4 u = ks[at];
  if (KV_F16) {
    lo = real4(unpackHalf2x16(u.x), unpackHalf2x16(u.y));
    hi = real4(unpackHalf2x16(u.z), unpackHalf2x16(u.w));
  } else {
    lo = kv_full4(u, ks[at + KV_FULL_WORDS - 1u]);
    hi = real4(0);
  }
}

void main() {
  // The last tiles see the most keys: they are launched first, so the short ones fill in behind them.
  const uint kvh = gl_WorkGroupID.x, t0 = (gl_NumWorkGroups.y - 1u - gl_WorkGroupID.y) * TT;
  if (t0 >= params.n_tokens) return;
  const uint tid = gl_LocalInvocationID.x;
  const uint hd = pc.hd, qdim = pc.heads * hd, kvdim = pc.kv_heads * hd;
  const uint kvoff = kvh * hd, h0 = kvh * G;
  const uint t_end = min(t0 + TT, params.n_tokens);
  const uint n_keys = params.pos0 + t_end;  // keys any query of the tile sees
  const uint kv0 = params.kv_base;
  const real scale = real(1) / sqrt(real(hd));

  for (uint e = tid; e < NQ * hd / 4u; e += WG) {
    const uint i = e / (hd / 4u), d = 4u * (e % (hd / 4u));
    const uint t = min(t0 + q_token(i), params.n_tokens - 1u);  // queries past the block copy a real row
    const uint b = t * qdim + (h0 + i % G) * hd + d;
    qs[i * (HDMAX / 4u) + d / 4u] = real4(q[b], q[b + 1u], q[b + 2u], q[b + 3u]);
  }
  if (tid < NQ) {
    qm[tid] = MASKED;
    ql[tid] = real(0);
  }

  // Score pass: invocation (key k, query group sg).
  const uint sk = tid % CH, sg = tid / CH;
  // Value pass: invocation (dimension pair vp, query group vg).
  const uint vp = tid % 64u, vg = tid / 64u;
  real2 acc[QP];
  for (uint j = 0; j < QP; ++j) acc[j] = real2(0);
  // Softmax: invocation (query sq, slot ss).
  const uint sq = tid / TPQ, ss = tid % TPQ;
  const uint words = KV_F16 ? hd / 8u : hd / 4u;  // key_words per key row
  const uint kwords = hd / KV_PER_UVEC4, vwords = kv_word(hd);  // uvec4s of a key row, words of a value row
  barrier();

  for (uint c0 = 0; c0 < n_keys; c0 += CH) {
    const uint cnt = min(CH, n_keys - c0);
    for (uint e = tid; e < cnt * kwords; e += WG) {
      const uint k = e / kwords, w = e % kwords;
      ks[k * KROW + w] = kc[((kv0 + c0 + k) * kvdim + kvoff) / KV_PER_UVEC4 + w];
    }
    for (uint e = tid; e < cnt * vwords; e += WG) {
      const uint k = e / vwords, w = e % vwords;
      vs[k * VW + w] = vc[kv_word((kv0 + c0 + k) * kvdim + kvoff) + w];
    }
    barrier();
    // Scores.
    {
      real d[QG];
      for (uint j = 0; j < QG; ++j) d[j] = real(0);
      const uint row = c0 + sk;
      if (sk < cnt) {
        for (uint w = 0; w < words; ++w) {
          real4 lo, hi;
          key_words(sk, w, lo, hi);
          const uint d4 = KV_F16 ? 2u * w : w;
          for (uint j = 0; j < QG; ++j) {
            const uint i = min(sg * QG + j, NQ - 1u);
            d[j] += dot(qs[i * (HDMAX / 4u) + d4], lo);
            if (KV_F16) d[j] += dot(qs[i * (HDMAX / 4u) + d4 + 1u], hi);
          }
        }
      }
      for (uint j = 0; j < QG; ++j) {
        const uint i = sg * QG + j;
        if (i >= NQ) break;
        const uint pos = params.pos0 + t0 + q_token(i);
        ps[i * CH + sk] = sk < cnt && row <= pos ? d[j] * scale : MASKED;
      }
    }
    barrier();
    // Online softmax per query: TPQ invocations (aligned lanes of one subgroup), CH / TPQ keys each,
    // a shuffle tree across them.
    if (sq < NQ) {
      real mx = MASKED;
      for (uint k = ss; k < CH; k += TPQ) mx = max(mx, ps[sq * CH + k]);
      for (uint off = TPQ / 2u; off > 0u; off /= 2u) mx = max(mx, subgroupShuffleXor(mx, off));
      const real m_old = qm[sq];
      const real m_new = max(m_old, mx);  // every query sees key 0 in the first chunk: finite
      real sum = real(0);
      for (uint k = ss; k < CH; k += TPQ) {
        const real s = ps[sq * CH + k];
        const real p = s == MASKED ? real(0) : exp_real(s - m_new);
        ps[sq * CH + k] = p;
        sum += p;
      }
      for (uint off = TPQ / 2u; off > 0u; off /= 2u) sum += subgroupShuffleXor(sum, off);
      if (ss == 0u) {
        const real f = c0 == 0u ? real(0) : exp_real(m_old - m_new);
        ql[sq] = ql[sq] * f + sum;
        qm[sq] = m_new;
        qf[sq] = f;
      }
    }
    barrier();
    // Values: each invocation two dimensions of QP queries.
    if (2u * vp < hd) {
      for (uint j = 0; j < QP; ++j) {
        const uint i = min(vg * QP + j, NQ - 1u);
        acc[j] *= qf[i];
      }
      for (uint k = 0; k < cnt; ++k) {
        const real2 vv = kv_unpack_pair(KV_LOAD_PAIR(vs, k * VW + KV_PAIR_WORDS * vp));
        for (uint j = 0; j < QP; ++j) {
          const uint i = min(vg * QP + j, NQ - 1u);
          acc[j] += ps[i * CH + k] * vv;
        }
      }
    }
    barrier();  // ps[] and qf[] are rewritten by the next chunk
  }
  if (2u * vp < hd)
    for (uint j = 0; j < QP; ++j) {
      const uint i = vg * QP + j;
      if (i >= NQ) break;
      const uint t = t0 + q_token(i);
      if (t >= params.n_tokens) break;
      const uint b = t * qdim + (h0 + i % G) * hd + 2u * vp;
      o[b] = acc[j].x / ql[i];
      o[b + 1u] = acc[j].y / ql[i];
    }
}
