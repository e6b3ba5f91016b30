// The prefill GEMM (vulkan/ternary_gemm.h) against the block kernel it replaces (Kernels::ternary with
// the portable matvec, DotProduct::Off) and the reference ops, bit for bit: the integer sums are exact
// and the epilogue does the same float operations in the same order, so every output (f32 and f64
// activations, Store / Accumulate / Gate) must have the same bits. Sizes are awkward on purpose: rows
// that are not a multiple of any tile, K a multiple of 128 but not of a tile, 2 / 7 / 33 / 100 tokens
// and a full block, a submit of fewer tokens than the recording's block (the rest must stay untouched).
// The dot-product GEMM runs wherever the device has the integer dot product (lavapipe too); each
// cooperative-matrix GEMM (VK_NV_cooperative_matrix; VK_KHR_cooperative_matrix, the KHR twin rewritten
// from the NV SPIR-V at build time) only where the device offers a shape it can tile (skipped on
// lavapipe; the H100's driver offers both).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <vector>

#include "cpu/ternary_rows.h"
#include "gguf/ternary_blocks.h"
#include "random_test_data.h"
#include "tq_test_matrix.h"
#include "trit/reference_ops.h"
#include "vulkan/context.h"
#include "vulkan/kernels.h"
#include "vulkan/ternary_gemm.h"

