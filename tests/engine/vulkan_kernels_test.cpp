// Every forward-pass kernel on the Vulkan device of the test environment (lavapipe in CI) against the
// CPU reference primitives (trit/reference_ops.h), on awkward sizes: K not a multiple of the
// workgroup's stride, row counts that are multiples of nothing, odd vocabularies, several GQA ratios,
// token blocks with partial tiles, tables split across bindings by a tiny artificial binding limit.
//
// Tolerances: integer sums (ternary products) must match exactly, and F16 widening is exact. Float
// results differ from the reference only by summation order and by the GPU's division (<= 2.5 ulp in
// Vulkan): ~K * 2^-24 relative to the sum of magnitudes, so bounds are stated against that sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <vector>

#include "cpu/ops_impl.h"
#include "cpu/ternary_rows.h"
#include "gguf/ternary_blocks.h"
#include "random_test_data.h"
#include "tq_test_matrix.h"
#include "trit/reference_ops.h"
#include "trit/sampler.h"
#include "vulkan/context.h"
#include "vulkan/kernels.h"

namespace {

using trit::test::random_codes;
using trit::test::random_floats;
using trit::test::random_int8;
using trit::vk::Buffer;
using trit::vk::BufferRange;
using trit::vk::CommandSequence;
using trit::vk::MemoryUse;

struct Gpu {
  explicit Gpu(bool kv_f16 = true, uint64_t max_range = 0, bool f64 = false,
               trit::vk::DotProduct dot = trit::vk::DotProduct::Off)
      : ctx(opts(max_range)), k(ctx, kv_f16, f64, dot), da(ctx) {}
  static trit::vk::ContextOptions opts(uint64_t max_range) {
    trit::vk::ContextOptions o;
    o.max_binding_range = max_range;
    return o;
  }
  template <typename T>
  Buffer buf(const std::vector<T>& data) {
    Buffer b(ctx, std::max<uint64_t>(data.size() * sizeof(T), 16), MemoryUse::Device);
    b.upload(data.data(), data.size() * sizeof(T));
    return b;
  }
  Buffer zeros(uint64_t bytes) {
    std::vector<uint8_t> z(std::max<uint64_t>(bytes, 16), 0);
    return buf(z);
  }
  // Records `rec` with a params buffer holding (pos0, n_tokens) and runs it once.
  void run(uint32_t pos0, uint32_t n_tokens, const std::function<void(CommandSequence&, const BufferRange&)>& rec) {
    const trit::vk::Params p{pos0, n_tokens};
    Buffer pb(ctx, sizeof p, MemoryUse::Upload);
    pb.upload(&p, sizeof p);
    CommandSequence cs(ctx);
    cs.begin();
    rec(cs, BufferRange{&pb, 0, 0});
    cs.end();
    cs.run();
  }
  template <typename T>
  std::vector<T> get(const Buffer& b, size_t count) {
    std::vector<T> out(count);
    b.download(out.data(), count * sizeof(T));
    return out;
  }
  trit::vk::Context ctx;
  trit::vk::Kernels k;
  trit::vk::DescriptorAllocator da;
};

BufferRange all(const Buffer& b) {
  return {&b, 0, 0};
}

std::vector<uint16_t> to_f16(const std::vector<float>& v) {
  std::vector<uint16_t> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = trit::ref::f32_to_f16(v[i]);
  return out;
}

// ---- ternary matrix x int8 activations --------------------------------------------------------------

struct TernaryCase {
  uint32_t rows, cols, tokens, max_tokens;
};

void check_ternary(Gpu& g, const TernaryCase& c, trit::vk::TernaryMode mode, bool unit_scales) {
  SCOPED_TRACE(testing::Message() << "rows " << c.rows << " cols " << c.cols << " tokens " << c.tokens << " mode "
                                  << static_cast<int>(mode));
  const auto codes = random_codes(c.rows, c.cols, c.rows * 7 + c.cols);
  const auto codes2 = random_codes(c.rows, c.cols, c.rows * 11 + c.cols + 1);
  const auto xq = random_int8(size_t{c.tokens} * c.cols, c.cols + c.tokens);
  std::vector<float> s(c.tokens, 1.f);
  float scale = 1.f, scale2 = 1.f;
  if (!unit_scales) {
    s = random_floats(c.tokens, 5, 20.f, 900.f);
    scale = 0.7319f;
    scale2 = 1.9f;
  }
  const trit::TernaryMatrix m{codes.data(), scale, c.rows, c.cols};
  const trit::TernaryMatrix m2{codes2.data(), scale2, c.rows, c.cols};
  std::vector<float> want(size_t{c.tokens} * c.rows), want2(want.size());
  trit::ref::ternary_matmul(m, xq, s, want);
  const auto y0 = random_floats(want.size(), 99);  // the residual the Accumulate mode adds to
  if (mode == trit::vk::TernaryMode::Accumulate)
    for (size_t i = 0; i < want.size(); ++i) want[i] = y0[i] + want[i];
  const bool gate = mode == trit::vk::TernaryMode::Gate || mode == trit::vk::TernaryMode::SiluGate;
  if (gate) {
    trit::ref::ternary_matmul(m2, xq, s, want2);
    if (mode == trit::vk::TernaryMode::Gate)
      trit::ref::squared_relu_gate(want, want2, want);
    else
      trit::ref::silu_gate(want, want2, want);
  }

  Buffer w = g.buf(codes), w2 = g.buf(codes2), xb = g.buf(xq), sb = g.buf(s);
  Buffer y = g.buf(mode == trit::vk::TernaryMode::Accumulate ? y0 : std::vector<float>(want.size(), -7.f));
  const BufferRange w2r = all(w2);
  g.run(0, c.tokens, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.ternary(cs, g.da, p, mode, all(w), scale, gate ? &w2r : nullptr, scale2, all(xb), all(sb), all(y), c.rows,
                c.cols, c.max_tokens);
  });
  const auto got = g.get<float>(y, want.size());
  // The SiLU gate's exp is the device's (Vulkan allows 3 + 2|x| ulp for fp32 exp).
  const float rel = mode == trit::vk::TernaryMode::SiluGate ? 3e-5f : 4e-6f;
  for (size_t i = 0; i < want.size(); ++i) {
    if (unit_scales && mode == trit::vk::TernaryMode::Store) {
      ASSERT_EQ(got[i], want[i]) << "integer sum differs at token " << i / c.rows << " row " << i % c.rows;
    } else {
      ASSERT_NEAR(got[i], want[i], rel * std::fabs(want[i]) + 1e-6f)
          << "at token " << i / c.rows << " row " << i % c.rows;
    }
  }
}

TEST(VulkanKernels, TernaryIntegerSumsAreExact) {
  Gpu g;
  // cols 384 = 6 uvec4s per row (fewer than the lanes per row), 2560 = the 2B4T width; rows odd.
  for (const TernaryCase& c : {TernaryCase{37, 384, 1, 1}, TernaryCase{301, 2560, 1, 1}, TernaryCase{5, 128, 1, 1},
                               TernaryCase{37, 384, 11, 16}, TernaryCase{70, 1280, 8, 8}, TernaryCase{3, 640, 3, 64}})
    check_ternary(g, c, trit::vk::TernaryMode::Store, true);
}

TEST(VulkanKernels, TernaryScalesResidualAndGate) {
  Gpu g;
  for (auto mode : {trit::vk::TernaryMode::Store, trit::vk::TernaryMode::Accumulate, trit::vk::TernaryMode::Gate,
                    trit::vk::TernaryMode::SiluGate})
    for (const TernaryCase& c : {TernaryCase{53, 512, 1, 1}, TernaryCase{53, 512, 13, 16}})
      check_ternary(g, c, mode, false);
}

