// Shared by the engine's compute shaders: the per-submit parameters every kernel reads (binding 0),
// and workgroup reductions built on subgroup arithmetic (one partial per subgroup in shared memory,
// so any subgroup size works: 8 on lavapipe, 32 on NVIDIA, 64 on some AMD).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

// Activations are `real`: float, or double when the shader is compiled with TRIT_F64 (the *_f64.comp
// wrappers). The integer ternary sums are exact either way; double keeps every float step far from the
// int8 rounding boundaries of the next quantization, which fp32 crosses within a few dozen tokens.
#ifdef TRIT_F64
#define real double
#define real2 dvec2
#define real4 dvec4
#else
#define real float
#define real2 vec2
#define real4 vec4
#endif

// Written by the host before each submit: the position of the first token and how many tokens this
// submit carries (<= the block size the command buffer was recorded for).
layout(std430, binding = 0) readonly buffer Params {
  uint pos0;
  uint n_tokens;
} params;

// Up to 64 subgroups per workgroup (the host keeps workgroup size / min subgroup size <= 64).
shared real red_f[64];
shared int red_i[64];

real wg_sum(real v) {
  v = subgroupAdd(v);
  if (subgroupElect()) red_f[gl_SubgroupID] = v;
  barrier();
  real r = real(0);
  for (uint i = 0; i < gl_NumSubgroups; ++i) r += red_f[i];
  barrier();
  return r;
}

real wg_max(real v) {
  v = subgroupMax(v);
  if (subgroupElect()) red_f[gl_SubgroupID] = v;
  barrier();
  real r = red_f[0];
  for (uint i = 1; i < gl_NumSubgroups; ++i) r = max(r, red_f[i]);
  barrier();
  return r;
}

// Round half away from zero, exactly as std::round (GLSL round() leaves halves to the implementation,
// and floor(|v| + 0.5) misrounds 0.49999997). v - trunc(v) is exact for every float.
real round_half_away(real v) {
  real t = trunc(v);
  if (abs(v - t) >= 0.5) t += sign(v);
  return t;
}

// exp for real: GLSL has no double exp, so double uses range reduction (x = k ln2 + r, |r| <= ln2/2)
// and a degree-13 Taylor polynomial (relative error below 1e-16 on the reduced range).
real exp_real(real x) {
#ifdef TRIT_F64
  if (x < -745.0LF) return 0.0LF;
  const double ln2 = 0.6931471805599453094LF;
  const double k = floor(x / ln2 + 0.5LF);
  const double r = x - k * ln2;
  double p = 1.0LF;
  for (int i = 13; i >= 1; --i) p = 1.0LF + p * r / double(i);
  return ldexp(p, int(k));
#else
  return exp(x);
#endif
}
