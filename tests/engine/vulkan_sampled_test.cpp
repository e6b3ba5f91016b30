// Device-sampled decoding (VulkanForward::decode_sample) from the int8 head (shaders/lm_head.glsl TOPK:
// only the rows that can be among the sampler's top k after the penalty are computed in F16) against
// the F16 head (bounded_head off) on the golden models: the same tokens, step for step, for many seeds
// and settings (top-k 1, 2, 40 and 1024, penalties on, off and below 1, hot and cold, top-p and min-p),
// in fp32 and double, across embedding chunks and with the packed dot product; both equal to sampling
// on the host from read-back logits. Where the int8 head is not used (bounded_head off, the baseline
// kernels) sampling falls back to the F16 head and still equals the host's.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <string>
#include <vector>

#include "golden_support.h"
#include "test_support.h"
#include "trit/devices.h"
#include "trit/model.h"
#include "trit/sampler.h"
#include "trit/vulkan_forward.h"

namespace {

using namespace trit;

SamplingParams sampling(float temperature, int32_t top_k, float top_p, float min_p, float penalty, int32_t last_n) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = top_k;
  p.top_p = top_p;
  p.min_p = min_p;
  p.repeat_penalty = penalty;
  p.repeat_last_n = last_n;
  return p;
}

const SamplingParams kSettings[] = {
    sampling(0.6f, 40, 0.95f, 0.05f, 1.1f, 64),    // the defaults
    sampling(1.f, 1, 1.f, 0.f, 1.f, 64),           // top-1, no penalty
    sampling(1.3f, 2, 1.f, 0.f, 1.2f, 16),         // top-2 with a penalty
    sampling(2.f, 40, 1.f, 0.f, 1.f, 0),           // hot, no penalty
    sampling(0.2f, 40, 0.9f, 0.1f, 1.3f, 64),      // cold, top-p and min-p
    sampling(0.8f, 1024, 0.95f, 0.02f, 1.1f, 64),  // the largest top-k
    sampling(0.f, 40, 1.f, 0.f, 1.5f, 8),          // greedy with a penalty
    sampling(1.1f, 40, 0.5f, 0.f, 0.7f, 32),       // a penalty below 1 (raises repeats)
};

constexpr int32_t kSteps = 9;  // two chained submits of four steps, then a single step
constexpr uint64_t kSeeds[] = {1, 77};

constexpr size_t kPromptTokens = 30;

// A fixed prompt of random ids with repeats (so the penalty window holds likely tokens).
std::vector<int32_t> make_prompt(int32_t vocab) {
  std::vector<int32_t> p;
  uint32_t s = 12345;
  for (int i = 0; i < 24; ++i) {
    s = s * 1664525u + 1013904223u;
    p.push_back(static_cast<int32_t>((s >> 8) % static_cast<uint32_t>(vocab)));
  }
  for (int i = 0; i < 6; ++i) p.push_back(p[static_cast<size_t>(i * 3)]);
  return p;  // kPromptTokens
}

// Steps sampled on the device after the prompt (already evaluated, its logits in `logits`): the first
// token on the host from the prompt's logits (as Session does), then kSteps from decode_sample.
std::vector<int32_t> device_run(VulkanForward& f, const std::vector<int32_t>& prompt, const std::vector<float>& logits,
                                const SamplingParams& p) {
  Sampler s(p);
  auto l = logits;
  std::vector<int32_t> out = {s.sample(l, prompt)};
  const size_t n = std::min(prompt.size(), static_cast<size_t>(std::max(0, p.repeat_last_n)));
  const std::vector<int32_t> recent(prompt.end() - static_cast<std::ptrdiff_t>(n), prompt.end());
  const int32_t got = f.decode_sample(out[0], static_cast<int32_t>(prompt.size()), kSteps, s, recent, [&](int32_t t) {
    out.push_back(t);
    return true;
  });
  EXPECT_EQ(got, kSteps);
  return out;
}

// The same steps on the host: eval of each token, then trit::Sampler over the read-back logits.
std::vector<int32_t> host_run(VulkanForward& f, const std::vector<int32_t>& prompt, const std::vector<float>& logits,
                              const SamplingParams& p) {
  Sampler s(p);
  auto l = logits;
  std::vector<int32_t> history = prompt, out = {s.sample(l, history)};
  for (int32_t i = 0; i < kSteps; ++i) {
    const int32_t tok = out.back();
    f.eval(std::span<const int32_t>(&tok, 1), static_cast<int32_t>(history.size()), l, false);
    history.push_back(tok);
    out.push_back(s.sample(l, history));
  }
  return out;
}

std::string describe(const SamplingParams& p) {
  char b[160];
  std::snprintf(b, sizeof b, "T=%g top_k=%d top_p=%g min_p=%g penalty=%g last_n=%d seed=%llu", p.temperature, p.top_k,
                p.top_p, p.min_p, p.repeat_penalty, p.repeat_last_n, static_cast<unsigned long long>(p.seed));
  return b;
}

