#include "sequence_set.h"

#include <stdexcept>
#include <string>

namespace trit {

SequenceSet::SequenceSet(std::vector<std::unique_ptr<Forward>> each) : each_(std::move(each)) {
  if (each_.empty()) throw std::invalid_argument("SequenceSet: no forward passes");
  for (const auto& f : each_) {
    if (!f) throw std::invalid_argument("SequenceSet: a null forward pass");
    if (f->context_length() != each_.front()->context_length() || f->vocab_size() != each_.front()->vocab_size())
      throw std::invalid_argument("SequenceSet: the passes differ in context length or vocabulary");
  }
}

Forward& SequenceSet::at(int32_t seq) const {
  if (seq < 0 || seq >= sequences())
    throw std::out_of_range("sequence " + std::to_string(seq) + " is outside [0, " + std::to_string(sequences()) + ")");
  return *each_[static_cast<size_t>(seq)];
}

void SequenceSet::eval_sequence(int32_t seq, std::span<const int32_t> tokens, int32_t pos, std::span<float> logits,
                                bool all_logits) {
  at(seq).eval(tokens, pos, logits, all_logits);
}

int32_t SequenceSet::cached_positions(int32_t seq) const {
  return at(seq).cached_positions(0);
}

}  // namespace trit
