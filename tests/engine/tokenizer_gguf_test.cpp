// Tokenizer::from_gguf on the golden model (small byte-level vocabulary, three control tokens at the end)
// and on minimal GGUF files built here, metadata only, to check every rejection names what is wrong.
#include <gtest/gtest.h>

#include <cstring>

#include "test_support.h"
#include "trit/gguf.h"
#include "trit/tokenizer.h"

namespace {

using trit::Tokenizer;
using Ids = std::vector<int32_t>;

TEST(TokenizerGguf, GoldenModelVocabulary) {
  auto file = trit::GgufFile::open(trit::test::shared_dir() / "golden/golden-a.gguf");
  Tokenizer t = Tokenizer::from_gguf(*file);
  EXPECT_EQ(t.vocab_size(), 1003);
  EXPECT_EQ(t.bos(), 1000);
  EXPECT_EQ(t.eos(), 1002);
  EXPECT_EQ(t.eot(), 1002);
  EXPECT_EQ(t.token_text(1000), "<|begin_of_text|>");
  EXPECT_TRUE(t.is_control(1001));
  // Merges of the file: "Ġ w" is merge 10 (token 266), "o r" merge 17 (token 273), "Ġt he" builds "Ġthe".
  EXPECT_EQ(t.encode("Hello world"), (Ids{39, 68, 75, 75, 78, 266, 273, 75, 67}));
  EXPECT_EQ(t.encode(" the"), (Ids{262}));
  EXPECT_EQ(t.encode("x<|eot_id|>", true, true), (Ids{1000, 87, 1002}));
  EXPECT_EQ(t.decode(t.encode("Grüße, 世界!")), "Grüße, 世界!");
}

// A GGUF v3 file with only metadata.
class MiniGguf {
 public:
  void str(const std::string& key, const std::string& v) {
    this->key(key, 8);
    string(v);
    ++n_;
  }
  void i32(const std::string& key, int32_t v) {
    this->key(key, 5);
    raw(&v, 4);
    ++n_;
  }
  void strings(const std::string& key, const std::vector<std::string>& v) {
    this->key(key, 9);
    u32(8);
    u64(v.size());
    for (const auto& s : v) string(s);
    ++n_;
  }
  void i32s(const std::string& key, const std::vector<int32_t>& v) {
    this->key(key, 9);
    u32(5);
    u64(v.size());
    for (int32_t x : v) raw(&x, 4);
    ++n_;
  }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> out{'G', 'G', 'U', 'F', 3, 0, 0, 0};
    uint64_t zero = 0, n = n_;
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&zero), reinterpret_cast<const uint8_t*>(&zero) + 8);
    out.insert(out.end(), reinterpret_cast<const uint8_t*>(&n), reinterpret_cast<const uint8_t*>(&n) + 8);
    out.insert(out.end(), kv_.begin(), kv_.end());
    return out;
  }

 private:
  void raw(const void* p, size_t n) {
    const auto* b = static_cast<const uint8_t*>(p);
    kv_.insert(kv_.end(), b, b + n);
  }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void string(const std::string& s) {
    u64(s.size());
    raw(s.data(), s.size());
  }
  void key(const std::string& k, uint32_t type) {
    string(k);
    u32(type);
  }
  std::vector<uint8_t> kv_;
  uint64_t n_ = 0;
};

std::vector<std::string> byte_tokens() {
  std::vector<std::string> t;
  for (int b = 0; b < 256; ++b) t.push_back(trit::byte_to_unicode(static_cast<uint8_t>(b)));
  return t;
}