namespace {

using trit::test::random_codes;
using trit::test::random_int8;
using trit::vk::Buffer;
using trit::vk::BufferRange;
using trit::vk::CommandSequence;
using trit::vk::MemoryUse;
using trit::vk::TernaryGemm;
using trit::vk::TernaryMode;

BufferRange all(const Buffer& b) {
  return {&b, 0, 0};
}

template <typename R>
std::vector<R> random_reals(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<R> v(n);
  for (auto& x : v) x = static_cast<R>(d(rng));
  return v;
}

// One device with the baseline kernels and the GEMMs it supports, in one activation precision.
struct Rig {
  explicit Rig(bool f64_, const trit::vk::ContextOptions& options = {})
      : f64(f64_), ctx(options), base(ctx, true, f64_, trit::vk::DotProduct::Off), da(ctx) {
    for (auto kind : {TernaryGemm::Kind::Dot, TernaryGemm::Kind::Coop, TernaryGemm::Kind::CoopKhr})
      if (TernaryGemm::available(ctx.info(), kind))
        gemms[static_cast<int>(kind)] = std::make_unique<TernaryGemm>(ctx, f64, kind);
  }
  TernaryGemm* gemm(TernaryGemm::Kind kind) const { return gemms[static_cast<int>(kind)].get(); }
  template <typename T>
  Buffer buf(const std::vector<T>& data) {
    Buffer b(ctx, std::max<uint64_t>(data.size() * sizeof(T), 16), MemoryUse::Device);
    b.upload(data.data(), data.size() * sizeof(T));
    return b;
  }
  void run(uint32_t n_tokens, const std::function<void(CommandSequence&, const BufferRange&)>& rec) {
    const trit::vk::Params p{0, n_tokens};
    Buffer pb(ctx, sizeof p, MemoryUse::Upload);
    pb.upload(&p, sizeof p);
    CommandSequence cs(ctx);
    cs.begin();
    rec(cs, BufferRange{&pb, 0, 0});
    cs.end();
    cs.run();
  }
  bool f64;
  trit::vk::Context ctx;
  trit::vk::Kernels base;
  trit::vk::DescriptorAllocator da;
  std::unique_ptr<TernaryGemm> gemms[3];  // by Kind: Dot, Coop, CoopKhr, where the device has them
};

const char* missing(TernaryGemm::Kind kind) {
  switch (kind) {
    case TernaryGemm::Kind::Dot:
      return "integer dot product";
    case TernaryGemm::Kind::Coop:
      return "int8 cooperative matrix (VK_NV_cooperative_matrix) the GEMM can tile";
    default:
      return "int8 cooperative matrix (VK_KHR_cooperative_matrix) the GEMM can tile";
  }
}

// One device per precision for the whole run, released by the test environment's TearDown: a static
// destroyed at exit would outlive the Vulkan driver (the NVIDIA driver crashes then).
std::unique_ptr<Rig> g_rigs[2];
struct RigRelease : testing::Environment {
  void TearDown() override {
    g_rigs[0].reset();
    g_rigs[1].reset();
  }
};
[[maybe_unused]] testing::Environment* const g_release = testing::AddGlobalTestEnvironment(new RigRelease);

Rig& rig(bool f64) {
  if (!g_rigs[f64]) g_rigs[f64] = std::make_unique<Rig>(f64);
  return *g_rigs[f64];
}

struct Case {
  uint32_t rows, k, tokens, max_tokens;
};

// y (max_tokens x rows, starting from a random residual) after one submit of c.tokens tokens through
// the baseline block kernel (gemm null) or a GEMM; raw bytes so that comparisons are bitwise.
template <typename R>
std::vector<R> run_case(Rig& g, TernaryGemm* gemm, TernaryMode mode, const Case& c, float scale, float scale2) {
  const auto codes = random_codes(c.rows, c.k, c.rows * 7 + c.k);
  const auto codes2 = random_codes(c.rows, c.k, c.rows * 11 + c.k + 1);
  const auto xq = random_int8(size_t{c.max_tokens} * c.k, c.k + c.tokens);
  const auto s = random_reals<R>(c.max_tokens, c.tokens + 5, 20.0, 900.0);
  const auto y0 = random_reals<R>(size_t{c.max_tokens} * c.rows, 99, -2.0, 2.0);
  Buffer w = g.buf(codes), w2 = g.buf(codes2), xb = g.buf(xq), sb = g.buf(s), y = g.buf(y0);
  const BufferRange w2r = all(w2);
  const BufferRange* w2p = mode == TernaryMode::Gate || mode == TernaryMode::SiluGate ? &w2r : nullptr;
  g.run(c.tokens, [&](CommandSequence& cs, const BufferRange& p) {
    if (gemm)
      gemm->record(cs, g.da, p, mode, all(w), scale, w2p, scale2, all(xb), all(sb), all(y), c.rows, c.k, c.max_tokens);
    else
      g.base.ternary(cs, g.da, p, mode, all(w), scale, w2p, scale2, all(xb), all(sb), all(y), c.rows, c.k,
                     c.max_tokens);
  });
  std::vector<R> out(y0.size());
  y.download(out.data(), out.size() * sizeof(R));
  return out;
}

const Case kCases[] = {
    {37, 384, 2, 2},       // fewer rows than a tile, K of 3 blocks
    {130, 640, 7, 8},      // rows past two tiles, K of 5 blocks
    {301, 1408, 33, 64},   // a partial token tile inside a block of 64
    {65, 2560, 100, 128},  // 100 tokens: two token tiles, the second partial
    {200, 256, 128, 128},  // a full block
    {5, 128, 64, 256},     // one I2_S block per row, 64 tokens submitted of 256
};

template <typename R>
void expect_same_as_block_kernel(Rig& g, TernaryGemm::Kind kind) {
  const bool f64 = g.f64;
  TernaryGemm* gemm = g.gemm(kind);
  if (!gemm) GTEST_SKIP() << g.ctx.info().name << " has no " << missing(kind);
  for (const Case& c : kCases)
    for (auto mode : {TernaryMode::Store, TernaryMode::Accumulate, TernaryMode::Gate, TernaryMode::SiluGate}) {
      // LLaMA's SiLU gate shares the gate's tiling: the first three shapes cover its epilogue.
      if (mode == TernaryMode::SiluGate && &c - kCases >= 3) continue;
      SCOPED_TRACE(testing::Message() << "rows " << c.rows << " K " << c.k << " tokens " << c.tokens << " of "
                                      << c.max_tokens << " mode " << static_cast<int>(mode) << (f64 ? " f64" : " f32"));
      const auto want = run_case<R>(g, nullptr, mode, c, 0.7319f, 1.9f);
      const auto got = run_case<R>(g, gemm, mode, c, 0.7319f, 1.9f);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(0, std::memcmp(&got[i], &want[i], sizeof(R)))
            << "token " << i / c.rows << " row " << i % c.rows << ": " << got[i] << " vs the block kernel's "
            << want[i];
    }
}

using Kind = TernaryGemm::Kind;
TEST(TernaryGemmDot, MatchesTheBlockKernelBitForBitF32) {
  expect_same_as_block_kernel<float>(rig(false), Kind::Dot);
}
TEST(TernaryGemmDot, MatchesTheBlockKernelBitForBitF64) {
  expect_same_as_block_kernel<double>(rig(true), Kind::Dot);
}
TEST(TernaryGemmCoop, MatchesTheBlockKernelBitForBitF32) {
  expect_same_as_block_kernel<float>(rig(false), Kind::Coop);
}
TEST(TernaryGemmCoop, MatchesTheBlockKernelBitForBitF64) {
  expect_same_as_block_kernel<double>(rig(true), Kind::Coop);
}
TEST(TernaryGemmCoopKhr, MatchesTheBlockKernelBitForBitF32) {
  expect_same_as_block_kernel<float>(rig(false), Kind::CoopKhr);
}
TEST(TernaryGemmCoopKhr, MatchesTheBlockKernelBitForBitF64) {
  expect_same_as_block_kernel<double>(rig(true), Kind::CoopKhr);
}

// The vendor-neutral device (trit-cli bench --generic): no NV extension enabled, and where the driver
// offers VK_KHR_cooperative_matrix (the H100's does) the engine's GEMM is the KHR one, bit-identical.
TEST(TernaryGemmCoopKhr, IsWhatTheVendorNeutralDeviceRuns) {
  if (!TernaryGemm::available(rig(false).ctx.info(), Kind::CoopKhr))
    GTEST_SKIP() << rig(false).ctx.info().name << " has no " << missing(Kind::CoopKhr);
  trit::vk::ContextOptions neutral;
  neutral.vendor_neutral = true;
  Rig g(false, neutral);
  EXPECT_FALSE(g.ctx.info().cooperative_matrix_nv);
  if (!g.ctx.info().integer_dot_product) GTEST_SKIP() << "the engine uses a GEMM only with the integer dot product";
  const trit::vk::Kernels k(g.ctx, true, false, trit::vk::DotProduct::On);
  ASSERT_NE(k.gemm(), nullptr);
  EXPECT_EQ(k.gemm()->kind(), Kind::CoopKhr);
  EXPECT_NE(k.gemm()->describe().find("VK_KHR_cooperative_matrix"), std::string::npos) << k.gemm()->describe();
  // Where a size can be required, the neutral device's range is RDNA's, so the GEMM requires its own.
  EXPECT_EQ(k.gemm()->describe().ends_with(", subgroups of 32 required"), g.ctx.info().subgroup_size_control)
      << k.gemm()->describe();
  expect_same_as_block_kernel<float>(g, Kind::CoopKhr);
}

// Unit scales: the outputs are the integer sums themselves, checked against the reference ops; the
// extremes (every weight +1 or -1 against -128 / 127 over K = 6912, the 2B4T FFN width) stay exact.
void expect_exact_sums(TernaryGemm::Kind kind) {
  Rig& g = rig(false);
  TernaryGemm* gemm = g.gemm(kind);
  if (!gemm) GTEST_SKIP() << g.ctx.info().name << " has no " << missing(kind);
  const uint32_t rows = 70, k = 6912, n = 9;
  auto codes = random_codes(rows, k, 3);
  for (size_t i = 0; i < size_t{k} / 4; ++i) codes[i] = 0xAA;              // row 0: all +1
  for (size_t i = size_t{k} / 4; i < size_t{k} / 2; ++i) codes[i] = 0x00;  // row 1: all -1
  auto xq = random_int8(size_t{n} * k, 4);
  for (uint32_t i = 0; i < k; ++i) xq[i] = -128;     // token 0
  for (uint32_t i = 0; i < k; ++i) xq[k + i] = 127;  // token 1
  const std::vector<float> s(n, 1.f);
  std::vector<float> want(size_t{n} * rows);
  trit::ref::ternary_matmul(trit::TernaryMatrix{codes.data(), 1.f, rows, k}, xq, s, want);
  ASSERT_EQ(want[0], -128.f * k);
  ASSERT_EQ(want[rows + 1], -127.f * k);
  Buffer w = g.buf(codes), xb = g.buf(xq), sb = g.buf(s), y = g.buf(std::vector<float>(want.size(), -7.f));
  g.run(n, [&](CommandSequence& cs, const BufferRange& p) {
    gemm->record(cs, g.da, p, TernaryMode::Store, all(w), 1.f, nullptr, 1.f, all(xb), all(sb), all(y), rows, k, 16);
  });
  std::vector<float> got(want.size());
  y.download(got.data(), got.size() * 4);
  for (size_t i = 0; i < want.size(); ++i) ASSERT_EQ(got[i], want[i]) << "token " << i / rows << " row " << i % rows;
}

TEST(TernaryGemmDot, IntegerSumsAreExactAtTheExtremes) {
  expect_exact_sums(Kind::Dot);
}
TEST(TernaryGemmCoop, IntegerSumsAreExactAtTheExtremes) {
  expect_exact_sums(Kind::Coop);
}
TEST(TernaryGemmCoopKhr, IntegerSumsAreExactAtTheExtremes) {
  expect_exact_sums(Kind::CoopKhr);
}

// Kernels uses a GEMM for blocks exactly where the int8 dot product is in use.
TEST(TernaryGemm, KernelsChooseItOnlyWithTheDotProduct) {
  Rig& g = rig(false);
  EXPECT_EQ(g.base.gemm(), nullptr);
  if (!g.ctx.info().integer_dot_product) GTEST_SKIP() << "no integer dot product on this device";
  trit::vk::Kernels on(g.ctx, true, false, trit::vk::DotProduct::On);
  ASSERT_NE(on.gemm(), nullptr);
  EXPECT_EQ(on.gemm()->kind(), TernaryGemm::choose(g.ctx.info()));
}

// The cooperative-matrix plan comes from the queried shapes alone.
TEST(TernaryGemm, CoopPlanFollowsTheQueriedShapes) {
  trit::DeviceInfo d;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 32;
  d.max_shared_memory = 48 * 1024;
  d.max_workgroup_invocations = 1024;
  TernaryGemm::CoopPlan p;
  EXPECT_FALSE(TernaryGemm::coop_plan(d, Kind::Coop, false, p)) << "no extension";
  d.cooperative_matrix_nv = true;
  EXPECT_FALSE(TernaryGemm::coop_plan(d, Kind::Coop, false, p)) << "no int8 shape";
  EXPECT_EQ(TernaryGemm::choose(d), TernaryGemm::Kind::Dot);
  d.coop_int8_shapes = {{16, 8, 24}};  // K does not divide the 128-element block
  EXPECT_FALSE(TernaryGemm::coop_plan(d, Kind::Coop, false, p));
  d.coop_int8_shapes = {{16, 8, 32}, {16, 16, 32}};
  ASSERT_TRUE(TernaryGemm::coop_plan(d, Kind::Coop, false, p));
  EXPECT_EQ(p.cm * p.cn * p.ck, 16u * 16 * 32) << "the largest fragment";
  EXPECT_EQ(p.rows(), 64u);
  EXPECT_EQ(p.tokens(), 64u);
  EXPECT_EQ(p.wr * p.wc, 8u);
  EXPECT_EQ(p.rows(), p.wr * p.fm * p.cm);
  EXPECT_EQ(p.tokens(), p.wc * p.fn * p.cn);
  EXPECT_LE(p.shared_bytes(false), d.max_shared_memory);
  ASSERT_TRUE(TernaryGemm::coop_plan(d, Kind::Coop, true, p));
  EXPECT_EQ(p.rows(), 64u);
  EXPECT_LE(p.shared_bytes(true), d.max_shared_memory);
  EXPECT_EQ(TernaryGemm::choose(d), TernaryGemm::Kind::Coop);
  d.max_shared_memory = 16 * 1024;  // too little for any tile
  EXPECT_FALSE(TernaryGemm::coop_plan(d, Kind::Coop, false, p));
  d.max_shared_memory = 48 * 1024;
  // Subgroups of varying size (AMD RDNA: 32 or 64): gl_SubgroupID would not map to the tiles, unless
  // the pipeline can require a size (then 32, a workgroup of whole subgroups of 32).
  d.subgroup_size = d.max_subgroup_size = 64;
  EXPECT_FALSE(TernaryGemm::coop_plan(d, Kind::Coop, false, p));
  d.subgroup_size_control = true;
  ASSERT_TRUE(TernaryGemm::coop_plan(d, Kind::Coop, false, p));
  EXPECT_EQ(p.wr * p.wc, 8u);
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 32u);
  EXPECT_EQ(trit::required_subgroup_size(d, 32), 32u);
}

