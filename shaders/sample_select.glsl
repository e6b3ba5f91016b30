// GPU sampler, pass 1 (engine/src/vulkan/gpu_sampler.h): each workgroup takes SLICE logits, applies the
// repetition penalty to the penalised ids in its slice, and writes its slice's top `select_count`
// candidates (in no particular order) as (order key, id) pairs to its region of `cand`.
#extension GL_GOOGLE_include_directive : require
layout(local_size_x_id = 0) in;
#define WG gl_WorkGroupSize.x
#ifdef TRIT_F64
#define real double
#else
#define real float
#endif
#include "sample_common.glsl"

layout(std430, binding = 1) readonly buffer Logits { float logits[]; };
layout(std430, binding = 2) writeonly buffer Cand { uvec2 cand[]; };
layout(push_constant) uniform Push { uint vocab; } pc;

shared uint skey[SLICE];

void main() {
  const uint t = gl_LocalInvocationID.x;
  const uint base = gl_WorkGroupID.x * SLICE;
  if (base >= pc.vocab) return;
  const uint n = min(SLICE, pc.vocab - base);
  const uint k = select_count(pc.vocab);
  if (k == 0u) return;  // unsupported parameters: sample_final reports them

  for (uint i = t; i < n; i += WG) skey[i] = order_key(logits[base + i]);
  barrier();
  const uint np = penalised_count();
  for (uint j = t; j < np; j += WG) {
    const uint id = uint(st.penalty_ids[j]);  // negative ids become huge and fall outside
    if (id >= base && id - base < n) skey[id - base] = order_key(penalise(logits[id], st.repeat_penalty));
  }
  rs_begin(min(k, n));
  if (k < n) {
    for (uint round = 0u; round < 8u; ++round) {
      rs_clear();
      for (uint i0 = 0u; i0 < n; i0 += WG) {
        const uint i = i0 + t;
        uint d = 256u;
        if (i < n) {
          const uvec2 c = uvec2(skey[i], ~(base + i));
          if (rs_matches(c)) d = rs_digit(c, round);
        }
        rs_count_digit(d);
      }
      rs_choose(round);
      if (rs_done != 0u) break;
    }
  }
  // The region of this workgroup holds min(k, SLICE) pairs (min(k, n) of them written).
  const uint region = gl_WorkGroupID.x * min(K_MAX, SLICE);
  for (uint i = t; i < n; i += WG) {
    const uvec2 c = uvec2(skey[i], ~(base + i));
    if (rs_selected(c)) cand[region + atomicAdd(rs_count, 1u)] = uvec2(c.x, base + i);
  }
}
