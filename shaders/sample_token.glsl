// The GPU sampler (engine/src/vulkan/gpu_sampler.h) in one dispatch of ceil(vocab / SLICE) workgroups.
// Phase 1 (sample_select.glsl), in every workgroup: the penalised top k of its slice of the logits (LIST:
// of the logits of its slice of the candidate list) into its region of `cand`. Then each workgroup
// counts itself in; the last to arrive sees every region and runs phase 2 (sample_final.glsl): merge,
// sort, the CPU sampler's cutoffs and the draw, and it resets the counter for the next replay. One dispatch instead of two saves a dependent launch per token.
// Like greedy_step.comp it ends a decode step on the device: phase 2 publishes the token, the next
// step's input and position, and keeps the penalty window, so steps chain without the host.
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
// `done` counts the workgroups through phase 1 (zero between draws); coherent, so the last workgroup
// reads the other workgroups' candidates from memory, not from a stale cache.
layout(std430, binding = 2) coherent buffer Cand {
  uint done;
  uint pad_;
  uvec2 cand[];
};
layout(push_constant) uniform Push { uint vocab; uint ring_size; } pc;

#include "sample_select.glsl"
#include "sample_final.glsl"

shared bool s_last;

void main() {
  // The step's position, read before phase 2's invocation 0 advances it (the barriers below order it).
  const uint pos = step.pos0;
  const uint k = select_count(pc.vocab, K_MAX);
  // LIST: the list's length, read before this workgroup counts in (the head of the next step, which
  // resets it, runs after this dispatch).
  const uint len = LIST ? list.count : pc.vocab;
  select_slice(len, k);
  // Release: this workgroup's candidates are written before it counts itself in.
  memoryBarrierBuffer();
  barrier();
  if (gl_LocalInvocationID.x == 0u) s_last = atomicAdd(done, 1u) == gl_NumWorkGroups.x - 1u;
  barrier();
  if (!s_last) return;
  // Acquire: every other workgroup's candidates are visible now.
  memoryBarrierBuffer();
  if (gl_LocalInvocationID.x == 0u) done = 0u;
  merge_and_draw(pc.vocab, len, k, pos);
}
