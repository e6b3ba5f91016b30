// libFuzzer target: the tokenizer on arbitrary bytes, with the real LLaMA 3 vocabulary
// (TRIT_FUZZ_TOKENIZER names its tokenizer.json). Built with clang (tests/fuzz/fuzz_targets.cmake), run
// for a bounded time as the CTest test tokenizer_fuzz. Besides crashes and sanitizer reports it checks
// what the tokenizer promises (trit/tokenizer.h):
// - encode() takes valid UTF-8 and rejects anything else with a TokenizerError at the first bad byte;
// - decode(encode(text)) == text, with and without special tokens (byte-level BPE loses nothing);
// - the streaming decoder's pieces add up to decode() of the same ids, for any ids of the vocabulary;
// - decode() of any id list returns valid UTF-8 or a TokenizerError for an id outside the vocabulary;
// - sanitize_utf8() returns valid UTF-8 and leaves valid text as it was.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trit/tokenizer.h"

namespace {

std::unique_ptr<trit::Tokenizer> g_tok;

[[noreturn]] void fail(const char* what, std::string_view input) {
  std::fprintf(stderr, "tokenizer_fuzz: %s (input of %zu bytes)\n", what, input.size());
  std::abort();
}

void check_roundtrip(const trit::Tokenizer& tok, std::string_view text, bool special) {
  const auto ids = tok.encode(text, special);
  for (const int32_t id : ids)
    if (id < 0 || id >= tok.vocab_size()) fail("encode produced an id outside the vocabulary", text);
  if (!special) {
    // Without special tokens, text that spells one ("<|eot_id|>") must stay ordinary text.
    for (const int32_t id : ids)
      if (tok.is_control(id)) fail("encode without special tokens produced a control token", text);
  }
  const std::string back = tok.decode(ids);
  if (back != text) fail("decode(encode(text)) differs from the text", text);
  trit::StreamingDecoder stream(tok);
  std::string pieces;
  for (const int32_t id : ids) pieces += stream.push(id);
  pieces += stream.flush();
  if (pieces != back) fail("the streaming decoder's pieces differ from decode()", text);
}

// The bytes as token ids (two bytes each, so most land inside the 128,256-token vocabulary and some
// outside it): decode and the streaming decoder must agree, and return valid UTF-8.
void check_ids(const trit::Tokenizer& tok, std::string_view bytes) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i + 1 < bytes.size() && ids.size() < 256; i += 2)
    ids.push_back(
        static_cast<int32_t>((static_cast<uint8_t>(bytes[i]) << 9) | (static_cast<uint8_t>(bytes[i + 1]) << 1)) - 1024);
  std::string whole;
  try {
    whole = tok.decode(ids);
  } catch (const trit::TokenizerError&) {
    for (const int32_t id : ids)
      if (id < 0 || id >= tok.vocab_size()) return;  // rejected for a reason
    fail("decode rejected ids that are all inside the vocabulary", bytes);
  }
  for (const int32_t id : ids)
    if (id < 0 || id >= tok.vocab_size()) fail("decode accepted an id outside the vocabulary", bytes);
  if (trit::find_invalid_utf8(whole)) fail("decode returned invalid UTF-8", bytes);
  trit::StreamingDecoder stream(tok);
  std::string pieces;
  for (const int32_t id : ids) pieces += stream.push(id);
  pieces += stream.flush();
  if (pieces != whole) fail("the streaming decoder's pieces differ from decode() of the same ids", bytes);
  const std::string skipped = tok.decode(ids, /*skip_special=*/true);
  if (trit::find_invalid_utf8(skipped)) fail("decode(skip_special) returned invalid UTF-8", bytes);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const char* path = std::getenv("TRIT_FUZZ_TOKENIZER");
  if (!path) {
    std::fprintf(stderr, "tokenizer_fuzz: set TRIT_FUZZ_TOKENIZER to a tokenizer.json\n");
    std::exit(2);
  }
  g_tok = std::make_unique<trit::Tokenizer>(trit::Tokenizer::from_file(path));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const trit::Tokenizer& tok = *g_tok;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto bad = trit::find_invalid_utf8(text);
  if (bad) {
    try {
      (void)tok.encode(text, true);
      fail("encode accepted invalid UTF-8", text);
    } catch (const trit::TokenizerError& e) {
      const std::string want = "at byte " + std::to_string(*bad) + " ";
      if (!std::strstr(e.what(), want.c_str())) fail("encode's error does not name the first bad byte", text);
    }
    const std::string clean = trit::sanitize_utf8(text);
    if (trit::find_invalid_utf8(clean)) fail("sanitize_utf8 returned invalid UTF-8", text);
    check_roundtrip(tok, clean, true);
  } else {
    if (trit::sanitize_utf8(text) != text) fail("sanitize_utf8 changed valid UTF-8", text);
    check_roundtrip(tok, text, false);
    check_roundtrip(tok, text, true);
  }
  check_ids(tok, text);
  return 0;
}