TEST(VulkanKernels, TernaryIgnoresTokensBeyondTheSubmittedCount) {
  // Recorded for 16 tokens, submitted with 3: rows of tokens 3.. must stay untouched.
  Gpu g;
  const uint32_t rows = 9, cols = 256;
  const auto codes = random_codes(rows, cols, 1);
  const auto xq = random_int8(16 * cols, 2);
  Buffer w = g.buf(codes), xb = g.buf(xq), sb = g.buf(std::vector<float>(16, 1.f));
  Buffer y = g.buf(std::vector<float>(16 * rows, 42.f));
  g.run(0, 3, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.ternary(cs, g.da, p, trit::vk::TernaryMode::Store, all(w), 1.f, nullptr, 1.f, all(xb), all(sb), all(y), rows,
                cols, 16);
  });
  const auto got = g.get<float>(y, 16 * rows);
  for (size_t i = 3 * rows; i < got.size(); ++i) ASSERT_EQ(got[i], 42.f) << i;
  EXPECT_NE(got[0], 42.f);
}

// TQ1_0 / TQ2_0 matrices: the upload's transcoding to the I2_S layout with a scale per 256-element
// block (gguf/ternary_blocks.h) and the kernel's per-block sums (BLOCK_SCALES), against the CPU
// reference reading the file's own format. In double the block products and their sum are exact, so the
// two agree bit for bit; in fp32 the blocks are summed in another order (to rounding).
void check_ternary_blocks(Gpu& g, trit::WeightFormat f, const TernaryCase& c, trit::vk::TernaryMode mode) {
  const bool f64 = g.k.f64();
  SCOPED_TRACE(testing::Message() << trit::weight_format_name(f) << (f64 ? " f64" : " fp32") << " rows " << c.rows
                                  << " cols " << c.cols << " tokens " << c.tokens << " mode "
                                  << static_cast<int>(mode));
  const trit::test::TqTestMatrix a(f, c.rows, c.cols, c.rows + c.cols), b(f, c.rows, c.cols, c.rows * 3 + 1);
  const trit::TernaryMatrix &m = a.m, &m2 = b.m;
  const auto xq = random_int8(size_t{c.tokens} * c.cols, c.cols + c.tokens);
  const auto s = random_floats(c.tokens, 5, 20.f, 900.f);
  const bool gate = mode == trit::vk::TernaryMode::SiluGate || mode == trit::vk::TernaryMode::Gate;
  auto run_cpu = [&](const trit::TernaryMatrix& mm, auto zero) {
    using R = decltype(zero);
    std::vector<R> sr(s.begin(), s.end()), y(size_t{c.tokens} * c.rows);
    trit::cpu::ternary_rows<R>(mm, xq.data(), sr.data(), c.tokens, y.data(), 0, c.rows);
    return y;
  };
  Buffer w = g.buf(a.codes), w2 = g.buf(b.codes), db = g.buf(a.scales), db2 = g.buf(b.scales), xb = g.buf(xq);
  const size_t n = size_t{c.tokens} * c.rows;
  auto check = [&](auto zero) {
    using R = decltype(zero);
    auto want = run_cpu(m, zero);
    if (gate) {
      const auto u = run_cpu(m2, zero);
      for (size_t i = 0; i < n; ++i) {
        if (mode == trit::vk::TernaryMode::Gate)
          want[i] = std::max(want[i], R(0)) * std::max(want[i], R(0)) * u[i];
        else
          want[i] = want[i] / (R(1) + std::exp(-want[i])) * u[i];
      }
    }
    std::vector<R> sr(s.begin(), s.end());
    Buffer sb = g.buf(sr), y = g.buf(std::vector<R>(n, R(-7)));
    const BufferRange w2r = all(w2), dr = all(db), d2r = all(db2);
    g.run(0, c.tokens, [&](CommandSequence& cs, const BufferRange& p) {
      g.k.ternary(cs, g.da, p, mode, all(w), 1.f, gate ? &w2r : nullptr, 1.f, all(xb), all(sb), all(y), c.rows, c.cols,
                  c.max_tokens, &dr, gate ? &d2r : nullptr);
    });
    const auto got = g.get<R>(y, n);
    for (size_t t = 0; t < c.tokens; ++t) {
      R row_max = 0;
      for (size_t r = 0; r < c.rows; ++r) row_max = std::max(row_max, std::fabs(want[t * c.rows + r]));
      for (size_t r = 0; r < c.rows; ++r) {
        const size_t i = t * c.rows + r;
        if (f64 && mode != trit::vk::TernaryMode::SiluGate)
          ASSERT_EQ(got[i], want[i]) << "token " << t << " row " << r;
        else
          ASSERT_NEAR(got[i], want[i], (f64 ? 1e-14 : 3e-6) * row_max + 1e-30) << "token " << t << " row " << r;
      }
    }
  };
  if (f64)
    check(0.0);
  else
    check(0.f);
}

TEST(VulkanKernels, TernaryBlockScalesOfTqFormats) {
  Gpu g;
  for (auto f : {trit::WeightFormat::TQ2_0, trit::WeightFormat::TQ1_0})
    for (auto mode : {trit::vk::TernaryMode::Store, trit::vk::TernaryMode::Gate, trit::vk::TernaryMode::SiluGate})
      for (const TernaryCase& c : {TernaryCase{37, 256, 1, 1}, TernaryCase{19, 2304, 13, 16}})
        check_ternary_blocks(g, f, c, mode);
}

TEST(VulkanKernelsF64, TernaryBlockScalesOfTqFormatsAreExact) {
  if (!Gpu().ctx.info().shader_float64) GTEST_SKIP() << "no shaderFloat64";
  Gpu g(true, 0, true);
  for (auto f : {trit::WeightFormat::TQ2_0, trit::WeightFormat::TQ1_0})
    for (auto mode : {trit::vk::TernaryMode::Store, trit::vk::TernaryMode::Gate, trit::vk::TernaryMode::SiluGate})
      for (const TernaryCase& c : {TernaryCase{5, 768, 3, 8}, TernaryCase{41, 1280, 1, 1}})
        check_ternary_blocks(g, f, c, mode);
}

// The packed int8 dot-product variant (OpSDot) must give the same exact integer sums as the baseline
// on every shape above, the partial token tiles and all three modes included. Lavapipe supports the
// instruction (not accelerated), so CI runs it; a device without it skips.
bool has_dot_product() {
  static const bool has = [] {  // one extra device for the whole run, not one per test
    trit::vk::Context ctx;
    return ctx.info().integer_dot_product;
  }();
  return has;
}

TEST(VulkanKernelsDot, TernaryIntegerSumsAreExact) {
  if (!has_dot_product()) GTEST_SKIP() << "no integer dot product on this device";
  Gpu g(true, 0, false, trit::vk::DotProduct::On);
  ASSERT_TRUE(g.k.dot_product());
  for (const TernaryCase& c : {TernaryCase{37, 384, 1, 1}, TernaryCase{301, 2560, 1, 1}, TernaryCase{5, 128, 1, 1},
                               TernaryCase{37, 384, 11, 16}, TernaryCase{70, 1280, 8, 8}, TernaryCase{3, 640, 3, 64},
                               TernaryCase{129, 6912, 2, 8}})
    check_ternary(g, c, trit::vk::TernaryMode::Store, true);
}

