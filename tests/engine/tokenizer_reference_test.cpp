// Cross-check against an independent implementation: every string of the corpus that
// tests/js/make_reference.mjs writes (fixture tokenizer_reference, run by CTest before this test) must
// encode to exactly the ids the JavaScript LLaMA 3 tokenizer gives, and decode back to itself.
//
// Known, deliberate divergences kept out of the corpus: JavaScript's \s leaves out U+0085 (NEXT LINE) and
// adds U+FEFF (BOM); the Unicode White_Space property, which Hugging Face tokenizers, tiktoken, llama.cpp
// and this tokenizer use, is the other way round. tokenizer_test.cpp checks both characters directly.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tokenizer_fixture.h"
#include "trit/tokenizer.h"

namespace {

struct Case {
  std::string category, text;
  std::vector<int32_t> ids;
};

std::vector<Case> load_reference() {
  const char* path = TRIT_TOKENIZER_REFERENCE;  // in the build tree, written by the fixture test
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error(std::string("no reference ids at ") + path +
                             ": the fixture test tokenizer_reference_generate failed or did not run "
                             "(is node installed and tests/js/node_modules filled? run scripts/setup.sh)");
  nlohmann::json j = nlohmann::json::parse(in);
  std::vector<Case> cases;
  for (const auto& c : j.at("cases"))
    cases.push_back({c.at("category").get<std::string>(), c.at("text").get<std::string>(),
                     c.at("ids").get<std::vector<int32_t>>()});
  return cases;
}

std::string show(const std::vector<int32_t>& ids) {
  std::string s;
  for (auto id : ids) s += (s.empty() ? "" : " ") + std::to_string(id);
  return s;
}

TEST(TokenizerReference, MatchesJavaScriptTokenizerOnCorpus) {
  const trit::Tokenizer tok(trit::test::llama3_vocab());
  const std::vector<Case> cases = load_reference();
  ASSERT_GE(cases.size(), 2000u) << "the corpus shrank";
  std::map<std::string, std::pair<int, int>> per_category;  // matched, total
  size_t matched = 0, roundtrips = 0;
  int reported = 0;
  for (const Case& c : cases) {
    auto ids = tok.encode(c.text, /*allow_special=*/true);
    auto& [ok, total] = per_category[c.category];
    ++total;
    if (ids == c.ids) {
      ++matched;
      ++ok;
    } else if (reported++ < 20) {
      ADD_FAILURE() << "[" << c.category << "] " << nlohmann::json(c.text).dump() << "\n  expected " << show(c.ids)
                    << "\n  got      " << show(ids);
    }
    if (tok.decode(ids) == c.text)
      ++roundtrips;
    else if (reported++ < 20)
      ADD_FAILURE() << "[" << c.category << "] decode(encode(s)) != s for " << nlohmann::json(c.text).dump();
  }
  std::string summary;
  for (const auto& [cat, counts] : per_category)
    summary += " " + cat + " " + std::to_string(counts.first) + "/" + std::to_string(counts.second);
  std::printf("tokenizer reference: %zu/%zu strings give identical ids, %zu/%zu round-trip;%s\n", matched, cases.size(),
              roundtrips, cases.size(), summary.c_str());
  EXPECT_EQ(matched, cases.size());
  EXPECT_EQ(roundtrips, cases.size());
}

// With special tokens not allowed, the same corpus must never produce a control token, and must still
// round-trip (the special-token text comes back as the text it was).
TEST(TokenizerReference, CorpusWithoutSpecialTokens) {
  const trit::Tokenizer tok(trit::test::llama3_vocab());
  for (const Case& c : load_reference()) {
    auto ids = tok.encode(c.text, /*allow_special=*/false);
    for (auto id : ids)
      ASSERT_FALSE(tok.is_control(id)) << nlohmann::json(c.text).dump() << " gave control token " << id;
    ASSERT_EQ(tok.decode(ids), c.text);
    if (c.category != "special") {
      ASSERT_EQ(ids, c.ids) << nlohmann::json(c.text).dump();  // no special text: allow_special changes nothing
    }
  }
}

}  // namespace
