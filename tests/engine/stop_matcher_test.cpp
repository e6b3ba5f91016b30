// StopMatcher (engine/src/stop_matcher.h), the stop strings of a reply as its text grows: against the
// direct search it replaced (every string looked up in the tail of the text at each token, the longest
// end of the text that begins a string measured by comparing every length), on random texts over a
// small alphabet (so strings overlap themselves and each other) fed in random pieces; and a reply
// of one repeated letter against long strings of that letter, the case that made the search slow.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "stop_matcher.h"

namespace {

using trit::StopMatcher;

// The earliest start of a stop string that ends within text[from..], or npos.
size_t direct_find(const std::string& text, const std::vector<std::string>& stops, size_t from) {
  size_t best = std::string::npos;
  for (const auto& s : stops) {
    const size_t p = text.find(s, from > s.size() ? from - s.size() : 0);
    if (p != std::string::npos) best = std::min(best, p);
  }
  return best;
}

size_t direct_holdback(const std::string& text, const std::vector<std::string>& stops) {
  size_t hold = 0;
  for (const auto& s : stops)
    for (size_t len = std::min(s.size() - 1, text.size()); len > hold; --len)
      if (text.compare(text.size() - len, len, s, 0, len) == 0) {
        hold = len;
        break;
      }
  return hold;
}

TEST(StopMatcher, AgreesWithTheDirectSearchOnRandomTexts) {
  std::mt19937 rng(1234);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  int stopped = 0;
  for (int round = 0; round < 3000; ++round) {
    const std::string alphabet = round % 2 ? "ab" : "abc";
    auto word = [&](int len) {
      std::string w;
      for (int i = 0; i < len; ++i) w += alphabet[static_cast<size_t>(pick(static_cast<int>(alphabet.size())))];
      return w;
    };
    std::vector<std::string> stops;
    for (int k = 1 + pick(4); k > 0; --k) stops.push_back(word(1 + pick(6)));
    StopMatcher m(stops);
    std::string text;
    for (int piece = 0; piece < 20; ++piece) {
      const size_t before = text.size();
      text += word(pick(4));  // pieces of 0 to 3 bytes, as tokens decode
      const size_t want = direct_find(text, stops, before);
      ASSERT_EQ(m.feed(std::string_view(text).substr(before), before), want) << "round " << round;
      if (want != std::string::npos) {
        ++stopped;
        break;
      }
      ASSERT_EQ(m.holdback(), direct_holdback(text, stops)) << "round " << round << ", text " << text;
    }
  }
  EXPECT_GT(stopped, 1000) << "most rounds should meet a stop string";
}

// A stop string that starts earlier wins over one that ends earlier, in the same piece of text.
TEST(StopMatcher, TheEarliestStartWins) {
  StopMatcher m({"bc", "abcd"});
  EXPECT_EQ(m.feed("xabcd", 0), 1u);
}

// Long stop strings of one letter and a long reply of that letter: each piece costs its own bytes.
TEST(StopMatcher, LongStringsAndRepetitiveText) {
  std::vector<std::string> stops = {std::string(100000, 'a'), std::string(99999, 'a')};
  stops[0].push_back('b');
  stops[1].push_back('c');
  StopMatcher m(stops);
  std::string text;
  for (int i = 0; i < 16000; ++i) {
    const size_t before = text.size();
    text += 'a';
    ASSERT_EQ(m.feed(std::string_view(text).substr(before), before), std::string::npos);
    ASSERT_EQ(m.holdback(), text.size());
  }
  text += 'c';
  EXPECT_EQ(m.feed("c", text.size() - 1), std::string::npos) << "16,000 a's are too few for either";
}

}  // namespace
