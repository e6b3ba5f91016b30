// The BitLinear kernels of a batched decode step (one token of each of several sequences, common.glsl's
// batch mode) as a small matrix product: the step's input rows, normalized and quantized to int8 once
// by rmsnorm_quant.glsl (PERMUTED word order, below), times the ternary matrix, with the one-token
// kernel's epilogues (bitlinear_decode.glsl: RoPE and the KV append, the residual, the gate).
//
// Why not the one-token kernel with a loop over tokens: there every workgroup normalizes and quantizes
// every token's row itself, a chain of loads and reductions per token that each workgroup waits through.
// Here the rows arrive quantized, each workgroup stages TOKENS of them in shared memory at a time, each
// lane holds the codes of SLOTS rows at the same columns and meets each input uvec4 it loads with all of
// them, and each weight is read from memory once for up to TOKENS tokens. A step of more tokens takes
// them in passes of TOKENS: workgroup y of the dispatch takes passes y, y + gl_NumWorkGroups.y, ...
// (the host puts the passes side by side or in one workgroup's loop: BatchedBitLinear::side_by_side).
//
// Numerics are the one-token kernel's, bit for bit: the host quantizes with that kernel's workgroup size
// (the same sum of squares, the same expressions), every integer sum is exact, a row's value is
// (sum) / s * scale as there, and with BLOCK_SCALES (TQ files) each uvec4's sum times its block's scale
// is summed per lane over its columns in the same order and over the same TPR lanes by the same shuffle
// tree. So a token's result does not depend on the other tokens of the step, and a step of one token
// may run the one-token kernel instead.
//
// Layout: TPR lanes per group of SLOTS rows (TPR divides the subgroup size; lane l takes the rows'
// uvec4s l, l + TPR, ...), WG / TPR groups per workgroup. One uvec4 of codes is half a 128-element block
// (words 4h..4h+3, group g at bits 6-2g of each byte); the input uvec4 that meets group g of code uvec4 j
// is XQ[token][g * K/64 + j], which is how rmsnorm_quant.glsl's PERMUTED order lays the row out, so the
// lanes of a group read consecutive uvec4s.
//
// MODE 0 (QKV): workgroup w takes visiting indices [w RPW, (w + 1) RPW) over the rows of Wq, then Wk,
//   then Wv (RPW = WG / TPR * SLOTS; the widths are multiples of it). Rows of Wq and Wk are visited in
//   RoPE pair order (dimension i next to i + hd/2 of the same head; with NORMAL_ROPE, LLaMA's 2i next to
//   2i + 1), so the workgroup holds whole pairs: their sums meet in shared memory, and each invocation
//   of the epilogue rotates two neighbouring pairs of a token (whole F16 words of the cache): q goes to
//   Y, rotated k and v are appended to the KV cache at the token's position of its sequence.
// MODE 1 (residual): Y[row] += W x, group G taking rows G SLOTS .. G SLOTS + SLOTS - 1.
// MODE 2 (FFN gate): Y[row] = relu(W1 x)^2 * (W2 x), or silu(W1 x) * (W2 x) with SILU: group G takes
//   rows G SLOTS/2 .. of W1 (binding 1) in its first SLOTS/2 slots and the same rows of W2 (binding 2)
//   in the others.
// WAIT: the quantization runs in the dispatch just before this one with no barrier between, so the two
// overlap (these workgroups load their weights while the rows are quantized) and a step saves a dispatch
// boundary per BitLinear. Each workgroup waits for the step's count of quantized rows (ready[pc.slot],
// rmsnorm_quant.glsl SIGNAL) before it stages them. The wait is bounded, as the persistent kernel's: one
// that gives up (the quantization never ran beside it) raises `failed`, and the host redoes the step
// with a barrier in between (VulkanForward). The arithmetic is the same either way.
#include "common.glsl"
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_control_flow_attributes : require
#include "ternary_codes.glsl"
#include "rope_f16.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint MODE = 1;
layout(constant_id = 3) const uint K = 2560;   // input width (a multiple of 128)
layout(constant_id = 4) const uint VPL = 3;    // uvec4 columns per lane: ceil(K / 64 / TPR)
layout(constant_id = 5) const bool KV_F16 = true;
layout(constant_id = 6) const bool SILU = false;
layout(constant_id = 7) const bool NORMAL_ROPE = false;
layout(constant_id = 8) const bool BLOCK_SCALES = false;
layout(constant_id = 9) const uint TOKENS = 8;  // tokens whose sums a lane holds at a time
layout(constant_id = 10) const uint SLOTS = 2;  // rows per lane group (MODE 2: even; MODE 0: RPW % 4 == 0)
layout(constant_id = 11) const bool WAIT = false;
layout(constant_id = 12) const uint SPIN_LIMIT = 1u << 22;


