// Ternary (I2_S) matrix times int8 activations for a block of tokens on the tensor cores: the block
// path of Kernels::ternary where the device offers an int8 x int8 + int32 cooperative matrix
// (SPV_NV_cooperative_matrix; the shape CM x CN x CK comes from the device's query, never its name).
// The build also derives its SPV_KHR_cooperative_matrix twin (ternary_gemm_coop*_khr) from this
// shader's NV module with shaders/tools/coop_nv_to_khr.h, which fails the build on any use of a matrix
// it cannot convert exactly: A, B and the accumulators must stay distinct GLSL types.
//   y[t][r] = float(sum_k (code[r][k] - 1) * xq[t][k]) / s[t] * scale     (the sum exact in int32)
// Matrix A is the weights (BM rows x 128 of K, decoded once per block into int8 (code - 1) in shared
// memory), B the activations (128 of K x BN tokens, staged as they are: token-major, i.e. B column
// major), C the int32 sums (BM x BN). Subgroup (wr, wc) of the WR x WC grid owns FM x FN fragments.
// Each thread fetches its share of the next K block's codes and activations into registers before
// the tensor cores work on the current one (the loads' latency hides behind the products; measured on
// the H100: pp512 18,381 -> 19,842 tokens/s).
// After K, the sums go through shared memory (column major: one token's rows contiguous) to an
// epilogue that is ternary_matmul.glsl's, expression for expression: bit-identical results.
// MODE 0 y = v, MODE 1 y += v, MODE 2 y = relu(g)^2 * u, MODE 3 y = silu(g) * u, with the second matrix at binding 2.
// BLOCK_SCALES (TQ1_0 / TQ2_0 files): every 256 elements of a row have their own scale (bindings 6 and
// 7, a float per block, row-major). After each 256-element stretch of K the subgroups store their exact
// int32 sums to shared memory, and each thread adds its elements' sums times their row's block scale
// to its `real` sums, block after block in order: ternary_gemm.glsl's arithmetic, so the same bits.
#include "common.glsl"
#include "ternary_codes.glsl"
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require

layout(local_size_x_id = 0) in;         // WR * WC * subgroup size
layout(constant_id = 1) const uint MODE = 0;
layout(constant_id = 2) const uint CM = 16;  // fragment shape from the device's query
layout(constant_id = 3) const uint CN = 8;
layout(constant_id = 4) const uint CK = 32;
layout(constant_id = 5) const uint WR = 4;   // subgroups along rows, along tokens
layout(constant_id = 6) const uint WC = 2;
layout(constant_id = 7) const uint FM = 2;   // fragments per subgroup along rows, along tokens
layout(constant_id = 8) const uint FN = 4;
layout(constant_id = 9) const bool BLOCK_SCALES = false;
#include "ternary_io.glsl"

const uint BM = WR * FM * CM, BN = WC * FN * CN;
const uint NMAT = MODE >= 2 ? 2 : 1;
// A row of A (or a token of B) in shared memory: 128 int8 = 8 uvec4s, padded to 9 (144 bytes) so the
// fragment loads' rows fall on different banks.
const uint STRIDE = 9;
const uint A_OFF = 0, B_OFF = NMAT * BM * STRIDE, AB_END = B_OFF + BN * STRIDE;
// C staged column major: token c's rows at c * CSTRIDE ints (padded by 4), per matrix.
const uint CSTRIDE = BM + 4;
const uint C_END = NMAT * BN * CSTRIDE / 4;
// One shared array for both phases (the K loop's A and B, then the sums), in uvec4s.
shared uvec4 smem[AB_END > C_END ? AB_END : C_END];

// Half h of a block's codes (words 4h..4h+3): word 4h + i holds, for group g, elements
// 32g + 4(4h + i) .. + 3, i.e. int8 word 8g + 4h + i of the row (row-major A, K contiguous).
void decode_half(uvec4 w, uint base, uint h) {
  for (uint g = 0; g < 4; ++g) {
    const uint sh = 6u - 2u * g;
    smem[base + 2u * g + h] =
        uvec4(ternary_word(w.x, sh), ternary_word(w.y, sh), ternary_word(w.z, sh), ternary_word(w.w, sh));
  }
}

