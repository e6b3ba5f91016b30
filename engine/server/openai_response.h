#pragma once
// The one place where OpenAI response bodies are written: completions and chat completions (whole and
// as stream chunks), usage, and the model list. Error bodies are in api_error.h.
#include <cstdint>
#include <string>
#include <string_view>

#include "openai_request.h"
#include "trit/session.h"

namespace trit::server {

class ServedModel;

struct Usage {
  int32_t prompt_tokens = 0;
  int32_t completion_tokens = 0;
  int32_t cached_tokens = 0;  // of the prompt, found in the KV cache (prompt_tokens_details.cached_tokens)
};

// What every object of one response shares.
struct ResponseHeader {
  Endpoint endpoint = Endpoint::ChatCompletions;
  std::string id;  // "chatcmpl-..." or "cmpl-..."
  int64_t created = 0;
  std::string model;
};

// A new response id for the endpoint ("chatcmpl-" or "cmpl-" and 24 random hex digits) and the time now.
ResponseHeader new_response_header(Endpoint endpoint, std::string model);

// "stop" or "length" (a full context is "length", as OpenAI reports it).
const char* finish_reason_name(FinishReason reason);

// A whole (not streamed) chat.completion or text_completion.
std::string completion_body(const ResponseHeader& h, std::string_view text, FinishReason reason, const Usage& usage);

// Stream chunks, each a JSON object (sse_event() frames them). The first chat chunk carries
// delta.role; a chunk with a finish reason ends the choice. With include_usage every chunk has
// "usage": null and usage_chunk() then carries the counts with no choices.
std::string role_chunk(const ResponseHeader& h, bool include_usage);
std::string text_chunk(const ResponseHeader& h, std::string_view text, bool include_usage);
std::string finish_chunk(const ResponseHeader& h, FinishReason reason, bool include_usage);
std::string usage_chunk(const ResponseHeader& h, const Usage& usage);

// "data: {json}\n\n"; sse_done() is "data: [DONE]\n\n".
std::string sse_event(std::string_view json);
std::string sse_done();

// GET /v1/models and GET /v1/models/{id}. The list is empty while no model is loaded (m null: the app).
std::string model_object(const ServedModel& m);
std::string model_list(const ServedModel* m);

}  // namespace trit::server
