#include "tokenizer/utf8.h"

#include "trit/tokenizer.h"

namespace trit::utf8 {

StepResult step(const uint8_t* p, size_t n) {
  const uint8_t b0 = p[0];
  if (b0 < 0x80) return {Step::kValid, 1};
  size_t len = 0;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    len = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    len = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    len = 4;
    if (b0 == 0xF0) lo = 0x90;  // no overlong forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {Step::kInvalid, 1};  // C0, C1, F5..FF, or a stray continuation byte
  }
  for (size_t i = 1; i < len; ++i) {
    if (i >= n) return {Step::kIncomplete, n};
    const uint8_t b = p[i];
    const bool ok = i == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    if (!ok) return {Step::kInvalid, i};  // the valid prefix so far is one maximal subpart
  }
  return {Step::kValid, len};
}

size_t append_sanitized(std::string_view text, std::string& out, bool hold_incomplete) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const size_t n = text.size();
  size_t i = 0, run = 0;  // [run, i) is valid text not yet copied
  while (i < n) {
    if (p[i] < 0x80) {  // fast path for ASCII
      ++i;
      continue;
    }
    StepResult r = step(p + i, n - i);
    if (r.step == Step::kValid) {
      i += r.length;
      continue;
    }
    out.append(text.substr(run, i - run));
    if (r.step == Step::kIncomplete && hold_incomplete) return i;
    out.append(kReplacement);
    i += r.length;
    run = i;
  }
  out.append(text.substr(run, i - run));
  return n;
}

}  // namespace trit::utf8

namespace trit {

std::optional<size_t> find_invalid_utf8(std::string_view text) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  for (size_t i = 0; i < text.size();) {
    if (p[i] < 0x80) {
      ++i;
      continue;
    }
    auto r = utf8::step(p + i, text.size() - i);
    if (r.step != utf8::Step::kValid) return i;
    i += r.length;
  }
  return std::nullopt;
}

std::string sanitize_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  utf8::append_sanitized(text, out, false);
  return out;
}

}  // namespace trit
