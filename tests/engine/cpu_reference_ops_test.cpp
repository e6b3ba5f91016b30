// Unit tests of the reference primitives (trit/reference_ops.h) on awkward sizes, against values
// written from the spec (../shared/docs/bitnet-b158.md) or computed independently in double precision.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "trit/reference_ops.h"

namespace {

using namespace trit;

uint16_t hw_f32_to_f16(float f) {  // the compiler's own conversion (libgcc, round to nearest even)
  const auto h = static_cast<_Float16>(f);
  uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

float hw_f16_to_f32(uint16_t b) {
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

float from_bits(uint32_t b) {
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}

uint32_t bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

// ---- f16 ----------------------------------------------------------------------------------------------

TEST(CpuRefF16, KnownValuesWiden) {
  EXPECT_EQ(ref::f16_to_f32(0x3c00), 1.f);
  EXPECT_EQ(ref::f16_to_f32(0xc000), -2.f);
  EXPECT_EQ(ref::f16_to_f32(0x7bff), 65504.f);
  EXPECT_EQ(ref::f16_to_f32(0x0001), std::ldexp(1.f, -24));     // smallest subnormal
  EXPECT_EQ(ref::f16_to_f32(0x03ff), std::ldexp(1023.f, -24));  // largest subnormal
  EXPECT_EQ(ref::f16_to_f32(0x0400), std::ldexp(1.f, -14));     // smallest normal
  EXPECT_EQ(bits(ref::f16_to_f32(0x8000)), 0x80000000u);        // -0 keeps its sign
  EXPECT_EQ(ref::f16_to_f32(0x7c00), INFINITY);
  EXPECT_EQ(ref::f16_to_f32(0xfc00), -INFINITY);
  EXPECT_TRUE(std::isnan(ref::f16_to_f32(0x7e00)));
  EXPECT_TRUE(std::isnan(ref::f16_to_f32(0x7c01)));  // signalling NaN stays a NaN, not inf
}

TEST(CpuRefF16, EveryHalfRoundTripsExactly) {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const float f = ref::f16_to_f32(static_cast<uint16_t>(h));
    const bool nan = ((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff) != 0;
    if (nan) {
      EXPECT_TRUE(std::isnan(f)) << std::hex << h;
      EXPECT_TRUE(std::isnan(ref::f16_to_f32(ref::f32_to_f16(f)))) << std::hex << h;
      continue;
    }
    ASSERT_EQ(bits(f), bits(hw_f16_to_f32(static_cast<uint16_t>(h)))) << std::hex << h;
    ASSERT_EQ(ref::f32_to_f16(f), h) << std::hex << h;
  }
}

TEST(CpuRefF16, RoundsToNearestEven) {
  EXPECT_EQ(ref::f32_to_f16(65519.f), 0x7bff);  // below the overflow midpoint
  EXPECT_EQ(ref::f32_to_f16(65520.f), 0x7c00);  // the midpoint ties to even: inf
  EXPECT_EQ(ref::f32_to_f16(-1e9f), 0xfc00);
  EXPECT_EQ(ref::f32_to_f16(1.f + std::ldexp(1.f, -11)), 0x3c00);                         // tie, 1.0 is even
  EXPECT_EQ(ref::f32_to_f16(1.f + 3 * std::ldexp(1.f, -11)), 0x3c02);                     // tie, goes up to even
  EXPECT_EQ(ref::f32_to_f16(1.f + std::ldexp(1.f, -11) + std::ldexp(1.f, -20)), 0x3c01);  // just past the tie
  EXPECT_EQ(ref::f32_to_f16(std::ldexp(1.f, -25)), 0x0000);  // half the smallest subnormal: tie to 0
  EXPECT_EQ(ref::f32_to_f16(-std::ldexp(1.f, -25)), 0x8000);
  EXPECT_EQ(ref::f32_to_f16(std::ldexp(1.0001f, -25)), 0x0001);
  EXPECT_EQ(ref::f32_to_f16(std::ldexp(3.f, -25)), 0x0002);                         // 1.5 units: tie to even 2
  EXPECT_EQ(ref::f32_to_f16(std::ldexp(5.f, -25)), 0x0002);                         // 2.5 units: tie to even 2
  EXPECT_EQ(ref::f32_to_f16(std::ldexp(1.f, -14) - std::ldexp(1.f, -25)), 0x0400);  // carries into the normals
  EXPECT_EQ(ref::f32_to_f16(std::ldexp(1.f, -140)), 0x0000);                        // a float subnormal
  EXPECT_EQ(ref::f32_to_f16(INFINITY), 0x7c00);
  const uint16_t nan = ref::f32_to_f16(from_bits(0x7f800001u));  // payload only in low bits
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x3ff, 0);
}

TEST(CpuRefF16, AgreesWithCompilerConversionOnMillionsOfFloats) {
  // Every 61st bit pattern of the whole float range (all exponents, signs, specials), plus random ones.
  std::mt19937 rng(7);
  for (uint64_t b = 0; b <= 0xffffffffull; b += 61 * 7919) {
    const float f = from_bits(static_cast<uint32_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(ref::f32_to_f16(f), hw_f32_to_f16(f)) << std::hex << b;
  }
  for (int i = 0; i < 2'000'000; ++i) {
    const float f = from_bits(rng());
    if (std::isnan(f)) continue;
    ASSERT_EQ(ref::f32_to_f16(f), hw_f32_to_f16(f)) << std::hex << bits(f);
  }
}

TEST(CpuRefF16, DoubleRoundsOnceToNearestEven) {
  // Just above a half-way point by less than a float ulp: rounding through float first would land on
  // the tie and go to even (down); one rounding from double goes up.
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  EXPECT_EQ(ref::f32_to_f16(static_cast<float>(above_tie)), 0x3c00);
  EXPECT_EQ(ref::f64_to_f16(above_tie), 0x3c01);
  EXPECT_EQ(ref::f64_to_f16(1.0 + std::ldexp(1.0, -11)), 0x3c00);  // exact tie: even
  EXPECT_EQ(ref::f64_to_f16(65519.99), 0x7bff);
  EXPECT_EQ(ref::f64_to_f16(65520.0), 0x7c00);
  EXPECT_EQ(ref::f64_to_f16(std::ldexp(1.0, -25)), 0x0000);
  EXPECT_EQ(ref::f64_to_f16(-std::ldexp(3.0, -25)), 0x8002);
  EXPECT_EQ(ref::f64_to_f16(std::ldexp(1.0, -14) - std::ldexp(1.0, -25)), 0x0400);
  EXPECT_EQ(ref::f64_to_f16(1e-300), 0x0000);
  EXPECT_EQ(ref::f64_to_f16(-INFINITY), 0xfc00);
  EXPECT_TRUE(std::isnan(ref::f16_to_f32(ref::f64_to_f16(NAN))));
  // Every half value comes back exactly, and random doubles agree with the compiler's conversion.
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (((h >> 10) & 0x1f) == 0x1f && (h & 0x3ff) != 0) continue;
    ASSERT_EQ(ref::f64_to_f16(double{ref::f16_to_f32(static_cast<uint16_t>(h))}), h) << std::hex << h;
  }
  std::mt19937_64 rng(13);
  for (int i = 0; i < 2'000'000; ++i) {
    // Exponents around the half range (subnormals to overflow) with full 52-bit mantissas.
    const uint64_t exp = 1023 - 30 + rng() % 48;
    uint64_t b = (rng() & 0x800fffffffffffffull) | (exp << 52);
    double d;
    std::memcpy(&d, &b, 8);
    const auto hw = static_cast<_Float16>(d);
    uint16_t want;
    std::memcpy(&want, &hw, 2);
    ASSERT_EQ(ref::f64_to_f16(d), want) << std::hexfloat << d;
  }
}

// ---- rmsnorm, quantization, gate ---------------------------------------------------------------------

TEST(CpuRefNorm, MatchesDoublePrecisionOnOddSize) {
  std::mt19937 rng(1);
  std::normal_distribution<float> nd(0.f, 3.f);
  const size_t n = 37;
  std::vector<float> x(n), w(n), out(n);
  for (auto& v : x) v = nd(rng);
  for (auto& v : w) v = nd(rng);
  ref::rmsnorm(x, w, 1e-5f, out);
  double ss = 0;
  for (float v : x) ss += double{v} * v;
  const double inv = 1.0 / std::sqrt(ss / n + 1e-5);
  for (size_t i = 0; i < n; ++i) EXPECT_NEAR(out[i], x[i] * inv * w[i], 1e-5 * std::fabs(x[i] * inv * w[i]) + 1e-6);
  // In place works, and eps matters for an all-zero input (no division by zero).
  std::vector<float> z(n, 0.f);
  ref::rmsnorm(z, w, 1e-5f, z);
  for (float v : z) EXPECT_EQ(v, 0.f);
  std::vector<float> short_w(n - 1);
  EXPECT_THROW(ref::rmsnorm(x, short_w, 1e-5f, out), std::invalid_argument);
}

TEST(CpuRefQuant, RoundsHalfAwayFromZero) {
  // max|x| = 127 makes s exactly 1, so x*s lands exactly on the halves.
  const std::vector<float> x = {127.f, 2.5f, -2.5f, 0.5f, -0.5f, 1.49f, -1.5f, 3.5f, -127.f, 0.f, 126.5f};
  std::vector<int8_t> q(x.size());
  EXPECT_EQ(ref::quantize_int8_per_token(x, q), 1.f);
  const std::vector<int8_t> want = {127, 3, -3, 1, -1, 1, -2, 4, -127, 0, 127};
  EXPECT_EQ(q, want);
}

TEST(CpuRefQuant, ScaleFollowsMaxAndFloor) {
  std::vector<float> x = {0.1f, -0.4f, 0.2f, 0.05f, -0.3f};
  std::vector<int8_t> q(x.size());
  const float s = ref::quantize_int8_per_token(x, q);
  EXPECT_FLOAT_EQ(s, 127.f / 0.4f);
  EXPECT_EQ(q[1], -127);
  EXPECT_EQ(q[0], 32);  // 31.75 -> 32
  EXPECT_EQ(q[3], 16);  // 15.875 -> 16
  // All zero (or tiny): the 1e-5 floor keeps s finite.
  std::vector<float> tiny = {0.f, 1e-7f, -2e-7f};
  std::vector<int8_t> tq(3);
  EXPECT_FLOAT_EQ(ref::quantize_int8_per_token(tiny, tq), 127.f / 1e-5f);
  EXPECT_EQ(tq[0], 0);
  EXPECT_EQ(tq[1], 1);   // 1.27
  EXPECT_EQ(tq[2], -3);  // -2.54
}

TEST(CpuRefGate, SquaredRelu) {
  const std::vector<float> g = {-2.f, 0.f, 1.5f, 3.f, -0.1f};
  const std::vector<float> u = {5.f, 7.f, 2.f, -1.f, 9.f};
  std::vector<float> out(5);
  ref::squared_relu_gate(g, u, out);
  EXPECT_EQ(out, (std::vector<float>{0.f, 0.f, 4.5f, -9.f, 0.f}));
}

// ---- I2_S --------------------------------------------------------------------------------------------

// Packs ternary weights per the spec's layout, written out independently of the engine's decoder.
std::vector<uint8_t> pack_i2s(const std::vector<int>& w) {
  std::vector<uint8_t> bytes(w.size() / 4, 0);
  for (size_t i = 0; i < w.size(); ++i) {
    const size_t block = i / 128, pos = i % 128, group = pos / 32, gp = pos % 32;
    const int code = w[i] + 1;  // -1 -> 0, 0 -> 1, +1 -> 2
    bytes[block * 32 + gp] = static_cast<uint8_t>(bytes[block * 32 + gp] | (code << (6 - 2 * group)));
  }
  return bytes;
}

TEST(CpuRefI2S, HandBuiltBytesDecodePerSpec) {
  // One 128-element block. Byte 0 = 0b00'01'10'01: element 0 has code 0 (-1), element 32 code 1 (0),
  // element 64 code 2 (+1), element 96 code 1 (0). Byte 31 = 0b10'10'00'01: elements 31, 63 -> +1,
  // 95 -> -1, 127 -> 0. Every other byte is 0x55 (all codes 1: weight 0).
  std::vector<uint8_t> b(32, 0x55);
  b[0] = 0b00'01'10'01;
  b[31] = 0b10'10'00'01;
  EXPECT_EQ(ref::i2s_weight(b.data(), 0), -1);
  EXPECT_EQ(ref::i2s_weight(b.data(), 32), 0);
  EXPECT_EQ(ref::i2s_weight(b.data(), 64), 1);
  EXPECT_EQ(ref::i2s_weight(b.data(), 96), 0);
  EXPECT_EQ(ref::i2s_weight(b.data(), 31), 1);
  EXPECT_EQ(ref::i2s_weight(b.data(), 63), 1);
  EXPECT_EQ(ref::i2s_weight(b.data(), 95), -1);
  EXPECT_EQ(ref::i2s_weight(b.data(), 127), 0);
  for (int i : {1, 33, 65, 97, 30, 126}) EXPECT_EQ(ref::i2s_weight(b.data(), i), 0) << i;

  TernaryMatrix m{b.data(), 1.f, 1, 128};
  std::vector<int8_t> row(128);
  ref::decode_ternary_row(m, 0, row);
  for (int i = 0; i < 128; ++i) EXPECT_EQ(row[i], ref::i2s_weight(b.data(), i)) << i;

  b[5] = 0xff;  // code 3 everywhere in that byte
  EXPECT_THROW(ref::i2s_weight(b.data(), 5), std::invalid_argument);
}

TEST(CpuRefI2S, SecondBlockAndRowsFollowFlatIndex) {
  // 3 rows of 256: row r starts at flat index 256*r, i.e. block 2r.
  std::mt19937 rng(3);
  std::vector<int> w(3 * 256);
  for (auto& v : w) v = static_cast<int>(rng() % 3) - 1;
  const auto bytes = pack_i2s(w);
  TernaryMatrix m{bytes.data(), 1.f, 3, 256};
  std::vector<int8_t> row(256);
  for (uint32_t r = 0; r < 3; ++r) {
    ref::decode_ternary_row(m, r, row);
    for (size_t c = 0; c < 256; ++c) {
      ASSERT_EQ(row[c], w[r * 256 + c]) << r << "," << c;
      ASSERT_EQ(ref::i2s_weight(bytes.data(), r * 256 + c), w[r * 256 + c]);
    }
  }
  EXPECT_THROW(ref::decode_ternary_row(m, 3, row), std::invalid_argument);
}

TEST(CpuRefI2S, MatvecAndMatmulAreExact) {
  const uint32_t rows = 37, cols = 384;  // neither a power of two
  std::mt19937 rng(5);
  std::vector<int> w(size_t{rows} * cols);
  for (auto& v : w) v = static_cast<int>(rng() % 3) - 1;
  const auto bytes = pack_i2s(w);
  TernaryMatrix m{bytes.data(), 0.731f, rows, cols};

  const size_t n = 5;
  std::vector<int8_t> xq(n * cols);
  for (auto& v : xq) v = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  const std::vector<float> s = {1.f, 2.5f, 127.f / 3.3f, 0.01f, 1e7f};

  std::vector<float> y(n * rows);
  ref::ternary_matmul(m, xq, s, y);
  for (size_t t = 0; t < n; ++t) {
    std::vector<float> yt(rows);
    ref::ternary_matvec(m, std::span<const int8_t>(xq).subspan(t * cols, cols), s[t], yt);
    for (uint32_t r = 0; r < rows; ++r) {
      int64_t sum = 0;
      for (uint32_t c = 0; c < cols; ++c) sum += int64_t{w[r * cols + c]} * xq[t * cols + c];
      const float want = static_cast<float>(sum) / s[t] * 0.731f;
      ASSERT_EQ(y[t * rows + r], want) << t << "," << r;
      ASSERT_EQ(yt[r], want) << t << "," << r;
    }
  }
  std::vector<float> bad(rows + 1);
  EXPECT_THROW(ref::ternary_matvec(m, std::span<const int8_t>(xq).subspan(0, cols), 1.f, bad), std::invalid_argument);
  TernaryMatrix odd{bytes.data(), 1.f, 1, 100};
  EXPECT_THROW(
      ref::ternary_matvec(odd, std::span<const int8_t>(xq).subspan(0, 100), 1.f, std::span<float>(bad).subspan(0, 1)),
      std::invalid_argument);
}

TEST(CpuRefI2S, BitlinearQuantizesItsInput) {
  const uint32_t rows = 3, cols = 128;
  std::vector<int> w(rows * cols, 0);
  w[0] = 1;         // row 0: +x0
  w[128 + 1] = -1;  // row 1: -x1
  w[256 + 0] = 1;   // row 2: x0 + x2
  w[256 + 2] = 1;
  const auto bytes = pack_i2s(w);
  TernaryMatrix m{bytes.data(), 2.f, rows, cols};
  std::vector<float> x(cols, 0.f);
  x[0] = 1.f;
  x[1] = 0.3f;   // 0.3 * 127 = 38.1 -> 38 -> 38/127 = 0.2992...
  x[2] = -0.5f;  // -63.5 -> -64 (half away from zero)
  std::vector<float> y(rows);
  ref::bitlinear(m, x, y);
  EXPECT_FLOAT_EQ(y[0], 127.f / 127.f * 2.f);
  EXPECT_FLOAT_EQ(y[1], -38.f / 127.f * 2.f);
  EXPECT_FLOAT_EQ(y[2], (127.f - 64.f) / 127.f * 2.f);
}

// ---- RoPE and attention --------------------------------------------------------------------------------

TEST(CpuRefRope, NeoxPairsHalvesNotNeighbours) {
  const uint32_t hd = 10, heads = 3;
  const int32_t pos = 7;
  const float base = 10000.f;
  std::mt19937 rng(9);
  std::normal_distribution<float> nd;
  std::vector<float> v(hd * heads);
  for (auto& e : v) e = nd(rng);
  auto r = v;
  ref::rope_neox(r, hd, pos, base);
  for (uint32_t h = 0; h < heads; ++h) {
    for (uint32_t i = 0; i < hd / 2; ++i) {
      const double th = pos * std::pow(double{base}, -2.0 * i / hd);
      const double a = v[h * hd + i], b = v[h * hd + i + hd / 2];
      EXPECT_NEAR(r[h * hd + i], a * std::cos(th) - b * std::sin(th), 1e-5);
      EXPECT_NEAR(r[h * hd + i + hd / 2], a * std::sin(th) + b * std::cos(th), 1e-5);
    }
  }
  // A unit vector on dimension 1 moves only into dimension 1 + hd/2 = 6, never into 0 or 2.
  std::vector<float> e(hd, 0.f);
  e[1] = 1.f;
  ref::rope_neox(e, hd, 3, base);
  for (uint32_t d = 0; d < hd; ++d) {
    if (d != 1 && d != 6) {
      EXPECT_EQ(e[d], 0.f) << d;
    }
  }
  EXPECT_NE(e[6], 0.f);
  EXPECT_NEAR(e[1] * e[1] + e[6] * e[6], 1.f, 1e-6);
  // Position 0 is the identity.
  auto z = v;
  ref::rope_neox(z, hd, 0, base);
  EXPECT_EQ(z, v);
  EXPECT_THROW(ref::rope_neox(z, 7, 1, base), std::invalid_argument);
  EXPECT_THROW(ref::rope_neox(z, 12, 1, base), std::invalid_argument);  // 30 is not a multiple of 12
}

// Independent double-precision attention: GQA head mapping written as kvh = h * kv_heads / heads.
std::vector<double> naive_attention(const std::vector<float>& q, const std::vector<float>& k,
                                    const std::vector<float>& v, uint32_t n_ctx, uint32_t heads, uint32_t kvh,
                                    uint32_t hd) {
  std::vector<double> out(heads * hd, 0.0);
  for (uint32_t h = 0; h < heads; ++h) {
    const uint32_t g = h * kvh / heads;
    std::vector<double> sc(n_ctx);
    double mx = -1e300, sum = 0;
    for (uint32_t t = 0; t < n_ctx; ++t) {
      double d = 0;
      for (uint32_t i = 0; i < hd; ++i) d += double{q[h * hd + i]} * k[(t * kvh + g) * hd + i];
      sc[t] = d / std::sqrt(double(hd));
      mx = std::max(mx, sc[t]);
    }
    for (auto& s : sc) sum += (s = std::exp(s - mx));
    for (uint32_t t = 0; t < n_ctx; ++t)
      for (uint32_t i = 0; i < hd; ++i) out[h * hd + i] += sc[t] / sum * v[(t * kvh + g) * hd + i];
  }
  return out;
}

TEST(CpuRefAttention, GqaCausalSoftmax) {
  const uint32_t heads = 6, kvh = 2, hd = 12, cache = 9, n_ctx = 5;
  std::mt19937 rng(11);
  std::normal_distribution<float> nd(0.f, 2.f);
  std::vector<float> q(heads * hd), k(cache * kvh * hd), v(cache * kvh * hd);
  for (auto& e : q) e = nd(rng);
  for (auto& e : k) e = nd(rng);
  for (auto& e : v) e = nd(rng);
  std::vector<float> out(heads * hd);
  ref::attention(q, k, v, n_ctx, heads, kvh, hd, out);
  const auto want = naive_attention(q, k, v, n_ctx, heads, kvh, hd);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], want[i], 1e-5) << i;

