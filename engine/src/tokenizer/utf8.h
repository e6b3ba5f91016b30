#pragma once
// UTF-8 well-formedness, one sequence at a time (Unicode 15, table 3-7 "Well-Formed UTF-8 Byte Sequences").
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace trit::utf8 {

enum class Step { kValid, kInvalid, kIncomplete };

struct StepResult {
  Step step;
  // kValid: bytes of the character. kInvalid: bytes of the maximal ill-formed subpart (>= 1), each such
  // subpart is replaced by one U+FFFD. kIncomplete: all n bytes are a proper prefix of a valid sequence.
  size_t length;
};

// Classifies the sequence starting at p (n > 0 bytes available).
StepResult step(const uint8_t* p, size_t n);

// Appends text to out with ill-formed subparts replaced by U+FFFD. If hold_incomplete, a trailing
// incomplete sequence is not consumed; returns the number of bytes consumed.
size_t append_sanitized(std::string_view text, std::string& out, bool hold_incomplete);

inline constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace trit::utf8
