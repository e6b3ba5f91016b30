// The one-token LM head (shaders/lm_head.glsl, decode_rows) in double, as the engine runs it wherever
// shaderFloat64 exists: the final RMSNorm applied on the fly to the last token's row of x, x * w
// staged in shared memory as four planes, several rows per subgroup at once (Kernels::lm_head_normed).
// Checked against a double reference tightly enough that float accumulation would fail, on chunks
// whose row counts are multiples of neither the rows in flight nor the workgroup's rows (the partial
// groups at a chunk's end), and run twice for bitwise-equal logits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "trit/reference_ops.h"
#include "vulkan/context.h"
#include "vulkan/kernels.h"

namespace {

using trit::vk::Buffer;
using trit::vk::BufferRange;
using trit::vk::CommandSequence;
using trit::vk::MemoryUse;

struct Table {
  uint32_t vocab, dim;
  std::vector<uint16_t> f16;  // vocab x dim
};

Table random_table(uint32_t vocab, uint32_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  Table t{vocab, dim, std::vector<uint16_t>(size_t{vocab} * dim)};
  for (auto& h : t.f16) h = trit::ref::f32_to_f16(d(rng));
  return t;
}

// Values no float holds, so a kernel that narrowed x to float would be caught.
std::vector<double> random_x(uint32_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-2.0, 2.0);
  std::vector<double> x(dim);
  for (auto& v : x) v = d(rng) * (1.0 + 1e-10);
  return x;
}

constexpr float kEps = 1e-5f;

// The norm's weights (float, as in the file).
std::vector<float> random_w(uint32_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.2f, 3.f);
  std::vector<float> w(dim);
  for (auto& v : w) v = d(rng);
  return w;
}

// The logits of the last of x's rows through Kernels::lm_head_normed in double, with the table split
// by max_range.
std::vector<float> gpu_logits(const Table& t, const std::vector<double>& x, const std::vector<float>& w,
                              uint64_t max_range, size_t* chunks_out, uint32_t rows_per_group = 0) {
  trit::vk::ContextOptions o;
  o.max_binding_range = max_range;
  trit::vk::Context ctx(o);
  if (!ctx.info().shader_float64) return {};
  trit::vk::Kernels k(ctx, true, true);
  if (!k.lm_head_norms(t.dim)) return {};
  trit::vk::DescriptorAllocator da(ctx);
  const auto chunks = trit::vk::split_rows(t.vocab, uint64_t{t.dim} * 2, ctx.max_binding_range());
  if (chunks_out) *chunks_out = chunks.size();
  std::vector<Buffer> parts;
  parts.reserve(chunks.size());
  for (const auto& c : chunks) {
    parts.emplace_back(ctx, uint64_t{c.rows} * t.dim * 2, MemoryUse::Device);
    parts.back().upload(t.f16.data() + size_t{c.row0} * t.dim, uint64_t{c.rows} * t.dim * 2);
  }
  Buffer xb(ctx, x.size() * sizeof(double), MemoryUse::Device);
  xb.upload(x.data(), x.size() * sizeof(double));
  Buffer wb(ctx, w.size() * 4, MemoryUse::Device);
  wb.upload(w.data(), w.size() * 4);
  Buffer lb(ctx, uint64_t{t.vocab} * 4, MemoryUse::Device);
  const std::vector<float> nan(t.vocab, std::nanf(""));
  lb.upload(nan.data(), nan.size() * 4);  // every logit must be written
  const trit::vk::Params p{0, static_cast<uint32_t>(x.size() / t.dim)};
  Buffer pb(ctx, sizeof p, MemoryUse::Upload);
  pb.upload(&p, sizeof p);
  CommandSequence cs(ctx);
  cs.begin();
  for (size_t i = 0; i < chunks.size(); ++i)
    k.lm_head_normed(cs, da, BufferRange{&pb, 0, 0}, BufferRange{&parts[i], 0, 0}, BufferRange{&xb, 0, 0},
                     BufferRange{&wb, 0, 0}, kEps, BufferRange{&lb, 0, 0}, chunks[i].rows, t.dim, chunks[i].row0,
                     t.vocab, rows_per_group);
  cs.end();
  cs.run();
  std::vector<float> out(t.vocab);
  lb.download(out.data(), out.size() * 4);
  return out;
}

// x: rows of dim values, the last one normalised (in double) and multiplied with the table.
void expect_double_accuracy(const Table& t, const std::vector<double>& x, const std::vector<float>& w,
                            const std::vector<float>& got) {
  ASSERT_EQ(got.size(), t.vocab);
  const double* last = x.data() + x.size() - t.dim;
  double ss = 0;
  for (uint32_t d = 0; d < t.dim; ++d) ss += last[d] * last[d];
  const double inv = 1.0 / std::sqrt(ss / t.dim + double(kEps));
  for (uint32_t r = 0; r < t.vocab; ++r) {
    double want = 0, mag = 0;
    for (uint32_t d = 0; d < t.dim; ++d) {
      const double p = double(trit::ref::f16_to_f32(t.f16[size_t{r} * t.dim + d])) * (last[d] * inv * double(w[d]));
      want += p;
      mag += std::fabs(p);
    }
    // One rounding to float of a double sum (whose order error is ~dim * 2^-53 of the magnitudes);
    // float accumulation would be off by ~dim * 2^-24 of them.
    ASSERT_NEAR(double(got[r]), want, std::ldexp(std::fabs(want), -24) + 1e-13 * mag) << "row " << r;
  }
}

