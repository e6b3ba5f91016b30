// The BitLinear product of a batched decode step on int8 cooperative matrices (the tensor cores), where
// the device offers them: the same bindings, push constants, epilogues and bits as the small-matrix
// kernel (bitlinear_batch.glsl, which runs everywhere else and for TQ files' block scales).
//
// Why: the small-matrix kernel meets each weight with every token's input on the integer units, so a
// step's products grow by about a token's worth of arithmetic per token. Here the codes are decoded to
// int8 once per step and each product is a (rows x K) by (K x tokens) matrix product on the tensor
// cores, so the step costs the weights' bytes and their decoding, nearly whatever its token count.
//
// Numerics are bitlinear_batch.glsl's, bit for bit: every integer sum is exact in int32 whatever the
// order of its terms (the tensor cores', the split of K between subgroups below, and their reduction),
// and a row's value is (sum) / s * scale with the same expressions in the same epilogues. So a token's
// result does not depend on the other tokens of the step or on which of the two kernels ran.
//
// Layout: a workgroup takes CM rows (MODE 0: visiting indices, as bitlinear_batch.glsl orders them) and
// SPLIT subgroups; K is cut into chunks of CC = CK / 16 code uvec4s of each row, and each subgroup takes
// every SPLIT-th of them (chunk_of). Each lane fetches all of its chunks' codes before anything else
// (they do not depend on the input: with WAIT the loads are in flight while the rows are quantized). A
// chunk's codes are decoded into shared memory, one int8 matrix per group g (code uvec4 j's group g
// meets input uvec4 g * K/64 + j in rmsnorm_quant.glsl's PERMUTED order, so A's columns are the input's
// in that order), beside the same columns of the tokens' quantized rows (B, token-major as they are:
// column major), and the fragments meet. The rows' uvec4s are fetched two chunks ahead, into registers:
// the int8 matrix loads straight from the (coherent) buffer cost far more than plain uvec4 loads
// (measured on the H100: a step of 8 tokens 4x slower). The subgroups' int32 sums then meet in shared
// memory and each invocation finishes (row, token) elements as bitlinear_batch.glsl does. Tokens of the
// last tile past the step's count are zero.
#include "common.glsl"
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_EXT_control_flow_attributes : require
#include "ternary_codes.glsl"
#include "rope_f16.glsl"
layout(local_size_x_id = 0) in;  // SPLIT * SG
layout(constant_id = 1) const uint MODE = 1;
layout(constant_id = 2) const uint K = 2560;  // input width (a multiple of 64 * CK / 16)
layout(constant_id = 3) const uint CM = 16;   // fragment shape from the device's query, never its name
layout(constant_id = 4) const uint CN = 16;
layout(constant_id = 5) const uint CK = 32;
layout(constant_id = 6) const uint SPLIT = 4;  // subgroups a workgroup, each a share of K
layout(constant_id = 7) const uint SG = 32;    // the subgroup size (fixed: the host checks)
layout(constant_id = 8) const uint TILES = 1;  // token tiles of CN the recording may need
layout(constant_id = 9) const bool KV_F16 = true;
layout(constant_id = 10) const bool SILU = false;
layout(constant_id = 11) const bool NORMAL_ROPE = false;
layout(constant_id = 12) const bool WAIT = false;
layout(constant_id = 13) const uint SPIN_LIMIT = 1u << 22;

#include "bitlinear_batch_io.glsl"

const uint COLS = K / 64;                 // code uvec4s in a row
const uint CC = CK / 16;                  // code uvec4s of a row in a chunk
const uint CHUNKS = COLS / CC;            // chunks of K
const uint CPS = (CHUNKS + SPLIT - 1) / SPLIT;  // chunks a subgroup takes, at most
const uint NMAT = MODE == 2 ? 2 : 1;
const uint EPL = (CM * CC + SG - 1) / SG;  // code uvec4s a lane fetches per chunk and matrix
// Shared memory, in uvec4s: during K each subgroup's decoded chunk (NMAT matrices x 4 groups x CM rows
// x CC uvec4s) and its tokens' columns (TILES x 4 groups x CN tokens x CC uvec4s), after it each
// subgroup's sums (NMAT x TILES tiles of CM x CN ints, column major).
const uint A_SUB = NMAT * 4 * CM * CC, B_SUB = TILES * 4 * CN * CC;
const uint BPL = (B_SUB + SG - 1) / SG;  // uvec4s of a chunk's B a lane fetches
const uint C_TILE = CM * CN / 4;
const uint AB_END = SPLIT * (A_SUB + B_SUB), C_END = SPLIT * NMAT * TILES * C_TILE;
shared uvec4 smem[AB_END > C_END ? AB_END : C_END];

