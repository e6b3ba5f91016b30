#version 450
// How many workgroups of a persistent kernel's size can be resident at once, for devices that do not
// report their multiprocessors (vulkan/occupancy.h). Every workgroup takes the kernel's invocations,
// its shared memory and about its registers (REGS uvec4s per invocation, loaded and used before the
// wait and each used again after it, non-linearly: from a `volatile` buffer, whose loads the compiler
// may not repeat, so it must keep the values), counts itself in, and waits, bounded,
// until all `groups` have counted in. (With the buffer readonly the H100's compiler reloaded them and
// fit two workgroups a multiprocessor where the decode kernel, at its 128-register cap, fits one: the
// fp32 decode kernel was then never used.) If they are not all resident at once, the first wave's workgroups wait in
// vain (the rest cannot start until one of them ends) and record that they gave up.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SHARED_WORDS = 1;
layout(constant_id = 2) const uint SPIN_LIMIT = 8192;
const uint REGS = 28;
layout(std430, binding = 0) coherent buffer Sync { uint arrived; uint gave_up; uint sink; } s;
layout(std430, binding = 1) coherent volatile buffer Src { uvec4 src[]; };
layout(push_constant) uniform Push { uint groups; uint src_vec4s; } pc;
shared uint pad[SHARED_WORDS];

void main() {
  const uint tid = gl_LocalInvocationID.x;
  uvec4 r[REGS];
  for (uint i = 0; i < REGS; ++i) r[i] = src[(gl_WorkGroupID.x * 131u + tid * REGS + i) % pc.src_vec4s];
  // Every value is used before the wait (so its load happens there) and again after it.
  uvec4 pre = r[0];
  for (uint i = 1; i < REGS; ++i) pre = pre * 5u + r[i];
  for (uint i = tid; i < SHARED_WORDS; i += gl_WorkGroupSize.x) pad[i] = pre.x + i;
  barrier();
  if (tid == 0u) atomicAdd(s.arrived, 1u);
  // Subgroup 0 polls as one, as the persistent kernel's waits do.
  if (gl_SubgroupID == 0u) {
    uint spins = 0u;
    while (subgroupBroadcastFirst(s.arrived) < pc.groups) {
      if (++spins >= SPIN_LIMIT) {
        if (tid == 0u) atomicOr(s.gave_up, 1u);
        break;
      }
    }
  }
  barrier();
  uvec4 acc = uvec4(pad[(tid * 7u) % SHARED_WORDS]);
  // Each value meets one read after the wait, non-linearly: a linear combination (acc * 3 + r[i]) could
  // be summed before the wait, and was (H200, driver 580: the fp32 probe held a few registers across the
  // wait and measured two workgroups a multiprocessor, 264, where the kernel at 124 registers fits one).
  for (uint i = 0; i < REGS; ++i) acc = (acc ^ r[i]) * 3u;
  // Never true for the source the host writes (all zero): keeps the loads and the shared array alive.
  if (acc.x == 0xffffffffu && acc.y == 0xfffffffeu) s.sink = acc.z;
}
