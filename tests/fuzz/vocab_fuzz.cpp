// libFuzzer target: the tokenizer built from arbitrary GGUF bytes, as Model::open builds it from a
// damaged or hostile file (tokenizer.ggml.tokens, token_type, merges and the special ids). Built with
// clang (tests/fuzz/CMakeLists.txt), run for a bounded time as the CTest test vocab_fuzz, from the GGUF
// seeds (tiny models, and a vocabulary with merges and a duplicate). A vocabulary is refused with a
// TokenizerError or GgufError, or it gives a tokenizer that keeps trit/tokenizer.h's promises:
// - find_token() of every id's spelling gives an id spelled the same, never a later one than the id;
// - encode() of sample texts gives ids inside the vocabulary, and decode(encode(text)) == text;
// - decode() of each id returns valid UTF-8.
// Anything else (a crash, a sanitizer report, another exception) is a bug.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trit/gguf.h"
#include "trit/tokenizer.h"

namespace {

[[noreturn]] void fail(const char* what, int64_t id) {
  std::fprintf(stderr, "vocab_fuzz: %s (id %lld)\n", what, static_cast<long long>(id));
  std::abort();
}

void check(const trit::Tokenizer& tok, std::string_view input) {
  const int32_t n = tok.vocab_size();
  for (int32_t id = 0; id < n; ++id) {
    const std::string_view spelling = tok.token_text(id);
    const auto found = tok.find_token(spelling);
    if (!found || *found > id || tok.token_text(*found) != spelling) fail("find_token(token_text(id))", id);
    const std::string text = tok.decode(std::vector<int32_t>{id});
    if (trit::find_invalid_utf8(text)) fail("decode of one id is not valid UTF-8", id);
  }
  // Texts: fixed ones, and the input's last bytes made valid UTF-8.
  const std::string tail = trit::sanitize_utf8(input.substr(input.size() > 64 ? input.size() - 64 : 0));
  for (const std::string_view text : {std::string_view("hello world abcab a  b\n\n"), std::string_view("<|eot_id|>x"),
                                      std::string_view("caf\xc3\xa9 \xe6\x9d\xb1 123456"), std::string_view(tail)})
    for (const bool special : {false, true}) {
      const std::vector<int32_t> ids = tok.encode(text, special);
      for (const int32_t id : ids)
        if (id < 0 || id >= n) fail("encode gave an id outside the vocabulary", id);
      if (!special && tok.decode(ids) != text) fail("decode(encode(text)) differs from the text", -1);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::unique_ptr<trit::GgufFile> file;
  try {
    file = trit::GgufFile::parse(std::span<const uint8_t>(data, size));
  } catch (const trit::GgufError&) {
    return 0;  // not a GGUF file: gguf_fuzz's ground
  }
  try {
    const trit::Tokenizer tok = trit::Tokenizer::from_gguf(*file);
    check(tok, std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const trit::TokenizerError&) {
    // Refused with a message: the expected outcome for most inputs.
  } catch (const trit::GgufError&) {
    // A tokenizer key of the wrong type.
  }
  return 0;
}