std::string from_gguf_error(const MiniGguf& g) {
  auto file = trit::GgufFile::parse(g.bytes(), "mini.gguf");
  try {
    Tokenizer::from_gguf(*file);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TokenizerGguf, MinimalFileWithoutTypesOrMerges) {
  MiniGguf g;
  g.str("tokenizer.ggml.model", "gpt2");
  auto tokens = byte_tokens();
  tokens.push_back("<|eot_id|>");
  g.strings("tokenizer.ggml.tokens", tokens);
  g.i32("tokenizer.ggml.eos_token_id", 256);
  auto file = trit::GgufFile::parse(g.bytes(), "mini.gguf");
  Tokenizer t = Tokenizer::from_gguf(*file);
  EXPECT_EQ(t.vocab_size(), 257);
  EXPECT_EQ(t.bos(), -1);
  EXPECT_EQ(t.eot(), 256);  // found by name
  EXPECT_EQ(t.encode("hi"), (Ids{'h', 'i'}));
  EXPECT_THROW(t.encode("hi", false, true), trit::TokenizerError);  // no BOS to add
}

// A Falcon-like vocabulary: bytes, then <|endoftext|> (EOS), <|eot_id|> as plain text (not a control
// token), <|eom_id|>.
MiniGguf falcon_like(const std::string& pre) {
  MiniGguf g;
  g.str("tokenizer.ggml.model", "gpt2");
  if (!pre.empty()) g.str("tokenizer.ggml.pre", pre);
  auto tokens = byte_tokens();
  std::vector<int32_t> types(tokens.size(), 1);
  for (const char* s : {"<|endoftext|>", "<|eot_id|>", "<|eom_id|>"}) tokens.push_back(s);
  types.insert(types.end(), {3, 4, 3});
  g.strings("tokenizer.ggml.tokens", tokens);
  g.i32s("tokenizer.ggml.token_type", types);
  g.i32("tokenizer.ggml.eos_token_id", 256);
  return g;
}

// Issue 27: Falcon3 and Falcon-E files name their pre-tokenizer "falcon3" / "falcon_e"; they, and LLaMA 3's
// other names, split text as LLaMA 3 does (they were refused before).
TEST(TokenizerGguf, PreTokenizersThatSplitAsLlama3) {
  for (const char* pre : {"llama-bpe", "llama3", "llama-v3", "falcon3", "falcon_e", ""}) {
    SCOPED_TRACE(pre);
    EXPECT_EQ(trit::is_llama3_pretokenizer(pre), *pre != 0);
    auto file = trit::GgufFile::parse(falcon_like(pre).bytes(), "falcon.gguf");
    Tokenizer t = Tokenizer::from_gguf(*file);
    EXPECT_EQ(t.encode("12 ab"), (Ids{'1', '2', ' ', 'a', 'b'}));  // byte tokens: id = byte value
    EXPECT_EQ(t.eos(), 256);
  }
  for (const char* pre : {"falcon", "gpt-2", "qwen2", "LLAMA3"}) {
    EXPECT_NE(
        from_gguf_error(falcon_like(pre))
            .find("tokenizer.ggml.pre is '" + std::string(pre) + "'; only the LLaMA 3 pre-tokenizer is supported"),
        std::string::npos);
  }
}

// Special tokens come from the file: EOS by its key, EOT only from its key or a control token, EOM by its key.
TEST(TokenizerGguf, SpecialTokensFromTheFile) {
  {
    auto file = trit::GgufFile::parse(falcon_like("falcon3").bytes(), "falcon.gguf");
    Tokenizer t = Tokenizer::from_gguf(*file);
    EXPECT_EQ(t.eos(), 256);
    EXPECT_EQ(t.eot(), 256);  // "<|eot_id|>" is a user-defined token here, not an end of turn
    EXPECT_EQ(t.eom(), -1);
    EXPECT_FALSE(t.is_end_of_turn(257));
    EXPECT_FALSE(t.is_end_of_turn(258));
  }
  {
    MiniGguf g = falcon_like("falcon3");
    g.i32("tokenizer.ggml.eom_token_id", 258);
    auto file = trit::GgufFile::parse(g.bytes(), "falcon.gguf");
    Tokenizer t = Tokenizer::from_gguf(*file);
    EXPECT_EQ(t.eom(), 258);
    EXPECT_TRUE(t.is_end_of_turn(258));
  }
  {
    MiniGguf g = falcon_like("falcon3");
    g.i32("tokenizer.ggml.eom_token_id", 300);
    EXPECT_NE(from_gguf_error(g).find("EOM id 300 is outside the vocabulary"), std::string::npos) << from_gguf_error(g);
  }
}

TEST(TokenizerGguf, RejectsWhatItCannotTokenize) {
  {
    MiniGguf g;
    EXPECT_NE(from_gguf_error(g).find("'tokenizer.ggml.model' is missing"), std::string::npos);
  }
  {
    MiniGguf g;
    g.str("tokenizer.ggml.model", "llama");
    EXPECT_NE(from_gguf_error(g).find("tokenizer.ggml.model is 'llama'"), std::string::npos);
  }
  {
    MiniGguf g;
    g.str("tokenizer.ggml.model", "gpt2");
    g.str("tokenizer.ggml.pre", "qwen2");
    EXPECT_NE(from_gguf_error(g).find("tokenizer.ggml.pre is 'qwen2'"), std::string::npos);
  }
  {
    MiniGguf g;
    g.str("tokenizer.ggml.model", "gpt2");
    g.strings("tokenizer.ggml.tokens", byte_tokens());
    g.i32s("tokenizer.ggml.token_type", {1, 1, 1});
    EXPECT_NE(from_gguf_error(g).find("token_type has 3 entries but tokenizer.ggml.tokens has 256"), std::string::npos);
  }
  {
    MiniGguf g;
    g.str("tokenizer.ggml.model", "gpt2");
    g.strings("tokenizer.ggml.tokens", byte_tokens());
    g.strings("tokenizer.ggml.merges", {"a nope"});
    std::string e = from_gguf_error(g);
    EXPECT_NE(e.find("'mini.gguf': bad tokenizer vocabulary: merge 0 'a nope'"), std::string::npos) << e;
  }
  {
    MiniGguf g;
    g.str("tokenizer.ggml.model", "gpt2");
    g.i32("tokenizer.ggml.tokens", 5);
    EXPECT_NE(from_gguf_error(g).find("tokenizer.ggml.tokens"), std::string::npos);
  }
}

}  // namespace
