#version 450
// Streams one buffer into another with 16-byte loads and stores: the memory bandwidth a compute
// kernel can reach on this device, the denominator of the benchmark's roofline ratio. (A transfer
// command on a compute-only queue can run far below it: 0.85 TB/s against about 3 TB/s on an H100.)
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Src { uvec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push { uint n; } pc;  // uvec4 elements
void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) dst[i] = src[i];
}
