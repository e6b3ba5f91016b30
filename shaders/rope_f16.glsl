// NeoX rotation of one dimension pair and the F16 rounding of the KV cache, shared by rope_kv.glsl
// and the fused decode QKV kernel (bitlinear_decode.glsl) so both write the same bits.

// (a, b) rotated by the angle whose (cos, sin) is c; `precise` keeps the two products and the
// sum unfused, as the reference computes them.
real2 rotate(real a, real b, real2 c) {
  precise real x = a * c.x - b * c.y;
  precise real y = a * c.y + b * c.x;
  return real2(x, y);
}

// IEEE binary16 bits of v, rounded once to nearest even (as ref::f32_to_f16 / f64_to_f16), not by the
// driver's conversion, whose rounding mode Vulkan leaves open.
#ifdef TRIT_F64
// From the double's bits with integer operations: Mesa's lavapipe on some x86 hosts rounded a double
// one ulp above an F16 midpoint down in the frexp / ldexp / roundEven form below (as if through float).
uint f16_round(uint q, uint round_bit, uint sticky) {  // q + 1 where the dropped bits are over half, or half and q odd
  return q + ((round_bit != 0u && (sticky != 0u || (q & 1u) != 0u)) ? 1u : 0u);
}
uint to_f16(double v) {
  const uvec2 w = unpackDouble2x32(v);
  const uint sign = (w.y >> 16) & 0x8000u, hi = w.y & 0x7fffffffu, lo = w.x;
  const uint e = hi >> 20;  // biased exponent
  if (e == 0x7ffu) return sign | ((((hi & 0xfffffu) | lo) != 0u) ? 0x7e00u : 0x7c00u);  // NaN, infinity
  if (abs(v) >= 65520.0LF) return sign | 0x7c00u;  // rounds past the largest finite F16
  if (e >= 1009u)  // normal F16 (|v| >= 2^-14): the top 10 of the 52 fraction bits, rounded; a carry
    return sign | f16_round(((e - 1008u) << 10) + ((hi >> 10) & 0x3ffu), (hi >> 9) & 1u, (hi & 0x1ffu) | lo);
  // Subnormal F16: the 53-bit significand (21 bits in sh, 32 in lo) times 2^(e - 1051), rounded.
  const uint shift = 1051u - e - 32u;  // >= 11
  if (e == 0u || shift > 21u) return sign;  // below 2^-25 (and 2^-25 itself, a tie to even 0)
  const uint sh = (1u << 20) | (hi & 0xfffffu);
  return sign | f16_round(sh >> shift, (sh >> (shift - 1u)) & 1u, (sh & ((1u << (shift - 1u)) - 1u)) | lo);
}
#else
uint to_f16(float v) {
  const uint sign = v < 0.0 ? 0x8000u : 0u;
  const float a = abs(v);
  if (isnan(a)) return sign | 0x7e00u;
  if (a >= 65520.0) return sign | 0x7c00u;
  if (a < 6.103515625e-05) return sign | uint(roundEven(a * 16777216.0));  // 2^-14, 2^24
  int e;
  frexp(a, e);  // a in [2^(e-1), 2^e)
  uint m = uint(roundEven(ldexp(a, 11 - e)));  // [1024, 2048]
  uint biased = uint(e - 1 + 15);
  if (m == 2048u) {
    m = 1024u;
    ++biased;
  }
  return sign | (biased << 10) | (m - 1024u);
}
#endif

uint pack_f16(real a, real b) { return to_f16(a) | (to_f16(b) << 16); }
