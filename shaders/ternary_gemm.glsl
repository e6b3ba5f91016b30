// Ternary (I2_S) matrix times int8 activations for a block of tokens, as a tiled GEMM with the packed
// int8 dot product (OpSDot): the block path of Kernels::ternary on devices without a suitable int8
// cooperative matrix (ternary_gemm_coop.glsl is the tensor-core variant).
//   y[t][r] = float(sum_k (code[r][k] - 1) * xq[t][k]) / s[t] * scale     (the sum exact in int32)
// A workgroup of 256 threads owns BM = 64 rows x BN = 64 tokens. Per 128-element block of K it decodes
// the rows' codes once into packed int8 words of (code - 1) in shared memory, stages the tokens' int8
// activations beside them, and each thread accumulates a 4 x 4 micro-tile (rows tr + 16i, tokens
// tc + 16j) with OpSDot over uvec4s. So each weight word is decoded once per 64 tokens (the matvec
// kernel: once per 8) and every shared load feeds four products.
// Same modes and epilogue as ternary_matmul.glsl, expression for expression, so the results are
// bit-identical to the block kernel's: MODE 0 y = v, MODE 1 y += v, MODE 2 y = relu(g)^2 * u, MODE 3 y = silu(g) * u, with the
// second matrix at binding 2.
// BLOCK_SCALES (TQ1_0 / TQ2_0 files): every 256 elements of a row have their own scale (bindings 6 and
// 7, a float per block, row-major); after each 256-element stretch of K the exact int32 sums are
// scaled by their block's scale and added in real, block after block in order, as the CPU reference
// adds them: y = (sum over blocks b of d[r][b] * isum_b) / s[t].
#include "common.glsl"
#define TRIT_DOT 1
#include "ternary_codes.glsl"

layout(local_size_x = 256) in;
layout(constant_id = 1) const uint MODE = 0;
layout(constant_id = 2) const bool BLOCK_SCALES = false;
#include "ternary_io.glsl"

const uint BM = 64, BN = 64, TM = 4, TN = 4;
// One row (or token) of a 128-element block: 8 uvec4s, padded to 9 so that eight threads reading
// eight different rows at the same offset hit eight different 16-byte bank groups.
const uint STRIDE = 9;
shared uvec4 sa[BM * STRIDE];
shared uvec4 sa2[MODE >= 2 ? BM * STRIDE : 1];
shared uvec4 sb[BN * STRIDE];

// Half h of a block's codes (words 4h..4h+3) into the four uvec4s of packed (code - 1) it covers:
// word 4h + i holds, for group g, elements 32g + 4(4h + i) .. + 3, i.e. activation word 8g + 4h + i.
void decode_half(uvec4 w, uint base, uint h, bool second) {
  for (uint g = 0; g < 4; ++g) {
    const uint sh = 6u - 2u * g;
    const uvec4 d = uvec4(ternary_word(w.x, sh), ternary_word(w.y, sh), ternary_word(w.z, sh), ternary_word(w.w, sh));
    if (second)
      sa2[base + 2u * g + h] = d;
    else
      sa[base + 2u * g + h] = d;
  }
}

