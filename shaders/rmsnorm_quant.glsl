// Per-token RMSNorm fused with the int8 quantization of its output (the input of a bitlinear), one
// workgroup per token:  h = x / sqrt(mean(x^2) + eps) * w;  s = 127 / max(absmax, 1e-5) (absmax: max|x w|
// / rms, common.glsl normed_absmax);
// q = clamp(round_half_away(h * s), -128, 127), packed 4 per uint (element 4i+b in byte b).
// Specialization: HAS_NORM = 0 quantizes x itself; WRITE_F32 stores h (the final norm feeding the
// LM head); WRITE_Q8 stores q and s. With last_only, one workgroup normalizes the last submitted
// token into output row 0 (the logits of a prompt need only its last token). PERMUTED: q's words in
// the order bitlinear_batch.glsl reads them (word 4i + b of group g of code uvec4 j at uvec4 g * k/64 + j).
// PLANES (with WRITE_F32, for a batched step's int8 head: lm_head_batch.glsl): h is also cut into its two
// int8 planes (head_bound.glsl's plane_pair, scale max|h| / 127), written to q (plane p of token t at
// word (2 t + p) k / 4, element order), and (scale, sum h^2, sum e_h^2, 0) of the token to s[4 t ..].
// SIGNAL (with WRITE_Q8): the product that reads q and s is dispatched right after this with no barrier
// between (bitlinear_batch.glsl WAIT), so each workgroup counts its token in at ready[pc.slot] once its
// row is written and published.
#include "common.glsl"
#include "head_bound.glsl"
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool HAS_NORM = true;
layout(constant_id = 2) const bool WRITE_F32 = false;
layout(constant_id = 3) const bool WRITE_Q8 = true;
layout(constant_id = 4) const bool PERMUTED = false;
layout(constant_id = 5) const bool SIGNAL = false;
// XPT > 0: the row (k <= 4 XPT WG) is read once into registers, x and the norm weights, instead of once a
// pass: three dependent rounds of loads become one (a batched step quantizes four rows a layer, each on
// its step's critical path). The same values in the same order: the same bits.
layout(constant_id = 6) const uint XPT = 0;
layout(constant_id = 7) const bool PLANES = false;
layout(std430, binding = 1) readonly buffer X { real4 x[]; };
layout(std430, binding = 2) readonly buffer W { vec4 w[]; };
layout(std430, binding = 3) writeonly buffer H { real4 h[]; };
layout(std430, binding = 4) coherent writeonly buffer Q { uint q[]; };
layout(std430, binding = 5) coherent writeonly buffer S { real s[]; };
layout(std430, binding = 6) coherent buffer Ready { uint ready[]; };
layout(push_constant) uniform Push { uint k; float eps; uint last_only; uint slot; } pc;

// The rules both ways of reading the row share: 1 / rms from the sum of squares, the normalized value,
// the int8 scale from the row's largest.
real inv_rms(real ss) { return real(1) / sqrt(ss / real(pc.k) + real(pc.eps)); }
real4 apply_norm(real4 v, real inv, vec4 nw) { return HAS_NORM ? v * inv * real4(nw) : v; }
real q_scale(real amax) { return real(127) / max(amax, real(1e-5)); }  // real(1e-5): the float 1e-5f widened, as the reference

real4 normed(uint base, uint i, real inv) { return apply_norm(x[base + i], inv, HAS_NORM ? w[i] : vec4(0)); }

// The packed word of four quantized values, at the word PERMUTED (or not) puts natural word i.
void store_q(uint obase, uint i, real4 v) {
  uint packed = 0u;
  for (int b = 0; b < 4; ++b) {
    int r = int(clamp(round_half_away(v[b]), real(-128), real(127)));
    packed |= uint(r & 0xff) << (8 * b);
  }
  // Natural word i is word i % 4 of group g of the row's code uvec4 j (ternary_matmul.glsl's layout).
  const uint r = i % 32, g = r / 8, j = (i / 32) * 2 + (r % 8) / 4;
  q[obase + (PERMUTED ? (g * (pc.k / 64) + j) * 4 + r % 4 : i)] = packed;
}

// Counts the token's row in for the product waiting on it (SIGNAL).
void signal_row() {
  // Every invocation's words are written before invocation 0's device-scope release, then the count
  // (decode_layer.glsl publishes a step's writes the same way).
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
  if (gl_LocalInvocationID.x == 0) {
    memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    atomicAdd(ready[pc.slot], 1u);
  }
}