  // Causal: positions at or past n_ctx do not matter.
  auto k2 = k, v2 = v;
  for (size_t i = n_ctx * kvh * hd; i < k2.size(); ++i) k2[i] = v2[i] = 1e6f;
  std::vector<float> out2(heads * hd);
  ref::attention(q, k2, v2, n_ctx, heads, kvh, hd, out2);
  EXPECT_EQ(out, out2);

  // Large scores do not overflow (max subtraction).
  auto qb = q;
  for (auto& e : qb) e *= 200.f;
  ref::attention(qb, k, v, n_ctx, heads, kvh, hd, out2);
  for (float e : out2) EXPECT_TRUE(std::isfinite(e));

  // The F16 cache reads the same as a float cache holding the rounded values.
  std::vector<uint16_t> kh(k.size()), vh(v.size());
  std::vector<float> kr(k.size()), vr(v.size());
  for (size_t i = 0; i < k.size(); ++i) {
    kh[i] = ref::f32_to_f16(k[i]);
    vh[i] = ref::f32_to_f16(v[i]);
    kr[i] = ref::round_to_f16(k[i]);
    vr[i] = ref::round_to_f16(v[i]);
  }
  std::vector<float> a(heads * hd), b(heads * hd);
  ref::attention(q, std::span<const uint16_t>(kh), std::span<const uint16_t>(vh), n_ctx, heads, kvh, hd, a);
  ref::attention(q, kr, vr, n_ctx, heads, kvh, hd, b);
  EXPECT_EQ(a, b);

