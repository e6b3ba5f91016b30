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
// submit carries (<= the block size the command buffer was recorded for), and where the tokens' keys and
// values live. A KV cache holds several sequences (one per server stream), sequence s's position p at
// cache row s * context + p. A submit either carries consecutive tokens of one sequence (batch == 0:
// token t at position pos0 + t, cache rows from kv_base) or one token of each of several sequences
// (batch != 0, a batched decode step: token t at position tok[t].x, its sequence's rows from tok[t].y).
// Only the kernels of blocks and batched steps read kv_base, batch and tok[] (rope_kv, attention,
// attention_block); the one-token kernels serve sequence 0 alone.
layout(std430, binding = 0) readonly buffer Params {
  uint pos0;
  uint n_tokens;
  uint kv_base;
  uint batch;
  uvec2 tok[];
} params;

// Token t's position in its sequence, and the cache row of its sequence's position 0, for a kernel that
// takes its tokens as `from` says: FROM_PARAMS reads which kind of submit it is at run time (blocks and
// batched steps alike), FROM_BATCH is a batched step's kernel, FROM_POS0 a one-token kernel (sequence
// 0 at pos0: no other load in its chain of dependent reads).
const uint FROM_PARAMS = 0u, FROM_BATCH = 1u, FROM_POS0 = 2u;
uint token_pos(uint t, uint from) {
  return from == FROM_BATCH || (from == FROM_PARAMS && params.batch != 0u) ? params.tok[t].x : params.pos0 + t;
}
uint token_kv(uint t, uint from) {
  if (from == FROM_POS0) return 0u;
  return from == FROM_BATCH || params.batch != 0u ? params.tok[t].y : params.kv_base;
}

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

// The largest v of the subgroup, for v >= 0 (absolute values). In fp32 the bits of non-negative floats
// order as unsigned integers do, so this is one integer reduction (a single instruction on NVIDIA)
// instead of a tree of shuffles: a quantization's scale waits for it.
real subgroup_max_nonneg(real v) {
#ifdef TRIT_F64
  return subgroupMax(v);
#else
  return uintBitsToFloat(subgroupMax(floatBitsToUint(v)));
#endif
}

// The subgroups' maxima (>= 0) in red_am[] reduced: by one integer reduction (subgroup_max_nonneg)
// where a subgroup holds them all; a maximum in any order is the same. After the barrier that wrote them.
shared real red_am[64];
real max_of_partials() {
  if (gl_NumSubgroups <= gl_SubgroupSize) {
    const uint i = gl_SubgroupInvocationID;
    return subgroup_max_nonneg(i < gl_NumSubgroups ? red_am[i] : real(0));
  }
  real r = real(0);
  for (uint i = 0; i < gl_NumSubgroups; ++i) r = max(r, red_am[i]);
  return r;
}

// wg_max for v >= 0 (absolute values: a quantization's absmax): each subgroup's maximum and then the
// partials' by integer reductions instead of a tree of shuffles and a loop over the partials.
real wg_max_nonneg(real v) {
  v = subgroup_max_nonneg(v);
  if (subgroupElect()) red_am[gl_SubgroupID] = v;
  barrier();
  const real r = max_of_partials();
  barrier();
  return r;
}

real max_abs(real4 v) {
  const real4 a = abs(v);
  return max(max(a.x, a.y), max(a.z, a.w));
}

// The absmax by which a BitLinear's input row is scaled to int8 (the fused one-token kernels,
// rmsnorm_quant.glsl for batched steps and prefill, the persistent kernel's step-bits pipeline: a
// batched row's bits must not depend on which of them quantizes it): the row's largest |x nw| times the
// norm's 1 / rms, not the largest |x inv nw| reduced again after the norm, so one reduction serves both
// (wg_sum_max). |x inv nw| exceeds it by an ulp or two at most, which still rounds to 127; it differs
// from the reference's max |h| by as little, so q differs only where h * s lies within a few ulps of a
// rounding boundary. (The persistent kernel's own quantization takes the same absmax in its own order.)
// The second reduction, after the norm, took ~65 us a token of a lone batched step on an H200.
real max_abs_product(real4 x, vec4 nw) { return max_abs(x * real4(nw)); }
real normed_absmax(real am, real inv) { return am * inv; }

// Each subgroup's sum of ss and maximum of am (>= 0) to red_f / red_am, then the barrier after which
// every invocation reads them: the first half of wg_sum_max, and of the persistent kernel's own
// quantization (decode_layer.glsl quantize_input), which sums the partials in its own order.
void publish_sum_max(real ss, real am) {
  ss = subgroupAdd(ss);
  am = subgroup_max_nonneg(am);
  if (subgroupElect()) {
    red_f[gl_SubgroupID] = ss;
    red_am[gl_SubgroupID] = am;
  }
  barrier();
}

