#include <trit/sampler.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "modelgen/rng.h"

namespace trit {

namespace {

// A candidate whose scaled logit x = (logit - max) / T is below this has the softmax term
// exp(x) < 1.2e-17: less than half a rounding step (2^-54 = 5.6e-17) of every double sum sample() adds it
// to, the normaliser (at least 1: the top candidate's own term is exp(0)) and the kept mass (within
// 1e-11 of 1 wherever such a term is reached). Adding it changes neither sum by a bit, so these
// candidates, often most of a 128k vocabulary, need no sorting and no exp() unless a min-p cut or the
// draw itself reaches them (the draw does only for a uniform within about 1e-12 of 1).
constexpr double kNegligible = -39.0;

// Below this many keys a comparison sort beats three radix passes.
constexpr size_t kRadixMin = 2048;
// Top-k up to this many takes sample_sorted() as it is: a heap of k over the logits, no full sort, and
// one pass cheaper than the filter of the fast path.
constexpr size_t kFewBest = 1024;

// An unsigned key whose ascending order is descending logit order (finite and infinite logits only).
// -0 and +0 share a key because they compare equal: equal keys are exactly equal logits.
uint32_t descending_key(float logit) {
  uint32_t bits = std::bit_cast<uint32_t>(logit);
  if (bits == 0x80000000u) bits = 0;
  return (bits & 0x80000000u) ? bits : ~(bits | 0x80000000u);
}

// The logit of a key (+0 for a zero of either sign: both give every softmax term the same value).
float key_logit(uint32_t key) {
  return std::bit_cast<float>((key & 0x80000000u) ? key : ~key & 0x7FFFFFFFu);
}

}  // namespace

std::string SamplingParams::validate() const {
  std::ostringstream err;
  if (!std::isfinite(temperature) || temperature < 0.f)
    err << "temperature must be >= 0 (got " << temperature << ")";
  else if (top_k < 0)
    err << "top-k must be >= 0 (got " << top_k << ")";
  else if (!(top_p > 0.f && top_p <= 1.f))
    err << "top-p must be in (0, 1] (got " << top_p << ")";
  else if (!(min_p >= 0.f && min_p < 1.f))
    err << "min-p must be in [0, 1) (got " << min_p << ")";
  else if (!(repeat_penalty > 0.f) || !std::isfinite(repeat_penalty))
    err << "repetition penalty must be > 0 (got " << repeat_penalty << ")";
  else if (repeat_last_n < 0)
    err << "repetition window must be >= 0 (got " << repeat_last_n << ")";
  return err.str();
}

// The same index as `best = i wherever values[i] > values[best]`: the first index of the largest value
// that is a number (a NaN never compares greater), or 0 where values[0] is NaN (nothing compares greater
// than it). In two passes, because that loop waits on its own load at every element (about 1.5 ns an
// element: a batched step's host greedy took 0.2 ms a row of 128K logits): the maximum over four
// independent lanes, then the first index holding it (+0 and -0 compare equal, as in the loop).
int32_t argmax(std::span<const float> values) {
  if (values.empty()) throw std::invalid_argument("argmax of an empty logits vector");
  const size_t n = values.size();
  float m[4] = {values[0], values[0], values[0], values[0]};
  size_t i = 1;
  for (; i + 4 <= n; i += 4)
    for (size_t l = 0; l < 4; ++l) m[l] = values[i + l] > m[l] ? values[i + l] : m[l];
  for (; i < n; ++i) m[0] = values[i] > m[0] ? values[i] : m[0];
  const float top = std::max(std::max(m[0], m[1]), std::max(m[2], m[3]));
  for (size_t k = 0; k < n; ++k)
    if (values[k] == top) return static_cast<int32_t>(k);
  return 0;  // top is NaN: values[0] is, and every lane kept it
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

void Sampler::sort_keys(size_t n) {
  if (n < kRadixMin) {
    std::sort(keys_.begin(), keys_.begin() + static_cast<std::ptrdiff_t>(n));
    return;
  }
  // LSD radix sort, digits of 11, 11 and 10 bits.
  constexpr int kBits = 11;
  constexpr uint32_t kMask = (1u << kBits) - 1;
  std::array<std::array<uint32_t, kMask + 1>, 3> count{};
  for (size_t i = 0; i < n; ++i) {
    const uint32_t k = keys_[i];
    ++count[0][k & kMask];
    ++count[1][(k >> kBits) & kMask];
    ++count[2][k >> (2 * kBits)];
  }
  uint32_t* src = keys_.data();
  uint32_t* dst = key_scratch_.data();
  for (int d = 0; d < 3; ++d) {
    auto& c = count[static_cast<size_t>(d)];
    const int shift = d * kBits;
    // Logits close to each other often share the upper digits: such a pass would move nothing.
    if (c[(src[0] >> shift) & kMask] == n) continue;
    uint32_t start = 0;
    for (auto& slot : c) {
      const uint32_t size = slot;
      slot = start;
      start += size;
    }
    for (size_t i = 0; i < n; ++i) dst[c[(src[i] >> shift) & kMask]++] = src[i];
    std::swap(src, dst);
  }
  if (src != keys_.data()) keys_.swap(key_scratch_);  // equal sizes: the swap keeps both whole
}

int32_t Sampler::sample(std::span<float> logits, std::span<const int32_t> history) {
  return choose(logits, history, nullptr);
}

int32_t Sampler::sample_with_uniform(std::span<float> logits, std::span<const int32_t> history, double uniform) {
  if (!(uniform >= 0.0 && uniform < 1.0)) {
    std::ostringstream err;
    err << "sampling uniform must be in [0, 1) (got " << uniform << ")";
    throw std::invalid_argument(err.str());
  }
  return choose(logits, history, &uniform);
}

std::span<const int32_t> Sampler::penalised_tokens(std::span<const int32_t> history, int32_t vocab) {
  seen_.clear();
  if (params_.repeat_penalty == 1.f || params_.repeat_last_n <= 0) return {};
  const size_t n = std::min(history.size(), static_cast<size_t>(params_.repeat_last_n));
  // Each distinct token once, however often it repeats (CTRL-style penalty).
  seen_.assign(history.end() - static_cast<std::ptrdiff_t>(n), history.end());
  std::sort(seen_.begin(), seen_.end());
  seen_.erase(std::unique(seen_.begin(), seen_.end()), seen_.end());
  std::erase_if(seen_, [&](int32_t t) { return t < 0 || t >= vocab; });
  return seen_;
}

int32_t Sampler::choose(std::span<float> logits, std::span<const int32_t> history, const double* uniform) {
  if (logits.empty()) throw std::invalid_argument("cannot sample from an empty logits vector");
  const auto vocab = static_cast<int32_t>(logits.size());

  for (int32_t t : penalised_tokens(history, vocab)) {
    float& l = logits[static_cast<size_t>(t)];
    l = repeat_penalised(l, params_.repeat_penalty);
  }

  if (params_.temperature <= 0.f) return argmax(logits);

  if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) <= kFewBest) return sample_sorted(logits, uniform);