TEST(VulkanKernelsDot, TernaryScalesResidualAndGate) {
  if (!has_dot_product()) GTEST_SKIP() << "no integer dot product on this device";
  Gpu g(true, 0, false, trit::vk::DotProduct::On);
  for (auto mode : {trit::vk::TernaryMode::Store, trit::vk::TernaryMode::Accumulate, trit::vk::TernaryMode::Gate})
    for (const TernaryCase& c : {TernaryCase{53, 512, 1, 1}, TernaryCase{53, 512, 13, 16}, TernaryCase{9, 256, 3, 64}})
      check_ternary(g, c, mode, false);
}

TEST(VulkanKernelsDot, ExtremeActivationsAndCodes) {
  // Every code value against -128 and 127 activations: the (code - 1) bytes and the signed products
  // must not saturate or lose a sign.
  if (!has_dot_product()) GTEST_SKIP() << "no integer dot product on this device";
  Gpu g(true, 0, false, trit::vk::DotProduct::On);
  const uint32_t rows = 3, cols = 256;
  std::vector<uint8_t> codes(size_t{rows} * cols / 4);
  for (uint32_t r = 0; r < rows; ++r)
    for (uint32_t i = 0; i < cols / 4; ++i) codes[r * cols / 4 + i] = static_cast<uint8_t>(r * 0x55);  // all 0, 1 or 2
  std::vector<int8_t> xq(cols);
  for (uint32_t i = 0; i < cols; ++i) xq[i] = static_cast<int8_t>(i % 3 == 0 ? -128 : 127);
  Buffer w = g.buf(codes), xb = g.buf(xq), sb = g.buf(std::vector<float>{1.f}), y = g.zeros(rows * 4);
  g.run(0, 1, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.ternary(cs, g.da, p, trit::vk::TernaryMode::Store, all(w), 1.f, nullptr, 1.f, all(xb), all(sb), all(y), rows,
                cols, 1);
  });
  const auto got = g.get<float>(y, rows);
  float sum = 0.f;
  for (int8_t v : xq) sum += static_cast<float>(v);
  EXPECT_EQ(got[0], -sum);
  EXPECT_EQ(got[1], 0.f);
  EXPECT_EQ(got[2], sum);
}

TEST(VulkanKernelsDotF64, TernaryMatchesTheBaseline) {
  if (!has_dot_product()) GTEST_SKIP() << "no integer dot product on this device";
  Gpu base(true, 0, true, trit::vk::DotProduct::Off), dot(true, 0, true, trit::vk::DotProduct::On);
  const uint32_t rows = 77, k = 1408, n = 5;
  const auto codes = random_codes(rows, k, 31), codes2 = random_codes(rows, k, 32);
  const auto xq = random_int8(size_t{n} * k, 33);
  std::vector<double> s{123.5, 17.25, 99.0, 1.5, 640.0};
  for (auto mode : {trit::vk::TernaryMode::Store, trit::vk::TernaryMode::Gate}) {
    std::vector<double> out[2];
    Gpu* gs[2] = {&base, &dot};
    for (int i = 0; i < 2; ++i) {
      Gpu& g = *gs[i];
      Buffer w = g.buf(codes), w2 = g.buf(codes2), xb = g.buf(xq), sb = g.buf(s), y = g.zeros(size_t{n} * rows * 8);
      const BufferRange w2r = all(w2);
      g.run(0, n, [&](CommandSequence& cs, const BufferRange& p) {
        g.k.ternary(cs, g.da, p, mode, all(w), 0.8125f, mode == trit::vk::TernaryMode::Gate ? &w2r : nullptr, 1.25f,
                    all(xb), all(sb), all(y), rows, k, 8);
      });
      out[i] = g.get<double>(y, size_t{n} * rows);
    }
    for (size_t i = 0; i < out[0].size(); ++i)
      ASSERT_EQ(out[0][i], out[1][i]) << "mode " << static_cast<int>(mode) << " at " << i;
  }
}

// ---- RMSNorm + int8 quantization --------------------------------------------------------------------

// The GPU's h differs from the reference's by a few ulp, so q may differ by one step where h * s sits
// within a hair of a rounding boundary; anywhere else it must be equal.
void expect_quant_close(const std::vector<uint8_t>& got_packed, const std::vector<int8_t>& want,
                        const std::vector<float>& h_ref, float s_ref, size_t offset) {
  int near_ties = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const auto gq = static_cast<int8_t>(got_packed[offset + i]);
    if (gq == want[i]) continue;
    const float v = h_ref[i] * s_ref;
    const float frac = std::fabs(v - std::trunc(v));
    ASSERT_LE(std::abs(gq - want[i]), 1) << "element " << i;
    ASSERT_NEAR(frac, 0.5f, 1e-3f) << "element " << i << " differs away from a rounding boundary";
    ++near_ties;
  }
  EXPECT_LE(near_ties, static_cast<int>(want.size() / 100 + 1));
}

TEST(VulkanKernels, RmsNormQuantMatchesReference) {
  Gpu g;
  for (uint32_t k : {1408u, 4u, 516u, 2560u}) {
    SCOPED_TRACE(k);
    const uint32_t n = 3;
    auto x = random_floats(size_t{n} * k, k, -3.f, 3.f);
    x[1] = 0.5f;  // exact halves exercise the rounding rule
    const auto w = random_floats(k, k + 1, 0.2f, 2.f);
    Buffer xb = g.buf(x), wb = g.buf(w), qb = g.zeros(size_t{n} * k), sb = g.zeros(n * 4),
           hb = g.zeros(size_t{n} * k * 4);
    const BufferRange wr = all(wb), qr = all(qb), sr = all(sb), hr = all(hb);
    g.run(0, n, [&](CommandSequence& cs, const BufferRange& p) {
      g.k.rmsnorm_quant(cs, g.da, p, all(xb), &wr, nullptr, &qr, &sr, k, 1e-5f, n);
    });
    const auto q = g.get<uint8_t>(qb, size_t{n} * k);
    const auto s = g.get<float>(sb, n);
    g.run(0, n, [&](CommandSequence& cs, const BufferRange& p) {
      g.k.rmsnorm_quant(cs, g.da, p, all(xb), &wr, &hr, nullptr, nullptr, k, 1e-5f, n);
    });
    const auto h = g.get<float>(hb, size_t{n} * k);
    for (uint32_t t = 0; t < n; ++t) {
      std::vector<float> xt(x.begin() + t * k, x.begin() + (t + 1) * k), ht(k);
      trit::ref::rmsnorm(xt, w, 1e-5f, ht);
      std::vector<int8_t> qt(k);
      const float st = trit::ref::quantize_int8_per_token(ht, qt);
      EXPECT_NEAR(s[t], st, 1e-5f * st);
      for (uint32_t i = 0; i < k; ++i)
        ASSERT_NEAR(h[t * k + i], ht[i], 2e-6f * std::fabs(ht[i]) + 1e-7f) << t << "," << i;
      expect_quant_close(q, qt, ht, st, size_t{t} * k);
    }
  }
}

