// The block attention kernel (shaders/attention_block.glsl: a tile of tokens and the G query heads of
// a KV head in one workgroup) against the one-token kernel (attention.glsl without split-K) run token
// by token over the same cache. The two sum in different orders, so they agree to rounding: within
// 1e-12 in double and 2e-6 in float, on outputs of magnitude up to 2 (a wrong mask, scale, key or
// softmax step moves them by far more). f32 and f64 activations, F16 and F32 caches (of doubles in f64),
// GQA groups of 1, 3, 4, 5 and 8, blocks that cross key-chunk and tile edges, and submits of fewer tokens
// than the recording's block (the rows past them stay untouched, bit for bit).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
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

struct Shape {
  uint32_t heads, kv, hd, pos0, n, max_tokens;
};

template <typename T>
Buffer upload(const trit::vk::Context& ctx, const std::vector<T>& data) {
  Buffer b(ctx, std::max<uint64_t>(data.size() * sizeof(T), 16), MemoryUse::Device);
  b.upload(data.data(), data.size() * sizeof(T));
  return b;
}

void run(const trit::vk::Context& ctx, uint32_t pos0, uint32_t n,
         const std::function<void(CommandSequence&, const BufferRange&)>& rec) {
  const trit::vk::Params p{pos0, n};
  Buffer pb(ctx, sizeof p, MemoryUse::Upload);
  pb.upload(&p, sizeof p);
  CommandSequence cs(ctx);
  cs.begin();
  rec(cs, BufferRange{&pb, 0, 0});
  cs.end();
  cs.run();
}

template <typename R>
void expect_block_matches_tokens(bool kv_f16, const Shape& s) {
  const bool f64 = sizeof(R) == 8;
  SCOPED_TRACE(testing::Message() << (f64 ? "f64" : "f32") << (kv_f16 ? " F16" : " F32") << " cache, heads " << s.heads
                                  << "/" << s.kv << " hd " << s.hd << " pos0 " << s.pos0 << " n " << s.n << " of "
                                  << s.max_tokens);
  trit::vk::Context ctx;
  if (f64 && !ctx.info().shader_float64) GTEST_SKIP() << "no shaderFloat64";
  trit::vk::Kernels k(ctx, kv_f16, f64);
  trit::vk::DescriptorAllocator da(ctx);
  const uint32_t positions = s.pos0 + s.max_tokens;
  const size_t qdim = size_t{s.heads} * s.hd, kvdim = size_t{s.kv} * s.hd;
  std::mt19937 rng(s.heads * 31 + s.pos0);
  std::uniform_real_distribution<double> d(-2.0, 2.0);
  std::vector<R> q(s.max_tokens * qdim);
  for (auto& x : q) x = static_cast<R>(d(rng));
  std::vector<float> kf(positions * kvdim), vf(kf.size());
  for (auto& x : kf) x = static_cast<float>(d(rng));
  for (auto& x : vf) x = static_cast<float>(d(rng));
  std::vector<uint16_t> k16(kf.size()), v16(vf.size());
  for (size_t i = 0; i < kf.size(); ++i) {
    k16[i] = trit::ref::f32_to_f16(kf[i]);
    v16[i] = trit::ref::f32_to_f16(vf[i]);
  }
  // The cache as the kernels read it: F16 bits, floats, or in double doubles (shaders/kv_cache.glsl),
  // there off the float grid.
  auto cache = [&](const std::vector<float>& f, const std::vector<uint16_t>& h) {
    if (kv_f16) return upload(ctx, h);
    if (!f64) return upload(ctx, f);
    std::vector<double> wide(f.size());
    for (size_t i = 0; i < f.size(); ++i) wide[i] = f[i] * (1.0 + 1e-9);
    return upload(ctx, wide);
  };
  Buffer qb = upload(ctx, q), kc = cache(kf, k16), vc = cache(vf, v16);
  const std::vector<R> sentinel(s.max_tokens * qdim, static_cast<R>(-7.25));
  Buffer block_out = upload(ctx, sentinel), token_out = upload(ctx, sentinel);

  run(ctx, s.pos0, s.n, [&](CommandSequence& cs, const BufferRange& p) {
    k.attention(cs, da, p, {&qb, 0, 0}, {&kc, 0, 0}, {&vc, 0, 0}, {&block_out, 0, 0}, s.heads, s.kv, s.hd,
                s.max_tokens);
  });
  const uint64_t row = qdim * sizeof(R);
  ASSERT_EQ(row % ctx.info().min_storage_offset_alignment, 0u) << "pick shapes whose query rows are aligned bindings";
  for (uint32_t t = 0; t < s.n; ++t)
    run(ctx, s.pos0 + t, 1, [&](CommandSequence& cs, const BufferRange& p) {
      k.attention(cs, da, p, {&qb, t * row, row}, {&kc, 0, 0}, {&vc, 0, 0}, {&token_out, t * row, row}, s.heads, s.kv,
                  s.hd, 1);
    });
  std::vector<R> a(sentinel.size()), b(sentinel.size());
  block_out.download(a.data(), a.size() * sizeof(R));
  token_out.download(b.data(), b.size() * sizeof(R));
  const double tol = f64 ? 1e-12 : 2e-6;
  for (size_t i = 0; i < a.size(); ++i) {
    if (i / qdim >= s.n) {
      ASSERT_EQ(0, std::memcmp(&a[i], &sentinel[i], sizeof(R))) << "token " << i / qdim << " is past the submit";
      continue;
    }
    ASSERT_LE(std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])), tol)
        << "token " << i / qdim << " element " << i % qdim << ": block " << a[i] << ", token by token " << b[i];
  }
}

// Query rows of heads x hd values must be aligned binding offsets (256 bytes covers every device).
const Shape kShapes[] = {
    {8, 2, 64, 0, 70, 80},     // GQA 4:1 from position 0, crossing the 64-key chunk edge
    {4, 1, 128, 100, 9, 16},   // one KV head, a block after a long prefix
    {6, 2, 64, 63, 5, 5},      // groups of 3, the block starts at a chunk's last key
    {8, 1, 32, 10, 12, 12},    // groups of 8 (the kernel's largest)
    {4, 4, 64, 3, 33, 40},     // no GQA
    {10, 2, 128, 31, 45, 48},  // groups of 5 (golden-b's), tiles that do not divide the block
};

TEST(AttentionBlock, MatchesTokenByTokenF64) {
  for (const Shape& s : kShapes) expect_block_matches_tokens<double>(true, s);
  expect_block_matches_tokens<double>(false, kShapes[0]);
  expect_block_matches_tokens<double>(false, kShapes[5]);
}

TEST(AttentionBlock, MatchesTokenByTokenF32) {
  expect_block_matches_tokens<float>(true, kShapes[0]);
  expect_block_matches_tokens<float>(true, kShapes[3]);
  expect_block_matches_tokens<float>(false, kShapes[2]);
}

}  // namespace
