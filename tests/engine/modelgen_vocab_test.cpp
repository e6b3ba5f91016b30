// The byte-level vocabulary of synthetic models: layout, GPT-2 byte alphabet, merge consistency, fillers.
#include <gtest/gtest.h>

#include <set>
#include <unordered_map>

#include "modelgen/byte_vocab.h"

#if __has_include("trit/tokenizer.h")
#include "trit/tokenizer.h"
#define TRIT_HAVE_TOKENIZER 1
#endif

namespace {

using trit::modelgen::byte_vocab;

TEST(ModelgenVocab, LayoutOf512) {
  auto v = byte_vocab(512);
  ASSERT_EQ(v.tokens.size(), 512u);
  ASSERT_EQ(v.token_types.size(), 512u);
  // GPT-2 / LLaMA 3 order: id 0 is '!', the printable bytes first, the shifted ones (U+0100..) after.
  EXPECT_EQ(v.tokens[0], "!");
  EXPECT_EQ(v.tokens[93], "~");
  EXPECT_EQ(v.tokens[188], "\xC4\x80");  // byte 0 -> U+0100
  EXPECT_EQ(v.tokens[220], "\xC4\xA0");  // byte 32 (space) -> U+0120 'Ġ'
  std::set<std::string> bytes;
  for (int b = 0; b < 256; ++b) bytes.insert(trit::byte_to_unicode(static_cast<uint8_t>(b)));
  EXPECT_EQ(std::set<std::string>(v.tokens.begin(), v.tokens.begin() + 256), bytes);
  EXPECT_EQ(v.bos, 509);
  EXPECT_EQ(v.eos, 510);
  EXPECT_EQ(v.eot, 511);
  EXPECT_EQ(v.tokens[509], "<|begin_of_text|>");
  EXPECT_EQ(v.tokens[510], "<|end_of_text|>");
  EXPECT_EQ(v.tokens[511], "<|eot_id|>");
  for (int i = 509; i < 512; ++i) EXPECT_EQ(v.token_types[i], trit::kTokenControl);
  for (int i = 0; i < 256; ++i) EXPECT_EQ(v.token_types[i], trit::kTokenNormal);
  // The built-in text supports all 253 merges of a 512-token vocabulary, most frequent first.
  EXPECT_EQ(v.merges.size(), 253u);
  EXPECT_EQ(v.merges[0], "\xC4\xA0 t");  // "Ġ t"
  EXPECT_EQ(std::set<std::string>(v.tokens.begin(), v.tokens.end()).size(), v.tokens.size()) << "duplicate token";
}

// Every merge joins two tokens that exist before it (bytes or earlier merges) into the next new token.
TEST(ModelgenVocab, MergesAreConsistent) {
  auto v = byte_vocab(700);
  std::unordered_map<std::string, size_t> id;
  for (size_t i = 0; i < v.tokens.size(); ++i) id[v.tokens[i]] = i;
  for (size_t m = 0; m < v.merges.size(); ++m) {
    const auto& s = v.merges[m];
    auto sp = s.find(' ');
    ASSERT_NE(sp, std::string::npos) << s;
    ASSERT_EQ(s.find(' ', sp + 1), std::string::npos) << s;
    std::string left = s.substr(0, sp), right = s.substr(sp + 1);
    ASSERT_TRUE(id.contains(left) && id.contains(right)) << s;
    EXPECT_LT(id[left], 256 + m) << s;
    EXPECT_LT(id[right], 256 + m) << s;
    EXPECT_EQ(v.tokens[256 + m], left + right) << s;
    EXPECT_EQ(v.token_types[256 + m], trit::kTokenNormal);
  }
}

TEST(ModelgenVocab, FillersWhenTheTextRunsOutOfMerges) {
  auto v = byte_vocab(5000);
  ASSERT_EQ(v.tokens.size(), 5000u);
  const size_t learned = 256 + v.merges.size();
  ASSERT_LT(learned, 4997u);
  EXPECT_EQ(v.tokens[learned], "<|reserved_special_token_0|>");
  EXPECT_EQ(v.tokens[4996], "<|reserved_special_token_" + std::to_string(4996 - learned) + "|>");
  for (size_t i = learned; i < 5000; ++i) EXPECT_EQ(v.token_types[i], trit::kTokenControl);
  EXPECT_EQ(v.tokens[4999], "<|eot_id|>");
  EXPECT_EQ(byte_vocab(5000).merges, v.merges) << "not deterministic";
}

TEST(ModelgenVocab, SizeLimits) {
  auto v = byte_vocab(259);
  EXPECT_TRUE(v.merges.empty());
  EXPECT_EQ(v.tokens[256], "<|begin_of_text|>");
  EXPECT_THROW(byte_vocab(258), std::invalid_argument);
  EXPECT_THROW(byte_vocab(trit::modelgen::kMaxByteVocab + 1), std::invalid_argument);
}

#ifdef TRIT_HAVE_TOKENIZER
// The engine's tokenizer accepts the vocabulary and its merges really apply.
TEST(ModelgenVocab, TokenizerAcceptsIt) {
  trit::Tokenizer tok(byte_vocab(512));
  const std::string text = "The weather in the valley was mild, and the farmers started their work.";
  auto ids = tok.encode(text);
  EXPECT_LT(ids.size(), text.size() / 2) << "merges did not apply";
  EXPECT_EQ(tok.decode(ids), text);
  EXPECT_EQ(tok.find_token("\xC4\xA0the"), std::optional<int32_t>(tok.encode(" the").at(0)));
  EXPECT_EQ(tok.encode("<|eot_id|>", true), std::vector<int32_t>{511});
}
#endif

}  // namespace
