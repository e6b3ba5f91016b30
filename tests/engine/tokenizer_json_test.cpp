// load_tokenizer_json() on the real LLaMA 3 tokenizer.json, on malformed files, and byte_level_vocab().
#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "test_support.h"
#include "tokenizer_fixture.h"
#include "trit/tokenizer_json.h"

namespace {

using trit::TokenizerVocab;

TEST(TokenizerJson, LoadsLlama3Vocabulary) {
  const TokenizerVocab& v = trit::test::llama3_vocab();
  ASSERT_EQ(v.tokens.size(), 128256u);
  ASSERT_EQ(v.token_types.size(), 128256u);
  EXPECT_EQ(v.merges.size(), 280147u);
  EXPECT_EQ(v.merges[0], "Ġ Ġ");
  EXPECT_EQ(v.bos, 128000);
  EXPECT_EQ(v.eos, 128001);
  EXPECT_EQ(v.eot, 128009);
  EXPECT_EQ(v.tokens[128000], "<|begin_of_text|>");
  EXPECT_EQ(v.tokens[128009], "<|eot_id|>");
  EXPECT_EQ(v.tokens[128255], "<|reserved_special_token_250|>");
  EXPECT_EQ(v.tokens[0], "!");
  EXPECT_EQ(v.tokens[1], "\"");
  for (size_t id = 0; id < 128000; ++id) ASSERT_EQ(v.token_types[id], trit::kTokenNormal) << "id " << id;
  for (size_t id = 128000; id < 128256; ++id) ASSERT_EQ(v.token_types[id], trit::kTokenControl) << "id " << id;
}

TEST(TokenizerJson, ByteAlphabetMatchesGpt2) {
  EXPECT_EQ(trit::byte_to_unicode(' '), "Ġ");
  EXPECT_EQ(trit::byte_to_unicode('\n'), "Ċ");
  EXPECT_EQ(trit::byte_to_unicode('\t'), "ĉ");
  EXPECT_EQ(trit::byte_to_unicode('a'), "a");
  EXPECT_EQ(trit::byte_to_unicode(0), "Ā");
  EXPECT_EQ(trit::byte_to_unicode(0xAD), "Ń");  // the soft hyphen is shifted too
  EXPECT_EQ(trit::byte_to_unicode(0xFF), "ÿ");
  std::set<std::string> all;
  for (int b = 0; b < 256; ++b) all.insert(trit::byte_to_unicode(static_cast<uint8_t>(b)));
  EXPECT_EQ(all.size(), 256u);
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary) << text;
}

std::string load_error(const std::string& json_text) {
  auto dir = trit::test::scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
  write(dir / "tokenizer.json", json_text);
  try {
    trit::load_tokenizer_json(dir / "tokenizer.json");
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TokenizerJson, MergePairsAndConfigNames) {
  auto dir = trit::test::scratch_dir("MergePairsAndConfigNames");
  write(dir / "tokenizer.json", R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1, "ab": 2},
      "merges": [["a", "b"]]}, "added_tokens": [{"id": 3, "content": "<s>", "special": true},
      {"id": 4, "content": "</s>", "special": true}, {"id": 5, "content": "[X]", "special": false}]})");
  write(dir / "tokenizer_config.json", R"({"bos_token": "<s>", "eos_token": {"content": "</s>"}})");
  TokenizerVocab v = trit::load_tokenizer_json(dir / "tokenizer.json");
  ASSERT_EQ(v.tokens.size(), 6u);
  EXPECT_EQ(v.merges, std::vector<std::string>{"a b"});
  EXPECT_EQ(v.bos, 3);
  EXPECT_EQ(v.eos, 4);
  EXPECT_EQ(v.eot, 4);  // no <|eot_id|>: EOS ends turns
  EXPECT_EQ(v.token_types, (std::vector<int32_t>{1, 1, 1, 3, 3, 4}));
}

TEST(TokenizerJson, RejectsMalformedFiles) {
  EXPECT_NE(load_error("{").find("not valid JSON"), std::string::npos);
  EXPECT_NE(load_error("{}").find("no \"model\""), std::string::npos);
  EXPECT_NE(load_error(R"({"model": {"type": "Unigram", "vocab": {}, "merges": []}})").find("only BPE"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"model": {"vocab": {"a": 0, "b": 2}, "merges": []}})").find("no token has id 1"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"model": {"vocab": {"a": 0}, "merges": ["ab"]}})").find("merge 0 'ab'"), std::string::npos);
  EXPECT_NE(load_error(R"({"model": {"vocab": {"a": 0}, "merges": [1]}})").find("merge 0 is neither"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"model": {"vocab": {"a": 0, "b": 0}, "merges": []}})").find("id 0 is used by both"),
            std::string::npos);
  EXPECT_NE(load_error(R"({"model": {"vocab": {"a": -1}, "merges": []}})").find("out of range"), std::string::npos);
  EXPECT_NE(load_error(R"({"model": {"vocab": {"a": 0}, "merges": []}, "added_tokens": [{"id": 1}]})")
                .find("lacks an integer"),
            std::string::npos);
}

TEST(TokenizerJson, ByteLevelVocabulary) {
  TokenizerVocab v = trit::byte_level_vocab({"the", " th", "the"});
  // 256 bytes, "th", "the", " t", " th", then 3 control tokens.
  ASSERT_EQ(v.tokens.size(), 256u + 4u + 3u);
  EXPECT_EQ(v.merges, (std::vector<std::string>{"t h", "th e", "Ġ t", "Ġt h"}));
  EXPECT_EQ(v.tokens[' '], "Ġ");
  EXPECT_EQ(v.tokens[259], "Ġth");
  EXPECT_EQ(v.bos, 260);
  EXPECT_EQ(v.eos, 261);
  EXPECT_EQ(v.eot, 262);
  EXPECT_EQ(v.tokens[262], "<|eot_id|>");
  EXPECT_EQ(v.token_types[262], trit::kTokenControl);
  EXPECT_EQ(v.token_types[0], trit::kTokenNormal);
}

}  // namespace
