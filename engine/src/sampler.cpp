#include <trit/sampler.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "modelgen/rng.h"

namespace trit {

std::string SamplingParams::validate() const {
  std::ostringstream err;
  if (!std::isfinite(temperature) || temperature < 0.f) err << "temperature must be >= 0 (got " << temperature << ")";
  else if (top_k < 0) err << "top-k must be >= 0 (got " << top_k << ")";
  else if (!(top_p > 0.f && top_p <= 1.f)) err << "top-p must be in (0, 1] (got " << top_p << ")";
  else if (!(min_p >= 0.f && min_p < 1.f)) err << "min-p must be in [0, 1) (got " << min_p << ")";
  else if (!(repeat_penalty > 0.f) || !std::isfinite(repeat_penalty))
    err << "repetition penalty must be > 0 (got " << repeat_penalty << ")";
  else if (repeat_last_n < 0) err << "repetition window must be >= 0 (got " << repeat_last_n << ")";
  return err.str();
}

int32_t argmax(std::span<const float> logits) {
  if (logits.empty()) throw std::invalid_argument("argmax of an empty logits vector");
  size_t best = 0;
  for (size_t i = 1; i < logits.size(); ++i)
    if (logits[i] > logits[best]) best = i;
  return static_cast<int32_t>(best);
}

Sampler::Sampler(const SamplingParams& params) : params_(params) {
  if (auto e = params.validate(); !e.empty()) throw std::invalid_argument(e);
  // splitmix64 of the seed gives a non-zero, well-mixed state even for seed 0.
  state_ = params.seed + 0x9E3779B97F4A7C15ull;
}

double Sampler::next_uniform() {
  // splitmix64: tiny, fast, and identical on every platform (std distributions are not).
  return static_cast<double>(modelgen::splitmix64(state_) >> 11) * 0x1.0p-53;
}

int32_t Sampler::sample(std::span<float> logits, std::span<const int32_t> history) {
  if (logits.empty()) throw std::invalid_argument("cannot sample from an empty logits vector");
  const auto vocab = static_cast<int32_t>(logits.size());

  if (params_.repeat_penalty != 1.f && params_.repeat_last_n > 0) {
    const size_t n = std::min(history.size(), static_cast<size_t>(params_.repeat_last_n));
    // Penalise each distinct token once, however often it repeats (CTRL-style penalty).
    std::vector<int32_t> seen(history.end() - static_cast<std::ptrdiff_t>(n), history.end());
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
    for (int32_t t : seen) {
      if (t < 0 || t >= vocab) continue;
      float& l = logits[static_cast<size_t>(t)];
      l = l > 0.f ? l / params_.repeat_penalty : l * params_.repeat_penalty;
    }
  }

  if (params_.temperature <= 0.f) return argmax(logits);

  candidates_.clear();
  candidates_.reserve(logits.size());
  for (int32_t i = 0; i < vocab; ++i) candidates_.push_back({logits[static_cast<size_t>(i)], i});
  auto by_logit = [](const Candidate& a, const Candidate& b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
  };
  size_t keep = candidates_.size();
  if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < keep) {
    keep = static_cast<size_t>(params_.top_k);
    std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(keep), candidates_.end(),
                      by_logit);
  } else {
    // Without top-k, min-p bounds the candidates before the full sort: p_i >= min_p * p_max is
    // logit_i >= max + T * ln(min_p). This keeps sampling over 128k logits cheap.
    if (params_.min_p > 0.f) {
      float mx = -INFINITY;
      for (const auto& c : candidates_) mx = std::max(mx, c.logit);
      const float floor = mx + params_.temperature * std::log(params_.min_p);
      auto end = std::remove_if(candidates_.begin(), candidates_.end(), [floor](const Candidate& c) { return c.logit < floor; });
      candidates_.erase(end, candidates_.end());
      keep = candidates_.size();
    }
    std::sort(candidates_.begin(), candidates_.end(), by_logit);
  }
  candidates_.resize(keep);

  // Softmax at temperature T, in double for a stable cumulative sum.
  probs_.resize(keep);
  const double inv_t = 1.0 / params_.temperature;
  const double mx = candidates_[0].logit;
  double sum = 0;
  for (size_t i = 0; i < keep; ++i) sum += probs_[i] = std::exp((candidates_[i].logit - mx) * inv_t);
  for (auto& p : probs_) p /= sum;

  // top-p: the smallest prefix (sorted by probability) whose mass reaches top_p.
  if (params_.top_p < 1.f) {
    double cum = 0;
    size_t n = 0;
    while (n < keep) {
      cum += probs_[n++];
      if (cum >= params_.top_p) break;
    }
    keep = n;
  }
  // min-p relative to the most likely token (probs_[0] is the largest).
  if (params_.min_p > 0.f) {
    const double floor = params_.min_p * probs_[0];
    size_t n = 1;
    while (n < keep && probs_[n] >= floor) ++n;
    keep = n;
  }

  double mass = 0;
  for (size_t i = 0; i < keep; ++i) mass += probs_[i];
  double r = next_uniform() * mass;
  for (size_t i = 0; i < keep; ++i) {
    r -= probs_[i];
    if (r < 0) return candidates_[i].id;
  }
  return candidates_[keep - 1].id;
}

}  // namespace trit
