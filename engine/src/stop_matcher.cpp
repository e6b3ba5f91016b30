#include "stop_matcher.h"

#include <algorithm>

namespace trit {

StopMatcher::StopMatcher(const std::vector<std::string>& stops) : stops_(stops), matched_(stops.size(), 0) {
  for (const std::string& s : stops_) {
    // border[i]: the length of the longest proper prefix of s[0..i] that is also its suffix.
    std::vector<uint32_t> border(s.size(), 0);
    uint32_t k = 0;
    for (size_t i = 1; i < s.size(); ++i) {
      while (k > 0 && s[i] != s[k]) k = border[k - 1];
      if (s[i] == s[k]) ++k;
      border[i] = k;
    }
    border_.push_back(std::move(border));
  }
}

size_t StopMatcher::feed(std::string_view bytes, size_t at) {
  size_t best = std::string::npos;
  for (size_t j = 0; j < stops_.size(); ++j) {
    const std::string& s = stops_[j];
    if (s.empty()) continue;  // (GenerateOptions::validate refuses them)
    const std::vector<uint32_t>& border = border_[j];
    size_t m = matched_[j];
    for (size_t i = 0; i < bytes.size(); ++i) {
      while (m > 0 && bytes[i] != s[m]) m = border[m - 1];
      if (bytes[i] == s[m]) ++m;
      if (m == s.size()) {
        best = std::min(best, at + i + 1 - s.size());
        m = border[m - 1];  // (the automaton stays valid; the caller cuts at the earliest start)
      }
    }
    matched_[j] = m;
  }
  return best;
}

size_t StopMatcher::holdback() const {
  size_t hold = 0;
  for (size_t m : matched_) hold = std::max(hold, m);
  return hold;
}

}  // namespace trit