#include "bitlinear_batch_io.glsl"

const uint COLS = K / 64;  // uvec4s of codes in a row
// The input rows of TOKENS tokens, staged from XQ once per workgroup: the lanes then meet them at
// shared-memory latency (consecutive lanes, consecutive uvec4s: no bank conflicts).
shared uvec4 sx[TOKENS * (K / 16)];
shared real ssc[TOKENS];  // their scales
const uint RPW = gl_WorkGroupSize.x / TPR * SLOTS;  // rows (MODE 0: visiting indices) per workgroup
shared real res[MODE == 0 ? TOKENS * RPW : 1];


// The matrix (binding 1-3) of a slot: MODE 0 the workgroup's, MODE 2 W1 for the first half, W2 the rest.
uint slot_mat(uint s, uint group_mat) { return MODE == 0 ? group_mat : MODE == 2 ? s / (SLOTS / 2) : 0u; }

// Sum over the 64 products of code uvec4 w's group g and input uvec4 a.
#ifdef TRIT_DOT
int group_dot(int c[4], uvec4 a) {
  return sdot4x8(c[0], int(a.x), 0) + sdot4x8(c[1], int(a.y), 0) + sdot4x8(c[2], int(a.z), 0) +
         sdot4x8(c[3], int(a.w), 0);
}
#endif

