// trit::Sampler sorts only the candidates whose softmax terms can change its sums (sampler.cpp,
// kNegligible). This holds it to a plain full-sort reference, written here from the documented order
// (penalty, top-k, temperature, softmax over the kept set, top-p, min-p, one draw), token for token:
// the GPU sampler reproduces the same semantics, so the choice must not move by a single id for any
// seed, vocabulary size, parameter set or logits, ties included.
#include <gtest/gtest.h>
#include <trit/sampler.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

using trit::SamplingParams;

constexpr float kInf = std::numeric_limits<float>::infinity();

// The reference: every candidate sorted (a stable sort by logit keeps equal logits in id order), the
// softmax summed over the whole kept set. `uniform` is the draw, taken from a twin Sampler so that
// both consume one random stream alike.
int32_t reference_sample(const SamplingParams& p, std::vector<float> logits, const std::vector<int32_t>& history,
                         double uniform) {
  const auto vocab = static_cast<int32_t>(logits.size());
  if (p.repeat_penalty != 1.f && p.repeat_last_n > 0) {
    const size_t n = std::min(history.size(), static_cast<size_t>(p.repeat_last_n));
    std::vector<int32_t> seen(history.end() - static_cast<std::ptrdiff_t>(n), history.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (int32_t t : seen) {
      if (t < 0 || t >= vocab) continue;
      float& l = logits[static_cast<size_t>(t)];
      l = l > 0.f ? l / p.repeat_penalty : l * p.repeat_penalty;
    }
  }
  if (p.temperature <= 0.f) return trit::argmax(logits);

  struct Cand {
    float logit;
    int32_t id;
  };
  std::vector<Cand> c;
  for (int32_t i = 0; i < vocab; ++i) c.push_back({logits[static_cast<size_t>(i)], i});
  const bool top_k = p.top_k > 0 && p.top_k < vocab;
  if (!top_k && p.min_p > 0.f) {
    float mx = -kInf;
    for (const Cand& x : c) mx = std::max(mx, x.logit);
    const float floor = mx + p.temperature * std::log(p.min_p);
    std::erase_if(c, [floor](const Cand& x) { return x.logit < floor; });
  }
  std::stable_sort(c.begin(), c.end(), [](const Cand& a, const Cand& b) { return a.logit > b.logit; });
  if (top_k) c.resize(static_cast<size_t>(p.top_k));

  const double inv_t = 1.0 / p.temperature;
  const double mx = c[0].logit;
  std::vector<double> prob(c.size());
  double sum = 0;
  for (size_t i = 0; i < c.size(); ++i) sum += prob[i] = std::exp((c[i].logit - mx) * inv_t);
  for (double& x : prob) x /= sum;

  size_t keep = c.size();
  if (p.top_p < 1.f) {
    double cum = 0;
    size_t n = 0;
    while (n < keep) {
      cum += prob[n++];
      if (cum >= p.top_p) break;
    }
    keep = n;
  }
  if (p.min_p > 0.f) {
    const double floor = p.min_p * prob[0];
    size_t n = 1;
    while (n < keep && prob[n] >= floor) ++n;
    keep = n;
  }
  double mass = 0;
  for (size_t i = 0; i < keep; ++i) mass += prob[i];
  double r = uniform * mass;
  for (size_t i = 0; i < keep; ++i) {
    r -= prob[i];
    if (r < 0) return c[i].id;
  }
  return c[keep - 1].id;
}

enum class Dist { Normal, Ties, FewValues, Dominant, NegInf, Flat, SignedZeros, WideRange, PosInf, AllNegInf };
const std::vector<Dist> kFinite = {Dist::Normal, Dist::Ties, Dist::FewValues,   Dist::Dominant,
                                   Dist::NegInf, Dist::Flat, Dist::SignedZeros, Dist::WideRange};

const char* name(Dist d) {
  switch (d) {
    case Dist::Normal:
      return "normal";
    case Dist::Ties:
      return "ties";
    case Dist::FewValues:
      return "few-values";
    case Dist::Dominant:
      return "dominant";
    case Dist::NegInf:
      return "-inf";
    case Dist::Flat:
      return "flat";
    case Dist::SignedZeros:
      return "signed-zeros";
    case Dist::WideRange:
      return "wide-range";
    case Dist::PosInf:
      return "+inf";
    case Dist::AllNegInf:
      return "all -inf";
  }
  return "?";
}

// A uniform float in [lo, hi) from 24 bits of the generator (no implementation-defined distributions).
float uniform(std::mt19937& rng, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(rng() >> 8) * 0x1.0p-24f;
}

std::vector<float> make_logits(uint32_t vocab, Dist d, std::mt19937& rng) {
  std::vector<float> l(vocab);
  // Roughly bell-shaped around 0 with the spread of a language model's logits (sum of three uniforms).
  for (auto& x : l) x = uniform(rng, -3.f, 3.f) + uniform(rng, -3.f, 3.f) + uniform(rng, -3.f, 3.f);
  const auto any = [&] { return rng() % vocab; };
  switch (d) {
    case Dist::Normal:
      break;
    case Dist::Ties:  // quantised to 0.5: a few dozen values, each shared by many ids
      for (auto& x : l) x = std::round(x * 2.f) * 0.5f;
      break;
    case Dist::FewValues:  // three values only, the best shared by about a third of the vocabulary
      for (auto& x : l) x = static_cast<float>(rng() % 3) * 1.5f;
      break;
    case Dist::Dominant:
      l[any()] = 40.f;
      break;
    case Dist::NegInf:  // a third masked out, never all of it
      for (auto& x : l)
        if (rng() % 3 == 0) x = -kInf;
      l[any()] = 1.f;
      break;
    case Dist::Flat:
      std::fill(l.begin(), l.end(), 0.25f);
      break;
    case Dist::SignedZeros:  // -0 and +0 compare equal: the id must decide between them
      for (auto& x : l) x = rng() % 2 ? 0.f : -0.f;
      for (uint32_t i = 0; i < vocab / 3; ++i) l[any()] = std::round(uniform(rng, -4.f, 0.f));
      break;
    case Dist::WideRange:  // most of the vocabulary far below the top: terms too small to count
      for (auto& x : l) x = uniform(rng, -300.f, 30.f);
      break;
    case Dist::PosInf:
      l[any()] = kInf;
      break;
    case Dist::AllNegInf:
      std::fill(l.begin(), l.end(), -kInf);
      break;
  }
  return l;
}

// Recent tokens with repeats and ids outside the vocabulary (both samplers skip those).
std::vector<int32_t> make_history(uint32_t vocab, std::mt19937& rng) {
  std::vector<int32_t> h(rng() % 80);
  for (auto& t : h) {
    const uint32_t r = rng() % 20;
    t = r == 0 ? -1 : r == 1 ? static_cast<int32_t>(vocab) + 2 : static_cast<int32_t>(rng() % std::min(vocab, 500u));
  }
  return h;
}

std::string describe(const SamplingParams& p) {
  char b[200];
  std::snprintf(b, sizeof b, "T=%g top_k=%d top_p=%g min_p=%g penalty=%g last_n=%d seed=%llu", p.temperature, p.top_k,
                p.top_p, p.min_p, p.repeat_penalty, p.repeat_last_n, static_cast<unsigned long long>(p.seed));
  return b;
}

const std::vector<float> kTemperatures = {0.f, 0.05f, 0.6f, 1.f, 2.5f};
const std::vector<int32_t> kTopK = {0, 1, 40, 1500, 100000};  // 1500 and 100000 take the selection path
const std::vector<float> kTopP = {1.f, 0.95f, 0.5f, 0.01f};
// 1e-30 puts the min-p cut among the candidates too small to count, which then have to be sorted.
const std::vector<float> kMinP = {0.f, 0.05f, 1e-30f};
const std::vector<float> kPenalty = {1.f, 1.1f, 0.8f};

// For every (top-k, top-p, min-p) and each distribution, `draws` tokens from one Sampler (so its
// buffers and random stream carry over) against the reference; temperature and penalty vary by draw.
int compare(uint32_t vocab, const std::vector<Dist>& dists, int draws, uint32_t seed) {
  std::mt19937 rng(seed);
  int checked = 0;
  for (int32_t k : kTopK)
    for (float top_p : kTopP)
      for (float min_p : kMinP)
        for (Dist d : dists) {
          SamplingParams p;
          p.top_k = k;
          p.top_p = top_p;
          p.min_p = min_p;
          p.repeat_last_n = static_cast<int32_t>(rng() % 100);
          p.seed = rng();
          p.temperature = kTemperatures[rng() % kTemperatures.size()];
          p.repeat_penalty = kPenalty[rng() % kPenalty.size()];
          trit::Sampler fast(p), twin(p);
          for (int i = 0; i < draws; ++i) {
            const auto logits = make_logits(vocab, d, rng);
            const auto history = make_history(vocab, rng);
            auto work = logits;
            const int32_t got = fast.sample(work, history);
            const double u = p.temperature > 0.f ? twin.draw_uniform() : 0.0;
            const int32_t want = reference_sample(p, logits, history, u);
            EXPECT_EQ(got, want) << "vocab " << vocab << ", " << name(d) << " logits, draw " << i << ", "
                                 << describe(p);
            if (got != want) return checked;
            ++checked;
          }
        }
  return checked;
}

TEST(SamplerSpeedEquivalence, SmallVocabulariesMatchTheFullSort) {
  int checked = 0;
  checked += compare(1, kFinite, 2, 11);
  checked += compare(7, kFinite, 4, 12);
  checked += compare(1000, kFinite, 3, 13);
  std::printf("[ measured ] %d draws equal to the full-sort reference (vocab 1, 7, 1000)\n", checked);
}

TEST(SamplerSpeedEquivalence, Llama3VocabularyMatchesTheFullSort) {
  // 128,256 candidates: the reference's full sort is the slow part, so one draw per setting.
  const int checked = compare(128256, kFinite, 1, 14);
  std::printf("[ measured ] %d draws equal to the full-sort reference (vocab 128256)\n", checked);
}

TEST(SamplerSpeedEquivalence, NonFiniteLogitsMatchTheFullSort) {
  // A +inf logit or no finite one: the softmax is NaN and the reference still picks deterministically.
  int checked = compare(7, {Dist::PosInf, Dist::AllNegInf}, 2, 15);
  checked += compare(1000, {Dist::PosInf, Dist::AllNegInf}, 1, 16);
  std::printf("[ measured ] %d draws equal to the full-sort reference (non-finite logits)\n", checked);
}

TEST(SamplerSpeedEquivalence, ExtremeUniformsMatchTheFullSort) {
  // The largest uniforms leave the draw a remainder of rounding size after the candidates that count,
  // so it walks on into those too small to count: they must be sorted and kept exactly as the reference
  // has them (only a uniform within ~1e-12 of 1 gets there: the seed's stream almost never does).
  const std::vector<double> uniforms = {1.0 - 0x1.0p-53, 1.0 - 0x1.0p-50, 1.0 - 0x1.0p-45, 0.0};
  std::mt19937 rng(18);
  int checked = 0;
  for (uint32_t vocab : {1000u, 128256u})
    for (Dist d : {Dist::Normal, Dist::WideRange, Dist::NegInf, Dist::Ties, Dist::Dominant})
      for (int32_t k : {0, 1500})
        for (float min_p : {0.f, 1e-30f}) {
          SamplingParams p;
          p.top_k = k;
          p.top_p = 1.f;
          p.min_p = min_p;
          p.repeat_penalty = 1.f;
          p.temperature = kTemperatures[1 + rng() % (kTemperatures.size() - 1)];
          trit::Sampler fast(p);
          const auto logits = make_logits(vocab, d, rng);
          for (double u : uniforms) {
            auto work = logits;
            ASSERT_EQ(fast.sample_with_uniform(work, {}, u), reference_sample(p, logits, {}, u))
                << "vocab " << vocab << ", " << name(d) << " logits, uniform " << u << ", " << describe(p);
            ++checked;
          }
        }
  std::printf("[ measured ] %d draws at extreme uniforms equal to the full-sort reference\n", checked);
}

TEST(SamplerSpeedEquivalence, UniformOutsideTheUnitIntervalIsRejected) {
  trit::Sampler s(SamplingParams{});
  std::vector<float> l{1.f, 2.f};
  for (double u : {1.0, -0.25, std::nan("")}) {
    try {
      s.sample_with_uniform(l, {}, u);
      ADD_FAILURE() << "uniform " << u << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("uniform must be in [0, 1)"), std::string::npos) << e.what();
    }
  }
}

TEST(SamplerSpeedEquivalence, OneSamplerAcrossVocabularySizes) {
  // Buffers sized for one vocabulary must serve the next, larger or smaller, and the non-finite path.
  SamplingParams p;
  p.top_k = 0;
  p.top_p = 0.95f;
  p.min_p = 0.f;
  p.temperature = 1.f;
  p.seed = 7;
  trit::Sampler fast(p), twin(p);
  std::mt19937 rng(17);
  int checked = 0;
  for (uint32_t vocab : {128256u, 7u, 1000u, 1u, 128256u, 5000u})
    for (Dist d : {Dist::Normal, Dist::AllNegInf, Dist::Ties}) {
      const auto logits = make_logits(vocab, d, rng);
      auto work = logits;
      ASSERT_EQ(fast.sample(work, {}), reference_sample(p, logits, {}, twin.draw_uniform()))
          << "vocab " << vocab << ", " << name(d);
      ++checked;
    }
  EXPECT_EQ(checked, 18);
}

}  // namespace