  EXPECT_THROW(ref::attention(q, k, v, 0, heads, kvh, hd, out), std::invalid_argument);
  EXPECT_THROW(ref::attention(q, k, v, cache + 1, heads, kvh, hd, out), std::invalid_argument);
  std::vector<float> q4(4 * hd), o4(4 * hd);
  EXPECT_THROW(ref::attention(q4, k, v, 1, 4, 3, hd, o4), std::invalid_argument);
}

TEST(CpuRefAttention, SinglePositionReturnsItsValue) {
  const uint32_t heads = 3, kvh = 3, hd = 6;
  std::vector<float> q(heads * hd, 0.5f), k(kvh * hd, 0.25f), v(kvh * hd), out(heads * hd);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i) - 4.f;
  ref::attention(q, k, v, 1, heads, kvh, hd, out);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_FLOAT_EQ(out[i], v[i]);
}

// ---- embedding, LM head, argmax -----------------------------------------------------------------------

TEST(CpuRefHead, EmbedAndTiedHead) {
  const uint32_t vocab = 7, dim = 9;
  std::vector<uint16_t> e(vocab * dim);
  std::vector<float> ef(vocab * dim);
  for (size_t i = 0; i < e.size(); ++i) {
    ef[i] = ref::round_to_f16(std::sin(static_cast<float>(i) * 0.37f) * 1.7f);
    e[i] = ref::f32_to_f16(ef[i]);
  }
  std::vector<float> x(dim);
  ref::embed_token(e.data(), vocab, dim, 4, x);
  for (uint32_t d = 0; d < dim; ++d) EXPECT_EQ(x[d], ef[4 * dim + d]);
  EXPECT_THROW(ref::embed_token(e.data(), vocab, dim, 7, x), std::out_of_range);
  EXPECT_THROW(ref::embed_token(e.data(), vocab, dim, -1, x), std::out_of_range);

  std::vector<float> logits(vocab);
  ref::lm_head(e.data(), vocab, dim, x, logits);
  uint32_t best = 0;
  std::vector<double> want(vocab, 0.0);
  for (uint32_t t = 0; t < vocab; ++t) {
    for (uint32_t d = 0; d < dim; ++d) want[t] += double{ef[t * dim + d]} * x[d];
    EXPECT_NEAR(logits[t], want[t], 1e-5) << t;
    if (want[t] > want[best]) best = t;
  }
  EXPECT_EQ(ref::argmax(logits), best);
}

