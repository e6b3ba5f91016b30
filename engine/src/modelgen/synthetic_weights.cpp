#include "modelgen/synthetic_weights.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "modelgen/rng.h"

namespace trit::modelgen {

void ternary_chunk(uint64_t seed, std::string_view name, uint64_t chunk, std::span<int8_t> out) {
  if (out.size() > kChunkElements) throw std::invalid_argument("ternary_chunk: more than one chunk requested");
  Xoshiro256 rng(seed, name, chunk);
  // Byte r of each random word picks the weight: r*3 >> 8 is 0 for 0..85, 1 for 86..170, 2 for 171..255.
  auto weight = [](uint64_t r) { return static_cast<int8_t>(static_cast<int>(((r & 0xFF) * 3) >> 8) - 1); };
  const size_t n = out.size(), full = n / 8 * 8;
  int8_t* o = out.data();
  for (size_t i = 0; i < full; i += 8) {
    const uint64_t r = rng.next();
    for (int k = 0; k < 8; ++k) o[i + k] = weight(r >> (8 * k));
  }
  if (full < n) {
    uint64_t r = rng.next();
    for (size_t i = full; i < n; ++i, r >>= 8) o[i] = weight(r);
  }
}

std::vector<int8_t> ternary_weights(uint64_t seed, std::string_view name, uint64_t n) {
  std::vector<int8_t> w(n);
  for (uint64_t c = 0; c * kChunkElements < n; ++c) {
    uint64_t first = c * kChunkElements;
    ternary_chunk(seed, name, c, std::span<int8_t>(w).subspan(first, std::min(kChunkElements, n - first)));
  }
  return w;
}

void pack_i2s(std::span<const int8_t> w, std::span<uint8_t> out) {
  if (w.size() % 128 != 0 || out.size() != w.size() / 4)
    throw std::invalid_argument("pack_i2s: " + std::to_string(w.size()) + " weights (need a multiple of 128) into " +
                                std::to_string(out.size()) + " bytes (need weights/4)");
  const size_t blocks = w.size() / 128;
  for (size_t b = 0; b < blocks; ++b) {
    const int8_t* in = w.data() + b * 128;
    uint8_t* o = out.data() + b * 32;
    uint8_t worst = 0;
    for (size_t gp = 0; gp < 32; ++gp) {
      auto c0 = static_cast<uint8_t>(in[gp] + 1), c1 = static_cast<uint8_t>(in[gp + 32] + 1);
      auto c2 = static_cast<uint8_t>(in[gp + 64] + 1), c3 = static_cast<uint8_t>(in[gp + 96] + 1);
      worst = std::max({worst, c0, c1, c2, c3});
      o[gp] = static_cast<uint8_t>((c0 << 6) | (c1 << 4) | (c2 << 2) | c3);
    }
    if (worst > 2)
      throw std::invalid_argument("pack_i2s: block " + std::to_string(b) + " holds a weight outside {-1, 0, +1}");
  }
}

uint16_t float_to_half(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  const uint32_t abs = x & 0x7FFFFFFF;
  if (abs >= 0x7F800000)  // inf or NaN (keep NaN quiet and non-zero)
    return static_cast<uint16_t>(sign | 0x7C00 | (abs > 0x7F800000 ? 0x200 | ((abs >> 13) & 0x3FF) : 0));
  if (abs >= 0x477FF000) return static_cast<uint16_t>(sign | 0x7C00);  // rounds past 65504: inf
  if (abs < 0x38800000) {               // below the smallest normal half (2^-14): subnormal or zero
    if (abs < 0x33000000) return sign;  // below half the smallest subnormal (2^-25): rounds to zero
    const uint32_t mant = (abs & 0x7FFFFF) | 0x800000;
    const int shift = 126 - static_cast<int>(abs >> 23);  // 14 + 1..10 more to reach the 2^-24 unit
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rem > halfway || (rem == halfway && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = ((abs >> 13) - (112u << 10));  // rebias exponent 127 -> 15
  const uint32_t rem = abs & 0x1FFF;
  if (rem > 0x1000 || (rem == 0x1000 && (h & 1))) ++h;  // may carry into the exponent: still correct
  return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
  const uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  if (exp == 0) {
    float v = std::ldexp(static_cast<float>(mant), -24);
    return sign ? -v : v;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7F800000 | (mant << 13));
  return std::bit_cast<float>(sign | ((exp + 112) << 23) | (mant << 13));
}

double normal_quantile(double p) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("normal_quantile: p must lie in (0, 1)");
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double lo = 0.02425, hi = 1 - lo;
  if (p < lo) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > hi) {
    double q = std::sqrt(-2 * std::log(1 - p));
    return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

NormalTable::NormalTable(double mean, double sd) : f32_(65536), f16_(65536) {
  for (uint32_t i = 0; i < 65536; ++i) {
    double v = mean + sd * normal_quantile((i + 0.5) / 65536.0);
    f32_[i] = static_cast<float>(v);
    f16_[i] = float_to_half(f32_[i]);
  }
}

namespace {
template <typename T, typename Lookup>
void normal_chunk(uint64_t seed, std::string_view name, uint64_t chunk, std::span<T> out, Lookup lookup) {
  if (out.size() > kChunkElements) throw std::invalid_argument("normal_chunk: more than one chunk requested");
  Xoshiro256 rng(seed, name, chunk);
  size_t i = 0;
  while (i < out.size()) {
    uint64_t r = rng.next();
    for (int k = 0; k < 4 && i < out.size(); ++k, ++i, r >>= 16) out[i] = lookup(static_cast<uint16_t>(r));
  }
}
}  // namespace

void normal_f16_chunk(uint64_t seed, std::string_view name, uint64_t chunk, const NormalTable& table,
                      std::span<uint16_t> out) {
  normal_chunk(seed, name, chunk, out, [&](uint16_t i) { return table.f16(i); });
}

void normal_f32_chunk(uint64_t seed, std::string_view name, uint64_t chunk, const NormalTable& table,
                      std::span<float> out) {
  normal_chunk(seed, name, chunk, out, [&](uint16_t i) { return table.f32(i); });
}

}  // namespace trit::modelgen
