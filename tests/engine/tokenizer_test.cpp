// The tokenizer on small hand-made vocabularies (merge order, whole-token pieces, special tokens,
// validation), on the real LLaMA 3 vocabulary (ids checked against the JavaScript reference), UTF-8
// handling in encode and in the streaming decoder, and the pre-tokenizer's splits.
#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "tokenizer/pretokenizer.h"
#include "tokenizer/string_index.h"
#include "tokenizer_fixture.h"
#include "trit/tokenizer.h"

namespace {

using trit::Tokenizer;
using trit::TokenizerError;
using trit::TokenizerVocab;
using Ids = std::vector<int32_t>;

// 256 byte tokens, then the given tokens (spelled in the byte alphabet) and merges.
TokenizerVocab small_vocab(const std::vector<std::string>& extra, const std::vector<std::string>& merges,
                           const std::vector<std::pair<std::string, int32_t>>& added = {}) {
  TokenizerVocab v = trit::byte_level_vocab();
  v.tokens.resize(256);
  v.token_types.resize(256);
  for (const auto& t : extra) {
    v.tokens.push_back(t);
    v.token_types.push_back(trit::kTokenNormal);
  }
  for (const auto& [text, type] : added) {
    v.tokens.push_back(text);
    v.token_types.push_back(type);
  }
  v.merges = merges;
  v.bos = v.eos = v.eot = -1;
  return v;
}

std::string expect_error(const TokenizerVocab& v) {
  try {
    Tokenizer t(v);
  } catch (const TokenizerError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Tokenizer, MergesApplyByRank) {
  // "b c" outranks "a b": "abc" -> a, bc. Swapping the ranks gives ab, c.
  Tokenizer first_bc(small_vocab({"ab", "bc"}, {"b c", "a b"}));
  EXPECT_EQ(first_bc.encode("abc"), (Ids{'a', 257}));
  Tokenizer first_ab(small_vocab({"ab", "bc"}, {"a b", "b c"}));
  EXPECT_EQ(first_ab.encode("abc"), (Ids{256, 'c'}));
}

TEST(Tokenizer, EqualRankMergesGoLeftToRight) {
  Tokenizer t(small_vocab({"aa", "aaaa"}, {"a a", "aa aa"}));
  EXPECT_EQ(t.encode("aaa"), (Ids{256, 'a'}));
  EXPECT_EQ(t.encode("aaaaa"), (Ids{257, 'a'}));
  EXPECT_EQ(t.encode("aaaaaaa"), (Ids{257, 256, 'a'}));
}

TEST(Tokenizer, LongWordMergesMatchAQuadraticReference) {
  // The heap-based merge loop against the obvious O(n^2) loop, on random words over a 3-letter alphabet.
  std::vector<std::string> extra, merges;
  std::vector<std::string> pieces = {"a", "b", "c"};
  std::mt19937 rng(7);
  for (int i = 0; i < 60; ++i) {
    std::string l = pieces[rng() % pieces.size()], r = pieces[rng() % pieces.size()];
    std::string j = l + r;
    if (std::find(pieces.begin(), pieces.end(), j) != pieces.end() || j.size() > 8) continue;
    pieces.push_back(j);
    extra.push_back(j);
    merges.push_back(l + " " + r);
  }
  Tokenizer t(small_vocab(extra, merges));
  auto reference = [&](const std::string& word) {
    std::vector<std::string> sym;
    for (char c : word) sym.emplace_back(1, c);
    for (;;) {
      size_t best = merges.size(), at = 0;
      for (size_t i = 0; i + 1 < sym.size(); ++i) {
        auto it = std::find(merges.begin(), merges.end(), sym[i] + " " + sym[i + 1]);
        if (it != merges.end() && static_cast<size_t>(it - merges.begin()) < best) best = it - merges.begin(), at = i;
      }
      if (best == merges.size()) break;
      sym[at] += sym[at + 1];
      sym.erase(sym.begin() + static_cast<long>(at) + 1);
    }
    Ids ids;
    for (const auto& s : sym) ids.push_back(s.size() == 1 ? s[0] : *t.find_token(s));
    return ids;
  };
  for (int n : {2, 3, 5, 17, 64, 300, 1500}) {
    for (int k = 0; k < 5; ++k) {
      std::string word;
      for (int i = 0; i < n; ++i) word += static_cast<char>('a' + rng() % 3);
      if (t.find_token(word)) continue;  // a whole-token piece skips merging, tested elsewhere
      ASSERT_EQ(t.encode(word), reference(word)) << word;
    }
  }
}

TEST(Tokenizer, DuplicatesKeepTheirFirstIdAndRank) {
  // "ab" twice (ids 256, 257): its spelling and its bytes find the first; "a b" twice: the merge keeps
  // rank 0, so "abc" merges a+b before b+c (rank 1) would take the b.
  Tokenizer t(small_vocab({"ab", "ab", "bc"}, {"a b", "b c", "a b"}));
  EXPECT_EQ(t.find_token("ab"), 256);
  EXPECT_EQ(t.encode("ab"), (Ids{256}));
  EXPECT_EQ(t.encode("abc"), (Ids{256, 'c'}));
  EXPECT_EQ(t.token_bytes(257), "ab");
}

// The tokenizer's tables: ids by string and merges by pair, grown past their first size (the tokenizer
// sizes them for the vocabulary at once, so only here do they grow), the first entry of a key kept.
TEST(TokenizerIndex, StringIdsGrowAndKeepTheFirstId) {
  trit::StringTable table;
  trit::StringIdIndex index;
  constexpr int32_t kCount = 20000;
  for (int32_t i = 0; i < kCount; ++i) {
    const std::string s = i % 1000 == 999 ? "dup" : "s" + std::to_string(i);
    table.push(s);
    index.insert(table[static_cast<size_t>(i)], i, table);
  }
  ASSERT_EQ(table.size(), static_cast<size_t>(kCount));
  for (int32_t i = 0; i < kCount; ++i) {
    if (i % 1000 == 999) continue;
    ASSERT_EQ(index.find("s" + std::to_string(i), table), i) << i;
    ASSERT_EQ(table[static_cast<size_t>(i)], "s" + std::to_string(i));
  }
  EXPECT_EQ(index.find("dup", table), 999);
  EXPECT_EQ(index.find("s20000", table), -1);
  EXPECT_EQ(index.find("", table), -1);
}

TEST(TokenizerIndex, MergesGrowAndKeepTheFirstRank) {
  trit::MergeTable merges;
  constexpr int32_t kCount = 30000;
  for (int32_t i = 0; i < kCount; ++i) merges.insert(i % 300, i / 300, {i, i + 1});
  merges.insert(5, 7, {-1, -1});  // a second merge of (5, 7): ignored
  for (int32_t i = 0; i < kCount; ++i) {
    const trit::MergeTable::Merge* m = merges.find(i % 300, i / 300);
    ASSERT_NE(m, nullptr) << i;
    ASSERT_EQ(m->rank, i);
    ASSERT_EQ(m->result, i + 1);
  }
  EXPECT_EQ(merges.find(5, 7)->rank, 7 * 300 + 5);
  EXPECT_EQ(merges.find(300, 0), nullptr);
  EXPECT_EQ(merges.find(0, 100), nullptr);
  EXPECT_EQ(merges.find(0x7FFFFFFF, 0x7FFFFFFF), nullptr);
}

TEST(Tokenizer, PieceThatIsATokenIsNotMerged) {
  // LLaMA 3 (tiktoken, HF ignore_merges): "abc" is in the vocabulary though no merge builds it.
  Tokenizer t(small_vocab({"ab", "abc"}, {"a b"}));
  EXPECT_EQ(t.encode("abc"), (Ids{257}));
  EXPECT_EQ(t.encode("abcab"), (Ids{256, 'c', 256}));  // not a token: merges only, "abc" never forms
}

TEST(Tokenizer, SpecialTokensOnlyWhenAllowed) {
  TokenizerVocab v = trit::byte_level_vocab();
  Tokenizer t(v);
  const int32_t eot = v.eot;
  EXPECT_EQ(t.encode("a<|eot_id|>b", true), (Ids{'a', eot, 'b'}));
  Ids plain = t.encode("a<|eot_id|>b", false);
  EXPECT_EQ(plain.size(), 12u);
  for (auto id : plain) EXPECT_LT(id, 256);
  EXPECT_EQ(t.decode(plain), "a<|eot_id|>b");
  EXPECT_EQ(t.encode("<|eot_id|><|eot_id|>", true), (Ids{eot, eot}));
  EXPECT_EQ(t.encode("<|eot_id|", true).size(), 9u);  // incomplete: plain text
  EXPECT_EQ(t.encode("x", true, true), (Ids{v.bos, 'x'}));
  EXPECT_EQ(t.encode("", false, true), (Ids{v.bos}));
  EXPECT_TRUE(t.encode("").empty());
}

TEST(Tokenizer, UserDefinedTokensAlwaysMatchLongestFirst) {
  Tokenizer t(small_vocab(
      {}, {}, {{"<x>", trit::kTokenUserDefined}, {"<x>>", trit::kTokenUserDefined}, {"<c>", trit::kTokenControl}}));
  EXPECT_EQ(t.encode("a<x>b", false), (Ids{'a', 256, 'b'}));
  EXPECT_EQ(t.encode("<x>>", false), (Ids{257}));
  EXPECT_EQ(t.encode("<c><x>", false), (Ids{'<', 'c', '>', 256}));
  EXPECT_EQ(t.encode("<c><x>", true), (Ids{258, 256}));
}

TEST(Tokenizer, DecodeSkipsSpecialOnRequest) {
  TokenizerVocab v = trit::byte_level_vocab();
  Tokenizer t(v);
  Ids ids{v.bos, 'h', 'i', v.eot};
  EXPECT_EQ(t.decode(ids), "<|begin_of_text|>hi<|eot_id|>");
  EXPECT_EQ(t.decode(ids, true), "hi");
  EXPECT_TRUE(t.is_end_of_turn(v.eot));
  EXPECT_TRUE(t.is_end_of_turn(v.eos));
  EXPECT_FALSE(t.is_end_of_turn('h'));
  EXPECT_THROW(t.decode(Ids{static_cast<int32_t>(v.tokens.size())}), TokenizerError);
  EXPECT_THROW(t.decode(Ids{-1}), TokenizerError);
  EXPECT_THROW(t.token_bytes(1 << 30), TokenizerError);
}

TEST(Tokenizer, RejectsBadVocabularies) {
  TokenizerVocab v = small_vocab({"ab"}, {"a b"});
  auto bad = v;
  bad.token_types.pop_back();
  EXPECT_NE(expect_error(bad).find("257 tokens but 256 token types"), std::string::npos);
  bad = v;
  bad.tokens['x'] = "xx";
  EXPECT_NE(expect_error(bad).find("no normal token for byte 0x78"), std::string::npos);
  bad = v;
  bad.merges = {"a q"};
  EXPECT_NE(expect_error(bad).find("merge 0 'a q': the merged token 'aq'"), std::string::npos);
  bad.merges = {"a zz"};
  EXPECT_NE(expect_error(bad).find("'zz' is not in the vocabulary"), std::string::npos);
  bad.merges = {"ab"};
  EXPECT_NE(expect_error(bad).find("not two tokens"), std::string::npos);
  bad = v;
  bad.tokens.push_back("a b");  // a raw space is not in the byte alphabet
  bad.token_types.push_back(trit::kTokenNormal);
  EXPECT_NE(expect_error(bad).find("not spelled in the GPT-2 byte alphabet"), std::string::npos);
  bad = v;
  bad.bos = 999;
  EXPECT_NE(expect_error(bad).find("BOS id 999 is outside"), std::string::npos);
  bad = v;
  bad.token_types[3] = 9;
  EXPECT_NE(expect_error(bad).find("token type 9"), std::string::npos);
  EXPECT_NE(expect_error(TokenizerVocab{}).find("empty"), std::string::npos);
}

// ---- UTF-8 ----

TEST(TokenizerUtf8, InvalidInputIsAnErrorWithItsOffset) {
  Tokenizer t(trit::byte_level_vocab());
  for (std::string bad : {std::string("ab\xC0\x80"), std::string("ab\xED\xA0\x80"), std::string("ab\xF4\x90\x80\x80"),
                          std::string("ab\xE2\x82"), std::string("ab\x80"), std::string("ab\xFF")}) {
    try {
      t.encode(bad);
      ADD_FAILURE() << "no error for invalid UTF-8";
    } catch (const TokenizerError& e) {
      EXPECT_NE(std::string(e.what()).find("not valid UTF-8 at byte 2"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(trit::find_invalid_utf8("h\xC3\xA9llo \xF0\x9F\x98\x80"), std::nullopt);
  EXPECT_EQ(trit::find_invalid_utf8(std::string("a\0b", 3)), std::nullopt);  // NUL is valid text
}

TEST(TokenizerUtf8, SanitizeReplacesMaximalSubparts) {
  // The example of Unicode 15, section 3.9 (U+FFFD substitution of maximal subparts).
  EXPECT_EQ(trit::sanitize_utf8("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64"),
            "a\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"
            "b\xEF\xBF\xBD"
            "c\xEF\xBF\xBD\xEF\xBF\xBD"
            "d");
  EXPECT_EQ(trit::sanitize_utf8("\xF0\x80\x80"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");    // overlong: 3 subparts
  EXPECT_EQ(trit::sanitize_utf8("\xED\xA0\x80x"), "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBDx");  // surrogate
  EXPECT_EQ(trit::sanitize_utf8("\xE2\x82"), "\xEF\xBF\xBD");  // truncated at the end: one
  EXPECT_EQ(trit::sanitize_utf8("ok \xE2\x82\xAC"), "ok \xE2\x82\xAC");
}

TEST(TokenizerUtf8, StreamingDecoderHoldsBackIncompleteCharacters) {
  Tokenizer t(trit::byte_level_vocab());
  trit::StreamingDecoder d(t);
  EXPECT_EQ(d.push('a'), "a");
  EXPECT_EQ(d.push(0xF0), "");
  EXPECT_EQ(d.push(0x9F), "");
  EXPECT_EQ(d.push(0x98), "");
  EXPECT_EQ(d.pending(), 3u);
  EXPECT_EQ(d.push(0x80), "\xF0\x9F\x98\x80");
  EXPECT_EQ(d.push(0xFF), "\xEF\xBF\xBD");  // known bad at once
  EXPECT_EQ(d.push(0xE2), "");
  EXPECT_EQ(d.push('b'),
            "\xEF\xBF\xBD"
            "b");  // the held byte turned out bad
  EXPECT_EQ(d.push(0xE2), "");
  EXPECT_EQ(d.push(0x82), "");
  EXPECT_EQ(d.flush(), "\xEF\xBF\xBD");  // incomplete at the end
  EXPECT_EQ(d.pending(), 0u);
  EXPECT_EQ(d.flush(), "");
}

TEST(TokenizerUtf8, StreamingEqualsWholeDecodeOnRandomIds) {
  Tokenizer t(trit::byte_level_vocab({"\xC3\xA9", "\xE2\x82", "\xAC!", "\xF0\x9F"}));
  std::mt19937 rng(42);
  for (int round = 0; round < 200; ++round) {
    Ids ids;
    std::string bytes;
    for (int i = 0; i < 50; ++i) {
      // Mostly UTF-8 lead and continuation bytes and the multi-byte tokens, to hit every path.
      static const int32_t pool[] = {'a',  ' ',  0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98,
                                     0x80, 0xFF, 0xC0, 256,  257,  258,  259,  260,  261,  262};
      ids.push_back(pool[rng() % std::size(pool)]);
      bytes += t.token_bytes(ids.back());
    }
    trit::StreamingDecoder d(t);
    std::string streamed;
    for (auto id : ids) streamed += d.push(id);
    streamed += d.flush();
    ASSERT_EQ(streamed, trit::sanitize_utf8(bytes));
    ASSERT_EQ(streamed, t.decode(ids));
    ASSERT_EQ(trit::find_invalid_utf8(streamed), std::nullopt);
  }
}

// ---- the pre-tokenizer ----

std::vector<std::string> split(std::string_view text) {
  static const trit::Pretokenizer pre;
  std::vector<std::string> pieces;
  pre.split(text, [&](std::string_view p) { pieces.emplace_back(p); });
  return pieces;
}
using Pieces = std::vector<std::string>;

TEST(TokenizerPretokenizer, SplitsLikeLlama3) {
  EXPECT_EQ(split("Hello world"), (Pieces{"Hello", " world"}));
  EXPECT_EQ(split("I'M sure they'LL come"), (Pieces{"I", "'M", " sure", " they", "'LL", " come"}));
  EXPECT_EQ(split("1234567"), (Pieces{"123", "456", "7"}));
  EXPECT_EQ(split("a  b"), (Pieces{"a", " ", " b"}));
  EXPECT_EQ(split("x\r\n\r\ny"), (Pieces{"x", "\r\n\r\n", "y"}));
  EXPECT_EQ(split("end  "), (Pieces{"end", "  "}));
  EXPECT_EQ(split("a ...\n\nb"), (Pieces{"a", " ...\n\n", "b"}));
  EXPECT_EQ(split("$x"), (Pieces{"$x"}));
}

TEST(TokenizerPretokenizer, WhitespaceIsUnicodeWhiteSpace) {
  // Trailing whitespace is one piece ("\s+(?!\S)"); a trailing non-space joins the last space instead.
  // U+0085 NEXT LINE is White_Space (JavaScript's \s disagrees, so the JS cross-check cannot cover it).
  EXPECT_EQ(split("a   \xC2\x85"), (Pieces{"a", "   \xC2\x85"}));
  // U+FEFF is not White_Space (JavaScript's \s disagrees).
  EXPECT_EQ(split("a  \xEF\xBB\xBF"), (Pieces{"a", " ", " \xEF\xBB\xBF"}));
  // U+180E is not White_Space since Unicode 6.3 (PCRE2's own \s still takes it).
  EXPECT_EQ(split("a  \xE1\xA0\x8E"), (Pieces{"a", " ", " \xE1\xA0\x8E"}));
  // U+3000 IDEOGRAPHIC SPACE is.
  EXPECT_EQ(split("a  \xE3\x80\x80"), (Pieces{"a", "  \xE3\x80\x80"}));
  // Any single non-letter, space or not, may prefix a word.
  EXPECT_EQ(split("a\xC2\x85"
                  "b"),
            (Pieces{"a",
                    "\xC2\x85"
                    "b"}));
  // Long s is not folded to s in contractions (as llama.cpp and transformers).
  EXPECT_EQ(split("'\xC5\xBFtuff"), (Pieces{"'\xC5\xBFtuff"}));
  EXPECT_EQ(split("'stuff"), (Pieces{"'s", "tuff"}));
}

// ---- the real LLaMA 3 vocabulary (expected ids from the JavaScript reference tokenizer) ----

const Tokenizer& llama3() {
  static const Tokenizer t(trit::test::llama3_vocab());
  return t;
}

TEST(TokenizerLlama3, KnownIds) {
  const Tokenizer& t = llama3();
  EXPECT_EQ(t.vocab_size(), 128256);
  EXPECT_EQ(t.encode("Hello, world!"), (Ids{9906, 11, 1917, 0}));
  EXPECT_EQ(t.encode("Hello, world!", false, true), (Ids{128000, 9906, 11, 1917, 0}));
  EXPECT_EQ(t.encode("  hello\n\n  x"), (Ids{220, 24748, 271, 220, 865}));
  EXPECT_EQ(t.encode("'S 'LL I'M"), (Ids{13575, 364, 4178, 358, 28703}));
  // A user typing the end-of-turn marker gets text, not the token.
  EXPECT_EQ(t.encode("<|eot_id|>"), (Ids{27, 91, 68, 354, 851, 91, 29}));
  EXPECT_EQ(t.encode("<|eot_id|>", true), (Ids{128009}));
  EXPECT_EQ(t.encode("<|eot_id|>hi", true), (Ids{128009, 6151}));
  EXPECT_EQ(t.bos(), 128000);
  EXPECT_EQ(t.eos(), 128001);
  EXPECT_EQ(t.eot(), 128009);
  EXPECT_EQ(t.decode(Ids{9906, 11, 1917, 0}), "Hello, world!");
}

TEST(TokenizerLlama3, StreamingDecodeOfMultiByteTokens) {
  const Tokenizer& t = llama3();
  const std::string text = "Zürich 東京 👩‍💻 🇯🇵 ok";
  Ids ids = t.encode(text);
  trit::StreamingDecoder d(t);
  std::string out;
  for (auto id : ids) {
    std::string piece = d.push(id);
    ASSERT_EQ(trit::find_invalid_utf8(piece), std::nullopt);  // never half a character
    out += piece;
  }
  out += d.flush();
  EXPECT_EQ(out, text);
}

TEST(TokenizerLlama3, ConcurrentEncodesAgree) {
  const Tokenizer& t = llama3();
  const std::string text = "Concurrent tokenization, 12345 — ünïcödé and 東京 and <|eot_id|> too.";
  const Ids expected = t.encode(text, true);
  std::vector<std::thread> threads;
  std::vector<int> ok(4, 0);
  for (int i = 0; i < 4; ++i)
    threads.emplace_back([&, i] {
      for (int k = 0; k < 200; ++k) ok[static_cast<size_t>(i)] += t.encode(text, true) == expected;
    });
  for (auto& th : threads) th.join();
  for (int n : ok) EXPECT_EQ(n, 200);
}

TEST(TokenizerLlama3, RandomTextRoundTripsAndRandomBytesNeverCrash) {
  const Tokenizer& t = llama3();
  std::mt19937 rng(2026);
  auto append_utf8 = [](std::string& s, uint32_t cp) {
    if (cp < 0x80) {
      s += static_cast<char>(cp);
    } else if (cp < 0x800) {
      s += static_cast<char>(0xC0 | (cp >> 6));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      s += static_cast<char>(0xE0 | (cp >> 12));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      s += static_cast<char>(0xF0 | (cp >> 18));
      s += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      s += static_cast<char>(0x80 | (cp & 0x3F));
    }
  };
  for (int round = 0; round < 1500; ++round) {
    // Any scalar value, unassigned ones included, biased to ASCII and the BMP.
    std::string text;
    int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) {
      uint32_t cp = rng() % 4 == 0 ? rng() % 0x80 : rng() % 2 ? rng() % 0x10000 : rng() % 0x110000;
      if (cp >= 0xD800 && cp <= 0xDFFF) cp = ' ';
      append_utf8(text, cp);
    }
    Ids ids = t.encode(text, round % 2 == 0);
    ASSERT_EQ(t.decode(ids), text);
    // Random bytes: an error naming the offset, or (when they happen to be valid) a round trip.
    std::string bytes;
    for (int i = 0; i < n; ++i) bytes += static_cast<char>(rng() % 256);
    if (auto bad = trit::find_invalid_utf8(bytes)) {
      EXPECT_THROW(t.encode(bytes), TokenizerError);
      std::string clean = trit::sanitize_utf8(bytes);
      ASSERT_EQ(t.decode(t.encode(clean)), clean);
    } else {
      ASSERT_EQ(t.decode(t.encode(bytes)), bytes);
    }
    // Random ids always decode to valid UTF-8.
    Ids random_ids;
    for (int i = 0; i < n; ++i) random_ids.push_back(static_cast<int32_t>(rng() % 128256));
    ASSERT_EQ(trit::find_invalid_utf8(t.decode(random_ids)), std::nullopt);
  }
}

}  // namespace