TEST(LmHeadDecodeF64, MatchesTheDoubleReferenceAcrossChunkEnds) {
  // 528-byte rows under a 100 KiB binding limit: chunks of 193 rows and a last one of 38.
  const Table t = random_table(1003, 264, 5);
  auto x = random_x(264, 6);
  const auto second = random_x(264, 9);
  x.insert(x.end(), second.begin(), second.end());  // two tokens: the last one's logits
  const auto w = random_w(264, 10);
  size_t chunks = 0;
  const auto got = gpu_logits(t, x, w, 100 * 1024, &chunks);
  if (got.empty()) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
  EXPECT_EQ(chunks, 6u);
  expect_double_accuracy(t, x, w, got);
}

TEST(LmHeadDecodeF64, ModelWidthRowsAreAccurateAndDeterministic) {
  // The 2B4T hidden size; 777 rows are a multiple of neither 4 rows in flight nor 64 or 512 rows a workgroup.
  const Table t = random_table(777, 2560, 7);
  const auto x = random_x(2560, 8);
  const auto w = random_w(2560, 11);
  const auto a = gpu_logits(t, x, w, 0, nullptr);
  if (a.empty()) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
  expect_double_accuracy(t, x, w, a);
  const auto b = gpu_logits(t, x, w, 0, nullptr);
  ASSERT_EQ(b.size(), a.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << "two runs gave different logits";
}

// Rows per workgroup other than the workgroup size (the H100 takes 488 for the 2B4T vocabulary, so
// that its 132 multiprocessors get two workgroups each), more or fewer than its invocations, with a
// last workgroup that has only some of its rows.
TEST(LmHeadDecodeF64, AnyRowsPerWorkgroupGivesTheSameLogits) {
  const Table t = random_table(777, 2560, 12);
  const auto x = random_x(2560, 13);
  const auto w = random_w(2560, 14);
  const auto want = gpu_logits(t, x, w, 0, nullptr);
  if (want.empty()) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
  for (const uint32_t rpw : {488u, 68u, 1028u}) {
    const auto got = gpu_logits(t, x, w, 0, nullptr, rpw);
    expect_double_accuracy(t, x, w, got);
    // Each row is one subgroup's sum in the same order whatever the workgroup it falls in.
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0) << rpw << " rows per workgroup";
  }
}

TEST(LmHeadDecode, RowsPerWorkgroupFillEveryMultiprocessorTwice) {
  using trit::vk::Kernels;
  EXPECT_EQ(Kernels::lm_head_rows_per_group(128256, 0, 512), 512u);  // no multiprocessor count: the workgroup
  EXPECT_EQ(Kernels::lm_head_rows_per_group(128256, 132, 512), 488u);
  EXPECT_EQ(Kernels::lm_head_rows_per_group(1003, 132, 512), 64u);  // at least a pass of every subgroup
  for (const uint32_t vocab : {128256u, 151936u, 32000u, 50257u, 262144u})
    for (const uint32_t sms : {132u, 114u, 108u, 46u, 1u}) {
      const uint32_t rpw = Kernels::lm_head_rows_per_group(vocab, sms, 512);
      EXPECT_EQ(rpw % 4, 0u);
      const uint32_t groups = (vocab + rpw - 1) / rpw;
      EXPECT_LE(groups, 2 * sms) << vocab << " rows, " << sms << " multiprocessors";
      if (rpw > 64) {
        EXPECT_GT(groups, 2 * sms - 2 * sms / 8 - 1) << vocab << " rows, " << sms << " multiprocessors";
      }
    }
}

// Without the staged one-token head (the baseline kernels), or for a width it does not stage (not a
// multiple of 8), the fused norm is not offered, and asking for it anyway is an error rather than
// logits of an unnormalised or partly staged x.
TEST(LmHeadDecodeF64, TheFusedNormNeedsTheStagedHead) {
  trit::vk::Context ctx;
  trit::vk::Kernels staged(ctx, true, false);
  EXPECT_TRUE(staged.lm_head_norms(264));
  EXPECT_FALSE(staged.lm_head_norms(260));
  trit::vk::Kernels k(ctx, true, false, trit::vk::DotProduct::Off, /*staged_lm_head=*/false);
  EXPECT_FALSE(k.lm_head_norms(264));
  trit::vk::DescriptorAllocator da(ctx);
  Buffer b(ctx, 1 << 16, MemoryUse::Device);
  const BufferRange r{&b, 0, 0};
  CommandSequence cs(ctx);
  cs.begin();
  EXPECT_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 10, 264, 0, 10), trit::VulkanError);
  cs.end();
}

}  // namespace
