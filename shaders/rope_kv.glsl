// Rotary embedding of q (in place) and k, and the append of k and v to the KV cache at token t's
// position (common.glsl: token_pos, in its sequence's rows from token_kv), one workgroup per token.
// Within a head, dimension i pairs with i + hd/2 (NeoX) or 2i with
// 2i + 1 (NORMAL: LLaMA, llama.cpp's NORM); cos and sin of
// pos * base^(-2i/hd) come from a table the host computed in double precision (GPU sin/cos are only
// accurate near zero, and angles reach thousands of radians). The cache's element: kv_cache.glsl (F16
// pairs rounded to nearest even here, not by the driver's conversion, or the activations unrounded).
#include "common.glsl"
#include "rope_f16.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool KV_F16 = true;
#include "kv_cache.glsl"
layout(constant_id = 2) const bool NORMAL = false;
layout(std430, binding = 1) buffer Q { real q[]; };
layout(std430, binding = 2) readonly buffer K { real k[]; };
layout(std430, binding = 3) readonly buffer V { real v[]; };
layout(std430, binding = 4) readonly buffer Rope { real2 cs[]; };  // [context][hd/2] (cos, sin)
layout(std430, binding = 5) writeonly buffer KC { uint kc[]; };
layout(std430, binding = 6) writeonly buffer VC { uint vc[]; };
layout(push_constant) uniform Push { uint heads; uint kv_heads; uint hd; } pc;

void main() {
  const uint t = gl_WorkGroupID.x;
  if (t >= params.n_tokens) return;
  const uint pos = token_pos(t, FROM_PARAMS);
  const uint row = token_kv(t, FROM_PARAMS) + pos;  // the cache row written
  const uint half_hd = pc.hd / 2;
  const uint qdim = pc.heads * pc.hd, kvdim = pc.kv_heads * pc.hd;
  const uint tab = pos * half_hd;
  // Element `a` of a pair and its partner's distance.
  const uint partner = NORMAL ? 1u : half_hd;
  for (uint idx = gl_LocalInvocationID.x; idx < pc.heads * half_hd; idx += gl_WorkGroupSize.x) {
    const uint h = idx / half_hd, i = idx % half_hd;
    const uint o = t * qdim + h * pc.hd + (NORMAL ? 2u * i : i);
    const real2 r = rotate(q[o], q[o + partner], cs[tab + i]);
    q[o] = r.x;
    q[o + partner] = r.y;
  }
  if (NORMAL) {
    // A pair is two neighbouring dimensions.
    for (uint idx = gl_LocalInvocationID.x; idx < pc.kv_heads * half_hd; idx += gl_WorkGroupSize.x) {
      const uint h = idx / half_hd, i = idx % half_hd;
      const uint src = t * kvdim + h * pc.hd + 2u * i, dst = row * kvdim + h * pc.hd + 2u * i;
      const real2 r = rotate(k[src], k[src + 1], cs[tab + i]);
      KV_STORE_PAIR(kc, 0u, dst, r.x, r.y)
    }
  }
  // K: two neighbouring dimensions (and their partners) per item, so pairs are written whole.
  const uint quarter = half_hd / 2;
  for (uint idx = gl_LocalInvocationID.x; !NORMAL && idx < pc.kv_heads * quarter; idx += gl_WorkGroupSize.x) {
    const uint h = idx / quarter, i = 2 * (idx % quarter);
    const uint src = t * kvdim + h * pc.hd + i;
    const real2 r0 = rotate(k[src], k[src + half_hd], cs[tab + i]);
    const real2 r1 = rotate(k[src + 1], k[src + 1 + half_hd], cs[tab + i + 1]);
    const uint dst = row * kvdim + h * pc.hd + i;
    KV_STORE_PAIR(kc, 0u, dst, r0.x, r1.x)
    KV_STORE_PAIR(kc, 0u, dst + half_hd, r0.y, r1.y)
  }
  for (uint i = gl_LocalInvocationID.x; i < kvdim / 2; i += gl_WorkGroupSize.x) {
    const uint src = t * kvdim + 2 * i, dst = row * kvdim + 2 * i;
    KV_STORE_PAIR(vc, 0u, dst, v[src], v[src + 1])
  }
}
