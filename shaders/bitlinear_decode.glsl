// One decode step of a BitLinear layer in one kernel: RMSNorm of the input row, its int8 quantization,
// the ternary (I2_S) matrix-vector product and the epilogue, for one token, or for each token of a
// batched decode step (common.glsl's batch mode: one token of each of several sequences), whose weights
// are then read once for every token: TOKENS tokens' input rows are quantized into shared memory at a
// time, and each lane's weight words, held in registers, meet each of them. Every token's arithmetic is
// the one-token kernel's, whatever else the step holds. Decode is bound by the
// number of dependent kernel steps (each costs ~2 us of launch and barrier plus its chain of memory
// round trips), so instead of a norm kernel, a matvec kernel and a RoPE/KV kernel, every workgroup
// normalises and quantizes the whole input row itself (it is small and sits in L2) into shared memory,
// while its weight words are already on their way into registers.
//
// Numerics are those of rmsnorm_quant.glsl + ternary_matmul.glsl + rope_kv.glsl: the same expressions
// in the same order, so the values equal the unfused path's (only the tree order of the sum of squares
// differs, which in double is far below any int8 rounding boundary).
//
// Layout: TPR lanes per row (TPR divides the subgroup size, so the row's partial sums meet through
// subgroup shuffles), RPW = WG / TPR rows per workgroup. Each lane prefetches up to VPL uvec4s of its
// row (one uvec4 = half a 128-element block: words 4h..4h+3, group g at bits 6-2g of each byte).
//
// MODE 0 (QKV): workgroups [0, nq) take rows of Wq, then Wk, then Wv (bindings 1-3). Rows of Wq and Wk
//   are visited in RoPE pair order (dimension i next to i + hd/2 of the same head), so a workgroup holds
//   both halves of every pair it rotates; q goes to Y, rotated k and v are appended to the KV cache at
//   the token's position of its sequence (kv_cache.glsl: F16 pairs rounded to nearest even, or unrounded).
//   NORMAL_ROPE (LLaMA): dimension 2i pairs with 2i + 1, so rows are visited in their own order.
// MODE 1 (residual): Y[row] += W x (HAS_NORM false: x is quantized as it is, no norm before it).
// MODE 2 (FFN gate): Y[row] = relu(W1 x)^2 * (W2 x), or silu(W1 x) * (W2 x) with SILU (LLaMA), W1 at
//   binding 1, W2 at binding 2.
// BLOCK_SCALES (TQ1_0 / TQ2_0 files): a float per 256 elements of a row for each matrix (bindings
//   10-12, as W0-W2), summed as ternary_matmul.glsl sums them.
#include "common.glsl"
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_EXT_control_flow_attributes : require
#include "ternary_codes.glsl"
#include "rope_f16.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint MODE = 1;
layout(constant_id = 3) const uint K = 2560;      // input width (a multiple of 128)
layout(constant_id = 4) const uint VPL = 3;       // uvec4s of a row per lane: ceil(K / 64 / TPR)
layout(constant_id = 5) const uint XPT = 3;       // input real4s per invocation: ceil(K / 4 / WG)
layout(constant_id = 6) const bool KV_F16 = true;
layout(constant_id = 7) const bool HAS_NORM = true;
layout(constant_id = 8) const bool SILU = false;
layout(constant_id = 9) const bool NORMAL_ROPE = false;
layout(constant_id = 10) const bool BLOCK_SCALES = false;
layout(constant_id = 11) const uint TOKENS = 1;   // input rows quantized into shared memory at a time
layout(constant_id = 12) const bool BATCHED = false;  // a batched step's kernel (else one token per submit)
#include "kv_cache.glsl"

layout(std430, binding = 4) readonly buffer X { real4 x[]; };
layout(std430, binding = 5) readonly buffer NW { vec4 nw[]; };
layout(std430, binding = 6) buffer Y { real y[]; };
layout(std430, binding = 7) readonly buffer Rope { real2 cs[]; };  // [context][hd/2] (cos, sin)
layout(std430, binding = 8) writeonly buffer KC { uint kc[]; };
layout(std430, binding = 9) writeonly buffer VC { uint vc[]; };
// rows: rows of W0 (MODE 0: of Wq); rows_kv: rows of Wk and of Wv (MODE 0); hd: head dimension.
layout(push_constant) uniform Push { uint rows; uint rows_kv; uint hd; float eps; float scale0; float scale1; float scale2; } pc;
#include "bitlinear_matrices.glsl"  // the matrices at bindings 1-3 and 10-12