// The reduced sum of matrix m's element (row r, token c of tile tt): the subgroups' sums in order.
int sum_at(uint m, uint tt, uint c, uint r) {
  int a = 0;
  for (uint s = 0; s < SPLIT; ++s) {
    const uint i = ((s * NMAT + m) * TILES + tt) * CM * CN + c * CM + r;
    a += int(smem[i / 4][i % 4]);
  }
  return a;
}

// The lane's share of chunk c's B: element b of the subgroup's B is tile tt, group g, token n, uvec4 cc.
void fetch_b(uint c, uint lane, uint n_tok, out uvec4 bq[BPL]) {
  [[unroll]] for (uint e = 0; e < BPL; ++e) {
    const uint b = lane + e * SG, cc = b % CC, n = (b / CC) % CN, g = (b / (CN * CC)) % 4, tt = b / (4 * CN * CC);
    const uint tk = tt * CN + n;
    bq[e] = b < B_SUB && c < CHUNKS && tk < n_tok ? xq[tk * (K / 16) + g * COLS + c * CC + cc] : uvec4(0);
  }
}

// Chunk i of subgroup sid in workgroup wg. The workgroup's CPS * SPLIT chunk places (the last round's
// past K) are dealt to its subgroups as sid, sid + SPLIT, ..., shifted by the workgroup's index, so
// at any moment the workgroups read the tokens' rows at different places of K (every workgroup reads
// all of the rows; walking K in the same order, they all asked for the same few lines at once). H200,
// 8 / 16 sequences at context 128: 3,150-3,176 / 5,549-5,553 tokens/s in that order, 3,348-3,354 /
// 5,771-5,777 shifted; the KHR twin there (--generic) neither gained nor lost beyond run-to-run. A
// place past K has zero codes and zero rows and adds nothing, and integer sums are exact in any order,
// so the bits do not change.
uint chunk_of(uint sid, uint wg, uint i) { return (sid + i * SPLIT + wg) % (CPS * SPLIT); }

