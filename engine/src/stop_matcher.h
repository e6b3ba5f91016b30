#pragma once
// Stop strings found as a reply's text grows, in time linear in the text: one Knuth-Morris-Pratt
// automaton per string, each byte fed through it once. Searching the tail of the text for every string
// again at each token cost a string's length times the tail's, a few milliseconds a token with long
// strings and repetitive text, and a batched step's streams all wait for each other's replies.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace trit {

class StopMatcher {
 public:
  explicit StopMatcher(const std::vector<std::string>& stops);
  // Feeds bytes appended to the text, the first of them at offset `at` of it. Returns the offset where
  // the earliest-starting stop string that ends within them starts, or npos.
  size_t feed(std::string_view bytes, size_t at);
  // The length of the longest end of the text fed so far that begins a stop string without being one:
  // text that may still turn into a stop string.
  size_t holdback() const;

 private:
  std::vector<std::string> stops_;
  std::vector<std::vector<uint32_t>> border_;  // per string: the longest proper border of each prefix
  std::vector<size_t> matched_;                // per string: its longest prefix ending the text
};

}  // namespace trit
