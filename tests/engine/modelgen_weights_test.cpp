// Synthetic weights: I2_S packing against the spec's decoding rule, ternary statistics and determinism,
// binary16 conversion, and the normal-distribution tables.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "modelgen/synthetic_weights.h"

namespace {

using namespace trit::modelgen;

// The decoding rule of shared/docs/bitnet-b158.md, written out independently of the packer.
int decode_i2s(const std::vector<uint8_t>& data, size_t i) {
  size_t block = i / 128, pos = i % 128, group = pos / 32, gp = pos % 32;
  int code = (data[block * 32 + gp] >> (6 - 2 * group)) & 3;
  return code - 1;
}

TEST(ModelgenWeights, PackI2sHandExample) {
  std::vector<int8_t> w(128, 0);
  w[0] = 1;    // group 0 -> bits 7..6 of byte 0: code 2
  w[32] = -1;  // group 1 -> bits 5..4 of byte 0: code 0
  w[64] = 0;   // group 2 -> bits 3..2 of byte 0: code 1
  w[96] = 1;   // group 3 -> bits 1..0 of byte 0: code 2
  w[31] = -1;  // group 0 of byte 31
  std::vector<uint8_t> out(32);
  pack_i2s(w, out);
  EXPECT_EQ(out[0], 0b10'00'01'10);
  EXPECT_EQ(out[1], 0b01'01'01'01);  // all zeros: code 1 everywhere
  EXPECT_EQ(out[31], 0b00'01'01'01);
}

TEST(ModelgenWeights, PackedCodesDecodeToTheWeights) {
  auto w = ternary_weights(11, "blk.0.attn_q.weight", 128 * 40);
  std::vector<uint8_t> codes(w.size() / 4);
  pack_i2s(w, codes);
  for (size_t i = 0; i < w.size(); ++i) ASSERT_EQ(decode_i2s(codes, i), w[i]) << "element " << i;
  for (uint8_t b : codes)
    for (int g = 0; g < 4; ++g) ASSERT_NE((b >> (6 - 2 * g)) & 3, 3) << "code 3 written";
}

TEST(ModelgenWeights, PackRejectsBadInput) {
  std::vector<int8_t> w(128, 0);
  std::vector<uint8_t> out(32);
  w[77] = 2;
  EXPECT_THROW(pack_i2s(w, out), std::invalid_argument);
  w[77] = -2;
  EXPECT_THROW(pack_i2s(w, out), std::invalid_argument);
  w[77] = 0;
  std::vector<uint8_t> small(31);
  EXPECT_THROW(pack_i2s(w, small), std::invalid_argument);
  std::vector<int8_t> odd(64, 0);
  std::vector<uint8_t> out16(16);
  EXPECT_THROW(pack_i2s(odd, out16), std::invalid_argument);
}

TEST(ModelgenWeights, TernaryStatisticsAndDeterminism) {
  const uint64_t n = 3 * kChunkElements / 2;  // spans two chunks
  auto a = ternary_weights(5, "blk.3.ffn_up.weight", n);
  auto b = ternary_weights(5, "blk.3.ffn_up.weight", n);
  EXPECT_EQ(a, b);
  size_t counts[3] = {0, 0, 0};
  for (int8_t v : a) {
    ASSERT_TRUE(v >= -1 && v <= 1);
    ++counts[v + 1];
  }
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(static_cast<double>(counts[k]) / n, 1.0 / 3, 0.01) << "value " << k - 1;

  // Chunks are independent streams: regenerating chunk 1 alone gives the same values.
  std::vector<int8_t> chunk1(n - kChunkElements);
  ternary_chunk(5, "blk.3.ffn_up.weight", 1, chunk1);
  EXPECT_TRUE(std::equal(chunk1.begin(), chunk1.end(), a.begin() + kChunkElements));

  auto other_seed = ternary_weights(6, "blk.3.ffn_up.weight", 4096);
  auto other_name = ternary_weights(5, "blk.3.ffn_gate.weight", 4096);
  EXPECT_NE(other_seed, std::vector<int8_t>(a.begin(), a.begin() + 4096));
  EXPECT_NE(other_name, std::vector<int8_t>(a.begin(), a.begin() + 4096));
  std::vector<int8_t> too_big(kChunkElements + 1);
  EXPECT_THROW(ternary_chunk(5, "x", 0, too_big), std::invalid_argument);
}

TEST(ModelgenWeights, HalfConversion) {
  EXPECT_EQ(float_to_half(0.f), 0x0000);
  EXPECT_EQ(float_to_half(-0.f), 0x8000);
  EXPECT_EQ(float_to_half(1.f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.f), 0xC000);
  EXPECT_EQ(float_to_half(0.1f), 0x2E66);
  EXPECT_EQ(float_to_half(65504.f), 0x7BFF);
  EXPECT_EQ(float_to_half(65519.f), 0x7BFF);
  EXPECT_EQ(float_to_half(65520.f), 0x7C00);  // halfway to 65536 rounds to even: infinity
  EXPECT_EQ(float_to_half(std::numeric_limits<float>::infinity()), 0x7C00);
  EXPECT_EQ(float_to_half(std::ldexp(1.f, -14)), 0x0400);  // smallest normal
  EXPECT_EQ(float_to_half(std::ldexp(1.f, -24)), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(std::ldexp(1.f, -25)), 0x0000);  // tie: rounds to even (zero)
  EXPECT_EQ(float_to_half(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(float_to_half(std::ldexp(3.f, -25)), 0x0002);            // 1.5 units: tie to even
  EXPECT_EQ(float_to_half(1.f + std::ldexp(1.f, -11)), 0x3C00);      // tie below: stays even
  EXPECT_EQ(float_to_half(1.f + 3 * std::ldexp(1.f, -11)), 0x3C02);  // tie: rounds up to even
  uint16_t nan = float_to_half(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7C00, 0x7C00);
  EXPECT_NE(nan & 0x3FF, 0);
  // Every non-NaN half survives the round trip through float.
  for (uint32_t h = 0; h < 65536; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF)) continue;
    ASSERT_EQ(float_to_half(half_to_float(static_cast<uint16_t>(h))), h) << std::hex << h;
  }
  EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
  EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.f, -24));
}

TEST(ModelgenWeights, NormalQuantileAndTables) {
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-9);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963985, 1e-7);
  EXPECT_NEAR(normal_quantile(0.025), -1.959963985, 1e-7);
  EXPECT_NEAR(normal_quantile(0.001), -3.090232306, 1e-7);
  EXPECT_THROW(normal_quantile(0.0), std::invalid_argument);
  EXPECT_THROW(normal_quantile(1.0), std::invalid_argument);

  NormalTable t(1.0, 0.1);
  std::vector<float> v(200000);
  normal_f32_chunk(3, "blk.0.attn_norm.weight", 0, t, v);
  double sum = 0, sq = 0;
  for (float x : v) sum += x;
  const double mean = sum / v.size();
  for (float x : v) sq += (x - mean) * (x - mean);
  EXPECT_NEAR(mean, 1.0, 0.002);
  EXPECT_NEAR(std::sqrt(sq / v.size()), 0.1, 0.002);

  NormalTable e(0.0, 0.05);
  std::vector<uint16_t> h(100000), h2(100000);
  normal_f16_chunk(3, "token_embd.weight", 2, e, h);
  normal_f16_chunk(3, "token_embd.weight", 2, e, h2);
  EXPECT_EQ(h, h2);
  double s2 = 0;
  for (uint16_t x : h) s2 += static_cast<double>(half_to_float(x)) * half_to_float(x);
  EXPECT_NEAR(std::sqrt(s2 / h.size()), 0.05, 0.001);
}

}  // namespace
