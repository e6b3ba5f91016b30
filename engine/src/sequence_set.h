#pragma once
// Several single-sequence forward passes as one with a sequence each (Forward::sequences): how a backend
// whose cache holds one sequence (the CPU reference) serves several streams. decode_batch evaluates the
// entries one after another, each on its own pass, so a row never depends on the others.
#include <memory>
#include <vector>

#include "trit/forward.h"

namespace trit {

class SequenceSet final : public Forward {
 public:
  // Every pass must have the same context length and vocabulary (std::invalid_argument otherwise).
  explicit SequenceSet(std::vector<std::unique_ptr<Forward>> each);

  void eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) override {
    eval_sequence(0, tokens, pos, logits, all_logits);
  }
  void eval_sequence(int32_t seq, std::span<const int32_t> tokens, int32_t pos, std::span<float> logits,
                     bool all_logits) override;
  int32_t context_length() const override { return each_.front()->context_length(); }
  int32_t vocab_size() const override { return each_.front()->vocab_size(); }
  int32_t prefill_block() const override { return each_.front()->prefill_block(); }
  int32_t sequences() const override { return static_cast<int32_t>(each_.size()); }
  int32_t cached_positions(int32_t seq) const override;

 private:
  Forward& at(int32_t seq) const;
  std::vector<std::unique_ptr<Forward>> each_;
};

}  // namespace trit
