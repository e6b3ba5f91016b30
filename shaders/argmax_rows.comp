#version 450
// The argmax of each row of a batched step's logits, found without reading the rows back
// (VulkanForward::decode_batch_argmax): workgroup (s, t) takes slice s (WG * PER logits) of row t and
// writes its best in argmax.glsl's order as (float bits, index) to best[t * slices + s]. The host takes
// the first largest value among a row's slices, which is the row's first largest logit: trit::argmax's
// token. Rows at or past the step's n_tokens do nothing.
// A row's penalised tokens (its repetition window: list t holds their count, then the ids) take no
// part in its slices' bests; their logits go to gathered[t * P_MAX + j] instead, for the host to
// penalise with the sampler's own arithmetic and weigh against the slices' bests. A slice with no other
// logit leaves (-inf, NONE).
// K > 1 (the top rows of sampled steps, VulkanForward::decode_batch_top): each slice leaves its best K in
// the same order, best first, at best[(t * slices + s) * K + r] ((-inf, NONE) past its last number above
// -inf: the int8 head writes -inf for the rows it leaves out, most of a slice, so the rounds stop there
// rather than list them; a slice with at most K such numbers places each by counting those before it,
// one pass instead of a round each), and nan[t * slices + s] says whether the slice holds a NaN (where
// this order and the sampler's differ).
#extension GL_GOOGLE_include_directive : require
#include "common.glsl"
#include "argmax.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint PER = 8;      // logits per invocation, all loads issued before any compare
layout(constant_id = 2) const uint P_MAX = 256;  // most penalised tokens a row
layout(constant_id = 3) const uint K = 1;        // bests a slice leaves
layout(std430, binding = 1) readonly buffer L { float logits[]; };
layout(std430, binding = 2) writeonly buffer B { uvec2 best[]; };
layout(std430, binding = 3) readonly buffer Pen { uint list[]; };  // per row: count, ids[P_MAX]
layout(std430, binding = 4) writeonly buffer G { float gathered[]; };
layout(std430, binding = 5) writeonly buffer NaN { uint nan[]; };  // (K > 1)
layout(push_constant) uniform Push { uint vocab; uint slices; } pc;
shared uvec2 s_win;
shared uint s_nan;
const uint NEG_INF_KEY = 0x007fffffu;  // order_key(-inf)
shared uint s_count;
shared uvec2 s_few[K];

// K > 1: whether the slice holds a NaN, to nan[] (every invocation calls it: barriers).
void write_nan_flag(in float v[PER], uint lo, uint t, uint s) {
  const uint tid = gl_LocalInvocationID.x, WG = gl_WorkGroupSize.x;
  bool has_nan = false;
  for (uint p = 0u; p < PER; ++p) has_nan = has_nan || (lo + p * WG + tid < pc.vocab && isnan(v[p]));
  if (tid == 0u) s_nan = 0u;
  barrier();
  if (has_nan) atomicOr(s_nan, 1u);
  barrier();
  if (tid == 0u) nan[t * pc.slices + s] = s_nan;
}

void main() {
  const uint tid = gl_LocalInvocationID.x, s = gl_WorkGroupID.x, t = gl_WorkGroupID.y;
  if (t >= params.n_tokens) return;  // whole workgroup
  const uint WG = gl_WorkGroupSize.x, lo = s * WG * PER, row = t * pc.vocab;
  float v[PER];
  for (uint p = 0u; p < PER; ++p) {
    const uint i = lo + p * WG + tid;
    v[p] = i < pc.vocab ? logits[row + i] : 0.0;
  }
  // The penalised tokens among this invocation's logits: out of the running, their values gathered.
  uint out_of_running = 0u;
  const uint lb = t * (P_MAX + 1u), count = min(list[lb], P_MAX);
  for (uint j = 0u; j < count; ++j) {
    const uint i = list[lb + 1u + j] - lo;  // ids below the slice wrap to huge values
    if (i < WG * PER && i % WG == tid) {
      out_of_running |= 1u << (i / WG);
      gathered[t * P_MAX + j] = logits[row + lo + i];
    }
  }
  uint taken = out_of_running;
  const uint out0 = (t * pc.slices + s) * K;
  if (K > 1u) {
    // A slice with at most K numbers above -inf (the int8 head's, which writes -inf for the rows it leaves
    // out): those numbers in shared memory, each placed by the count of those before it. The same list
    // the rounds below would leave, without a workgroup reduction per entry.
    if (tid == 0u) s_count = 0u;
    barrier();
    for (uint p = 0u; p < PER; ++p) {
      const uint i = lo + p * WG + tid;
      if (i >= pc.vocab || (taken & (1u << p)) != 0u) continue;
      const uint k = order_key(v[p]);
      if (k > NEG_INF_KEY) {
        const uint at = atomicAdd(s_count, 1u);
        if (at < K) s_few[at] = uvec2(k, i);
      }
    }
    barrier();
    const uint c = s_count;
    if (c <= K) {
      for (uint q = tid; q < K; q += WG) {
        if (q >= c) {
          best[out0 + q] = uvec2(0xff800000u, NONE);  // -inf
          continue;
        }
        const uvec2 e = s_few[q];
        uint place = 0u;
        for (uint j = 0u; j < c; ++j)
          if (beats(s_few[j].x, s_few[j].y, e.x, e.y)) ++place;
        best[out0 + place] = uvec2(floatBitsToUint(logits[row + e.y]), e.y);
      }
      write_nan_flag(v, lo, t, s);
      return;
    }
  }
  // Each invocation's logits in ascending order, so the first of equals stays. Round r takes the best
  // of what the rounds before left.
  for (uint r = 0u; r < K; ++r) {
    uint bk = 0u, bi = NONE;
    for (uint p = 0u; p < PER; ++p) {
      const uint i = lo + p * WG + tid;
      if (i >= pc.vocab) break;
      if ((taken & (1u << p)) != 0u) continue;
      const uint k = order_key(v[p]);
      if (bi == NONE || k > bk) {
        bk = k;
        bi = i;
      }
    }
    const uvec2 b = workgroup_best(bk, bi);
    if (tid == 0u) {
      s_win = b;
      best[out0 + r] = b.y == NONE ? uvec2(0xff800000u, NONE)  // -inf
                                   : uvec2(floatBitsToUint(logits[row + b.y]), b.y);
    }
    if (K == 1u) break;
    barrier();
    const uvec2 w = s_win;
    barrier();  // (s_win and workgroup_best's memory are rewritten next round)
    if (w.y == NONE || w.x <= NEG_INF_KEY) {  // (a winner of -inf or NaN: the rest are no larger)
      for (uint q = r + (w.y == NONE ? 1u : 0u) + tid; q < K; q += WG) best[out0 + q] = uvec2(0xff800000u, NONE);
      break;
    }
    if (w.y >= lo && (w.y - lo) % WG == tid) taken |= 1u << ((w.y - lo) / WG);
  }
  if (K > 1u) write_nan_flag(v, lo, t, s);
}