// Which GEMM runs, from the queried features alone: NV where it tiles, else KHR where it tiles, else
// the dot product; each extension's plan from its own shapes; vendor_neutral() keeps the KHR path.
TEST(TernaryGemm, ChoosesNvThenKhrThenTheDotProduct) {
  trit::DeviceInfo d;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 32;
  d.max_shared_memory = 48 * 1024;
  d.max_workgroup_invocations = 1024;
  d.integer_dot_product = true;
  EXPECT_EQ(TernaryGemm::choose(d), Kind::Dot) << "neither extension (lavapipe)";
  EXPECT_FALSE(TernaryGemm::available(d, Kind::CoopKhr));

  // KHR only (AMD RDNA3, Intel): the KHR twin.
  d.cooperative_matrix_khr = true;
  d.coop_int8_shapes_khr = {{16, 16, 32}};
  EXPECT_TRUE(TernaryGemm::available(d, Kind::CoopKhr));
  EXPECT_FALSE(TernaryGemm::available(d, Kind::Coop)) << "KHR shapes are not NV shapes";
  EXPECT_EQ(TernaryGemm::choose(d), Kind::CoopKhr);
  TernaryGemm::CoopPlan p;
  ASSERT_TRUE(TernaryGemm::coop_plan(d, Kind::CoopKhr, false, p));
  EXPECT_EQ(p.cm * p.cn * p.ck, 16u * 16 * 32);
  EXPECT_EQ(p.rows(), 64u);
  EXPECT_EQ(p.tokens(), 64u);
  EXPECT_FALSE(TernaryGemm::coop_plan(d, Kind::Dot, false, p));

  // A KHR shape that does not tile, or the feature off: the dot product.
  d.coop_int8_shapes_khr = {{16, 16, 24}};
  EXPECT_EQ(TernaryGemm::choose(d), Kind::Dot);
  d.coop_int8_shapes_khr = {{16, 8, 32}};
  d.cooperative_matrix_khr = false;
  EXPECT_EQ(TernaryGemm::choose(d), Kind::Dot);
  d.cooperative_matrix_khr = true;
  EXPECT_EQ(TernaryGemm::choose(d), Kind::CoopKhr);

  // Both (NVIDIA): NV where it tiles; vendor_neutral (--generic) clears NV and keeps KHR.
  d.cooperative_matrix_nv = true;
  d.coop_int8_shapes = {{16, 8, 32}};
  EXPECT_EQ(TernaryGemm::choose(d), Kind::Coop);
  const trit::DeviceInfo neutral = trit::vendor_neutral(d);
  EXPECT_FALSE(neutral.cooperative_matrix_nv);
  EXPECT_TRUE(neutral.coop_int8_shapes.empty());
  EXPECT_TRUE(neutral.cooperative_matrix_khr);
  ASSERT_EQ(neutral.coop_int8_shapes_khr.size(), 1u);
  EXPECT_EQ(TernaryGemm::choose(neutral), Kind::CoopKhr);
  d.coop_int8_shapes = {{16, 8, 24}};  // NV without a shape that tiles: KHR
  EXPECT_EQ(TernaryGemm::choose(d), Kind::CoopKhr);
}

}  // namespace