void main() {
  const uint tid = gl_LocalInvocationID.x, sid = gl_SubgroupID, lane = gl_SubgroupInvocationID;
  const uint wg = gl_WorkGroupID.x;
  const uint n_tok = params.n_tokens;
  const uint tiles = min((n_tok + CN - 1) / CN, TILES);

  // The workgroup's rows: MODE 0 its matrix (Wq, Wk, Wv) and visiting indices vbase.. in RoPE pair
  // order (bitlinear_batch_io.glsl), else rows vbase...
  uint vbase = wg * CM;
  const uint gmat = MODE == 0 ? qkv_matrix(vbase) : 0u;
  const uint nrows = MODE == 0 && gmat > 0 ? pc.rows_kv : pc.rows;

  // Every chunk's codes first: they do not depend on the input. Rows past the end read as code 1
  // (weight 0); their sums are never stored.
  uvec4 wv[NMAT * CPS * EPL];
  [[unroll]] for (uint m = 0; m < NMAT; ++m)
    [[unroll]] for (uint i = 0; i < CPS; ++i)
      [[unroll]] for (uint e = 0; e < EPL; ++e) {
        const uint idx = lane + e * SG, r = idx / CC, c = chunk_of(sid, wg, i);
        uvec4 w = uvec4(0x55555555u);
        if (idx < CM * CC && c < CHUNKS && vbase + r < nrows) {
          const uint row = MODE == 0 ? qkv_row(gmat, vbase + r) : vbase + r;
          w = codes(MODE == 0 ? gmat : m, row * COLS + c * CC + idx % CC);
        }
        wv[(m * CPS + i) * EPL + e] = w;
      }

  icoopmatNV<32, gl_ScopeSubgroup, CM, CN> acc[NMAT * TILES];
  [[unroll]] for (uint i = 0; i < NMAT * TILES; ++i) acc[i] = icoopmatNV<32, gl_ScopeSubgroup, CM, CN>(0);

  if (WAIT) wait_for_rows(n_tok);
  const uint abase = sid * (A_SUB + B_SUB), bbase = abase + A_SUB;
  uvec4 bq0[BPL], bq1[BPL];
  fetch_b(chunk_of(sid, wg, 0), lane, n_tok, bq0);
  fetch_b(chunk_of(sid, wg, 1), lane, n_tok, bq1);
  [[unroll]] for (uint i = 0; i < CPS; ++i) {
    const uint cn = i + 2 < CPS ? chunk_of(sid, wg, i + 2) : CHUNKS;
    // The chunk's columns of the rows: tile tt's group g at bbase + (tt * 4 + g) * CN * CC, each token's
    // CC uvec4s contiguous; then the chunk after next is fetched into the registers they leave.
    [[unroll]] for (uint e = 0; e < BPL; ++e) {
      const uint b = lane + e * SG;
      if (b < B_SUB) smem[bbase + b] = i % 2 == 0 ? bq0[e] : bq1[e];
    }
    if (i % 2 == 0) {
      fetch_b(cn, lane, n_tok, bq0);
    } else {
      fetch_b(cn, lane, n_tok, bq1);
    }
    // The chunk's codes decoded: matrix m's group g at abase + (m * 4 + g) * CM * CC, row-major rows of
    // CC uvec4s (K' = g * COLS + c * CC .., c = chunk_of(sid, wg, i)).
    [[unroll]] for (uint m = 0; m < NMAT; ++m)
      [[unroll]] for (uint e = 0; e < EPL; ++e) {
        const uint idx = lane + e * SG;
        if (idx >= CM * CC) break;
        const uvec4 w = wv[(m * CPS + i) * EPL + e];
        [[unroll]] for (uint g = 0; g < 4; ++g) {
          const uint sh = 6u - 2u * g;
          smem[abase + (m * 4 + g) * CM * CC + idx] =
              uvec4(ternary_word(w.x, sh), ternary_word(w.y, sh), ternary_word(w.z, sh), ternary_word(w.w, sh));
        }
      }
    subgroupMemoryBarrierShared();
    subgroupBarrier();
    [[unroll]] for (uint g = 0; g < 4; ++g) {
      icoopmatNV<8, gl_ScopeSubgroup, CM, CK> a[NMAT];
      [[unroll]] for (uint m = 0; m < NMAT; ++m)
        coopMatLoadNV(a[m], smem, abase + (m * 4 + g) * CM * CC, CC, false);
      [[unroll]] for (uint tt = 0; tt < TILES; ++tt) {
        if (tt >= tiles) break;
        icoopmatNV<8, gl_ScopeSubgroup, CK, CN> b;
        coopMatLoadNV(b, smem, bbase + (tt * 4 + g) * CN * CC, CC, true);
        [[unroll]] for (uint m = 0; m < NMAT; ++m) acc[m * TILES + tt] = coopMatMulAddNV(a[m], b, acc[m * TILES + tt]);
      }
    }
    subgroupBarrier();  // the next chunk is decoded over this one
  }

  // Each subgroup's sums to shared memory (over the decoded chunks: after every subgroup's last load).
  barrier();
  [[unroll]] for (uint m = 0; m < NMAT; ++m)
    [[unroll]] for (uint tt = 0; tt < TILES; ++tt)
      if (tt < tiles) coopMatStoreNV(acc[m * TILES + tt], smem, ((sid * NMAT + m) * TILES + tt) * C_TILE, CM / 4, true);
  barrier();

  // The epilogues, bitlinear_batch.glsl's expressions. MODE 0 takes quads of visiting indices (two
  // neighbouring RoPE pairs) of a token, the others single (row, token) elements.
  const uint per = MODE == 0 ? CM / 4 : CM;
  for (uint e = tid; e < tiles * CN * per; e += gl_WorkGroupSize.x) {
    const uint r = e % per, c = (e / per) % CN, tt = e / (per * CN), tk = tt * CN + c;
    if (tk >= n_tok) continue;
    const real sc = xs[tk];
    if (MODE == 0) {
      const uint vq = vbase + 4 * r;
      if (vq >= nrows) continue;
      real val[4];
      [[unroll]] for (uint s = 0; s < 4; ++s) val[s] = real(sum_at(0, tt, c, 4 * r + s)) / sc * tensor_scale(gmat);
      store_qkv(tk, gmat, vq, val);
      continue;
    }
    const uint row = vbase + r;
    if (row >= pc.rows) continue;
    const real v = real(sum_at(0, tt, c, r)) / sc * tensor_scale(0);
    if (MODE == 1) {
      y[tk * pc.rows + row] = add_residual(y[tk * pc.rows + row], v);
    } else {
      const real u = real(sum_at(1, tt, c, r)) / sc * tensor_scale(1);
      y[tk * pc.rows + row] = gated_ffn(v, u, SILU);
    }
  }
}
