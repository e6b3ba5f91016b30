#pragma once
// A scripted forward pass for scheduler tests: always the same token, a couple of milliseconds a call
// (so a job is still running when a test looks), positions counted as eval writes them.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <span>
#include <thread>

#include "trit/forward.h"

namespace trit::test {

class SlowForward : public trit::Forward {
 public:
  SlowForward(int32_t vocab, int32_t token, int32_t context = 4096) : vocab_(vocab), token_(token), context_(context) {}
  void eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool) override {
    filled_ = pos + static_cast<int32_t>(tokens.size());
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    std::fill(logits.begin(), logits.end(), 0.f);
    logits[static_cast<size_t>(token_)] = 10.f;
  }
  int32_t context_length() const override { return context_; }
  int32_t vocab_size() const override { return vocab_; }
  int32_t cached_positions(int32_t) const override { return filled_; }

 private:
  int32_t vocab_, token_, context_;
  int32_t filled_ = 0;
};

}  // namespace trit::test