namespace {

// TQ1_0 / TQ2_0 matrices on each GEMM (BLOCK_SCALES): transcoded as the upload does, against the CPU
// reference reading the file's own format. The GEMMs add the blocks' scaled sums in the CPU's order, so
// in double store, residual and the ReLU2 gate agree bit for bit. In fp32 Vulkan lets a division be 2.5
// ulp off (the H100's is; lavapipe's is exact, and agrees bit for bit there): within 1e-6 of the value
// (of the terms, for the residual's sum), eight ulps for the division carried through the gate's square
// and product. The SiLU gate's exp is the device's (double: within 1e-14 of the value; fp32: 3e-5). A
// cooperative-matrix GEMM does the dot-product GEMM's float operations in its order, so where the
// device has both, their double outputs have the same bits in every mode. (Not so in fp32: the H100's
// driver lowers the 2.5-ulp division differently in the two shaders, and their accumulated outputs
// were seen one ulp apart; each is held to the reference as above.)
template <typename R>
void expect_block_scales_match_the_reference(Rig& g, TernaryGemm::Kind kind) {
  TernaryGemm* gemm = g.gemm(kind);
  if (!gemm) GTEST_SKIP() << g.ctx.info().name << " has no " << missing(kind);
  TernaryGemm* dot = kind == TernaryGemm::Kind::Dot || sizeof(R) != 8 ? nullptr : g.gemm(TernaryGemm::Kind::Dot);
  struct TqCase {
    uint32_t rows, k, tokens, max_tokens;
  };
  for (auto f : {trit::WeightFormat::TQ2_0, trit::WeightFormat::TQ1_0})
    for (const TqCase& c : {TqCase{37, 256, 5, 8}, TqCase{70, 768, 33, 64}, TqCase{130, 512, 100, 128}})
      for (auto mode : {TernaryMode::Store, TernaryMode::Accumulate, TernaryMode::Gate, TernaryMode::SiluGate}) {
        SCOPED_TRACE(testing::Message() << trit::weight_format_name(f) << " rows " << c.rows << " K " << c.k
                                        << " tokens " << c.tokens << " mode " << static_cast<int>(mode));
        const trit::test::TqTestMatrix a(f, c.rows, c.k, c.rows * 31 + c.k), b(f, c.rows, c.k, c.rows * 31 + c.k + 1);
        const trit::TernaryMatrix* m[2] = {&a.m, &b.m};
        const auto xq = random_int8(size_t{c.max_tokens} * c.k, c.k + c.tokens);
        const auto s = random_reals<R>(c.max_tokens, c.tokens + 5, 20.0, 900.0);
        const auto y0 = random_reals<R>(size_t{c.max_tokens} * c.rows, 99, -2.0, 2.0);
        const size_t n = size_t{c.tokens} * c.rows;
        std::vector<R> want(n), u(n);
        trit::cpu::ternary_rows<R>(*m[0], xq.data(), s.data(), c.tokens, want.data(), 0, c.rows);
        trit::cpu::ternary_rows<R>(*m[1], xq.data(), s.data(), c.tokens, u.data(), 0, c.rows);
        for (size_t i = 0; i < n; ++i) {
          if (mode == TernaryMode::Accumulate) want[i] = y0[i] + want[i];
          if (mode == TernaryMode::Gate) want[i] = std::max(want[i], R(0)) * std::max(want[i], R(0)) * u[i];
          if (mode == TernaryMode::SiluGate) want[i] = want[i] / (R(1) + std::exp(-want[i])) * u[i];
        }
        const bool gate = mode == TernaryMode::Gate || mode == TernaryMode::SiluGate;
        Buffer w = g.buf(a.codes), w2 = g.buf(b.codes), db = g.buf(a.scales), db2 = g.buf(b.scales), xb = g.buf(xq),
               sb = g.buf(s), y = g.buf(y0);
        const BufferRange w2r = all(w2), dr = all(db), d2r = all(db2);
        auto run = [&](TernaryGemm& on) {
          y.upload(y0.data(), y0.size() * sizeof(R));
          g.run(c.tokens, [&](CommandSequence& cs, const BufferRange& p) {
            on.record(cs, g.da, p, mode, all(w), 1.f, gate ? &w2r : nullptr, 1.f, all(xb), all(sb), all(y), c.rows, c.k,
                      c.max_tokens, &dr, gate ? &d2r : nullptr);
          });
          std::vector<R> out(y0.size());
          y.download(out.data(), out.size() * sizeof(R));
          return out;
        };
        const std::vector<R> got = run(*gemm);
        if (dot) {
          const std::vector<R> dot_got = run(*dot);
          for (size_t i = 0; i < got.size(); ++i)
            ASSERT_EQ(0, std::memcmp(&got[i], &dot_got[i], sizeof(R)))
                << "token " << i / c.rows << " row " << i % c.rows << ": " << got[i] << " vs the dot-product GEMM's "
                << dot_got[i];
        }
        for (size_t i = 0; i < n; ++i) {
          if (mode != TernaryMode::SiluGate && sizeof(R) == 8) {
            ASSERT_EQ(got[i], want[i]) << "token " << i / c.rows << " row " << i % c.rows;
          } else if (mode != TernaryMode::SiluGate) {
            // (Accumulate: of the residual's and the product's size, which may cancel.)
            const double size = std::fabs(want[i]) + (mode == TernaryMode::Accumulate ? std::fabs(y0[i]) : 0.0);
            ASSERT_NEAR(got[i], want[i], 1e-6 * size) << "token " << i / c.rows << " row " << i % c.rows;
          } else {
            ASSERT_NEAR(got[i], want[i], (sizeof(R) == 8 ? 1e-14 : 3e-5) * std::fabs(want[i]) + 1e-30)
                << "token " << i / c.rows << " row " << i % c.rows;
          }
        }
      }
}

}  // namespace

TEST(TernaryGemmDot, BlockScalesMatchTheReferenceF32) {
  expect_block_scales_match_the_reference<float>(rig(false), Kind::Dot);
}
TEST(TernaryGemmDot, BlockScalesMatchTheReferenceF64) {
  expect_block_scales_match_the_reference<double>(rig(true), Kind::Dot);
}
TEST(TernaryGemmCoop, BlockScalesMatchTheReferenceF32) {
  expect_block_scales_match_the_reference<float>(rig(false), Kind::Coop);
}
TEST(TernaryGemmCoop, BlockScalesMatchTheReferenceF64) {
  expect_block_scales_match_the_reference<double>(rig(true), Kind::Coop);
}
TEST(TernaryGemmCoopKhr, BlockScalesMatchTheReferenceF32) {
  expect_block_scales_match_the_reference<float>(rig(false), Kind::CoopKhr);
}
TEST(TernaryGemmCoopKhr, BlockScalesMatchTheReferenceF64) {
  expect_block_scales_match_the_reference<double>(rig(true), Kind::CoopKhr);
}