TEST(VulkanKernels, QuantizeOnlyMatchesReferenceIncludingHalvesAndZeros) {
  Gpu g;
  const uint32_t k = 260, n = 2;
  // Token 0: values whose products with s = 127 / 127 = 1 are exact halves: the rounding rule decides.
  std::vector<float> x(size_t{n} * k, 0.f);
  for (uint32_t i = 0; i < k; ++i)
    x[i] = static_cast<float>(static_cast<int>(i % 255) - 127) + ((i % 2) ? 0.5f : -0.5f);
  x[0] = 127.f;
  x[1] = -127.f;
  // Token 1: all zeros (s = 127 / 1e-5, every q 0).
  Buffer xb = g.buf(x), qb = g.zeros(size_t{n} * k), sb = g.zeros(n * 4);
  const BufferRange qr = all(qb), sr = all(sb);
  g.run(0, n, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.rmsnorm_quant(cs, g.da, p, all(xb), nullptr, nullptr, &qr, &sr, k, 1e-5f, n);
  });
  const auto q = g.get<uint8_t>(qb, size_t{n} * k);
  const auto s = g.get<float>(sb, n);
  for (uint32_t t = 0; t < n; ++t) {
    std::vector<float> xt(x.begin() + t * k, x.begin() + (t + 1) * k);
    std::vector<int8_t> qt(k);
    const float st = trit::ref::quantize_int8_per_token(xt, qt);
    EXPECT_FLOAT_EQ(s[t], st);
    for (uint32_t i = 0; i < k; ++i)
      ASSERT_EQ(static_cast<int8_t>(q[t * k + i]), qt[i]) << t << "," << i << " x " << xt[i];
  }
}

// ---- embedding and LM head --------------------------------------------------------------------------

TEST(VulkanKernels, SplitRowsCoversEveryRowOnce) {
  const auto c = trit::vk::split_rows(1003, 512, 512 * 400 + 100);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].row0, 0u);
  EXPECT_EQ(c[0].rows, 400u);
  EXPECT_EQ(c[2].row0, 800u);
  EXPECT_EQ(c[2].rows, 203u);
  EXPECT_EQ(trit::vk::split_rows(7, 16, 1 << 20).size(), 1u);
  EXPECT_THROW(trit::vk::split_rows(7, 1024, 512), trit::VulkanError);
}

TEST(VulkanKernels, EmbeddingLookupAcrossSplitTable) {
  const uint32_t vocab = 1003, dim = 256;
  // A 64 KiB binding limit splits the 513,536-byte table into 8 chunks.
  Gpu g(true, 64 * 1024);
  const auto table = to_f16(random_floats(size_t{vocab} * dim, 3, -2.f, 2.f));
  const auto chunks = trit::vk::split_rows(vocab, dim * 2, g.ctx.max_binding_range());
  ASSERT_GT(chunks.size(), 4u);
  std::vector<Buffer> parts;
  for (const auto& c : chunks)
    parts.push_back(g.buf(
        std::vector<uint16_t>(table.begin() + size_t{c.row0} * dim, table.begin() + size_t{c.row0 + c.rows} * dim)));
  const std::vector<int32_t> tokens = {0, 1002, 255, 256, 511, 512, 17, 0};
  Buffer tb = g.buf(tokens), xb = g.zeros(tokens.size() * dim * 4);
  g.run(0, static_cast<uint32_t>(tokens.size()), [&](CommandSequence& cs, const BufferRange& p) {
    for (size_t i = 0; i < chunks.size(); ++i)
      g.k.embed(cs, g.da, p, all(tb), all(parts[i]), all(xb), dim, chunks[i].row0, chunks[i].rows,
                static_cast<uint32_t>(tokens.size()));
  });
  const auto x = g.get<float>(xb, tokens.size() * dim);
  std::vector<float> want(dim);
  for (size_t t = 0; t < tokens.size(); ++t) {
    trit::ref::embed_token(table.data(), vocab, dim, tokens[t], want);
    for (uint32_t d = 0; d < dim; ++d) ASSERT_EQ(x[t * dim + d], want[d]) << "token " << t << " dim " << d;
  }
}

void check_lm_head(uint32_t vocab, uint32_t dim, uint32_t n, uint32_t max_tokens, uint64_t max_range) {
  SCOPED_TRACE(testing::Message() << "vocab " << vocab << " dim " << dim << " tokens " << n);
  Gpu g(true, max_range);
  const auto table = to_f16(random_floats(size_t{vocab} * dim, vocab, -1.f, 1.f));
  const auto x = random_floats(size_t{n} * dim, dim + n, -2.f, 2.f);
  const auto chunks = trit::vk::split_rows(vocab, dim * 2, g.ctx.max_binding_range());
  std::vector<Buffer> parts;
  for (const auto& c : chunks)
    parts.push_back(g.buf(
        std::vector<uint16_t>(table.begin() + size_t{c.row0} * dim, table.begin() + size_t{c.row0 + c.rows} * dim)));
  Buffer xb = g.buf(x), lb = g.zeros(size_t{n} * vocab * 4);
  g.run(0, n, [&](CommandSequence& cs, const BufferRange& p) {
    for (size_t i = 0; i < chunks.size(); ++i)
      g.k.lm_head(cs, g.da, p, all(parts[i]), all(xb), all(lb), chunks[i].rows, dim, chunks[i].row0, vocab, max_tokens);
  });
  const auto got = g.get<float>(lb, size_t{n} * vocab);
  std::vector<float> want(vocab);
  for (uint32_t t = 0; t < n; ++t) {
    std::vector<float> xt(x.begin() + t * dim, x.begin() + (t + 1) * dim);
    trit::ref::lm_head(table.data(), vocab, dim, xt, want);
    for (uint32_t v = 0; v < vocab; ++v) {
      float mag = 0.f;
      for (uint32_t d = 0; d < dim; ++d) mag += std::fabs(trit::ref::f16_to_f32(table[size_t{v} * dim + d]) * xt[d]);
      ASSERT_NEAR(got[size_t{t} * vocab + v], want[v], 1e-6f * mag * std::sqrt(static_cast<float>(dim)) + 1e-6f)
          << "token " << t << " row " << v;
    }
  }
}

TEST(VulkanKernels, LmHeadOddVocabulariesSplitAcrossBindings) {
  check_lm_head(1003, 512, 1, 1, 100 * 1024);   // 10 chunks
  check_lm_head(2051, 1280, 5, 8, 0);           // one chunk, a partial token tile
  check_lm_head(2051, 128, 11, 16, 96 * 1024);  // 6 chunks, two token tiles
}

TEST(VulkanKernels, LmHeadFullLlama3Vocabulary) {
  check_lm_head(128256, 128, 1, 1, 4 << 20);  // 128,256 rows in 8 chunks of a 4 MiB limit
}

// Rows a greedy choice must get right, for count logits: random with the largest last (in the partial
// last 16-byte word where count % 4 != 0); ties (every 61st element from a seventh of the row on, and
// the last), where the first index wins within a slice and across slices, so the invocations that merge
// several slices see ties too; NaN first, then -0 and +0 tied on top. Row 2's NaN is where the CPU's
// argmax differs from the device's order (NaN ranks lowest there): cpu_view() gives the row the CPU
// should be asked about.
std::vector<std::vector<float>> greedy_rows(uint32_t count) {
  std::vector<std::vector<float>> rows(3, random_floats(count, count, -5.f, 5.f));
  if (count > 1) {
    rows[0][count - 1] = 9.f;
    for (uint32_t j = count / 7; j < count; j += 61) rows[1][j] = 9.5f;
    rows[1][count - 1] = 9.5f;
    rows[2][0] = std::numeric_limits<float>::quiet_NaN();
    for (auto& v : rows[2]) v = std::min(v, -1.f);
    rows[2][count - 1] = 0.f;
    if (count > 2) rows[2][count / 3 + 1] = -0.f;
    if (count > 4) rows[2][1] = -std::numeric_limits<float>::infinity();
  }
  return rows;
}
std::vector<float> cpu_view(std::vector<float> row) {
  if (row.size() > 1 && std::isnan(row[0]))
    row[0] = -std::numeric_limits<float>::infinity();  // the CPU keeps a NaN at 0
  return row;
}

