#include "openai_response.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <random>

#include "served_model.h"

namespace trit::server {
namespace {
using nlohmann::json;

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool is_chat(const ResponseHeader& h) {
  return h.endpoint == Endpoint::ChatCompletions;
}

json usage_json(const Usage& u) {
  return {{"prompt_tokens", u.prompt_tokens},
          {"completion_tokens", u.completion_tokens},
          {"total_tokens", u.prompt_tokens + u.completion_tokens},
          {"prompt_tokens_details", {{"cached_tokens", u.cached_tokens}}}};
}

json base(const ResponseHeader& h, bool chunk) {
  const char* object = is_chat(h) ? (chunk ? "chat.completion.chunk" : "chat.completion") : "text_completion";
  return {{"id", h.id}, {"object", object}, {"created", h.created}, {"model", h.model}};
}

// One streamed choice: a chat delta or a completion text, and its finish reason (null while it goes on).
std::string chunk(const ResponseHeader& h, json delta_or_text, const char* finish, bool include_usage) {
  json c = base(h, true);
  json choice = {{"index", 0}};
  if (is_chat(h))
    choice["delta"] = std::move(delta_or_text);
  else
    choice["text"] = std::move(delta_or_text);
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish ? json(finish) : json(nullptr);
  c["choices"] = json::array({std::move(choice)});
  if (include_usage) c["usage"] = nullptr;
  return dump(c);
}
}  // namespace

ResponseHeader new_response_header(Endpoint endpoint, std::string model) {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  char hex[25];
  const uint64_t a = rng(), b = rng();
  std::snprintf(hex, sizeof hex, "%016llx%08llx", static_cast<unsigned long long>(a),
                static_cast<unsigned long long>(b & 0xffffffffu));
  ResponseHeader h;
  h.endpoint = endpoint;
  h.id = std::string(endpoint == Endpoint::ChatCompletions ? "chatcmpl-" : "cmpl-") + hex;
  h.created =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  h.model = std::move(model);
  return h;
}

const char* finish_reason_name(FinishReason reason) {
  return reason == FinishReason::Stop ? "stop" : "length";
}

std::string completion_body(const ResponseHeader& h, std::string_view text, FinishReason reason, const Usage& usage) {
  json r = base(h, false);
  json choice = {{"index", 0}};
  if (is_chat(h))
    choice["message"] = {{"role", "assistant"}, {"content", text}, {"refusal", nullptr}};
  else
    choice["text"] = text;
  choice["logprobs"] = nullptr;
  choice["finish_reason"] = finish_reason_name(reason);
  r["choices"] = json::array({std::move(choice)});
  r["usage"] = usage_json(usage);
  return dump(r);
}

std::string role_chunk(const ResponseHeader& h, bool include_usage) {
  return chunk(h, json{{"role", "assistant"}, {"content", ""}}, nullptr, include_usage);
}

std::string text_chunk(const ResponseHeader& h, std::string_view text, bool include_usage) {
  return chunk(h, is_chat(h) ? json{{"content", text}} : json(text), nullptr, include_usage);
}

std::string finish_chunk(const ResponseHeader& h, FinishReason reason, bool include_usage) {
  return chunk(h, is_chat(h) ? json::object() : json(""), finish_reason_name(reason), include_usage);
}

std::string usage_chunk(const ResponseHeader& h, const Usage& usage) {
  json c = base(h, true);
  c["choices"] = json::array();
  c["usage"] = usage_json(usage);
  return dump(c);
}

std::string sse_event(std::string_view json_text) {
  std::string s = "data: ";
  s += json_text;
  s += "\n\n";
  return s;
}

std::string sse_done() {
  return "data: [DONE]\n\n";
}

std::string model_object(const ServedModel& m) {
  return dump({{"id", m.id()}, {"object", "model"}, {"created", m.created()}, {"owned_by", "trit"}});
}

std::string model_list(const ServedModel* m) {
  json data = json::array();
  if (m) data.push_back(json::parse(model_object(*m)));
  return dump({{"object", "list"}, {"data", data}});
}

}  // namespace trit::server
