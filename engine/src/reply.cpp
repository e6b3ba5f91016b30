#include "trit/reply.h"

#include "stop_matcher.h"

#include <algorithm>
#include <string>
#include <vector>

namespace trit {

Reply::Reply(const Tokenizer& tokenizer, const GenerateOptions& options, GenerateResult& result,
             Clock::time_point start)
    : tokenizer_(tokenizer),
      options_(options),
      result_(result),
      decoder_(tokenizer, /*skip_special=*/true),
      start_(start) {
  result_.reason = FinishReason::Length;
  if (!options_.stop_strings.empty()) stops_ = std::make_unique<StopMatcher>(options_.stop_strings);
}

Reply::~Reply() = default;

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
  if (stops_) {
    // The earliest stop string that ends in the new text (none ended before it), else show all but
    // what may still become one.
    const size_t at = stops_->feed(std::string_view(result_.text).substr(before), before);
    if (at != std::string::npos) {
      result_.text.resize(at);
      emit_upto(at);
      result_.reason = FinishReason::Stop;
      stopped_on_string_ = true;
      return false;
    }
    emit_upto(result_.text.size() - stops_->holdback());
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
