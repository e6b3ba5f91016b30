#pragma once
// A reply as its tokens come, whoever chooses them: the text in whole UTF-8 characters, the end of turn
// (EOS/EOT and the chat format's stop tokens), stop strings (cut off, never shown in part: text that may
// still become one is held back), max_tokens and the context limit. The one copy of these rules, for
// Session::generate and for the server's streams that decode together in batched steps.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "trit/session.h"
#include "trit/tokenizer.h"

namespace trit {

class StopMatcher;

class Reply {
 public:
  using Clock = std::chrono::steady_clock;
  // result receives the tokens, text, reason and the time to the first token (from `start`); options'
  // callbacks (on_token, on_text) are called as tokens are accepted. Both must outlive the Reply.
  Reply(const Tokenizer& tokenizer, const GenerateOptions& options, GenerateResult& result, Clock::time_point start);
  ~Reply();

  // Takes the next sampled token into the reply; false when the reply ends with it (the reason is set:
  // Stop for an end of turn or a stop string, Length at max_tokens, ContextFull when `cache_full`, i.e.
  // the sequence has no position left for this token to be consumed at).
  bool accept(int32_t token, bool cache_full);
  // The end: text still held back is shown (unless a stop string ended the reply). Call once.
  void finish();
  // When the first token came (valid once one was accepted).
  Clock::time_point first_token_time() const { return first_; }

 private:
  void emit_upto(size_t end);

  const Tokenizer& tokenizer_;
  const GenerateOptions& options_;
  GenerateResult& result_;
  StreamingDecoder decoder_;
  std::unique_ptr<StopMatcher> stops_;  // options' stop strings (null without any)
  Clock::time_point start_, first_{};
  size_t emitted_ = 0;  // bytes of result_.text already passed to on_text
  bool stopped_on_string_ = false;
};

}  // namespace trit