// One block of K's global data per thread, fetched into registers a block ahead so that the loads
// are in flight while the tensor cores work on the previous block (the host keeps NMAT * 2 * BM and
// BN * 8 within PRE * workgroup size).
const uint PRE = 4;
uvec4 wpre[PRE], xpre[PRE];

void fetch(uint kb, uint tid, uint row0, uint t0, uint n) {
  const uint row_vecs = pc.k / 64, act_vecs = pc.k / 16;
  for (uint u = 0; u < PRE; ++u) {
    const uint i = tid + u * gl_WorkGroupSize.x;
    if (i < NMAT * 2 * BM) {
      const uint m = i / (2 * BM), r = (i / 2) % BM, h = i % 2, row = row0 + r;
      const uint at = row * row_vecs + kb * 2 + h;
      uvec4 w = uvec4(0x55555555u);  // rows past the end: code 1, weight 0
      if (row < pc.rows) w = m == 0 ? wq[at] : wq2[at];
      wpre[u] = w;
    }
    if (i < BN * 8) {
      const uint t = i / 8, v = i % 8;
      xpre[u] = t0 + t < n ? xq[(t0 + t) * act_vecs + kb * 8 + v] : uvec4(0);  // tokens past n: zero
    }
  }
}

// The fetched block into shared memory: codes decoded to int8 rows of A, activations as they are.
void stage(uint tid) {
  for (uint u = 0; u < PRE; ++u) {
    const uint i = tid + u * gl_WorkGroupSize.x;
    if (i < NMAT * 2 * BM) {
      const uint m = i / (2 * BM), r = (i / 2) % BM, h = i % 2;
      decode_half(wpre[u], A_OFF + (m * BM + r) * STRIDE, h);
    }
    if (i < BN * 8) smem[B_OFF + (i / 8) * STRIDE + i % 8] = xpre[u];
  }
}

int c_at(uint m, uint c, uint r) {
  const uint i = (m * BN + c) * CSTRIDE + r;
  return int(smem[i / 4][i % 4]);
}

