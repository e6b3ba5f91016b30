#pragma once
// The LLaMA 3 pre-tokenizer: splits text into the pieces BPE then works on, with PCRE2 (UTF + UCP, JIT
// when the library has it). Pieces cover the text exactly, in order, without gaps.
#include <functional>
#include <string_view>

namespace trit {

class Pretokenizer {
 public:
  Pretokenizer();
  ~Pretokenizer();
  Pretokenizer(const Pretokenizer&) = delete;
  Pretokenizer& operator=(const Pretokenizer&) = delete;

  // Calls piece() for each piece of text, in order. The text must be valid UTF-8 (checked by the caller:
  // PCRE2 runs with PCRE2_NO_UTF_CHECK). Thread-safe. Throws TokenizerError if PCRE2 fails.
  void split(std::string_view text, const std::function<void(std::string_view)>& piece) const;

  // The pattern actually compiled (the spec's regex, with \s spelled out as Unicode White_Space).
  static const char* pattern();

 private:
  void* code_;  // pcre2_code_8*, kept opaque so PCRE2's header stays out of this one
};

}  // namespace trit