// The first `settings` of kSettings with `seeds` seeds each: the int8 head's tokens equal the F16 head's
// (and, with `host`, the host's for the first seed); prints the share of rows the int8 head computed in
// F16. (Lavapipe takes ~60 ms a step of golden-a: golden-a runs every setting with one seed, the
// settings alternating two (a seed moves the draws, not the code path), the other variants the three settings that span
// the range (the defaults, top-1, top-2 with a penalty), golden-b only the defaults.)
void expect_bounded_sampling_equals_f16(const std::string& golden, VulkanForwardOptions o, size_t seeds = 1,
                                        bool host = false, size_t settings = 3) {
  auto model = Model::open(test::shared_dir() / "golden" / (golden + ".gguf"));
  if (o.context == 0) o.context = test::context_for(kPromptTokens + static_cast<size_t>(kSteps));
  VulkanForwardOptions f16 = o;
  f16.bounded_head = false;
  VulkanForward bounded(*model, o), plain(*model, f16);
  ASSERT_TRUE(bounded.bounded_sampling_head()) << "the golden widths are multiples of 16: the int8 head runs";
  EXPECT_FALSE(plain.bounded_sampling_head());
  if (o.max_binding_range) {
    EXPECT_GT(bounded.embedding_chunks(), 2u);
  }
  const int32_t vocab = bounded.vocab_size();
  const auto prompt = make_prompt(vocab);
  std::vector<float> lb(static_cast<size_t>(vocab)), lp(lb.size());
  bounded.eval(prompt, 0, lb, false);
  plain.eval(prompt, 0, lp, false);
  ASSERT_EQ(lb, lp) << "the prompt's logits (the same kernels) differ";
  const uint64_t rows0 = bounded.sampled_head_f16_rows();
  EXPECT_EQ(plain.sampled_head_f16_rows(), 0u);
  int runs = 0;
  for (size_t k = 0; k < std::min(settings, std::size(kSettings)); ++k)
    for (size_t si = 0; si < seeds; ++si) {
      SamplingParams p = kSettings[k];
      p.seed = kSeeds[(k + si) % std::size(kSeeds)];  // settings alternate the seeds
      ASSERT_TRUE(bounded.samples_on_device(p)) << describe(p);
      const auto want = device_run(plain, prompt, lp, p);
      const auto got = device_run(bounded, prompt, lb, p);
      ASSERT_EQ(got, want) << describe(p);
      if (host && si == 0) {
        EXPECT_EQ(host_run(plain, prompt, lp, p), want) << "the F16 head against host sampling, " << describe(p);
      }
      ++runs;
    }
  const double rows = static_cast<double>(bounded.sampled_head_f16_rows() - rows0);
  const double share = rows / (double(runs) * kSteps * vocab);
  std::printf(
      "[ measured ] %s (%s%s): %d sampled runs of %d steps equal to the F16 head's, %.1f%% of rows computed "
      "in F16\n",
      golden.c_str(), o.precision == Precision::F64 ? "double" : "fp32",
      o.max_binding_range ? ", embedding chunks" : "", runs, kSteps, 100.0 * share);
  EXPECT_GE(rows, double(runs) * kSteps) << "every step computes at least its top k in F16";
  EXPECT_LT(share, 0.75) << "the int8 head should spare most rows";
}

TEST(VulkanSampled, Int8HeadEqualsTheF16HeadOnGoldenA) {
  expect_bounded_sampling_equals_f16("golden-a", {}, 1, true, std::size(kSettings));
}
TEST(VulkanSampled, Int8HeadEqualsTheF16HeadOnGoldenB) {
  expect_bounded_sampling_equals_f16("golden-b", {}, 1, false, 1);
}

TEST(VulkanSampled, Int8HeadEqualsTheF16HeadInDouble) {
  VulkanForwardOptions o;
  o.precision = Precision::F64;
  expect_bounded_sampling_equals_f16("golden-a", o);
}

// The head's chunks (one dispatch each per pass, no barrier between them) share one arrival count,
// bounds array and candidate list.
TEST(VulkanSampled, Int8HeadEqualsTheF16HeadAcrossEmbeddingChunks) {
  VulkanForwardOptions o;
  o.max_binding_range = 256 * 1024;  // golden-a's 1 MB embedding in 4+ chunks
  o.context = 64;                    // (a layer's cache must fit one binding too)
  expect_bounded_sampling_equals_f16("golden-a", o);
}

TEST(VulkanSampled, Int8HeadWithTheDotProductEqualsTheF16Head) {
  if (!choose_device(list_vulkan_devices(), {}).integer_dot_product)
    GTEST_SKIP() << "no integer dot product on this device";
  VulkanForwardOptions o;
  o.force_dot_product = true;
  expect_bounded_sampling_equals_f16("golden-a", o);
}

// Without the int8 head (turned off, or the baseline kernels, which have no staged head) sampled steps
// run the F16 head for every row and count no rows, and still sample what the host samples.
TEST(VulkanSampled, WithoutTheInt8HeadSamplingFallsBackToTheF16Head) {
  auto model = Model::open(test::shared_dir() / "golden" / "golden-a.gguf");
  VulkanForwardOptions off, baseline;
  off.bounded_head = false;
  baseline.tuned_kernels = false;
  off.context = baseline.context = test::context_for(kPromptTokens + static_cast<size_t>(kSteps));
  for (const auto& o : {off, baseline}) {
    SCOPED_TRACE(o.tuned_kernels ? "bounded_head off" : "baseline kernels");
    VulkanForward f(*model, o);
    EXPECT_FALSE(f.bounded_head());
    EXPECT_FALSE(f.bounded_sampling_head());
    const auto prompt = make_prompt(f.vocab_size());
    std::vector<float> l(static_cast<size_t>(f.vocab_size()));
    f.eval(prompt, 0, l, false);
    for (SamplingParams p : {kSettings[0], kSettings[5]}) {
      p.seed = 9;
      EXPECT_EQ(device_run(f, prompt, l, p), host_run(f, prompt, l, p)) << describe(p);
    }
    EXPECT_EQ(f.sampled_head_f16_rows(), 0u);
  }
}

}  // namespace