void main() {
  const uint tid = gl_LocalInvocationID.x;
  const uint WG = gl_WorkGroupSize.x;
  const uint row0 = gl_WorkGroupID.x * BM, t0 = gl_WorkGroupID.y * BN;
  const uint n = params.n_tokens;
  if (t0 >= n) return;  // whole workgroup: t0 is uniform
  const uint blocks = pc.k / 128;
  const uint wr = gl_SubgroupID % WR, wc = gl_SubgroupID / WR;

  icoopmatNV<32, gl_ScopeSubgroup, CM, CN> acc[FM * FN], acc2[FM * FN];
  for (uint i = 0; i < FM * FN; ++i) {
    acc[i] = icoopmatNV<32, gl_ScopeSubgroup, CM, CN>(0);
    acc2[i] = icoopmatNV<32, gl_ScopeSubgroup, CM, CN>(0);
  }

  // BLOCK_SCALES: the sums so far of the elements this thread owns in the epilogue (element
  // i = tid + u * WG of the tile). precise: each block's product is rounded before it is added, as on
  // the CPU (a driver may otherwise fuse them into an FMA, which rounds once).
  const uint EPT = (BM * BN + WG - 1) / WG;
  precise real facc[BLOCK_SCALES ? EPT : 1], facc2[BLOCK_SCALES && MODE >= 2 ? EPT : 1];
  if (BLOCK_SCALES)
    for (uint u = 0; u < EPT; ++u) {
      facc[u] = real(0);
      if (MODE >= 2) facc2[u] = real(0);
    }

  fetch(0, tid, row0, t0, n);
  for (uint kb = 0; kb < blocks; ++kb) {
    stage(tid);
    barrier();
    if (kb + 1 < blocks) fetch(kb + 1, tid, row0, t0, n);
    for (uint kk = 0; kk < 128 / CK; ++kk) {
      const uint koff = kk * CK / 16;  // in uvec4s
      icoopmatNV<8, gl_ScopeSubgroup, CK, CN> b[FN];
      for (uint j = 0; j < FN; ++j)
        coopMatLoadNV(b[j], smem, B_OFF + ((wc * FN + j) * CN) * STRIDE + koff, STRIDE, true);
      for (uint i = 0; i < FM; ++i) {
        icoopmatNV<8, gl_ScopeSubgroup, CM, CK> a;
        coopMatLoadNV(a, smem, A_OFF + ((wr * FM + i) * CM) * STRIDE + koff, STRIDE, false);
        for (uint j = 0; j < FN; ++j) acc[i * FN + j] = coopMatMulAddNV(a, b[j], acc[i * FN + j]);
        if (MODE >= 2) {
          coopMatLoadNV(a, smem, A_OFF + (BM + (wr * FM + i) * CM) * STRIDE + koff, STRIDE, false);
          for (uint j = 0; j < FN; ++j) acc2[i * FN + j] = coopMatMulAddNV(a, b[j], acc2[i * FN + j]);
        }
      }
    }
    barrier();
    // The sums go to shared memory after K, or with block scales after each 256-element block (K is a
    // multiple of 256 there), column major: element (r, c) at c * CSTRIDE + r.
    if (BLOCK_SCALES ? kb % 2 == 0 : kb + 1 < blocks) continue;
    for (uint i = 0; i < FM; ++i)
      for (uint j = 0; j < FN; ++j) {
        const uint r = (wr * FM + i) * CM, c = (wc * FN + j) * CN;
        coopMatStoreNV(acc[i * FN + j], smem, (c * CSTRIDE + r) / 4, CSTRIDE / 4, true);
        if (MODE >= 2) coopMatStoreNV(acc2[i * FN + j], smem, ((BN + c) * CSTRIDE + r) / 4, CSTRIDE / 4, true);
      }
    barrier();
    if (!BLOCK_SCALES) break;
    // The block's exact sums, scaled by their row's block scale, into the real sums; then the
    // accumulators start the next block from zero.
    for (uint u = 0; u < EPT; ++u) {
      const uint i = tid + u * WG, r = i % BM, c = i / BM;
      if (i >= BM * BN) break;
      const uint at = min(row0 + r, pc.rows - 1) * (blocks / 2) + kb / 2;
      facc[u] += real(d[at]) * real(c_at(0, c, r));
      if (MODE >= 2) facc2[u] += real(d2[at]) * real(c_at(1, c, r));
    }
    for (uint i = 0; i < FM * FN; ++i) {
      acc[i] = icoopmatNV<32, gl_ScopeSubgroup, CM, CN>(0);
      acc2[i] = icoopmatNV<32, gl_ScopeSubgroup, CM, CN>(0);
    }
    barrier();  // before the next block is staged over the sums
  }

  for (uint u = 0; u < EPT; ++u) {
    const uint i = tid + u * WG, r = i % BM, c = i / BM, row = row0 + r, t = t0 + c;
    if (i >= BM * BN) break;
    if (row >= pc.rows || t >= n) continue;
    const real v = BLOCK_SCALES ? facc[u] / s[t] : real(c_at(0, c, r)) / s[t] * real(pc.scale);
    const uint o = t * pc.rows + row;
    if (MODE == 0) {
      y[o] = v;
    } else if (MODE == 1) {
      y[o] += v;
    } else {
      const real u2 = BLOCK_SCALES ? facc2[u] / s[t] : real(c_at(1, c, r)) / s[t] * real(pc.scale2);
      y[o] = gated_ffn(v, u2, MODE == 3);
    }
  }
}
