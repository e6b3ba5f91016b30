// Shared by the engine's compute shaders: the per-submit parameters every kernel reads (binding 0),
// and workgroup reductions built on subgroup arithmetic (one partial per subgroup in shared memory,
// so any subgroup size works: 8 on lavapipe, 32 on NVIDIA, 64 on some AMD).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

// Written by the host before each submit: the position of the first token and how many tokens this
// submit carries (<= the block size the command buffer was recorded for).
layout(std430, binding = 0) readonly buffer Params {
  uint pos0;
  uint n_tokens;
} params;

// Up to 64 subgroups per workgroup (the host keeps workgroup size / min subgroup size <= 64).
shared float red_f[64];
shared int red_i[64];

float wg_sum(float v) {
  v = subgroupAdd(v);
  if (subgroupElect()) red_f[gl_SubgroupID] = v;
  barrier();
  float r = 0.0;
  for (uint i = 0; i < gl_NumSubgroups; ++i) r += red_f[i];
  barrier();
  return r;
}

float wg_max(float v) {
  v = subgroupMax(v);
  if (subgroupElect()) red_f[gl_SubgroupID] = v;
  barrier();
  float r = red_f[0];
  for (uint i = 1; i < gl_NumSubgroups; ++i) r = max(r, red_f[i]);
  barrier();
  return r;
}

// Round half away from zero, exactly as std::round (GLSL round() leaves halves to the implementation,
// and floor(|v| + 0.5) misrounds 0.49999997). v - trunc(v) is exact for every float.
float round_half_away(float v) {
  float t = trunc(v);
  if (abs(v - t) >= 0.5) t += sign(v);
  return t;
}