// The greedy step over workgroups of slices: the first largest logit (as trit::argmax) wherever it
// lies (the last element, in the partial last 16-byte word, a tie across slices), -0 and +0 alike, NaN
// never chosen over a number; it lands in the next input and in the ring slot of the position, and the
// position advances. Each vocabulary runs three steps on one scratch buffer (the arrival count must
// reset after every step).
TEST(VulkanKernels, GreedyStepFindsTheFirstLargestAndPublishesIt) {
  Gpu g;
  constexpr uint32_t kRing = 8;
  Buffer step(g.ctx, sizeof(trit::vk::Params), MemoryUse::Readback), next(g.ctx, 4, MemoryUse::Readback),
      ring(g.ctx, kRing * 4, MemoryUse::Readback);
  for (uint32_t count : {128256u, 4097u, 1003u, 6u, 1u}) {
    SCOPED_TRACE(count);
    Buffer scratch = g.zeros(g.k.greedy_scratch_bytes(count));
    const std::vector<std::vector<float>> rows = greedy_rows(count);
    for (uint32_t i = 0; i < rows.size(); ++i) {
      const uint32_t pos = 40 + 7 * i;
      const trit::vk::Params p{pos, 1};
      step.upload(&p, sizeof p);
      Buffer lb = g.buf(rows[i]);
      CommandSequence cs(g.ctx);
      cs.begin();
      g.k.greedy_step(cs, g.da, BufferRange{&step, 0, 0}, BufferRange{&lb, 0, uint64_t{count} * 4},
                      BufferRange{&next, 0, 0}, BufferRange{&ring, 0, 0}, BufferRange{&scratch, 0, 0}, count, kRing);
      cs.end();
      cs.run();
      const auto want = static_cast<uint32_t>(trit::ref::argmax(cpu_view(rows[i])));
      EXPECT_EQ(g.get<uint32_t>(next, 1)[0], want) << "row " << i;
      EXPECT_EQ(g.get<uint32_t>(ring, kRing)[pos % kRing], want) << "row " << i;
      EXPECT_EQ(g.get<uint32_t>(step, 1)[0], pos + 1) << "row " << i;
    }
  }
  Buffer lb = g.zeros(64), scratch = g.zeros(16);
  CommandSequence cs(g.ctx);
  cs.begin();
  EXPECT_THROW(g.k.greedy_step(cs, g.da, BufferRange{&step, 0, 0}, BufferRange{&lb, 0, 0}, BufferRange{&next, 0, 0},
                               BufferRange{&ring, 0, 0}, BufferRange{&scratch, 0, 0}, 128256, kRing),
               trit::VulkanError);  // scratch too small for the workgroups
  cs.end();
}

// argmax_rows' penalised tokens: per row a count, then the ids (kArgmaxPenalisedMax + 1 words a row).
std::vector<uint32_t> penalty_lists(const std::vector<std::vector<int32_t>>& penalised) {
  constexpr uint32_t kMax = trit::vk::Kernels::kArgmaxPenalisedMax;
  std::vector<uint32_t> lists(penalised.size() * (kMax + 1), 0u);
  for (size_t i = 0; i < penalised.size(); ++i) {
    lists[i * (kMax + 1)] = static_cast<uint32_t>(penalised[i].size());
    for (size_t j = 0; j < penalised[i].size(); ++j)
      lists[i * (kMax + 1) + 1 + j] = static_cast<uint32_t>(penalised[i][j]);
  }
  return lists;
}

// A batched step's argmax (argmax_rows + argmax_of_slices): the rows of greedy_step's test side by side
// in one buffer, some with penalised tokens, each row's token equal to the CPU's greedy choice (the
// penalty applied, then the first largest), and the rows past the submitted count untouched.
TEST(VulkanKernels, ArgmaxRowsFindEachRowsFirstLargest) {
  Gpu g;
  constexpr uint32_t kMax = trit::vk::Kernels::kArgmaxPenalisedMax;
  for (uint32_t count : {128256u, 4097u, 1003u, 6u, 1u}) {
    SCOPED_TRACE(count);
    std::vector<std::vector<float>> rows = greedy_rows(count);
    std::vector<std::vector<int32_t>> penalised(5);
    std::vector<float> penalty(5, 1.f);
    rows.push_back(std::vector<float>(count, 2.5f));             // every logit tied: the first wins
    rows.push_back(random_floats(count, count + 1, -5.f, 5.f));  // not submitted
    if (count > 1) {
      // Penalties: the maximum of row 0 halved (the runner-up wins); the last of row 1's ties doubled
      // (p < 1: it wins, though not the first); row 3's first logit, or all of a short row, lowered.
      penalised[0] = {static_cast<int32_t>(count - 1), static_cast<int32_t>(count / 2)};
      penalty[0] = 2.f;
      penalised[1] = {static_cast<int32_t>(count - 1)};
      penalty[1] = 0.5f;
      for (uint32_t j = 0; j < (count <= 6 ? count : 1); ++j) penalised[3].push_back(static_cast<int32_t>(j));
      penalty[3] = 1.25f;
    }
    std::vector<float> all_rows;
    for (const auto& r : rows) all_rows.insert(all_rows.end(), r.begin(), r.end());
    const std::vector<uint32_t> lists = penalty_lists(penalised);
    Buffer lb = g.buf(all_rows), pen = g.buf(lists), gathered = g.zeros(size_t{5} * kMax * 4);
    const uint32_t slices = g.k.argmax_slices(count);
    const std::vector<uint32_t> sentinel(size_t{5} * slices * 2, 0xdeadbeefu);
    Buffer best = g.buf(sentinel);
    g.run(0, 4, [&](CommandSequence& cs, const BufferRange& p) {
      g.k.argmax_rows(cs, g.da, p, all(lb), all(best), all(pen), all(gathered), count, 5);
    });
    const auto got = g.get<uint32_t>(best, sentinel.size());
    const auto gath = g.get<float>(gathered, size_t{5} * kMax);
    for (uint32_t i = 0; i < 4; ++i) {
      std::vector<float> cpu = cpu_view(rows[i]);
      for (int32_t t : penalised[i])
        cpu[static_cast<size_t>(t)] = trit::repeat_penalised(cpu[static_cast<size_t>(t)], penalty[i]);
      const auto pairs = std::span<const uint32_t>(got).subspan(size_t{i} * slices * 2, size_t{slices} * 2);
      EXPECT_EQ(trit::vk::Kernels::argmax_of_slices(
                    pairs, penalised[i], std::span<const float>(gath).subspan(size_t{i} * kMax, penalised[i].size()),
                    penalty[i]),
                static_cast<int32_t>(trit::ref::argmax(cpu)))
          << "row " << i;
    }
    for (size_t j = size_t{4} * slices * 2; j < got.size(); ++j) ASSERT_EQ(got[j], 0xdeadbeefu) << "row 4 was written";
  }
  Buffer lb = g.zeros(64), best = g.zeros(16);
  CommandSequence cs(g.ctx);
  cs.begin();
  EXPECT_THROW(g.k.argmax_rows(cs, g.da, all(lb), all(lb), all(best), all(lb), all(lb), 128256, 2),
               trit::VulkanError);  // best too small
  cs.end();
}

