// Ternary (I2_S) matrix times int8 activations for a block of tokens (n = 1 is the decode matvec):
//   y[t][r] = float(sum_k (code[r][k] - 1) * xq[t][k]) / s[t] * scale     (the sum exact in int32)
// Weights are the I2_S codes as stored, read as uvec4: one uvec4 is half a 128-element block of a row
// (words 4h..4h+3), and word w of a block holds, for group g (bits 6-2g of each byte), elements
// 32g + 4w + b: four consecutive activations, i.e. one packed int8 word, for each of the 4 groups.
// Layout: TPR threads per row (lanes stride over the row's uvec4s, coalesced), WG/TPR rows per
// workgroup, NT tokens per workgroup in y (each weight read once per NT tokens).
// MODE 0: y = value. MODE 1: y += value (the residual add). MODE 2 and 3: the FFN gate: a second matrix
// (binding 2, same input) gives u and y = relu(g)^2 * u (2, BitNet) or silu(g) * u (3, LLaMA).
// BLOCK_SCALES (TQ1_0 / TQ2_0 files, transcoded to this layout at load): every 256 elements of a row
// have their own scale (bindings 6 and 7, one float per block, row-major), so
//   y[t][r] = (sum over blocks b of d[r][b] * (exact int32 sum over b)) / s[t]
// with the products summed in `real`; in double every product and sum is exact for real files'
// scales, so the order of the sum does not matter there.
//
// TRIT_DOT (the *_dot wrappers, only on devices whose 4x8-bit packed signed dot product is
// accelerated): each code word is turned once into four packed int8 words of (code - 1) and multiplied
// with OpSDot (SPV_KHR_integer_dot_product), which the NVIDIA driver maps to dp4a; the decoded words are
// reused for all NT tokens of the tile. The sums are the same exact integers as the baseline's.
#include "common.glsl"
#include "ternary_codes.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint MODE = 0;
layout(constant_id = 3) const uint NT = 1;
layout(constant_id = 4) const bool BLOCK_SCALES = false;
#include "ternary_io.glsl"

const uint MAXNT = 8;
const bool GATE = MODE >= 2;
shared int part[BLOCK_SCALES ? 1 : gl_WorkGroupSize.x * MAXNT];
shared int part2[GATE && !BLOCK_SCALES ? gl_WorkGroupSize.x * MAXNT : 1];
shared real rpart[BLOCK_SCALES ? gl_WorkGroupSize.x * MAXNT : 1];
shared real rpart2[GATE && BLOCK_SCALES ? gl_WorkGroupSize.x * MAXNT : 1];