  // What follows picks the token sample_sorted() picks, bit for bit, without sorting the whole
  // vocabulary. Only the candidates whose softmax terms can change a sum are sorted (see kNegligible),
  // the rest only if a cut or the draw reaches them; and what is sorted is the logit values alone (as
  // keys): sample_sorted() breaks ties by id, so the candidate drawn is the rank-th, in id order, of
  // those sharing its logit, and one scan of the logits names it.

  // The maximum in four independent lanes (one running maximum would wait on itself every element).
  const size_t n = logits.size();
  float t0 = -INFINITY, t1 = -INFINITY, t2 = -INFINITY, t3 = -INFINITY;
  bool nan = false;
  size_t i4 = 0;
  for (; i4 + 4 <= n; i4 += 4) {
    const float a = logits[i4], b = logits[i4 + 1], c = logits[i4 + 2], d = logits[i4 + 3];
    nan |= (a != a) | (b != b) | (c != c) | (d != d);
    t0 = a > t0 ? a : t0;
    t1 = b > t1 ? b : t1;
    t2 = c > t2 ? c : t2;
    t3 = d > t3 ? d : t3;
  }
  for (; i4 < n; ++i4) {
    nan |= logits[i4] != logits[i4];
    t0 = logits[i4] > t0 ? logits[i4] : t0;
  }
  const float top = std::max(std::max(t0, t1), std::max(t2, t3));
  if (nan || !std::isfinite(top)) return sample_sorted(logits, uniform);

