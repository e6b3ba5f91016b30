#include "tokenizer/pretokenizer.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <memory>
#include <string>

#include "trit/tokenizer.h"

namespace trit {
namespace {

// The LLaMA 3 split regex of the spec:
//   (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
// with \s written out as the Unicode White_Space property, which is what the reference implementations
// (Hugging Face tokenizers, tiktoken, llama.cpp) mean by it. PCRE2's own \s under UCP also takes U+180E
// (MONGOLIAN VOWEL SEPARATOR, no longer a space since Unicode 6.3), which would split differently.
// The contractions are spelled with explicit ASCII case pairs: PCRE2's (?i) in UTF mode would also let
// U+017F (LATIN SMALL LETTER LONG S) match "s", which llama.cpp and transformers do not.
#define TRIT_WS \
  "\\t\\n\\x{0B}\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}"
constexpr const char* kPattern =
    "'(?:[sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])"
    "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+"
    "|\\p{N}{1,3}"
    "| ?[^" TRIT_WS
    "\\p{L}\\p{N}]+[\\r\\n]*"
    "|[" TRIT_WS
    "]*[\\r\\n]+"
    "|[" TRIT_WS "]+(?![^" TRIT_WS
    "])"
    "|[" TRIT_WS "]+";
#undef TRIT_WS

std::string pcre2_message(int code) {
  PCRE2_UCHAR buf[256];
  int n = pcre2_get_error_message(code, buf, sizeof buf);
  return n < 0 ? "PCRE2 error " + std::to_string(code) : std::string(reinterpret_cast<const char*>(buf));
}

struct MatchDataDeleter {
  void operator()(pcre2_match_data* md) const { pcre2_match_data_free(md); }
};

// Bytes of the UTF-8 character starting with lead byte b (text is known to be valid).
size_t char_length(unsigned char b) {
  return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
}

}  // namespace

const char* Pretokenizer::pattern() {
  return kPattern;
}

Pretokenizer::Pretokenizer() {
  int err = 0;
  PCRE2_SIZE err_offset = 0;
  pcre2_code* code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(kPattern), PCRE2_ZERO_TERMINATED, PCRE2_UTF | PCRE2_UCP,
                                   &err, &err_offset, nullptr);
  if (!code)
    throw TokenizerError("cannot compile the pre-tokenizer regex at offset " + std::to_string(err_offset) + ": " +
                         pcre2_message(err));
  // JIT is a large speed-up where PCRE2 was built with it; the interpreter gives the same matches.
  (void)pcre2_jit_compile(code, PCRE2_JIT_COMPLETE);
  code_ = code;
}

Pretokenizer::~Pretokenizer() {
  pcre2_code_free(static_cast<pcre2_code*>(code_));
}

void Pretokenizer::split(std::string_view text, const std::function<void(std::string_view)>& piece) const {
  auto* code = static_cast<pcre2_code*>(code_);
  // One match block per thread, sized for this pattern; encode() may run on several threads at once.
  thread_local std::unique_ptr<pcre2_match_data, MatchDataDeleter> md{pcre2_match_data_create(4, nullptr)};
  const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
  const size_t n = text.size();
  size_t pos = 0;
  while (pos < n) {
    int rc = pcre2_match(code, subject, n, pos, PCRE2_NO_UTF_CHECK, md.get(), nullptr);
    if (rc == PCRE2_ERROR_NOMATCH) {  // cannot happen with this pattern (it covers every character)
      piece(text.substr(pos));
      return;
    }
    if (rc < 0)
      throw TokenizerError("pre-tokenizer regex failed at byte " + std::to_string(pos) + ": " + pcre2_message(rc));
    const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md.get());
    size_t start = ov[0], end = ov[1];
    if (start > pos) piece(text.substr(pos, start - pos));  // text no alternative matched stays one piece
    if (end <= start) {  // never empty (this pattern has no empty match; a guard against a loop)
      if (start >= n) return;
      end = start + char_length(static_cast<unsigned char>(text[start]));
    }
    piece(text.substr(start, end - start));
    pos = end;
  }
}

}  // namespace trit
