#version 450
// Index of the largest value of each token's row (the first on ties), one workgroup per token.
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer L { float values[]; };
layout(std430, binding = 2) writeonly buffer R { uint best[]; };
layout(push_constant) uniform Push { uint count; } pc;
shared float bv[gl_WorkGroupSize.x];
shared uint bi[gl_WorkGroupSize.x];
void main() {
  const uint t = gl_WorkGroupID.x, tid = gl_LocalInvocationID.x;
  if (t >= params.n_tokens) return;
  float v = -1.0 / 0.0;
  uint idx = 0xffffffffu;
  for (uint i = tid; i < pc.count; i += gl_WorkGroupSize.x) {
    const float x = values[t * pc.count + i];
    if (idx == 0xffffffffu || x > v) { v = x; idx = i; }  // strided ascending: first max kept
  }
  bv[tid] = v;
  bi[tid] = idx;
  barrier();
  for (uint stride = gl_WorkGroupSize.x / 2; stride > 0; stride /= 2) {
    if (tid < stride) {
      const float ov = bv[tid + stride];
      const uint oi = bi[tid + stride];
      if (oi != 0xffffffffu && (bi[tid] == 0xffffffffu || ov > bv[tid] || (ov == bv[tid] && oi < bi[tid]))) {
        bv[tid] = ov;
        bi[tid] = oi;
      }
    }
    barrier();
  }
  if (tid == 0) best[t] = bi[0];
}
