#include "trit/reply.h"

#include <algorithm>
#include <string>
#include <vector>

namespace trit {
namespace {

// Length of the longest suffix of `text` that is a proper prefix of some stop string: text that might
// still become a stop string is held back instead of shown.
size_t stop_holdback(const std::string& text, const std::vector<std::string>& stops) {
  size_t hold = 0;
  for (const auto& s : stops) {
    for (size_t len = std::min(s.size() - 1, text.size()); len > hold; --len) {
      if (text.compare(text.size() - len, len, s, 0, len) == 0) {
        hold = len;
        break;
      }
    }
  }
  return hold;
}

// Earliest occurrence of any stop string in text at or after `from`, or npos.
size_t find_stop(const std::string& text, const std::vector<std::string>& stops, size_t from) {
  size_t best = std::string::npos;
  for (const auto& s : stops) {
    size_t start = from > s.size() ? from - s.size() : 0;
    size_t p = text.find(s, start);
    if (p != std::string::npos) best = std::min(best, p);
  }
  return best;
}

}  // namespace

Reply::Reply(const Tokenizer& tokenizer, const GenerateOptions& options, GenerateResult& result,
             Clock::time_point start)
    : tokenizer_(tokenizer),
      options_(options),
      result_(result),
      decoder_(tokenizer, /*skip_special=*/true),
      start_(start) {
  result_.reason = FinishReason::Length;
}

void Reply::emit_upto(size_t end) {
  if (end > emitted_ && options_.on_text)
    options_.on_text(std::string_view(result_.text).substr(emitted_, end - emitted_));
  emitted_ = std::max(emitted_, end);
}

bool Reply::accept(int32_t tok, bool cache_full) {
  result_.tokens.push_back(tok);
  if (options_.on_token) options_.on_token(tok);
  if (result_.tokens.size() == 1) {
    first_ = Clock::now();
    result_.stats.ttft_ms = std::chrono::duration<double, std::milli>(first_ - start_).count();
  }
  const auto& stops = options_.stop_tokens;
  if (tokenizer_.is_end_of_turn(tok) || std::find(stops.begin(), stops.end(), tok) != stops.end()) {
    result_.reason = FinishReason::Stop;
    return false;
  }
  const size_t before = result_.text.size();
  result_.text += decoder_.push(tok);
  if (!options_.stop_strings.empty()) {
    const size_t at = find_stop(result_.text, options_.stop_strings, before);
    if (at != std::string::npos) {
      result_.text.resize(at);
      emit_upto(at);
      result_.reason = FinishReason::Stop;
      stopped_on_string_ = true;
      return false;
    }
    emit_upto(result_.text.size() - stop_holdback(result_.text, options_.stop_strings));
  } else {
    emit_upto(result_.text.size());
  }
  if (static_cast<int32_t>(result_.tokens.size()) >= options_.max_tokens) {
    result_.reason = FinishReason::Length;
    return false;
  }
  if (cache_full) {
    result_.reason = FinishReason::ContextFull;
    return false;
  }
  return true;
}

void Reply::finish() {
  if (stopped_on_string_) return;
  result_.text += decoder_.flush();
  emit_upto(result_.text.size());
}

}  // namespace trit
