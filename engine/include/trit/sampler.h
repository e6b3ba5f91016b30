#pragma once
// Choosing the next token from logits: greedy, or temperature with top-k, top-p, min-p and a
// repetition penalty, reproducible from a seed.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace trit {

struct SamplingParams {
  float temperature = 0.6f;      // <= 0 means greedy (argmax); defaults suit BitNet 2B4T chat
  int32_t top_k = 40;            // keep the k most likely tokens; 0 disables
  float top_p = 0.95f;           // nucleus: smallest set whose probability reaches p; 1 disables
  float min_p = 0.05f;           // drop tokens below min_p * p(most likely); 0 disables
  float repeat_penalty = 1.1f;   // >1 discourages tokens seen in the last repeat_last_n; 1 disables
  int32_t repeat_last_n = 64;    // window for the repetition penalty
  uint64_t seed = 0;             // same seed, same logits, same choices

  // Empty when valid, else a sentence naming the bad value.
  std::string validate() const;
};

class Sampler {
 public:
  explicit Sampler(const SamplingParams& params);

  // Picks a token. `logits` is modified (penalties applied). `history` is the context so far (only
  // its last repeat_last_n tokens are penalised). Order: repetition penalty, top-k, temperature,
  // softmax, top-p, min-p, then one draw from the renormalised distribution.
  int32_t sample(std::span<float> logits, std::span<const int32_t> history);

  const SamplingParams& params() const { return params_; }

  // The uniform in [0, 1) that the next sample() with temperature > 0 would use, consuming it exactly as
  // sample() does (greedy sampling draws none). The GPU sampler (vulkan/gpu_sampler.h) takes its draw
  // from here, so a session that mixes GPU and CPU sampling keeps one random stream.
  double draw_uniform() { return next_uniform(); }

 private:
  double next_uniform();  // [0, 1), platform-independent
  SamplingParams params_;
  uint64_t state_;
  struct Candidate {
    float logit;
    int32_t id;
  };
  std::vector<Candidate> candidates_;  // reused between calls: no per-token allocation
  std::vector<double> probs_;
};

// Index of the largest value; the lowest index wins ties (matches the GPU argmax).
int32_t argmax(std::span<const float> logits);

}  // namespace trit
