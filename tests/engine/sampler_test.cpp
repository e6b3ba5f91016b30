// Sampler: greedy, reproducibility, and that each filter removes exactly what it should.
#include <gtest/gtest.h>
#include <trit/sampler.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <span>
#include <vector>

using trit::Sampler;
using trit::SamplingParams;

namespace {
SamplingParams plain(float temperature) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = 0;
  p.top_p = 1.f;
  p.min_p = 0.f;
  p.repeat_penalty = 1.f;
  return p;
}

std::map<int32_t, int> draw(const SamplingParams& p, const std::vector<float>& logits, int n) {
  Sampler s(p);
  std::map<int32_t, int> counts;
  for (int i = 0; i < n; ++i) {
    auto l = logits;
    counts[s.sample(l, {})]++;
  }
  return counts;
}
}  // namespace

TEST(Sampler, GreedyIsArgmaxWithLowestIndexOnTies) {
  Sampler s(plain(0.f));
  std::vector<float> l{0.5f, 3.f, -1.f, 3.f, 2.9f};
  EXPECT_EQ(s.sample(l, {}), 1);
  EXPECT_EQ(trit::argmax(l), 1);
}

TEST(Sampler, SameSeedSameChoicesOtherSeedOtherChoices) {
  std::vector<float> logits(1003);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = std::sin(static_cast<float>(i) * 0.37f) * 3.f;
  auto run = [&](uint64_t seed) {
    SamplingParams p = plain(1.f);
    p.seed = seed;
    Sampler s(p);
    std::vector<int32_t> out;
    for (int i = 0; i < 64; ++i) {
      auto l = logits;
      out.push_back(s.sample(l, {}));
    }
    return out;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
}

TEST(Sampler, FrequenciesFollowSoftmaxAtTemperature) {
  const std::vector<float> logits{1.f, 2.f, 0.f, 1.5f};
  const float t = 0.8f;
  const int n = 40000;
  auto counts = draw(plain(t), logits, n);
  double z = 0;
  for (float l : logits) z += std::exp(l / t);
  for (int32_t id = 0; id < 4; ++id) {
    const double expected = std::exp(logits[static_cast<size_t>(id)] / t) / z;
    const double got = static_cast<double>(counts[id]) / n;
    // 5 standard deviations of a binomial proportion.
    EXPECT_NEAR(got, expected, 5 * std::sqrt(expected * (1 - expected) / n)) << "token " << id;
  }
}

TEST(Sampler, TopKKeepsOnlyTheKMostLikely) {
  SamplingParams p = plain(5.f);  // hot, so without the filter every token would appear
  p.top_k = 3;
  auto counts = draw(p, {0.1f, 0.9f, 0.5f, 0.8f, 0.0f, 0.7f}, 3000);
  for (const auto& [id, c] : counts) EXPECT_TRUE(id == 1 || id == 3 || id == 5) << "token " << id << " drawn " << c;
  EXPECT_EQ(counts.size(), 3u);
}

TEST(Sampler, TopPKeepsTheSmallestNucleus) {
  // Probabilities at T=1: ~0.643, 0.236, 0.087, 0.032 (logits 3, 2, 1, 0). Nucleus 0.85 = first two.
  SamplingParams p = plain(1.f);
  p.top_p = 0.85f;
  auto counts = draw(p, {1.f, 3.f, 0.f, 2.f}, 4000);
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_GT(counts[1], 0);
  EXPECT_GT(counts[3], 0);
}

TEST(Sampler, MinPDropsTokensBelowTheFraction) {
  // p relative to the best: 1, e^-1 = 0.37, e^-2 = 0.14, e^-3 = 0.05. min_p 0.2 keeps two.
  SamplingParams p = plain(1.f);
  p.min_p = 0.2f;
  auto counts = draw(p, {3.f, 2.f, 1.f, 0.f}, 4000);
  EXPECT_EQ(counts.size(), 2u);
  EXPECT_GT(counts[0], counts[1]);
  // The same filter must hold when top-k is on (a different code path).
  p.top_k = 4;
  counts = draw(p, {3.f, 2.f, 1.f, 0.f}, 4000);
  EXPECT_EQ(counts.size(), 2u);
}

TEST(Sampler, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogits) {
  SamplingParams p = plain(0.f);
  p.repeat_penalty = 1.25f;
  Sampler s(p);
  std::vector<float> l{2.0f, 1.9f, -1.f, -1.1f};
  const std::vector<int32_t> history{0, 0, 2};
  EXPECT_EQ(s.sample(l, history), 1);
  EXPECT_FLOAT_EQ(l[0], 1.6f);    // penalised once although it occurs twice
  EXPECT_FLOAT_EQ(l[2], -1.25f);  // negative logits get more negative
  EXPECT_FLOAT_EQ(l[3], -1.1f);   // untouched
}

TEST(Sampler, RepetitionWindowOnlyCoversTheLastTokens) {
  SamplingParams p = plain(0.f);
  p.repeat_penalty = 2.f;
  p.repeat_last_n = 2;
  Sampler s(p);
  std::vector<float> l{2.0f, 1.9f, 0.f};
  EXPECT_EQ(s.sample(l, std::vector<int32_t>{0, 2, 2}), 0) << "token 0 is outside the window of 2";
}

TEST(Sampler, RejectsInvalidParametersWithTheirName) {
  SamplingParams p;
  p.top_p = 0.f;
  EXPECT_NE(p.validate().find("top-p"), std::string::npos);
  EXPECT_THROW(Sampler{p}, std::invalid_argument);
  p = SamplingParams{};
  p.temperature = -1.f;
  EXPECT_NE(p.validate().find("temperature"), std::string::npos);
  p = SamplingParams{};
  p.min_p = 1.f;
  EXPECT_NE(p.validate().find("min-p"), std::string::npos);
  EXPECT_TRUE(SamplingParams{}.validate().empty());
}

TEST(Sampler, HandlesFullLlama3VocabularyWithoutTopK) {
  std::vector<float> logits(128256);
  for (size_t i = 0; i < logits.size(); ++i) logits[i] = static_cast<float>((i * 2654435761u) % 1000) / 100.f;
  SamplingParams p = plain(0.7f);
  p.min_p = 0.05f;
  Sampler s(p);
  for (int i = 0; i < 5; ++i) {
    auto l = logits;
    const int32_t id = s.sample(l, {});
    ASSERT_GE(id, 0);
    ASSERT_LT(id, 128256);
    EXPECT_GE(logits[static_cast<size_t>(id)], 9.99f + 0.7f * std::log(0.05f) - 1e-3f);
  }
}

// sample_top (a batched step's sampled rows, from their best top_k found on the device) picks what
// sample() picks from the whole row, drawing the same uniforms: rows with ties, -0 and +0, infinities,
// a penalty moving tokens in and out of the top k, and each cut (top-p, min-p) on.
TEST(Sampler, SampleTopEqualsSampleOnTheWholeRow) {
  std::mt19937 rng(7);
  const int32_t vocab = 300;
  int checked = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> row(static_cast<size_t>(vocab));
    const int kind = trial % 4;
    for (int32_t i = 0; i < vocab; ++i) {
      float v = std::uniform_real_distribution<float>(-4.f, 4.f)(rng);
      if (kind == 1) v = std::round(v * 2.f) / 2.f;  // many ties
      if (kind == 2 && i % 50 == 7) v = (i % 100 == 7) ? 0.f : -0.f;
      if (kind == 3 && i == 123)
        v = trial % 8 == 3 ? std::numeric_limits<float>::infinity() : -std::numeric_limits<float>::infinity();
      row[static_cast<size_t>(i)] = v;
    }
    SamplingParams p = plain(0.3f + 0.2f * static_cast<float>(trial % 7));
    p.top_k = std::vector<int32_t>{1, 2, 5, 40, 64, 299}[static_cast<size_t>(trial % 6)];
    p.top_p = trial % 3 == 0 ? 0.8f : 1.f;
    p.min_p = trial % 5 == 0 ? 0.1f : 0.f;
    p.repeat_penalty = trial % 2 == 0 ? 1.3f : 1.f;
    p.seed = static_cast<uint64_t>(trial);
    std::vector<int32_t> history;
    for (int i = 0; i < 30; ++i) history.push_back(static_cast<int32_t>(rng() % vocab));
    Sampler whole(p), top(p);
    ASSERT_TRUE(top.samples_from_top(vocab));
    for (int draw_i = 0; draw_i < 5; ++draw_i) {
      std::vector<float> a = row;
      const int32_t want = whole.sample(a, history);  // (a is penalised now)
      std::vector<trit::TopLogit> all;
      for (int32_t i = 0; i < vocab; ++i) all.push_back({a[static_cast<size_t>(i)], i});
      std::sort(all.begin(), all.end(), trit::TopLogit::before);
      all.resize(static_cast<size_t>(p.top_k));
      ASSERT_EQ(top.sample_top(all, vocab), want) << "trial " << trial << " draw " << draw_i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 1000);
}

TEST(Sampler, SampleTopRefusesWhatSampleWouldNotTakeFromTheTop) {
  SamplingParams p = plain(0.8f);
  p.top_k = 4;
  const std::vector<trit::TopLogit> four{{3.f, 1}, {2.f, 0}, {1.f, 5}, {0.f, 2}};
  Sampler s(p);
  EXPECT_THROW(s.sample_top(std::span<const trit::TopLogit>(four).first(3), 10), std::invalid_argument);
  EXPECT_THROW(s.sample_top(four, 4), std::invalid_argument);  // top-k not below the vocabulary
  EXPECT_FALSE(s.samples_from_top(4));
  EXPECT_TRUE(s.samples_from_top(5));
  p.top_k = 0;
  EXPECT_FALSE(Sampler(p).samples_from_top(10));
  p.top_k = Sampler::few_best() + 1;
  EXPECT_FALSE(Sampler(p).samples_from_top(1 << 20));
  p = plain(0.f);
  p.top_k = 4;
  EXPECT_FALSE(Sampler(p).samples_from_top(10));
  EXPECT_THROW(Sampler(p).sample_top(four, 10), std::invalid_argument);
}