// A sampled step's best k (argmax_rows with K: each slice's best kTopRowsMax, then top_of_slices): for
// rows with ties within and across slices, penalised tokens moving in and out of the best, an all-equal
// row and rows shorter than k, the first k of the penalised row in TopLogit::before order, logits bit for
// bit; a row with a NaN is refused (row 2 of greedy_rows), and the merge refuses a penalised NaN too.
TEST(VulkanKernels, TopRowsFindEachRowsBestK) {
  Gpu g;
  constexpr uint32_t kMax = trit::vk::Kernels::kArgmaxPenalisedMax, kTop = trit::vk::Kernels::kTopRowsMax;
  for (uint32_t count : {128256u, 4097u, 1003u, 70u, 6u}) {
    SCOPED_TRACE(count);
    std::vector<std::vector<float>> rows = greedy_rows(count);
    rows.push_back(std::vector<float>(count, 2.5f));  // every logit tied: in id order
    std::vector<std::vector<int32_t>> penalised(4);
    std::vector<float> penalty(4, 1.f);
    penalised[0] = {0, static_cast<int32_t>(count - 1), static_cast<int32_t>(count / 2)};
    penalty[0] = 2.f;
    penalised[1] = {static_cast<int32_t>(count - 1)};
    penalty[1] = 0.5f;
    if (count > 5) penalised[3] = {1, 3, 5};
    penalty[3] = 1.25f;
    for (auto& pl : penalised) {
      std::sort(pl.begin(), pl.end());
      pl.erase(std::unique(pl.begin(), pl.end()), pl.end());
    }
    std::vector<float> all_rows;
    for (const auto& r : rows) all_rows.insert(all_rows.end(), r.begin(), r.end());
    const std::vector<uint32_t> lists = penalty_lists(penalised);
    const uint32_t slices = g.k.argmax_slices(count);
    Buffer lb = g.buf(all_rows), pen = g.buf(lists), gathered = g.zeros(size_t{4} * kMax * 4),
           top = g.zeros(size_t{4} * slices * kTop * 8), nan = g.zeros(size_t{4} * slices * 4);
    g.run(0, 4, [&](CommandSequence& cs, const BufferRange& p) {
      g.k.top_rows(cs, g.da, p, all(lb), all(top), all(pen), all(gathered), all(nan), count, 4);
    });
    const auto got = g.get<uint32_t>(top, size_t{4} * slices * kTop * 2);
    const auto flags = g.get<uint32_t>(nan, size_t{4} * slices);
    const auto gath = g.get<float>(gathered, size_t{4} * kMax);
    for (uint32_t i = 0; i < 4; ++i) {
      const size_t per_row = size_t{slices} * kTop * 2;
      std::vector<trit::TopLogit> out;
      const bool ok = trit::vk::Kernels::top_of_slices(
          std::span<const uint32_t>(got).subspan(i * per_row, per_row),
          std::span<const uint32_t>(flags).subspan(size_t{i} * slices, slices), penalised[i],
          std::span<const float>(gath).subspan(size_t{i} * kMax, penalised[i].size()), penalty[i], kTop, out);
      if (i == 2 && count > 1) {
        EXPECT_FALSE(ok) << "the NaN row";
        continue;
      }
      ASSERT_TRUE(ok) << "row " << i;
      std::vector<trit::TopLogit> want;
      for (uint32_t t = 0; t < count; ++t) want.push_back({rows[i][t], static_cast<int32_t>(t)});
      for (int32_t t : penalised[i])
        want[static_cast<size_t>(t)].logit = trit::repeat_penalised(want[static_cast<size_t>(t)].logit, penalty[i]);
      std::sort(want.begin(), want.end(), trit::TopLogit::before);
      want.resize(std::min<size_t>(kTop, count));
      ASSERT_EQ(out.size(), want.size()) << "row " << i;
      for (size_t j = 0; j < want.size(); ++j) {
        ASSERT_EQ(out[j].id, want[j].id) << "row " << i << " rank " << j;
        ASSERT_EQ(std::bit_cast<uint32_t>(out[j].logit), std::bit_cast<uint32_t>(want[j].logit)) << "row " << i;
      }
    }
  }
  std::vector<trit::TopLogit> out;
  const uint32_t pairs[] = {0x40000000u, 3u};  // 2.0 at id 3
  const uint32_t no_nan[] = {0u};
  const int32_t pen[] = {5};
  const float nan_logit[] = {std::numeric_limits<float>::quiet_NaN()};
  EXPECT_FALSE(trit::vk::Kernels::top_of_slices(pairs, no_nan, pen, nan_logit, 1.5f, 2, out));
  Buffer small = g.zeros(64);
  CommandSequence cs(g.ctx);
  cs.begin();
  EXPECT_THROW(
      g.k.top_rows(cs, g.da, all(small), all(small), all(small), all(small), all(small), all(small), 128256, 2),
      trit::VulkanError);  // top too small
  cs.end();
}

// ---- RoPE + KV cache, attention ---------------------------------------------------------------------

void check_rope_kv(bool f16, bool normal = false) {
  SCOPED_TRACE(testing::Message() << (f16 ? "F16 cache" : "F32 cache") << (normal ? ", normal RoPE" : ", NeoX RoPE"));
  Gpu g(f16);
  const uint32_t heads = 6, kv = 2, hd = 64, n = 5, pos0 = 1000, ctx = 1010;
  const float base = 500000.f;
  const auto q = random_floats(size_t{n} * heads * hd, 1), k = random_floats(size_t{n} * kv * hd, 2),
             v = random_floats(size_t{n} * kv * hd, 3);
  const auto table = trit::vk::make_rope_table(ctx, hd, base);
  const size_t cache_words = f16 ? size_t{ctx} * kv * hd / 2 : size_t{ctx} * kv * hd;
  Buffer qb = g.buf(q), kb = g.buf(k), vb = g.buf(v), rt = g.buf(table);
  Buffer kc = g.buf(std::vector<uint32_t>(cache_words, 0xdeadbeefu)),
         vc = g.buf(std::vector<uint32_t>(cache_words, 0xdeadbeefu));
  g.run(pos0, n, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.rope_kv(cs, g.da, p, all(qb), all(kb), all(vb), all(rt), all(kc), all(vc), heads, kv, hd, 8, normal);
  });
  const auto gq = g.get<float>(qb, q.size());
  const auto gk = g.get<uint32_t>(kc, cache_words), gv = g.get<uint32_t>(vc, cache_words);
  const size_t kvdim = size_t{kv} * hd;
  for (uint32_t t = 0; t < n; ++t) {
    std::vector<float> qt(q.begin() + t * heads * hd, q.begin() + (t + 1) * heads * hd);
    std::vector<float> kt(k.begin() + t * kvdim, k.begin() + (t + 1) * kvdim);
    const auto rope = normal ? trit::ref::rope_normal : trit::ref::rope_neox;
    rope(qt, hd, static_cast<int32_t>(pos0 + t), base);
    rope(kt, hd, static_cast<int32_t>(pos0 + t), base);
    for (size_t i = 0; i < qt.size(); ++i) ASSERT_NEAR(gq[t * qt.size() + i], qt[i], 1e-6f) << t << "," << i;
    for (size_t i = 0; i < kvdim; ++i) {
      const size_t e = (pos0 + t) * kvdim + i;
      if (f16) {
        const auto gk16 = static_cast<uint16_t>(gk[e / 2] >> (16 * (e % 2)));
        const auto gv16 = static_cast<uint16_t>(gv[e / 2] >> (16 * (e % 2)));
        // The shader rounds to nearest even itself (not through the driver's conversion): exact.
        ASSERT_EQ(gk16, trit::ref::f32_to_f16(kt[i])) << t << "," << i;
        ASSERT_EQ(gv16, trit::ref::f32_to_f16(v[t * kvdim + i])) << t << "," << i;
      } else {
        ASSERT_NEAR(std::bit_cast<float>(gk[e]), kt[i], 1e-6f) << t << "," << i;
        ASSERT_EQ(std::bit_cast<float>(gv[e]), v[t * kvdim + i]) << t << "," << i;
      }
    }
  }
  // Positions outside [pos0, pos0 + n) are untouched.
  EXPECT_EQ(gk[0], 0xdeadbeefu);
  EXPECT_EQ(gv[cache_words - 1], 0xdeadbeefu);
}

