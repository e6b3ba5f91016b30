// A batched step's BitLinear product as its kernels share it (bitlinear_batch.glsl, the small-matrix
// kernel; bitlinear_batch_coop.glsl, the cooperative-matrix one): the bindings, the push constants,
// the matrices (bitlinear_matrices.glsl), MODE 0's visiting order, RoPE and KV epilogue and the wait
// for the quantized rows. The including shader declares the specialization constants KV_F16,
// NORMAL_ROPE and SPIN_LIMIT first, and includes common.glsl and rope_f16.glsl.
#include "kv_cache.glsl"
// (coherent: with WAIT they are read after the count, from L2, never a stale L1 line)
layout(std430, binding = 4) coherent readonly buffer XQ { uvec4 xq[]; };  // [token][K / 16], PERMUTED
layout(std430, binding = 5) coherent readonly buffer XS { real xs[]; };   // [token]: 127 / absmax (normed_absmax)
layout(std430, binding = 6) buffer Y { real y[]; };
layout(std430, binding = 7) readonly buffer Rope { real2 cs[]; };  // [context][hd/2] (cos, sin)
layout(std430, binding = 8) writeonly buffer KC { uint kc[]; };
layout(std430, binding = 9) writeonly buffer VC { uint vc[]; };
// WAIT: the step's counts of quantized rows (zero at the step's start) and the flag a wait that gave up raises.
layout(std430, binding = 13) volatile coherent buffer Ready { uint ready[]; };
layout(std430, binding = 14) coherent buffer Failed { uint failed; };
// rows: rows of W0 (MODE 0: of Wq); rows_kv: rows of Wk and of Wv (MODE 0); hd: head dimension; slot:
// this BitLinear's count in ready[] (WAIT).
layout(push_constant) uniform Push {
  uint rows;
  uint rows_kv;
  uint hd;
  float scale0;
  float scale1;
  float scale2;
  uint slot;
} pc;
#include "bitlinear_matrices.glsl"  // the matrices at bindings 1-3 and 10-12


// MODE 0 (QKV) visits the rows of Wq, then Wk, then Wv: visiting index v (in: of the three; out: within
// its matrix) and its matrix, 0 to 2. A workgroup's indices lie in one matrix (the host keeps its rows
// a divisor of the projections' widths).
uint qkv_matrix(inout uint v) {
  if (v >= pc.rows + pc.rows_kv) {
    v -= pc.rows + pc.rows_kv;
    return 2u;
  }
  if (v >= pc.rows) {
    v -= pc.rows;
    return 1u;
  }
  return 0u;
}

// The row of matrix mat that visiting index v (within it) reads: Wq and Wk in RoPE pair order (NeoX:
// visiting 2p + half is dimension p + half * hd/2 of the same head, so a pair's rows are neighbours);
// Wv, and every matrix with NORMAL_ROPE (LLaMA's pairs 2i, 2i + 1 are neighbours already), in order.
uint qkv_row(uint mat, uint v) {
  if (mat == 2u || NORMAL_ROPE) return v;
  const uint within = v % pc.hd;
  return v - within + within / 2u + (within % 2u) * (pc.hd / 2u);
}

// MODE 0's epilogue for token tk: visiting indices vq..vq+3 of matrix mat (values val), two neighbouring
// RoPE pairs of Wq or Wk rotated and written (q to Y, k to the cache), or four rows of Wv to the cache.
void store_qkv(uint tk, uint mat, uint vq, real val[4]) {
  const uint pos = token_pos(tk, FROM_BATCH);
  const uint crow = token_kv(tk, FROM_BATCH) + pos;  // the cache row written
  const uint kvdim = pc.rows_kv, half_hd = pc.hd / 2;
  if (mat == 2) {
    const uint dst = crow * kvdim + vq;
    KV_STORE_PAIR(vc, 0u, dst, val[0], val[1])
    KV_STORE_PAIR(vc, 0u, dst + 2, val[2], val[3])
    return;
  }
  const uint h = vq / pc.hd, within = vq % pc.hd, i = within / 2;
  // Pairs i and i + 1: NeoX dimensions (i, i + hd/2) and (i + 1, i + 1 + hd/2); normal RoPE
  // dimensions (within, within + 1) and (within + 2, within + 3) of the head.
  const real2 r0 = rotate(val[0], val[1], cs[pos * half_hd + i]);
  const real2 r1 = rotate(val[2], val[3], cs[pos * half_hd + i + 1]);
  if (mat == 0) {
    const uint qb = tk * pc.rows + h * pc.hd;
    if (NORMAL_ROPE) {
      y[qb + within] = r0.x;
      y[qb + within + 1] = r0.y;
      y[qb + within + 2] = r1.x;
      y[qb + within + 3] = r1.y;
    } else {
      y[qb + i] = r0.x;
      y[qb + i + 1] = r1.x;
      y[qb + i + half_hd] = r0.y;
      y[qb + i + 1 + half_hd] = r1.y;
    }
    return;
  }
  const uint kb = crow * kvdim + h * pc.hd;
  if (NORMAL_ROPE) {
    KV_STORE_PAIR(kc, 0u, kb + within, r0.x, r0.y)
    KV_STORE_PAIR(kc, 0u, kb + within + 2, r1.x, r1.y)
  } else {
    KV_STORE_PAIR(kc, 0u, kb + i, r0.x, r1.x)
    KV_STORE_PAIR(kc, 0u, kb + i + half_hd, r0.y, r1.y)
  }
}

// WAIT: until all n rows are counted in; subgroup 0 polls (as one: each invocation follows the first
// one's load, so the subgroup leaves the loop together), then the workgroup's reads see the rows.
void wait_for_rows(uint n) {
  if (gl_SubgroupID == 0u) {
    uint spins = 0u;
    while (subgroupBroadcastFirst(ready[pc.slot]) < n) {
      if (++spins >= SPIN_LIMIT) {
        if (subgroupElect()) failed = 1u;
        break;
      }
    }
    memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
  }
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
}
