// GenerateOptions::validate on its own: the request parser of the API server (and its fuzz target,
// tests/fuzz/openai_request_fuzz.cpp) checks requests with the engine's rules without linking a Session.
#include <trit/session.h>

#include <string>

namespace trit {

std::string GenerateOptions::validate() const {
  if (auto e = sampling.validate(); !e.empty()) return e;
  if (max_tokens < 0) return "the maximum number of tokens must be >= 0 (got " + std::to_string(max_tokens) + ")";
  for (size_t i = 0; i < stop_strings.size(); ++i)
    if (stop_strings[i].empty())
      return "stop string " + std::to_string(i + 1) +
             " is empty; an empty stop string would end every reply before "
             "its first character";
  return {};
}

}  // namespace trit
