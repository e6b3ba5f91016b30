// Merges the split-K partials of attention.glsl, one workgroup per (query head, token), with
// attention_merge.glsl's merge_splits.
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Part { real part[]; };
layout(std430, binding = 2) writeonly buffer O { real o[]; };
layout(push_constant) uniform Push { uint heads; uint hd; uint splits; } pc;

shared real wsplit[gl_WorkGroupSize.x];
#include "attention_merge.glsl"

void main() {
  const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y;
  if (t >= params.n_tokens) return;
  const uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  real acc[4];
  real l;
  merge_splits((t * pc.heads + h) * pc.splits * (pc.hd + 2), pc.hd + 2, pc.splits, pc.hd, false, acc, l);
  for (uint r = 0; r < 4; ++r) {
    const uint d = tid + r * wg;
    if (d >= pc.hd) break;
    o[t * pc.heads * pc.hd + h * pc.hd + d] = acc[r] / l;
  }
}