  keys_.resize(n);
  key_scratch_.resize(n);
  probs_.resize(n);
  const double inv_t = 1.0 / params_.temperature;
  const double top_d = top;
  const bool top_k = params_.top_k > 0 && static_cast<size_t>(params_.top_k) < n;
  // Without top-k, min-p bounds the candidates before the sort exactly as in sample_sorted(); the
  // floor never exceeds the maximum, so the top candidate always stays.
  const float floor = !top_k && params_.min_p > 0.f ? top + params_.temperature * std::log(params_.min_p) : -INFINITY;
  const auto negligible = [&](float l) { return (l - top_d) * inv_t < kNegligible; };

  // keys_[0, head) sorted: the best of the candidates sample_sorted() keeps before top-p and min-p
  // (`kept` of them), at least all of those whose terms count.
  size_t head = 0, beyond = 0;  // beyond: candidates above the floor left out of the head
  for (size_t i = 0; i < n; ++i) {
    const float l = logits[i];
    if (l < floor) continue;
    const bool counts = !negligible(l);
    keys_[head] = descending_key(l);
    head += counts;
    beyond += !counts;
  }
  const size_t kept = top_k ? static_cast<size_t>(params_.top_k) : head + beyond;
  if (head > kept) {  // top-k within the head
    const auto first = keys_.begin();
    std::nth_element(first, first + static_cast<std::ptrdiff_t>(kept), first + static_cast<std::ptrdiff_t>(head));
    head = kept;
  }
  sort_keys(head);

  // Softmax at temperature T, in double, summed over the sorted head as sample_sorted() sums over all.
  const double mx = key_logit(keys_[0]);
  // Equal logits have equal terms: one exp() per value (ties are common in quantised logits).
  double term = 0;
  for (size_t i = 0; i < head; ++i) {
    if (i == 0 || keys_[i] != keys_[i - 1]) term = std::exp((key_logit(keys_[i]) - mx) * inv_t);
    probs_[i] = term;
  }
  double sum = 0;  // its own loop: the running sum stays in a register instead of waiting on exp()
  for (size_t i = 0; i < head; ++i) sum += probs_[i];
  for (size_t i = 0; i < head; ++i) probs_[i] /= sum;

  // keys_[0, ready) are sorted with their probabilities. Sorts the rest of the kept candidates (for
  // top-k only the best of them) once a loop below reaches past the head.
  size_t ready = head;
  auto complete = [&] {
    if (ready == kept) return;
    size_t m = head;
    for (size_t i = 0; i < n; ++i) {
      const float l = logits[i];
      if (!(l < floor) && negligible(l)) keys_[m++] = descending_key(l);
    }
    const auto first = keys_.begin() + static_cast<std::ptrdiff_t>(head);
    std::partial_sort(first, first + static_cast<std::ptrdiff_t>(kept - head),
                      keys_.begin() + static_cast<std::ptrdiff_t>(m));
    for (size_t i = head; i < kept; ++i) probs_[i] = std::exp((key_logit(keys_[i]) - mx) * inv_t) / sum;
    ready = kept;
  };
  auto prob = [&](size_t i) {
    if (i >= ready) complete();
    return probs_[i];
  };
  // The id of the i-th candidate in sample_sorted()'s order.
  auto id_at = [&](size_t i) {
    if (i >= ready) complete();
    const uint32_t key = keys_[i];
    size_t rank = 0;  // among the candidates with this logit, which are ordered by id
    while (rank < i && keys_[i - rank - 1] == key) ++rank;
    const float value = key_logit(key);
    for (size_t id = 0; id < n; ++id)
      if (logits[id] == value && rank-- == 0) return static_cast<int32_t>(id);
    throw std::logic_error("sampler: a sorted candidate's logit is missing from the logits");
  };