TEST(VulkanKernels, RopeAndKvWriteF16) {
  check_rope_kv(true);
}
TEST(VulkanKernels, RopeAndKvWriteF32) {
  check_rope_kv(false);
}
TEST(VulkanKernels, NormalRopeAndKvWrite) {
  check_rope_kv(true, true);
  check_rope_kv(false, true);
}

void check_attention(bool f16, uint32_t heads, uint32_t kv, uint32_t hd, uint32_t pos0, uint32_t n,
                     bool split = false) {
  SCOPED_TRACE(testing::Message() << (f16 ? "F16" : "F32") << " heads " << heads << "/" << kv << " hd " << hd
                                  << " pos0 " << pos0 << " n " << n << (split ? " split-K" : ""));
  Gpu g(f16);
  const uint32_t positions = pos0 + n;
  const size_t kvdim = size_t{kv} * hd, qdim = size_t{heads} * hd;
  const auto q = random_floats(n * qdim, 7, -2.f, 2.f);
  const auto kf = random_floats(positions * kvdim, 8, -2.f, 2.f), vf = random_floats(positions * kvdim, 9);
  Buffer qb = g.buf(q), ob = g.zeros(n * qdim * 4);
  std::vector<uint16_t> k16 = to_f16(kf), v16 = to_f16(vf);
  Buffer kc = f16 ? g.buf(k16) : g.buf(kf), vc = f16 ? g.buf(v16) : g.buf(vf);
  // Split-K: the context the recording allows (positions + 300) makes splits beyond the keys, which
  // must come out empty; splits of split_keys() keys each.
  const uint32_t max_ctx = positions + 300;
  Buffer scratch = g.zeros(split ? g.k.attention_scratch_bytes(heads, hd, n, max_ctx) : 16);
  const BufferRange sr = all(scratch);
  if (split) {
    ASSERT_GT(g.k.attention_splits(max_ctx), 2u);
  }
  g.run(pos0, n, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.attention(cs, g.da, p, all(qb), all(kc), all(vc), all(ob), heads, kv, hd, n, split ? max_ctx : 0,
                  split ? &sr : nullptr);
  });
  const auto got = g.get<float>(ob, n * qdim);
  std::vector<float> want(qdim);
  for (uint32_t t = 0; t < n; ++t) {
    std::span<const float> qt(q.data() + t * qdim, qdim);
    if (f16)
      trit::ref::attention(qt, std::span<const uint16_t>(k16), std::span<const uint16_t>(v16), pos0 + t + 1, heads, kv,
                           hd, want);
    else
      trit::ref::attention(qt, std::span<const float>(kf), std::span<const float>(vf), pos0 + t + 1, heads, kv, hd,
                           want);
    for (size_t i = 0; i < qdim; ++i) ASSERT_NEAR(got[t * qdim + i], want[i], 2e-5f) << "token " << t << " elem " << i;
  }
}

TEST(VulkanKernels, AttentionDecodeAndBlocksWithGqa) {
  check_attention(true, 8, 2, 64, 0, 1);     // the first token attends to itself only
  check_attention(true, 8, 2, 64, 140, 1);   // several key chunks
  check_attention(true, 4, 1, 128, 60, 7);   // GQA 4:1, block of queries straddling a chunk edge
  check_attention(false, 5, 5, 32, 65, 3);   // no GQA, F32 cache
  check_attention(false, 10, 2, 128, 0, 9);  // the golden-b shape, a prefill from position 0
}

// The score pass loads an invocation's words of a key eight, then four, then one at a time: F16 heads
// whose words per invocation (head_dim / 16) take only single words (40: 2 or 3), and all three
// batches (232: 14 or 15).
TEST(VulkanKernels, AttentionScoresKeysOfAwkwardWidths) {
  check_attention(true, 6, 2, 40, 70, 1);
  check_attention(true, 6, 2, 40, 150, 1, true);
  check_attention(true, 4, 2, 232, 90, 1);
  check_attention(true, 4, 2, 232, 130, 1, true);
}

TEST(VulkanKernels, AttentionSplitK) {
  check_attention(true, 8, 2, 64, 0, 1, true);       // one key: every split but the first is empty
  check_attention(true, 8, 2, 64, 300, 1, true);     // decode over three splits, the last partial
  check_attention(false, 4, 1, 128, 120, 16, true);  // a block straddling the first split edge
}

}  // namespace

// ---- the fp64 variants (the engine's default where shaderFloat64 exists) ------------------------------

namespace {

TEST(VulkanKernelsF64, RmsNormQuantAndTernaryMatchTheDoubleReference) {
  Gpu g(true, 0, true);
  ASSERT_TRUE(g.k.f64());
  const uint32_t k = 1408, n = 3, rows = 77;
  std::vector<double> x(size_t{n} * k);
  {
    const auto xf = random_floats(x.size(), 21, -3.f, 3.f);
    for (size_t i = 0; i < x.size(); ++i) x[i] = double(xf[i]) * (1.0 + 1e-9 * double(i % 7));  // not floats
  }
  const auto w = random_floats(k, 22, 0.2f, 2.f);
  Buffer xb = g.buf(x), wb = g.buf(w), qb = g.zeros(size_t{n} * k), sb = g.zeros(n * 8);
  const BufferRange wr = all(wb), qr = all(qb), sr = all(sb);
  const auto codes = random_codes(rows, k, 23);
  Buffer cb = g.buf(codes), yb = g.zeros(size_t{n} * rows * 8);
  const float scale = 0.8125f;
  g.run(0, n, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.rmsnorm_quant(cs, g.da, p, all(xb), &wr, nullptr, &qr, &sr, k, 1e-5f, n);
    cs.barrier();
    g.k.ternary(cs, g.da, p, trit::vk::TernaryMode::Store, all(cb), scale, nullptr, 1.f, qr, sr, all(yb), rows, k, 8);
  });
  const auto q = g.get<uint8_t>(qb, size_t{n} * k);
  const auto s = g.get<double>(sb, n);
  const auto y = g.get<double>(yb, size_t{n} * rows);
  const trit::TernaryMatrix m{codes.data(), scale, rows, k};
  for (uint32_t t = 0; t < n; ++t) {
    std::vector<double> h(k);
    trit::cpu::rmsnorm(x.data() + size_t{t} * k, w.data(), k, 1e-5f, h.data());
    std::vector<int8_t> want(k);
    const double st = trit::cpu::quantize_int8(h.data(), k, want.data());
    // Double keeps the GPU's rounding of sqrt/division (a few ulp of 2^-52) far from any int8 boundary.
    EXPECT_NEAR(s[t], st, 1e-13 * st);
    for (uint32_t i = 0; i < k; ++i) ASSERT_EQ(static_cast<int8_t>(q[size_t{t} * k + i]), want[i]) << t << "," << i;
    std::vector<double> yt(rows);
    trit::cpu::ternary_rows(m, want.data(), &st, 1, yt.data(), 0, rows);
    for (uint32_t r = 0; r < rows; ++r)
      ASSERT_NEAR(y[size_t{t} * rows + r], yt[r], 1e-13 * std::fabs(yt[r]) + 1e-300) << t << "," << r;
  }
}