// The quantized input row, 4 int8 per uint, stored as uvec4 [g][j] = words 4j'..4j'+3 of group g for
// the row's uvec4 j: the TPR lanes of a row then read consecutive uvec4s (no bank conflicts), where
// the natural order would put every second lane on the same bank.
shared uvec4 sq[TOKENS * (K / 16)];
const uint RPW = gl_WorkGroupSize.x / TPR;
shared real res[TOKENS * RPW];

#ifdef TRIT_DOT
// A uvec4 of codes as 16 packed int8 words of (code - 1), [4 * group + word]: decoded once per uvec4,
// then met with each token's input.
void decode_words(uvec4 w, out int c[16]) {
  for (uint g = 0; g < 4; ++g)
    for (uint q = 0; q < 4; ++q) c[4 * g + q] = int(ternary_word(w[q], 6u - 2u * g));
}
int dot_words(int c[16], uint j, uint tt) {
  int r = 0;
  for (uint g = 0; g < 4; ++g) {
    const uvec4 a = sq[tt * (K / 16) + g * (K / 64) + j];
    for (uint q = 0; q < 4; ++q) r += sdot4x8(c[4 * g + q], int(a[q]), 0);
  }
  return r;
}
#else
int dot_block(uvec4 w, uint j, uint tt) {
  int r = 0;
  for (uint g = 0; g < 4; ++g) {
    const uvec4 a = sq[tt * (K / 16) + g * (K / 64) + j];
    for (uint q = 0; q < 4; ++q) r += dot4(w[q], 6u - 2u * g, a[q]);
  }
  return r;
}
#endif

