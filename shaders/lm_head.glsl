// Tied F16 LM head over one chunk of the embedding table: logits[t][row0 + r] = sum_d E[r][d] * x[t][d]
// (fp32 accumulation). The table is read as uvec4 (8 halves), TPR lanes per row, WG/TPR rows per
// workgroup, NT tokens per workgroup in y. One dispatch per chunk (a chunk fits one binding).
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint NT = 1;
layout(std430, binding = 1) readonly buffer E { uvec4 e[]; };
layout(std430, binding = 2) readonly buffer X { real4 x[]; };
layout(std430, binding = 3) writeonly buffer L { float logits[]; };
layout(push_constant) uniform Push { uint rows; uint dim; uint row0; uint vocab; } pc;

const uint MAXNT = 8;
shared real part[gl_WorkGroupSize.x * MAXNT];

void main() {
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
