#pragma once
// The one place where an OpenAI request body becomes a request the engine can run: JSON parsing with its
// limits (nesting depth, UTF-8, number range) and every parameter's type, range and support. Anything
// this server does not do (n > 1, tools, logprobs, penalties other than repeat_penalty, ...) is refused
// with a 400 naming the parameter, never ignored. Pure: no model, no I/O (the model name is checked by
// the HTTP layer, which knows what is served).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api_error.h"
#include "trit/chat.h"
#include "trit/sampler.h"

namespace trit::server {

enum class Endpoint { ChatCompletions, Completions };

struct CompletionRequest {
  Endpoint endpoint = Endpoint::ChatCompletions;
  std::string model;
  std::vector<ChatMessage> messages;  // chat completions: the whole conversation
  std::string prompt;                 // completions: the text to continue
  // The engine's defaults (trit/sampler.h) where the request sets nothing; temperature 0 is greedy.
  SamplingParams sampling;
  std::optional<int32_t> max_tokens;  // max_tokens or max_completion_tokens; none: until the context is full
  std::vector<std::string> stop;
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
};

// Deeper JSON than this is refused (a hostile body cannot make the server recurse or allocate deeply).
inline constexpr int kMaxJsonDepth = 64;

// Parses and validates a request body for `endpoint`. Throws ApiError (400) naming the parameter.
CompletionRequest parse_completion_request(std::string_view body, Endpoint endpoint);

// The body is read as JSON whatever its Content-Type says (curl -d sends
// application/x-www-form-urlencoded, some clients text/plain, some none), except a multipart/* body: a
// form of parts, never a JSON object. Throws ApiError (415) for one. The HTTP layer reads such a body
// through cpp-httplib's multipart reader (its plain reader fails on it) and then calls this.
void check_content_type(std::string_view content_type);

// cpp-httplib decodes a body sent with Content-Encoding gzip, deflate or br, and passes any other
// encoding through undecoded (it would then be parsed as if it were JSON). Throws ApiError (415) for
// any but those, identity or none; the HTTP layer calls this once the body is read.
void check_content_encoding(std::string_view content_encoding);

}  // namespace trit::server