  // top-p: the smallest prefix (sorted by probability) whose mass reaches top_p.
  size_t keep = kept;
  if (params_.top_p < 1.f) {
    double cum = 0;
    size_t c = 0;
    while (c < keep) {
      cum += prob(c++);
      if (cum >= params_.top_p) break;
    }
    keep = c;
  }
  // min-p relative to the most likely token (probs_[0] is the largest).
  if (params_.min_p > 0.f) {
    const double min_prob = params_.min_p * probs_[0];
    size_t c = 1;
    while (c < keep && prob(c) >= min_prob) ++c;
    keep = c;
  }

  double mass = 0;
  for (size_t i = 0; i < std::min(keep, ready); ++i) mass += probs_[i];
  // Kept candidates past the head add nothing to a mass of 0.5 or more (see kNegligible).
  if (keep > ready && !(mass >= 0.5)) {
    const size_t from = ready;
    complete();
    for (size_t i = from; i < keep; ++i) mass += probs_[i];
  }
  double r = (uniform ? *uniform : next_uniform()) * mass;
  for (size_t i = 0; i < keep; ++i) {
    r -= prob(i);
    if (r < 0) return id_at(i);
  }
  return id_at(keep - 1);
}

int32_t Sampler::sample_sorted(std::span<const float> logits, const double* uniform) {
  const auto vocab = static_cast<int32_t>(logits.size());
  candidates_.clear();
  candidates_.reserve(logits.size());
  for (int32_t i = 0; i < vocab; ++i) candidates_.push_back({logits[static_cast<size_t>(i)], i});
  size_t keep = candidates_.size();
  if (params_.top_k > 0 && static_cast<size_t>(params_.top_k) < keep) {
    keep = static_cast<size_t>(params_.top_k);
    std::partial_sort(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(keep), candidates_.end(),
                      TopLogit::before);
  } else {
    // Without top-k, min-p bounds the candidates before the full sort: p_i >= min_p * p_max is
    // logit_i >= max + T * ln(min_p).
    if (params_.min_p > 0.f) {
      float mx = -INFINITY;
      for (const auto& c : candidates_) mx = std::max(mx, c.logit);
      const float floor = mx + params_.temperature * std::log(params_.min_p);
      auto end = std::remove_if(candidates_.begin(), candidates_.end(),
                                [floor](const Candidate& c) { return c.logit < floor; });
      candidates_.erase(end, candidates_.end());
      keep = candidates_.size();
    }
    std::sort(candidates_.begin(), candidates_.end(), TopLogit::before);
  }
  candidates_.resize(keep);
  return draw_sorted(uniform);
}

bool Sampler::samples_from_top(int32_t vocab) const {
  return params_.temperature > 0.f && params_.top_k > 0 && params_.top_k <= few_best() && params_.top_k < vocab;
}

int32_t Sampler::few_best() {
  return static_cast<int32_t>(kFewBest);
}

int32_t Sampler::sample_top(std::span<const TopLogit> top, int32_t vocab) {
  if (!samples_from_top(vocab) || top.size() != static_cast<size_t>(params_.top_k)) {
    std::ostringstream err;
    err << "sample_top: " << top.size() << " candidates for top-k " << params_.top_k << " at temperature "
        << params_.temperature << " over " << vocab << " logits (needs top-k in 1.." << kFewBest
        << ", below the vocabulary, a temperature above 0 and exactly top-k candidates)";
    throw std::invalid_argument(err.str());
  }
  candidates_.assign(top.begin(), top.end());
  return draw_sorted(nullptr);
}

int32_t Sampler::draw_sorted(const double* uniform) {
  size_t keep = candidates_.size();
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
  double r = (uniform ? *uniform : next_uniform()) * mass;
  for (size_t i = 0; i < keep; ++i) {
    r -= probs_[i];
    if (r < 0) return candidates_[i].id;
  }
  return candidates_[keep - 1].id;
}

}  // namespace trit
