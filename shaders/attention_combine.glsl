// Merges the split-K partials of attention.glsl, one workgroup per (query head, token):
// m = max of the splits' maxima (splits with l = 0 saw no key), o = sum_s acc_s e^(m_s - m) / sum_s l_s e^(m_s - m).
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(std430, binding = 1) readonly buffer Part { real part[]; };
layout(std430, binding = 2) writeonly buffer O { real o[]; };
layout(push_constant) uniform Push { uint heads; uint hd; uint splits; } pc;

void main() {
  const uint h = gl_WorkGroupID.x, t = gl_WorkGroupID.y;
  if (t >= params.n_tokens) return;
  const uint base = (t * pc.heads + h) * pc.splits * (pc.hd + 2);
  const uint stride = pc.hd + 2;
  bool any = false;
  real m = real(0);
  for (uint s = 0; s < pc.splits; ++s) {
    if (part[base + s * stride + 1] == real(0)) continue;
    const real ms = part[base + s * stride];
    m = any ? max(m, ms) : ms;
    any = true;
  }
  real l = real(0);
  for (uint s = 0; s < pc.splits; ++s) {
    const real ls = part[base + s * stride + 1];
    if (ls != real(0)) l += ls * exp_real(part[base + s * stride] - m);
  }
  for (uint d = gl_LocalInvocationID.x; d < pc.hd; d += gl_WorkGroupSize.x) {
    real a = real(0);
    for (uint s = 0; s < pc.splits; ++s) {
      const real ls = part[base + s * stride + 1];
      if (ls != real(0)) a += part[base + s * stride + 2 + d] * exp_real(part[base + s * stride] - m);
    }
    o[t * pc.heads * pc.hd + h * pc.hd + d] = a / l;
  }
}