// MODE 0's epilogue for token t: its RPW results at res[r0..] (this workgroup's rows in visiting order)
// rotated and written: q to its row of y, k and v to the cache at the token's position of its sequence.
void rope_and_store(uint t, uint r0, uint mat, uint first, uint nrows) {
  const uint tid = gl_LocalInvocationID.x;
  const uint from = BATCHED ? FROM_BATCH : FROM_POS0;
  const uint pos = token_pos(t, from);
  const uint crow = token_kv(t, from) + pos;  // the cache row written
  const uint half_hd = pc.hd / 2;
  const uint kvdim = pc.rows_kv;
  const uint qb = t * pc.rows;  // token t's row of q
  if (NORMAL_ROPE && mat < 2) {
    // One invocation per pair: dimensions 2i and 2i + 1, neighbours in the visiting order too.
    if (tid < RPW / 2 && first + 2 * tid < nrows) {
      const uint vv = first + 2 * tid;
      const uint i = (vv % pc.hd) / 2;
      const real2 r = rotate(res[r0 + 2 * tid], res[r0 + 2 * tid + 1], cs[pos * half_hd + i]);
      if (mat == 0) {
        y[qb + vv] = r.x;
        y[qb + vv + 1] = r.y;
      } else {
        KV_STORE_PAIR(kc, 0u, crow * kvdim + vv, r.x, r.y)
      }
    }
  } else if (mat == 0) {
    // One invocation per pair: q[h hd + i] and q[h hd + i + hd/2] rotated.
    if (tid < RPW / 2 && first + 2 * tid < nrows) {
      const uint vv = first + 2 * tid;
      const uint h = vv / pc.hd, i = (vv % pc.hd) / 2;
      const real2 r = rotate(res[r0 + 2 * tid], res[r0 + 2 * tid + 1], cs[pos * half_hd + i]);
      y[qb + h * pc.hd + i] = r.x;
      y[qb + h * pc.hd + i + half_hd] = r.y;
    }
  } else if (mat == 1) {
    // Two neighbouring pairs per invocation, so cache pairs are written whole.
    if (tid < RPW / 4 && first + 4 * tid < nrows) {
      const uint vv = first + 4 * tid;
      const uint h = vv / pc.hd, i = (vv % pc.hd) / 2;
      const real2 r0v = rotate(res[r0 + 4 * tid], res[r0 + 4 * tid + 1], cs[pos * half_hd + i]);
      const real2 r1v = rotate(res[r0 + 4 * tid + 2], res[r0 + 4 * tid + 3], cs[pos * half_hd + i + 1]);
      const uint dst = crow * kvdim + h * pc.hd + i;
      KV_STORE_PAIR(kc, 0u, dst, r0v.x, r1v.x)
      KV_STORE_PAIR(kc, 0u, dst + half_hd, r0v.y, r1v.y)
    }
  } else {
    if (tid < RPW / 2 && first + 2 * tid < nrows) {
      KV_STORE_PAIR(vc, 0u, crow * kvdim + first + 2 * tid, res[r0 + 2 * tid], res[r0 + 2 * tid + 1])
    }
  }
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint lane = tid % TPR, lr = tid / TPR;
  const uint row_vecs = K / 64;

  // Which matrix and row this lane group computes.
  uint mat = 0, first = gl_WorkGroupID.x * RPW, nrows = pc.rows;
  if (MODE == 0) {
    const uint nq = pc.rows / RPW, nk = pc.rows_kv / RPW;
    if (gl_WorkGroupID.x >= nq + nk) {
      mat = 2;
      first = (gl_WorkGroupID.x - nq - nk) * RPW;
      nrows = pc.rows_kv;
    } else if (gl_WorkGroupID.x >= nq) {
      mat = 1;
      first = (gl_WorkGroupID.x - nq) * RPW;
      nrows = pc.rows_kv;
    }
  }
  const uint v = first + lr;  // visiting index
  uint row = v;
  if (MODE == 0 && mat < 2 && !NORMAL_ROPE) {
    // Pair order: visiting index 2p + half is dimension p + half * hd/2 of head v / hd.
    const uint within = v % pc.hd;
    row = v - within + within / 2 + (within % 2) * (pc.hd / 2);
  }
  const bool live = row < nrows;

  // 1. Start the weight loads: they do not depend on the input.
  uvec4 wa[VPL], wb[VPL];
  for (uint i = 0; i < VPL; ++i) {
    const uint j = lane + i * TPR;
    wa[i] = uvec4(0);
    wb[i] = uvec4(0);
    if (live && j < row_vecs) {
      const uint at = row * row_vecs + j;
      if (MODE == 0) {
        wa[i] = codes(mat, at);
      } else {
        wa[i] = w0[at];
        if (MODE == 2) wb[i] = w1[at];
      }
    }
  }

  // Tokens TOKENS at a time: their input rows quantized into shared memory, then each one's products.
  // The loops over tokens and a lane's words are unrolled and skip dead iterations rather than leave:
  // compiled for two tokens with early exits, their arrays went to local memory (H200: 64-192 bytes).
  const uint n_tok = BATCHED ? params.n_tokens : 1u;
  for (uint t0 = 0; t0 < n_tok; t0 += TOKENS) {
    const uint tn = min(TOKENS, n_tok - t0);
    real scs[TOKENS];

    // 2. RMSNorm and int8 quantization of each input row, into shared memory.
    [[unroll]] for (uint tt = 0; tt < TOKENS; ++tt) {
      if (tt >= tn) continue;  // (uniform)
      const uint k4 = K / 4, xb = (t0 + tt) * k4;
      real4 xv[XPT];
      vec4 nv[XPT];
      real ss = real(0), am = real(0);
      [[unroll]] for (uint i = 0; i < XPT; ++i) {
        const uint e = tid + i * gl_WorkGroupSize.x;
        xv[i] = e < k4 ? x[xb + e] : real4(0);
        nv[i] = e < k4 && HAS_NORM ? nw[e] : vec4(1);
        ss = add_squares(ss, xv[i]);
        am = max(am, max_abs_product(xv[i], nv[i]));
      }
      const real2 sm = wg_sum_max(ss, am);
      real inv = real(1);
      if (HAS_NORM) {
        inv = real(1) / sqrt(sm.x / real(K) + real(pc.eps));
        [[unroll]] for (uint i = 0; i < XPT; ++i) xv[i] = xv[i] * inv * real4(nv[i]);
      }
      const real sc = real(127) / max(normed_absmax(sm.y, inv), real(1e-5));
      scs[tt] = sc;
      [[unroll]] for (uint i = 0; i < XPT; ++i) {
        const uint e = tid + i * gl_WorkGroupSize.x;
        if (e >= k4) continue;
        const real4 qv = xv[i] * sc;
        uint packed = 0u;
        for (int b = 0; b < 4; ++b)
          packed |= uint(int(clamp(round_half_away(qv[b]), real(-128), real(127))) & 0xff) << (8 * b);
        // Natural word e is word q of group g of the row's uvec4 j (ternary_matmul.glsl's layout).
        const uint r = e % 32, g = r / 8, j = (e / 32) * 2 + (r % 8) / 4;
        sq[tt * (K / 16) + g * (K / 64) + j][r % 4] = packed;
      }
    }
    barrier();

    // 3. The rows' exact integer dot products: each of this lane's uvec4s decoded once and met with
    // every token's input, then each token's sums over the row's TPR lanes by shuffles (with block
    // scales, each uvec4's sum times its block's scale, summed in real: the lanes and the pairs of the
    // shuffle tree are those of ternary_matmul.glsl's shared-memory tree, so the values are the same).
    int accs[TOKENS], accs2[TOKENS];
    precise real faccs[TOKENS], faccs2[TOKENS];  // no FMA: as ternary_matmul.glsl
    [[unroll]] for (uint tt = 0; tt < TOKENS; ++tt) {
      accs[tt] = 0;
      accs2[tt] = 0;
      faccs[tt] = real(0);
      faccs2[tt] = real(0);
    }
    const uint blocks = K / 256;
    [[unroll]] for (uint i = 0; i < VPL; ++i) {
      const uint j = lane + i * TPR;
      if (j >= row_vecs) continue;
      real dd = real(0), dd2 = real(0);
      if (BLOCK_SCALES && live) {
        const uint at = row * blocks + j / 4;
        dd = block_scale(MODE == 0 ? mat : 0u, at);
        if (MODE == 2) dd2 = real(d1[at]);
      }
#ifdef TRIT_DOT
      int c[16], c2[16];
      decode_words(wa[i], c);
      if (MODE == 2) decode_words(wb[i], c2);
#endif
      [[unroll]] for (uint tt = 0; tt < TOKENS; ++tt) {
        if (tt >= tn) continue;
#ifdef TRIT_DOT
        const int r = dot_words(c, j, tt);
        const int r2 = MODE == 2 ? dot_words(c2, j, tt) : 0;
#else
        const int r = dot_block(wa[i], j, tt);
        const int r2 = MODE == 2 ? dot_block(wb[i], j, tt) : 0;
#endif
        if (BLOCK_SCALES) {
          faccs[tt] += dd * real(r);
          if (MODE == 2) faccs2[tt] += dd2 * real(r2);
        } else {
          accs[tt] += r;
          if (MODE == 2) accs2[tt] += r2;
        }
      }
    }
    [[unroll]] for (uint tt = 0; tt < TOKENS; ++tt) {
      if (tt >= tn) continue;
      const uint t = t0 + tt;
      const real sc = scs[tt];
      int acc = accs[tt], acc2 = accs2[tt];
      precise real facc = faccs[tt], facc2 = faccs2[tt];
      for (uint off = TPR / 2; off > 0; off /= 2) {
        if (BLOCK_SCALES) {
          facc += subgroupShuffleXor(facc, off);
          if (MODE == 2) facc2 += subgroupShuffleXor(facc2, off);
        } else {
          acc += subgroupShuffleXor(acc, off);
          if (MODE == 2) acc2 += subgroupShuffleXor(acc2, off);
        }
      }

      // 4. Epilogue (token t's row of y: rows of W0 apart, Wq's in MODE 0).
      if (MODE == 1) {
        if (lane == 0 && live) {
          const real v = BLOCK_SCALES ? facc / sc : real(acc) / sc * real(pc.scale0);
          y[t * pc.rows + row] = add_residual(y[t * pc.rows + row], v);
        }
      } else if (MODE == 2) {
        if (lane == 0 && live) {
          const real g = BLOCK_SCALES ? facc / sc : real(acc) / sc * real(pc.scale0);
          const real u = BLOCK_SCALES ? facc2 / sc : real(acc2) / sc * real(pc.scale1);
          y[t * pc.rows + row] = gated_ffn(g, u, SILU);
        }
      } else {
        if (lane == 0) res[tt * RPW + lr] = BLOCK_SCALES ? facc / sc : real(acc) / sc * tensor_scale(mat);
      }
    }
    if (MODE == 0) {
      barrier();
      [[unroll]] for (uint tt = 0; tt < TOKENS; ++tt) {
        if (tt >= tn) continue;
        rope_and_store(t0 + tt, tt * RPW, mat, first, nrows);
      }
    }
    if (BATCHED) barrier();  // sq and res are rewritten by the next tokens
  }
}