// PLANES: token t's h (normalized again, the same bits as written) as two int8 planes and its constants.
void write_planes(uint k4, uint base, uint obase, real inv, real am, real hh, uint t) {
  const real sh = am / real(127), rsh = am > real(0) ? real(127) / am : real(0);
  real eh = real(0);
  for (uint i = gl_LocalInvocationID.x; i < k4; i += gl_WorkGroupSize.x) {
    const real4 v = normed(base, i, inv);
    uint p1 = 0u, p2 = 0u;
    for (uint b = 0; b < 4; ++b) {
      const real d = plane_pair(v[b], sh, rsh, b, p1, p2);
      eh += d * d;
    }
    q[2u * obase + i] = p1;
    q[2u * obase + k4 + i] = p2;
  }
  eh = wg_sum(eh);
  if (gl_LocalInvocationID.x == 0) {
    s[4u * t] = sh;
    s[4u * t + 1u] = hh;
    s[4u * t + 2u] = eh;
    s[4u * t + 3u] = real(0);
  }
}

// XPT > 0 (WRITE_Q8 without WRITE_F32): main's arithmetic on the row held in registers.
void quantize_held(uint k4, uint base, uint obase, uint t) {
  real4 v[XPT > 0u ? XPT : 1u];
  vec4 nw[XPT > 0u ? XPT : 1u];
  for (uint c = 0u; c < XPT; ++c) {
    const uint i = gl_LocalInvocationID.x + c * gl_WorkGroupSize.x;
    v[c] = i < k4 ? x[base + i] : real4(0);
    nw[c] = HAS_NORM && i < k4 ? w[i] : vec4(0);
  }
  real ss = real(0), am = real(0);
  for (uint c = 0u; c < XPT; ++c)
    if (gl_LocalInvocationID.x + c * gl_WorkGroupSize.x < k4) {
      ss = add_squares(ss, v[c]);
      am = max(am, max_abs_product(v[c], HAS_NORM ? nw[c] : vec4(1)));
    }
  const real2 sm = wg_sum_max(ss, am);
  const real inv = HAS_NORM ? inv_rms(sm.x) : real(1);
  for (uint c = 0u; c < XPT; ++c) v[c] = apply_norm(v[c], inv, nw[c]);
  const real sc = q_scale(normed_absmax(sm.y, inv));
  for (uint c = 0u; c < XPT; ++c) {
    const uint i = gl_LocalInvocationID.x + c * gl_WorkGroupSize.x;
    if (i < k4) store_q(obase, i, v[c] * sc);
  }
  if (gl_LocalInvocationID.x == 0) s[t] = sc;
  if (SIGNAL) signal_row();
}

void main() {
  uint t = gl_WorkGroupID.x;
  if (t >= params.n_tokens) return;
  uint t_in = t;
  if (pc.last_only != 0u) {
    t_in = params.n_tokens - 1;
    t = 0;
  }
  uint k4 = pc.k / 4, base = t_in * k4, obase = t * k4;
  if (XPT > 0u) {
    quantize_held(k4, base, obase, t);
    return;
  }
  real ss = real(0), am = real(0);
  for (uint i = gl_LocalInvocationID.x; i < k4; i += gl_WorkGroupSize.x) {
    const real4 v = x[base + i];
    ss = add_squares(ss, v);
    am = max(am, max_abs_product(v, HAS_NORM ? w[i] : vec4(1)));
  }
  const real2 sm = wg_sum_max(ss, am);
  const real inv = HAS_NORM ? inv_rms(sm.x) : real(1);
  real amax = real(0), hh = real(0);
  for (uint i = gl_LocalInvocationID.x; i < k4; i += gl_WorkGroupSize.x) {
    const real4 v = normed(base, i, inv);
    if (WRITE_F32) h[obase + i] = v;
    if (PLANES) {
      amax = max(amax, max_abs(v));
      hh += dot(v, v);
    }
  }
  if (PLANES) {
    // (the planes' own scale: max |h| itself)
    write_planes(k4, base, obase, inv, wg_max_nonneg(amax), wg_sum(hh), t);
    return;
  }
  if (!WRITE_Q8) return;
  const real sc = q_scale(normed_absmax(sm.y, inv));
  for (uint i = gl_LocalInvocationID.x; i < k4; i += gl_WorkGroupSize.x) store_q(obase, i, normed(base, i, inv) * sc);
  if (gl_LocalInvocationID.x == 0) s[t] = sc;
  if (SIGNAL) signal_row();
}