int dot16(uvec4 a, uvec4 b) {
  return sdot4x8(int(a.x), int(b.x), 0) + sdot4x8(int(a.y), int(b.y), 0) + sdot4x8(int(a.z), int(b.z), 0) +
         sdot4x8(int(a.w), int(b.w), 0);
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint tr = tid % 16, tc = tid / 16;
  const uint row0 = gl_WorkGroupID.x * BM, t0 = gl_WorkGroupID.y * BN;
  const uint n = params.n_tokens;
  if (t0 >= n) return;  // whole workgroup: t0 is uniform
  const uint row_vecs = pc.k / 64;  // uvec4s of codes per row
  const uint act_vecs = pc.k / 16;  // uvec4s of activations per token
  const uint blocks = pc.k / 128;

  int acc[TM * TN], acc2[TM * TN];
  // precise: each block's product is rounded before it is added, as on the CPU (a driver may otherwise
  // fuse them into an FMA, which rounds once: the H100's did).
  precise real facc[BLOCK_SCALES ? TM * TN : 1], facc2[BLOCK_SCALES && MODE >= 2 ? TM * TN : 1];
  for (uint i = 0; i < TM * TN; ++i) { acc[i] = 0; acc2[i] = 0; }
  if (BLOCK_SCALES)
    for (uint i = 0; i < TM * TN; ++i) {
      facc[i] = real(0);
      if (MODE >= 2) facc2[i] = real(0);
    }

  for (uint kb = 0; kb < blocks; ++kb) {
    // Codes: BM rows x 2 halves, one uvec4 per thread of the first 128. Rows past the end decode
    // code 1 (weight 0); their sums are never stored.
    if (tid < 2 * BM) {
      const uint r = tid / 2, h = tid % 2, row = row0 + r;
      const uint at = row * row_vecs + kb * 2 + h;
      decode_half(row < pc.rows ? wq[at] : uvec4(0x55555555u), r * STRIDE, h, false);
      if (MODE >= 2) decode_half(row < pc.rows ? wq2[at] : uvec4(0x55555555u), r * STRIDE, h, true);
    }
    // Activations: BN tokens x 8 uvec4s; tokens past n are zero.
    for (uint i = tid; i < BN * 8; i += 256) {
      const uint t = i / 8, v = i % 8;
      sb[t * STRIDE + v] = t0 + t < n ? xq[(t0 + t) * act_vecs + kb * 8 + v] : uvec4(0);
    }
    barrier();
    for (uint kv = 0; kv < 8; ++kv) {
      uvec4 b[TN];
      for (uint j = 0; j < TN; ++j) b[j] = sb[(tc + 16 * j) * STRIDE + kv];
      for (uint i = 0; i < TM; ++i) {
        const uvec4 a = sa[(tr + 16 * i) * STRIDE + kv];
        for (uint j = 0; j < TN; ++j) acc[i * TN + j] += dot16(a, b[j]);
        if (MODE >= 2) {
          const uvec4 a2 = sa2[(tr + 16 * i) * STRIDE + kv];
          for (uint j = 0; j < TN; ++j) acc2[i * TN + j] += dot16(a2, b[j]);
        }
      }
    }
    barrier();
    if (BLOCK_SCALES && kb % 2 == 1) {
      // The end of a 256-element scale block: its exact sums, scaled, into the real sums.
      for (uint i = 0; i < TM; ++i) {
        const uint row = min(row0 + tr + 16 * i, pc.rows - 1);
        const real db = real(d[row * (blocks / 2) + kb / 2]);
        const real db2 = MODE >= 2 ? real(d2[row * (blocks / 2) + kb / 2]) : real(0);
        for (uint j = 0; j < TN; ++j) {
          facc[i * TN + j] += db * real(acc[i * TN + j]);
          acc[i * TN + j] = 0;
          if (MODE >= 2) {
            facc2[i * TN + j] += db2 * real(acc2[i * TN + j]);
            acc2[i * TN + j] = 0;
          }
        }
      }
    }
  }

  for (uint j = 0; j < TN; ++j) {
    const uint t = t0 + tc + 16 * j;
    if (t >= n) continue;
    for (uint i = 0; i < TM; ++i) {
      const uint row = row0 + tr + 16 * i;
      if (row >= pc.rows) continue;
      const real v = BLOCK_SCALES ? facc[i * TN + j] / s[t] : real(acc[i * TN + j]) / s[t] * real(pc.scale);
      const uint o = t * pc.rows + row;
      if (MODE == 0) {
        y[o] = v;
      } else if (MODE == 1) {
        y[o] += v;
      } else {
        const real u = BLOCK_SCALES ? facc2[i * TN + j] / s[t] : real(acc2[i * TN + j]) / s[t] * real(pc.scale2);
        y[o] = gated_ffn(v, u, MODE == 3);
      }
    }
  }
}
