// Tied F16 LM head over one chunk of the embedding table: logits[t][row0 + r] = sum_d E[r][d] * x[t][d]
// (fp32 accumulation). The table is read as uvec4 (8 halves), TPR lanes per row, WG/TPR rows per
// workgroup, NT tokens per workgroup in y. One dispatch per chunk (a chunk fits one binding).
//
// Decode variant (XDIM > 0, one token): the 657 MB table is the largest read of a decode step, so the
// token's x is staged once per workgroup in shared memory (XDIM = dim values) instead of being re-read
// from L1 for every row, each workgroup covers RPW rows, and each subgroup takes whole rows (lanes
// stride over the row's uvec4s, coalesced 16-byte loads) and reduces them with subgroupAdd, so any
// subgroup size works and no barrier sits in the row loop.
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint NT = 1;
layout(constant_id = 3) const uint XDIM = 0;
layout(constant_id = 4) const uint RPW = 64;
layout(std430, binding = 1) readonly buffer E { uvec4 e[]; };
layout(std430, binding = 2) readonly buffer X { real4 x[]; };
layout(std430, binding = 3) writeonly buffer L { float logits[]; };
layout(push_constant) uniform Push { uint rows; uint dim; uint row0; uint vocab; } pc;

const uint MAXNT = 8;
shared real part[XDIM > 0 ? 1 : gl_WorkGroupSize.x * MAXNT];
shared real4 xs[XDIM > 0 ? XDIM / 4 : 1];

void decode_rows() {
  const uint x_vecs = pc.dim / 4, row_vecs = pc.dim / 8;
  for (uint i = gl_LocalInvocationID.x; i < x_vecs; i += gl_WorkGroupSize.x) xs[i] = x[i];
  barrier();
  const uint lane = gl_SubgroupInvocationID, step = gl_SubgroupSize;
  const uint first = gl_WorkGroupID.x * RPW;
  for (uint r = gl_SubgroupID; r < RPW; r += gl_NumSubgroups) {
    const uint row = first + r;
    if (row >= pc.rows) break;  // uniform in the subgroup
    real acc = real(0);
    for (uint j = lane; j < row_vecs; j += step) {
      const uvec4 w = e[row * row_vecs + j];
      const real4 lo = real4(vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y)));
      const real4 hi = real4(vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
      acc += dot(lo, xs[2 * j]) + dot(hi, xs[2 * j + 1]);
    }
    acc = subgroupAdd(acc);
    if (subgroupElect()) logits[pc.row0 + row] = float(acc);
  }
}

void main() {
  if (XDIM > 0) {
    if (params.n_tokens > 0) decode_rows();
    return;
  }
  const uint tid = gl_LocalInvocationID.x;
  const uint lane = tid % TPR;
  const uint row = gl_WorkGroupID.x * (gl_WorkGroupSize.x / TPR) + tid / TPR;
  const uint t0 = gl_WorkGroupID.y * NT;
  const uint n = params.n_tokens;
  if (t0 >= n) return;
  const uint row_vecs = pc.dim / 8, x_vecs = pc.dim / 4;
  real acc[MAXNT];
  for (uint tt = 0; tt < NT; ++tt) acc[tt] = real(0);
  if (row < pc.rows) {
    for (uint j = lane; j < row_vecs; j += TPR) {
      const uvec4 w = e[row * row_vecs + j];
      const real4 lo = real4(vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y)));
      const real4 hi = real4(vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
      for (uint tt = 0; tt < NT; ++tt) {
        if (t0 + tt >= n) break;
        const uint xb = (t0 + tt) * x_vecs + 2 * j;
        acc[tt] += dot(lo, x[xb]) + dot(hi, x[xb + 1]);
      }
    }
  }
  for (uint tt = 0; tt < NT; ++tt) part[tt * gl_WorkGroupSize.x + tid] = acc[tt];
  barrier();
  for (uint stride = TPR / 2; stride > 0; stride /= 2) {
    if (lane < stride)
      for (uint tt = 0; tt < NT; ++tt) part[tt * gl_WorkGroupSize.x + tid] += part[tt * gl_WorkGroupSize.x + tid + stride];
    barrier();
  }
  if (lane != 0 || row >= pc.rows) return;
  for (uint tt = 0; tt < NT; ++tt) {
    if (t0 + tt >= n) break;
    logits[(t0 + tt) * pc.vocab + pc.row0 + row] = float(part[tt * gl_WorkGroupSize.x + tid]);
  }
}