TEST(VulkanKernelsF64, KvCacheIsRoundedOnceFromDouble) {
  Gpu g(true, 0, true);
  const uint32_t heads = 2, kv = 1, hd = 8, ctx = 4;
  // Values one double ulp either side of F16 midpoints: rounding through float first would get some wrong.
  std::vector<double> v(kv * hd);
  const double mid = 1.0 + 1.0 / 2048.0;  // halfway between the F16 neighbours 1 and 1 + 2^-10
  for (uint32_t i = 0; i < hd; ++i)
    v[i] = (i % 2 ? std::nextafter(mid, 2.0) : std::nextafter(mid, 0.0)) * (i < 4 ? 1 : -3);
  std::vector<double> q(heads * hd, 0.5), k(kv * hd, 0.25);
  const auto table = trit::vk::make_rope_table_f64(ctx, hd, 10000.f);
  Buffer qb = g.buf(q), kb = g.buf(k), vb = g.buf(v), rt = g.buf(table), kc = g.zeros(ctx * kv * hd * 2),
         vc = g.zeros(ctx * kv * hd * 2);
  g.run(2, 1, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.rope_kv(cs, g.da, p, all(qb), all(kb), all(vb), all(rt), all(kc), all(vc), heads, kv, hd, 1);
  });
  const auto got = g.get<uint16_t>(vc, ctx * kv * hd);
  for (uint32_t i = 0; i < hd; ++i) EXPECT_EQ(got[2 * kv * hd + i], trit::ref::f64_to_f16(v[i])) << i;
}

// The double build's F32 cache keeps doubles (shaders/kv_cache.glsl), as the CPU reference and the
// golden files' f32kv variant do: V exactly as it came, K rotated in double (the reference's
// expression from the same angles: equal but for the order of two products' rounding), nothing
// rounded to float, in both RoPE pairings. (It stored floats once: golden-e then left the tolerance.)
TEST(VulkanKernelsF64, FullPrecisionKvCacheKeepsDoubles) {
  for (const bool normal : {false, true}) {
    SCOPED_TRACE(normal ? "normal RoPE" : "NeoX RoPE");
    Gpu g(false, 0, true);
    const uint32_t heads = 4, kv = 2, hd = 16, ctx = 6, pos = 3, kvdim = kv * hd;
    const float base = 10000.f;
    std::vector<double> q(heads * hd), k(kvdim), v(kvdim);
    for (size_t i = 0; i < q.size(); ++i) q[i] = std::sin(0.7 * double(i) + 0.1) / 3.0;  // not floats
    for (uint32_t i = 0; i < kvdim; ++i) {
      k[i] = std::cos(1.3 * double(i) + 0.2) / 7.0;
      v[i] = (double(i) - 13.5) / 11.0;
    }
    const auto table = trit::vk::make_rope_table_f64(ctx, hd, base);
    Buffer qb = g.buf(q), kb = g.buf(k), vb = g.buf(v), rt = g.buf(table), kc = g.zeros(uint64_t{ctx} * kvdim * 8),
           vc = g.zeros(uint64_t{ctx} * kvdim * 8);
    g.run(pos, 1, [&](CommandSequence& cs, const BufferRange& p) {
      g.k.rope_kv(cs, g.da, p, all(qb), all(kb), all(vb), all(rt), all(kc), all(vc), heads, kv, hd, 1, normal);
    });
    const auto gk = g.get<double>(kc, size_t{ctx} * kvdim), gv = g.get<double>(vc, size_t{ctx} * kvdim);
    std::vector<double> want = k;
    trit::cpu::rope(want.data(), want.size(), hd, static_cast<int32_t>(pos), base,
                    normal ? trit::RopeStyle::Normal : trit::RopeStyle::NeoX);
    for (uint32_t i = 0; i < kvdim; ++i) {
      EXPECT_EQ(gv[pos * kvdim + i], v[i]) << i;
      EXPECT_NEAR(gk[pos * kvdim + i], want[i], 1e-16) << i;
    }
    for (size_t i = 0; i < gk.size(); ++i) {  // other rows untouched
      if (i / kvdim != pos) {
        ASSERT_TRUE(gk[i] == 0.0 && gv[i] == 0.0) << i;
      }
    }
  }
}

// Attention over the double build's F32 cache (doubles) against the double reference: one token split
// over several key ranges (attention.glsl, merged by attention_combine), and blocks of tokens
// (attention_block.glsl wherever its staged rows of doubles fit shared memory). Keys and values off the
// float grid.
void check_attention_full_f64(uint32_t heads, uint32_t kv, uint32_t hd, uint32_t pos0, uint32_t n, bool split) {
  SCOPED_TRACE(testing::Message() << "heads " << heads << "/" << kv << " hd " << hd << " pos0 " << pos0 << " n " << n
                                  << (split ? " split-K" : ""));
  Gpu g(false, 0, true);
  const uint32_t positions = pos0 + n;
  const size_t kvdim = size_t{kv} * hd, qdim = size_t{heads} * hd;
  std::mt19937 rng(heads * 7 + pos0);
  std::uniform_real_distribution<double> d(-2.0, 2.0);
  std::vector<double> q(n * qdim), kd(positions * kvdim), vd(kd.size());
  for (auto* x : {&q, &kd, &vd})
    for (double& e : *x) e = d(rng);
  Buffer qb = g.buf(q), kc = g.buf(kd), vc = g.buf(vd), ob = g.zeros(n * qdim * 8);
  const uint32_t max_ctx = positions + 300;
  Buffer scratch = g.zeros(split ? g.k.attention_scratch_bytes(heads, hd, n, max_ctx) : 16);
  const BufferRange sr = all(scratch);
  g.run(pos0, n, [&](CommandSequence& cs, const BufferRange& p) {
    g.k.attention(cs, g.da, p, all(qb), all(kc), all(vc), all(ob), heads, kv, hd, n, split ? max_ctx : 0,
                  split ? &sr : nullptr);
  });
  const auto got = g.get<double>(ob, n * qdim);
  std::vector<double> want(qdim);
  for (uint32_t t = 0; t < n; ++t) {
    trit::cpu::attention(q.data() + t * qdim, kd.data(), vd.data(), pos0 + t + 1, heads, kv, hd, want.data());
    for (size_t i = 0; i < qdim; ++i) ASSERT_NEAR(got[t * qdim + i], want[i], 1e-12) << "token " << t << " elem " << i;
  }
}

TEST(VulkanKernelsF64, AttentionReadsTheFullPrecisionCache) {
  check_attention_full_f64(8, 2, 64, 300, 1, true);   // decode over three splits, the last partial
  check_attention_full_f64(4, 1, 128, 60, 7, false);  // a block of GQA 4:1 over the widest rows, across chunks
  check_attention_full_f64(6, 2, 64, 3, 20, false);   // groups of 3, a block from near position 0
}

}  // namespace