void main() {
  const uint tid = gl_LocalInvocationID.x, lane = tid % TPR;
  const uint group = gl_WorkGroupID.x * (gl_WorkGroupSize.x / TPR) + tid / TPR;

  // The group's slots: matrix, row, and whether the row exists.
  const uint lg = tid / TPR;  // the group within the workgroup
  uint gmat = 0, vbase = 0;   // MODE 0: the workgroup's matrix and its first visiting index in it
  uint srow[SLOTS];
  bool slive[SLOTS];
  if (MODE == 0) {
    vbase = gl_WorkGroupID.x * RPW;
    gmat = qkv_matrix(vbase);
    const uint nrows = gmat == 0 ? pc.rows : pc.rows_kv;
    [[unroll]] for (uint s = 0; s < SLOTS; ++s) {
      const uint v = vbase + lg * SLOTS + s;
      srow[s] = qkv_row(gmat, v);
      slive[s] = v < nrows;  // (workgroups past Wv: vbase >= rows_kv)
    }
  } else {
    const uint per = MODE == 2 ? SLOTS / 2 : SLOTS;
    [[unroll]] for (uint s = 0; s < SLOTS; ++s) {
      srow[s] = group * per + s % per;
      slive[s] = srow[s] < pc.rows;
    }
  }

  const uint n_tok = params.n_tokens;
  if (gl_WorkGroupID.y * TOKENS >= n_tok) return;  // (no pass of this step's tokens)

  // The weights first: they do not depend on the input.
  uvec4 wv[VPL * SLOTS];
  [[unroll]] for (uint i = 0; i < VPL; ++i) {
    const uint j = lane + i * TPR;
    [[unroll]] for (uint s = 0; s < SLOTS; ++s) {
      wv[i * SLOTS + s] = uvec4(0);
      if (slive[s] && j < COLS) wv[i * SLOTS + s] = codes(slot_mat(s, gmat), srow[s] * COLS + j);
    }
  }

  if (WAIT) wait_for_rows(n_tok);
  for (uint t0 = gl_WorkGroupID.y * TOKENS; t0 < n_tok; t0 += TOKENS * gl_NumWorkGroups.y) {
    const uint tn = min(TOKENS, n_tok - t0);
    for (uint e = tid; e < tn * (K / 16); e += gl_WorkGroupSize.x) sx[e] = xq[t0 * (K / 16) + e];
    if (tid < tn) ssc[tid] = xs[t0 + tid];
    barrier();
    int acc[TOKENS * SLOTS];
    precise real facc[TOKENS * SLOTS];  // no FMA: as ternary_matmul.glsl
    [[unroll]] for (uint e = 0; e < TOKENS * SLOTS; ++e) {
      acc[e] = 0;
      facc[e] = real(0);
    }
    [[unroll]] for (uint i = 0; i < VPL; ++i) {
      const uint j = lane + i * TPR;
      if (j >= COLS) break;
      int part[TOKENS * SLOTS];  // BLOCK_SCALES: this uvec4's sums, scaled once per block
      [[unroll]] for (uint e = 0; e < TOKENS * SLOTS; ++e) part[e] = 0;
      [[unroll]] for (uint g = 0; g < 4; ++g) {
#ifdef TRIT_DOT
        int c[SLOTS][4];
        [[unroll]] for (uint s = 0; s < SLOTS; ++s)
          [[unroll]] for (uint q = 0; q < 4; ++q) c[s][q] = int(ternary_word(wv[i * SLOTS + s][q], 6u - 2u * g));
#endif
        [[unroll]] for (uint t = 0; t < TOKENS; ++t) {
          if (t0 + t < n_tok) {
            const uvec4 a = sx[t * (K / 16) + g * COLS + j];
            [[unroll]] for (uint s = 0; s < SLOTS; ++s) {
#ifdef TRIT_DOT
              const int r = group_dot(c[s], a);
#else
              const uvec4 w = wv[i * SLOTS + s];
              const int r = dot4(w.x, 6u - 2u * g, a.x) + dot4(w.y, 6u - 2u * g, a.y) + dot4(w.z, 6u - 2u * g, a.z) +
                            dot4(w.w, 6u - 2u * g, a.w);
#endif
              if (BLOCK_SCALES) {
                part[t * SLOTS + s] += r;
              } else {
                acc[t * SLOTS + s] += r;
              }
            }
          }
        }
      }
      if (BLOCK_SCALES) {
        [[unroll]] for (uint s = 0; s < SLOTS; ++s) {
          const real dd = slive[s] ? block_scale(slot_mat(s, gmat), srow[s] * (K / 256) + j / 4) : real(0);
          [[unroll]] for (uint t = 0; t < TOKENS; ++t) facc[t * SLOTS + s] += dd * real(part[t * SLOTS + s]);
        }
      }
    }

    // Each sum over the group's TPR lanes (shuffle tree), then the epilogue per token.
    [[unroll]] for (uint t = 0; t < TOKENS; ++t) {
      if (t0 + t >= n_tok) break;
      const uint tk = t0 + t;
      const real sc = ssc[t];
      real val[SLOTS];
      [[unroll]] for (uint s = 0; s < SLOTS; ++s) {
        int a = acc[t * SLOTS + s];
        precise real fa = facc[t * SLOTS + s];
        for (uint off = TPR / 2; off > 0; off /= 2) {
          if (BLOCK_SCALES) {
            fa += subgroupShuffleXor(fa, off);
          } else {
            a += subgroupShuffleXor(a, off);
          }
        }
        val[s] = BLOCK_SCALES ? fa / sc : real(a) / sc * tensor_scale(slot_mat(s, gmat));
      }
      if (lane != 0) continue;
      if (MODE == 0) {
        [[unroll]] for (uint s = 0; s < SLOTS; ++s) res[t * RPW + lg * SLOTS + s] = val[s];
      } else if (MODE == 1) {
        [[unroll]] for (uint s = 0; s < SLOTS; ++s)
          if (slive[s]) y[tk * pc.rows + srow[s]] = add_residual(y[tk * pc.rows + srow[s]], val[s]);
      } else {
        [[unroll]] for (uint s = 0; s < SLOTS / 2; ++s) {
          if (!slive[s]) continue;
          y[tk * pc.rows + srow[s]] = gated_ffn(val[s], val[s + SLOTS / 2], SILU);
        }
      }
    }
    if (MODE == 0) {
      barrier();
      // Items of a token and four visiting indices (two neighbouring pairs) of the workgroup: RPW / 4
      // per token, TOKENS tokens, which can outnumber the invocations (one-lane groups: RPW = 2 WG).
      const uint quads = RPW / 4;
      for (uint e = tid; e < quads * TOKENS; e += gl_WorkGroupSize.x) {
        const uint t = e / quads, vq = vbase + 4 * (e % quads);
        if (t0 + t >= n_tok || vq >= (gmat == 0 ? pc.rows : pc.rows_kv)) continue;
        real val[4];
        [[unroll]] for (uint s = 0; s < 4; ++s) val[s] = res[t * RPW + 4 * (e % quads) + s];
        store_qkv(t0 + t, gmat, vq, val);
      }
    }
    barrier();  // sx and res are rewritten by the next tokens
  }
}