// A row's sum of squares (wg_sum's order: each subgroup's subgroupAdd, then the partials in turn) and
// its largest |x nw| (am >= 0; a maximum in any order is the same) from one reduction: (sum, maximum).
real2 wg_sum_max(real ss, real am) {
  publish_sum_max(ss, am);
  real r = real(0);
  for (uint i = 0; i < gl_NumSubgroups; ++i) r += red_f[i];
  const real m = max_of_partials();
  barrier();
  return real2(r, m);
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

// s + v.x^2 + v.y^2 + v.z^2 + v.w^2 in that order, each square rounded before its sum (no FMA): a batched
// step's row must have the bits of its step alone whichever kernel quantizes it (bitlinear_decode.glsl
// for steps of one or two tokens, rmsnorm_quant.glsl before the batched products), and a driver may fuse
// the same expression differently in two pipelines (`precise` on one side alone changed rows on an
// H200). So the rows' sums of squares are spelled out here, once.
real add_squares(real s, real4 v) {
  precise real r = s;
  r += v.x * v.x;
  r += v.y * v.y;
  r += v.z * v.z;
  r += v.w * v.w;
  return r;
}

// y + v rounded as written, never fused with the product that made v: a residual's update, which every
// kernel of a batched step writes alike (see add_squares).
real add_residual(real y, real v) {
  precise real r = y + v;
  return r;
}

// Round half away from zero, exactly as std::round (GLSL round() leaves halves to the implementation,
// and floor(|v| + 0.5) misrounds 0.49999997). v - trunc(v) is exact for every float.
real round_half_away(real v) {
  real t = trunc(v);
  if (abs(v - t) >= 0.5) t += sign(v);
  return t;
}

// v + ROUND_MAGIC for |v| < 2^22 holds round-to-nearest-even(v) in its low bits (the unit in the last
// place of the magic is 1); magic_int reads it back as a signed integer. No conversion instruction: the
// H100 converts to and from 64-bit types at a quarter of its double FMA rate.
#ifdef TRIT_F64
const double ROUND_MAGIC = 6755399441055744.0LF;  // 1.5 * 2^52
int magic_int(double t) { return int(unpackDouble2x32(t).x); }
#else
const float ROUND_MAGIC = 12582912.0;  // 1.5 * 2^23
int magic_int(float t) { return floatBitsToInt(t) - 0x4B400000; }
#endif

// exp for real: GLSL has no double exp, so double uses range reduction (x = k ln2 + r, |r| <= ln2/2)
// and the degree-13 Taylor polynomial (relative error below 1e-16 on the reduced range) in Horner form
// with the coefficients 1/n! as constants: thirteen fused multiply-adds. (It once divided by n at every
// step; a double division is a long software sequence on GPUs, and the softmax of decode attention
// waits on one exp per key: on the H100 that made exp the slowest part of attention.)
real exp_real(real x) {
#ifdef TRIT_F64
  if (x < -745.0LF) return 0.0LF;
  // Past ln(DBL_MAX) ~ 709.78 the result is infinite; 710 keeps k within the two scale factors below,
  // which then overflow as the exact result does (a larger k would wrap their exponent fields).
  if (x > 710.0LF) x = 710.0LF;
  const double ln2 = 0.6931471805599453094LF;
  // k = x / ln2 rounded to an integer by the magic number: no floor and no conversion to int.
  // `precise`: a compiler may otherwise fold (x * c + magic) - magic to x * c (Mesa's does), which is
  // not an integer.
  precise const double t = fma(x, 1.4426950408889634074LF, ROUND_MAGIC);
  precise const double kd = t - ROUND_MAGIC;
  const int k = magic_int(t);
  const double r = fma(-kd, ln2, x);
  const double c[14] = double[14](1.0LF, 1.0LF, 0.5LF, 0.16666666666666666LF, 0.041666666666666664LF, 0.008333333333333333LF, 0.001388888888888889LF, 0.0001984126984126984LF, 2.48015873015873e-05LF, 2.7557319223985893e-06LF, 2.755731922398589e-07LF, 2.505210838544172e-08LF, 2.08767569878681e-09LF, 1.6059043836821613e-10LF);
  double p = c[13];
  for (int n = 12; n >= 0; --n) p = fma(p, r, c[n]);
  // p * 2^k as two exact powers of two (each inside the normal range for k in [-1075, 1025]), so a
  // subnormal result rounds once, as ldexp rounds it.
  const int k1 = k >> 1, k2 = k - k1;
  return p * packDouble2x32(uvec2(0u, uint(k1 + 1023) << 20)) * packDouble2x32(uvec2(0u, uint(k2 + 1023) << 20));
#else
  return exp(x);
#endif
}

// The gated FFN's activation, the one rule of every kernel that ends in it: relu(g)^2 * u (BitNet's
// squared ReLU), or silu(g) * u (LLaMA's SwiGLU) where silu.
real gated_ffn(real g, real u, bool silu) {
  if (silu) return g / (real(1) + exp_real(-g)) * u;
  const real r = max(g, real(0));
  return r * r * u;
}
