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
uint to_f16(real v) {
  const uint sign = v < real(0) ? 0x8000u : 0u;
  const real a = abs(v);
  if (isnan(a)) return sign | 0x7e00u;
  if (a >= real(65520)) return sign | 0x7c00u;
  if (a < real(6.103515625e-05)) return sign | uint(roundEven(a * real(16777216.0)));  // 2^-14, 2^24
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

uint pack_f16(real a, real b) { return to_f16(a) | (to_f16(b) << 16); }
