// Ternary (I2_S) matrix times int8 activations for a block of tokens (n = 1 is the decode matvec):
//   y[t][r] = float(sum_k (code[r][k] - 1) * xq[t][k]) / s[t] * scale     (the sum exact in int32)
// Weights are the I2_S codes as stored, read as uvec4: one uvec4 is half a 128-element block of a row
// (words 4h..4h+3), and word w of a block holds, for group g (bits 6-2g of each byte), elements
// 32g + 4w + b: four consecutive activations, i.e. one packed int8 word, for each of the 4 groups.
// Layout: TPR threads per row (lanes stride over the row's uvec4s, coalesced), WG/TPR rows per
// workgroup, NT tokens per workgroup in y (each weight read once per NT tokens).
// MODE 0: y = value. MODE 1: y += value (the residual add). MODE 2: the FFN gate: a second matrix
// (binding 2, same input) gives u and y = relu(g)^2 * u.
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
layout(std430, binding = 1) readonly buffer W { uvec4 wq[]; };
layout(std430, binding = 2) readonly buffer W2 { uvec4 wq2[]; };
layout(std430, binding = 3) readonly buffer XQ { uvec4 xq[]; };
layout(std430, binding = 4) readonly buffer S { real s[]; };
layout(std430, binding = 5) buffer Y { real y[]; };
layout(push_constant) uniform Push { uint rows; uint k; float scale; float scale2; } pc;

const uint MAXNT = 8;
shared int part[gl_WorkGroupSize.x * MAXNT];
shared int part2[MODE == 2 ? gl_WorkGroupSize.x * MAXNT : 1];

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
  for (uint tt = 0; tt < NT; ++tt) { acc[tt] = 0; acc2[tt] = 0; }
  if (row < pc.rows) {
    for (uint j = lane; j < row_vecs; j += TPR) {
      const uvec4 w = wq[row * row_vecs + j];
      uvec4 w2 = uvec4(0);
      if (MODE == 2) w2 = wq2[row * row_vecs + j];
      const uint abase = (j >> 1) * 8 + (j & 1);  // group g at abase + 2g
#ifdef TRIT_DOT
      int c[16], c2[16];  // [4 * g + word]
      for (uint q = 0; q < 4; ++q)
        for (uint g = 0; g < 4; ++g) {
          c[4 * g + q] = int(ternary_word(w[q], 6u - 2u * g));
          c2[4 * g + q] = MODE == 2 ? int(ternary_word(w2[q], 6u - 2u * g)) : 0;
        }
      for (uint tt = 0; tt < NT; ++tt) {
        if (t0 + tt >= n) break;
        const uint ab = (t0 + tt) * act_vecs + abase;
        const uvec4 a[4] = uvec4[4](xq[ab], xq[ab + 2], xq[ab + 4], xq[ab + 6]);
        int r = 0, r2 = 0;
        for (uint g = 0; g < 4; ++g)
          for (uint q = 0; q < 4; ++q) {
            r += sdot4x8(c[4 * g + q], int(a[g][q]), 0);
            if (MODE == 2) r2 += sdot4x8(c2[4 * g + q], int(a[g][q]), 0);
          }
        acc[tt] += r;
        if (MODE == 2) acc2[tt] += r2;
      }
#else
      for (uint tt = 0; tt < NT; ++tt) {
        if (t0 + tt >= n) break;
        const uint ab = (t0 + tt) * act_vecs + abase;
        const uvec4 a0 = xq[ab], a1 = xq[ab + 2], a2 = xq[ab + 4], a3 = xq[ab + 6];
        acc[tt] += dot_uvec4(w, a0, a1, a2, a3);
        if (MODE == 2) acc2[tt] += dot_uvec4(w2, a0, a1, a2, a3);
      }
#endif
    }
  }
  // Reduce the TPR lanes of each row (integer adds: exact in any order).
  for (uint tt = 0; tt < NT; ++tt) {
    part[tt * gl_WorkGroupSize.x + tid] = acc[tt];
    if (MODE == 2) part2[tt * gl_WorkGroupSize.x + tid] = acc2[tt];
  }
  barrier();
  for (uint stride = TPR / 2; stride > 0; stride /= 2) {
    if (lane < stride) {
      for (uint tt = 0; tt < NT; ++tt) {
        part[tt * gl_WorkGroupSize.x + tid] += part[tt * gl_WorkGroupSize.x + tid + stride];
        if (MODE == 2) part2[tt * gl_WorkGroupSize.x + tid] += part2[tt * gl_WorkGroupSize.x + tid + stride];
      }
    }
    barrier();
  }
  if (lane != 0 || row >= pc.rows) return;
  for (uint tt = 0; tt < NT; ++tt) {
    const uint t = t0 + tt;
    if (t >= n) break;
    const real v = real(part[tt * gl_WorkGroupSize.x + tid]) / s[t] * real(pc.scale);
    const uint o = t * pc.rows + row;
    if (MODE == 0) {
      y[o] = v;
    } else if (MODE == 1) {
      y[o] += v;
    } else {
      const real u = real(part2[tt * gl_WorkGroupSize.x + tid]) / s[t] * real(pc.scale2);
      const real r = max(v, real(0));
      y[o] = r * r * u;
    }
  }
}