int dot_uvec4(uvec4 w, uvec4 a0, uvec4 a1, uvec4 a2, uvec4 a3) {
  int r = 0;
  for (int q = 0; q < 4; ++q) {
    r += dot4(w[q], 6u, a0[q]) + dot4(w[q], 4u, a1[q]) + dot4(w[q], 2u, a2[q]) + dot4(w[q], 0u, a3[q]);
  }
  return r;
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint lane = tid % TPR;
  const uint row = gl_WorkGroupID.x * (gl_WorkGroupSize.x / TPR) + tid / TPR;
  const uint t0 = gl_WorkGroupID.y * NT;
  const uint n = params.n_tokens;
  if (t0 >= n) return;  // whole workgroup: t0 is uniform
  const uint row_vecs = pc.k / 64;  // uvec4s per row
  const uint act_vecs = pc.k / 16;  // uvec4s per token of activations

  int acc[MAXNT], acc2[MAXNT];
  precise real racc[MAXNT], racc2[MAXNT];  // no FMA: each block's product rounded, as ternary_gemm.glsl
  for (uint tt = 0; tt < NT; ++tt) { acc[tt] = 0; acc2[tt] = 0; racc[tt] = real(0); racc2[tt] = real(0); }
  const uint blocks = pc.k / 256;
  if (row < pc.rows) {
    for (uint j = lane; j < row_vecs; j += TPR) {
      const uvec4 w = wq[row * row_vecs + j];
      uvec4 w2 = uvec4(0);
      if (GATE) w2 = wq2[row * row_vecs + j];
      real bd = real(0), bd2 = real(0);  // this uvec4's block scales (64 elements: a quarter block)
      if (BLOCK_SCALES) {
        bd = real(d[row * blocks + j / 4]);
        if (GATE) bd2 = real(d2[row * blocks + j / 4]);
      }
      const uint abase = (j >> 1) * 8 + (j & 1);  // group g at abase + 2g
#ifdef TRIT_DOT
      int c[16], c2[16];  // [4 * g + word]
      for (uint q = 0; q < 4; ++q)
        for (uint g = 0; g < 4; ++g) {
          c[4 * g + q] = int(ternary_word(w[q], 6u - 2u * g));
          c2[4 * g + q] = GATE ? int(ternary_word(w2[q], 6u - 2u * g)) : 0;
        }
#endif
      for (uint tt = 0; tt < NT; ++tt) {
        if (t0 + tt >= n) break;
        const uint ab = (t0 + tt) * act_vecs + abase;
        int r = 0, r2 = 0;
#ifdef TRIT_DOT
        const uvec4 a[4] = uvec4[4](xq[ab], xq[ab + 2], xq[ab + 4], xq[ab + 6]);
        for (uint g = 0; g < 4; ++g)
          for (uint q = 0; q < 4; ++q) {
            r += sdot4x8(c[4 * g + q], int(a[g][q]), 0);
            if (GATE) r2 += sdot4x8(c2[4 * g + q], int(a[g][q]), 0);
          }
#else
        const uvec4 a0 = xq[ab], a1 = xq[ab + 2], a2 = xq[ab + 4], a3 = xq[ab + 6];
        r = dot_uvec4(w, a0, a1, a2, a3);
        if (GATE) r2 = dot_uvec4(w2, a0, a1, a2, a3);
#endif
        if (BLOCK_SCALES) {
          racc[tt] += bd * real(r);
          if (GATE) racc2[tt] += bd2 * real(r2);
        } else {
          acc[tt] += r;
          if (GATE) acc2[tt] += r2;
        }
      }
    }
  }
  // Reduce the TPR lanes of each row (integer adds: exact in any order; with block scales, real adds of
  // exact products).
  for (uint tt = 0; tt < NT; ++tt) {
    const uint at = tt * gl_WorkGroupSize.x + tid;
    if (BLOCK_SCALES) {
      rpart[at] = racc[tt];
      if (GATE) rpart2[at] = racc2[tt];
    } else {
      part[at] = acc[tt];
      if (GATE) part2[at] = acc2[tt];
    }
  }
  barrier();
  for (uint stride = TPR / 2; stride > 0; stride /= 2) {
    if (lane < stride) {
      for (uint tt = 0; tt < NT; ++tt) {
        const uint at = tt * gl_WorkGroupSize.x + tid;
        if (BLOCK_SCALES) {
          rpart[at] += rpart[at + stride];
          if (GATE) rpart2[at] += rpart2[at + stride];
        } else {
          part[at] += part[at + stride];
          if (GATE) part2[at] += part2[at + stride];
        }
      }
    }
    barrier();
  }
  if (lane != 0 || row >= pc.rows) return;
  for (uint tt = 0; tt < NT; ++tt) {
    const uint t = t0 + tt;
    if (t >= n) break;
    const uint at = tt * gl_WorkGroupSize.x + tid;
    const real v = BLOCK_SCALES ? rpart[at] / s[t] : real(part[at]) / s[t] * real(pc.scale);
    const uint o = t * pc.rows + row;
    if (MODE == 0) {
      y[o] = v;
    } else if (MODE == 1) {
      y[o] += v;
    } else {
      const real u = BLOCK_SCALES ? rpart2[at] / s[t] : real(part2[at]) / s[t] * real(pc.scale2);
      y[o] = gated_ffn(v, u, MODE == 3);
    }
  }
}