TEST(CpuRefHead, ArgmaxTakesFirstOfTies) {
  EXPECT_EQ(ref::argmax(std::vector<float>{1.f, 3.f, 2.f, 3.f}), 1u);
  EXPECT_EQ(ref::argmax(std::vector<float>{-5.f}), 0u);
  EXPECT_THROW(ref::argmax(std::span<const float>()), std::invalid_argument);
}

// The two-pass argmax picks what `best = i wherever v[i] > v[best]` picks, on vectors of every length
// up to 40 and of 128K made of few distinct values (ties everywhere), +0 and -0, infinities and NaNs
// (at index 0 too).
TEST(CpuRefHead, ArgmaxIsTheFirstGreaterScan) {
  const float pool[] = {1.f, -1.f, 0.f, -0.f, 2.5f, INFINITY, -INFINITY, NAN, 2.5f, -3.f};
  std::mt19937 rng(11);
  std::uniform_int_distribution<size_t> pick(0, std::size(pool) - 1);
  for (size_t n : {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 16, 17, 31, 40, 128256}) {
    for (int rep = 0; rep < (n > 40 ? 20 : 400); ++rep) {
      std::vector<float> v(n);
      for (float& x : v) x = pool[pick(rng)];
      if (rep % 3 == 0)
        for (float& x : v)  // mostly ordinary values, the odd ones rarely
          if (std::isnan(x) || std::isinf(x)) x = pool[pick(rng) % 5];
      uint32_t want = 0;
      for (uint32_t i = 1; i < n; ++i)
        if (v[i] > v[want]) want = i;
      ASSERT_EQ(ref::argmax(v), want) << "length " << n << ", repetition " << rep;
    }
  }
}

}  // namespace
