#pragma once
// Choosing the next token from logits: greedy, or temperature with top-k, top-p, min-p and a
// repetition penalty, reproducible from a seed.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace trit {

struct SamplingParams {
  float temperature = 0.6f;     // <= 0 means greedy (argmax); defaults suit BitNet 2B4T chat
  int32_t top_k = 40;           // keep the k most likely tokens; 0 disables
  float top_p = 0.95f;          // nucleus: smallest set whose probability reaches p; 1 disables
  float min_p = 0.05f;          // drop tokens below min_p * p(most likely); 0 disables
  float repeat_penalty = 1.1f;  // >1 discourages tokens seen in the last repeat_last_n; 1 disables
  int32_t repeat_last_n = 64;   // window for the repetition penalty
  uint64_t seed = 0;            // same seed, same logits, same choices

  // Empty when valid, else a sentence naming the bad value.
  std::string validate() const;
  // Whether the choice is the logits' argmax (trit::argmax): greedy with no penalty that applies.
  bool plain_greedy() const { return temperature <= 0.f && (repeat_penalty == 1.f || repeat_last_n == 0); }
};

// A logit and its token, in the order sampling ranks candidates: the higher logit first, equal logits by
// the lower id (-0 and +0 alike). The GPU samplers (vulkan/gpu_sampler.h, argmax_rows.comp) order theirs
// the same way, and the tests hold them to it.
struct TopLogit {
  float logit = 0.f;
  int32_t id = 0;
  static bool before(const TopLogit& a, const TopLogit& b) {
    return a.logit > b.logit || (a.logit == b.logit && a.id < b.id);
  }
};

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);

  // Picks a token. `logits` is modified (penalties applied). `history` is the context so far (only
  // its last repeat_last_n tokens are penalised). Order: repetition penalty, top-k, temperature,
  // softmax, top-p, min-p, then one draw from the renormalised distribution.
  int32_t sample(std::span<float> logits, std::span<const int32_t> history);

  // sample() drawing with `uniform` (in [0, 1)) instead of the next value of the seed's stream, which
  // stays untouched. Tests use it to reach the extremes of the draw (the largest uniform lands on the
  // least likely kept candidates); a caller with its own random stream can use it too.
  int32_t sample_with_uniform(std::span<float> logits, std::span<const int32_t> history, double uniform);

  // sample() of a row of more than top_k logits with no NaN, from its top_k best after the penalty
  // alone (`top`: exactly those, in TopLogit::before order), where 0 < top_k <= few_best(): the same
  // token, drawing the same uniform. Throws std::invalid_argument where these do not hold (checkable
  // here: the sampling, top_k, the size of `top` and vocab).
  int32_t sample_top(std::span<const TopLogit> top, int32_t vocab);
  // Whether sample_top() can stand for sample() with these settings and vocabulary.
  bool samples_from_top(int32_t vocab) const;
  // The largest top_k for which sample() sorts its best top_k only (and sample_top() applies).
  static int32_t few_best();

  const SamplingParams& params() const { return params_; }

  // The uniform in [0, 1) that the next sample() with temperature > 0 would use, consuming it exactly as
  // sample() does (greedy sampling draws none). The GPU sampler (vulkan/gpu_sampler.h) takes its draw
  // from here, so a session that mixes GPU and CPU sampling keeps one random stream.
  double draw_uniform() { return next_uniform(); }

  // The tokens sample() penalises after `history`: the distinct ones among its last repeat_last_n
  // inside [0, vocab), ascending; empty with the penalty off. Valid until the next call on this sampler.
  std::span<const int32_t> penalised_tokens(std::span<const int32_t> history, int32_t vocab);

 private:
  double next_uniform();  // [0, 1), platform-independent
  SamplingParams params_;
  uint64_t state_;
  using Candidate = TopLogit;
  std::vector<Candidate> candidates_;  // reused between calls: no per-token allocation
  std::vector<double> probs_;
  // The fast path sorts order keys of logit values only (sampler.cpp, descending_key): equal logits
  // are told apart by id at the end, for the one candidate drawn.
  std::vector<uint32_t> keys_;
  std::vector<uint32_t> key_scratch_;  // the radix sort's second buffer
  std::vector<int32_t> seen_;          // distinct tokens of the repetition window

  // The definition of sample() after the penalty, sorting every candidate (but only the best top_k
  // where top-k is on). sample() takes it for a top-k of at most 1024 (already fast) and for logits
  // with a NaN or no finite maximum, where the fast path's bounds do not hold.
  int32_t sample_sorted(std::span<const float> logits, const double* uniform);
  // sample_sorted() after its sort: softmax, top-p, min-p and the draw over candidates_ (sorted, cut).
  int32_t draw_sorted(const double* uniform);
  // sample() with the draw's uniform given, or taken from the stream where `uniform` is null.
  int32_t choose(std::span<float> logits, std::span<const int32_t> history, const double* uniform);
  // Sorts the first n keys_ ascending (highest logit first).
  void sort_keys(size_t n);
};

// Index of the largest value; the lowest index wins ties (matches the GPU argmax).
int32_t argmax(std::span<const float> logits);

// A penalised token's logit under the repetition penalty p, as sample() computes it: l / p for a
// positive logit, l * p otherwise.
inline float repeat_penalised(float logit, float p) {
  return logit > 0.f ? logit / p : logit * p;
}

}  // namespace trit
