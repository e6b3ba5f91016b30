#version 450
// One link of a chain of dependent dispatches: reads the per-submit parameters (as every engine kernel
// does first) and the previous link's value, and writes the next. bench times a chain of these to
// measure the fixed cost of one dependent kernel step on the device, the floor under every decode step.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) readonly buffer Params { uint pos0; uint n_tokens; } params;
layout(std430, binding = 1) buffer Chain { uint value[]; } chain;
shared uint seen;
void main() {
  if (gl_LocalInvocationIndex == 0) seen = chain.value[0] + params.n_tokens;
  barrier();
  if (gl_GlobalInvocationID.x == 0) chain.value[0] = seen;
}
