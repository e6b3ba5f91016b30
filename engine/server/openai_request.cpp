#include "openai_request.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "trit/session.h"

namespace trit::server {
namespace {
using nlohmann::json;

struct TooDeep {};

json parse_json(std::string_view body) {
  // The parser callback sees every value's depth before it is built: deeper than the limit aborts the parse.
  json::parser_callback_t limit_depth = [](int depth, json::parse_event_t event, json&) {
    if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
        depth >= kMaxJsonDepth)
      throw TooDeep{};
    return true;
  };
  try {
    return json::parse(body, limit_depth);
  } catch (const TooDeep&) {
    throw invalid_request("the request body nests JSON deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  } catch (const json::exception& e) {
    // nlohmann's messages name the byte and the problem (ill-formed UTF-8, a number out of range, ...).
    throw invalid_request(std::string("the request body is not valid JSON: ") + e.what());
  }
}

const char* type_name(const json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}

[[noreturn]] void wrong_type(const std::string& name, const char* expected, const json& v) {
  throw invalid_request("'" + name + "' must be " + expected + ", not " + type_name(v), name);
}

double number(const std::string& name, const json& v) {
  if (!v.is_number()) wrong_type(name, "a number", v);
  return v.get<double>();
}

float finite_float(const std::string& name, const json& v) {
  const double d = number(name, v);
  if (!std::isfinite(d) || std::fabs(d) > std::numeric_limits<float>::max())
    throw invalid_request("'" + name + "' is out of range", name);
  return static_cast<float>(d);
}

int64_t integer(const std::string& name, const json& v, int64_t min, int64_t max) {
  if (!v.is_number_integer()) wrong_type(name, "an integer", v);
  // A large unsigned value does not fit int64: it is out of range like any value past max.
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(max))
    throw invalid_request("'" + name + "' must be at most " + std::to_string(max), name);
  const auto i = v.get<int64_t>();
  if (i < min || i > max)
    throw invalid_request("'" + name + "' must be between " + std::to_string(min) + " and " + std::to_string(max) +
                              " (got " + std::to_string(i) + ")",
                          name);
  return i;
}

bool boolean(const std::string& name, const json& v) {
  if (!v.is_boolean()) wrong_type(name, "a boolean", v);
  return v.get<bool>();
}

const std::string& string(const std::string& name, const json& v) {
  if (!v.is_string()) wrong_type(name, "a string", v);
  return v.get_ref<const std::string&>();
}

// A field the API does not have. One with an empty name is said to be one: the message would
// otherwise end in a name that is not there.
[[noreturn]] void unrecognized_field(const std::string& field, const std::string& key) {
  throw invalid_request("unrecognized field '" + field + "'" + (key.empty() ? " (a field with an empty name)" : ""),
                        field);
}

[[noreturn]] void unsupported(const std::string& name, const std::string& why) {
  throw invalid_request("'" + name + "' is not supported by this server: " + why, name, "unsupported_parameter");
}

std::vector<std::string> stop_strings(const json& v) {
  std::vector<std::string> out;
  if (v.is_string()) {
    out.push_back(v.get<std::string>());
  } else if (v.is_array()) {
    if (v.size() > 4)
      throw invalid_request("'stop' takes at most 4 strings (got " + std::to_string(v.size()) + ")", "stop");
    for (size_t i = 0; i < v.size(); ++i) out.push_back(string("stop[" + std::to_string(i) + "]", v[i]));
  } else {
    wrong_type("stop", "a string or an array of strings", v);
  }
  return out;
}

ChatRole role_of(const std::string& name, const std::string& role) {
  if (role == "system" || role == "developer") return ChatRole::System;
  if (role == "user") return ChatRole::User;
  if (role == "assistant") return ChatRole::Assistant;
  if (role == "tool" || role == "function")
    unsupported(name, "tool and function messages need tool calling, which this server does not do");
  throw invalid_request(
      "'" + name + "' must be \"system\", \"developer\", \"user\" or \"assistant\" (got \"" + role + "\")", name);
}

// A message's content: a string, or an array of text parts whose texts are joined.
std::string content_text(const std::string& name, const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (!v.is_array()) wrong_type(name, "a string or an array of content parts", v);
  std::string text;
  for (size_t j = 0; j < v.size(); ++j) {
    const std::string part = name + "[" + std::to_string(j) + "]";
    const json& p = v[j];
    if (!p.is_object()) wrong_type(part, "an object", p);
    auto type = p.find("type");
    if (type == p.end()) throw invalid_request("'" + part + ".type' is missing", part + ".type");
    const std::string& t = string(part + ".type", *type);
    if (t != "text") unsupported(part + ".type", "content parts of type \"" + t + "\"; only \"text\" parts are read");
    for (const auto& [key, _] : p.items())
      if (key != "type" && key != "text") unrecognized_field(part + "." + key, key);
    auto txt = p.find("text");
    if (txt == p.end()) throw invalid_request("'" + part + ".text' is missing", part + ".text");
    text += string(part + ".text", *txt);
  }
  return text;
}

std::vector<ChatMessage> messages(const json& v) {
  if (!v.is_array()) wrong_type("messages", "an array", v);
  if (v.empty()) throw invalid_request("'messages' must hold at least one message", "messages");
  std::vector<ChatMessage> out;
  for (size_t i = 0; i < v.size(); ++i) {
    const std::string name = "messages[" + std::to_string(i) + "]";
    const json& m = v[i];
    if (!m.is_object()) wrong_type(name, "an object", m);
    std::optional<ChatRole> role;
    std::optional<std::string> content;
    for (const auto& [key, value] : m.items()) {
      const std::string field = name + "." + key;
      if (key == "role")
        role = role_of(field, string(field, value));
      else if (key == "content")
        content = value.is_null() ? std::string() : content_text(field, value);
      else if (key == "name")
        (void)string(field, value);  // a participant's name: no chat format has a place for it
      else if (key == "tool_calls" || key == "function_call") {
        if (!value.is_null() && !(value.is_array() && value.empty())) unsupported(field, "tool calling");
      } else
        unrecognized_field(field, key);
    }
    if (!role) throw invalid_request("'" + name + ".role' is missing", name + ".role");
    if (!content) throw invalid_request("'" + name + ".content' is missing", name + ".content");
    out.push_back({*role, std::move(*content)});
  }
  return out;
}

std::string prompt_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_array()) {
    if (v.size() == 1 && v[0].is_string()) return v[0].get<std::string>();
    if (v.empty()) throw invalid_request("'prompt' must not be an empty array", "prompt");
    if (v.size() > 1 && v[0].is_string())
      unsupported("prompt", "several prompts in one request (send one request per prompt)");
    unsupported("prompt", "prompts given as token ids; send the text");
  }
  wrong_type("prompt", "a string", v);
}

}  // namespace

void check_content_type(std::string_view content_type) {
  // The media type is case-insensitive (RFC 9110 8.3.1) and may have leading blanks.
  const auto start = content_type.find_first_not_of(" \t");
  if (start == std::string_view::npos) return;
  const std::string_view kMultipart = "multipart/";
  const std::string_view type = content_type.substr(start, kMultipart.size());
  const bool multipart =
      type.size() == kMultipart.size() && std::equal(type.begin(), type.end(), kMultipart.begin(), [](char a, char b) {
        return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
      });
  if (multipart)
    throw ApiError(415, "the request body must be JSON (Content-Type: application/json), not a multipart form",
                   "invalid_request_error", std::nullopt, "unsupported_media_type");
}

void check_content_encoding(std::string_view encoding) {
  // Exactly the names cpp-httplib decodes (it compares them as they are, so "GZIP" is not gzip to it).
  for (const char* known : {"", "identity", "gzip", "deflate", "br"})
    if (encoding == known) return;
  throw ApiError(415,
                 "the request body is encoded as '" + std::string(encoding) +
                     "' (Content-Encoding), which is not supported: send it as it is, or compressed with gzip, "
                     "deflate or br",
                 "invalid_request_error", std::nullopt, "unsupported_media_type");
}

CompletionRequest parse_completion_request(std::string_view body, Endpoint endpoint) {
  const json j = parse_json(body);
  if (!j.is_object()) throw invalid_request(std::string("the request body must be a JSON object, not ") + type_name(j));
  const bool chat = endpoint == Endpoint::ChatCompletions;
  CompletionRequest r;
  r.endpoint = endpoint;
  bool have_model = false, have_input = false, have_stream_options = false;
  std::optional<int64_t> max_tokens, max_completion_tokens;
  for (const auto& [key, v] : j.items()) {
    // null is "not given", as OpenAI's API treats it for every optional parameter.
    if (v.is_null() && key != "model" && key != "messages" && key != "prompt") continue;
    if (key == "model") {
      r.model = string(key, v);
      have_model = true;
    } else if (key == "messages" && chat) {
      r.messages = messages(v);
      have_input = true;
    } else if (key == "prompt" && !chat) {
      r.prompt = prompt_text(v);
      have_input = true;
    } else if (key == "max_tokens") {
      max_tokens = integer(key, v, 1, std::numeric_limits<int32_t>::max());
    } else if (key == "max_completion_tokens" && chat) {
      max_completion_tokens = integer(key, v, 1, std::numeric_limits<int32_t>::max());
    } else if (key == "temperature") {
      r.sampling.temperature = finite_float(key, v);
    } else if (key == "top_p") {
      r.sampling.top_p = finite_float(key, v);
    } else if (key == "top_k") {
      r.sampling.top_k = static_cast<int32_t>(integer(key, v, 0, std::numeric_limits<int32_t>::max()));
    } else if (key == "min_p") {
      r.sampling.min_p = finite_float(key, v);
    } else if (key == "repeat_penalty") {
      r.sampling.repeat_penalty = finite_float(key, v);
    } else if (key == "repeat_last_n") {
      r.sampling.repeat_last_n = static_cast<int32_t>(integer(key, v, 0, std::numeric_limits<int32_t>::max()));
    } else if (key == "seed") {
      // Any 64-bit integer, negative ones too (as OpenAI takes them): the same bits seed the sampler.
      if (!v.is_number_integer()) wrong_type(key, "an integer", v);
      r.sampling.seed = v.is_number_unsigned() ? v.get<uint64_t>() : static_cast<uint64_t>(v.get<int64_t>());
    } else if (key == "stop") {
      r.stop = stop_strings(v);
    } else if (key == "stream") {
      r.stream = boolean(key, v);
    } else if (key == "stream_options") {
      if (!v.is_object()) wrong_type(key, "an object", v);
      for (const auto& [k, o] : v.items()) {
        if (k != "include_usage") unrecognized_field("stream_options." + k, k);
        if (!o.is_null()) r.include_usage = boolean("stream_options.include_usage", o);
      }
      have_stream_options = true;
    } else if (key == "n" || key == "best_of") {
      if (integer(key, v, 1, std::numeric_limits<int32_t>::max()) != 1)
        unsupported(key, "more than one choice per request");
    } else if (key == "presence_penalty" || key == "frequency_penalty") {
      if (number(key, v) != 0) unsupported(key, "use repeat_penalty (a multiplicative repetition penalty) instead");
    } else if (key == "logprobs") {
      if (!(v.is_boolean() && !v.get<bool>())) unsupported(key, "log probabilities are not returned");
    } else if (key == "top_logprobs") {
      unsupported(key, "log probabilities are not returned");
    } else if (key == "logit_bias") {
      if (!v.is_object()) wrong_type(key, "an object", v);
      if (!v.empty()) unsupported(key, "logit biases");
    } else if (key == "tools" || key == "functions") {
      if (!v.is_array()) wrong_type(key, "an array", v);
      if (!v.empty()) unsupported(key, "tool calling");
    } else if (key == "tool_choice" || key == "function_call") {
      if (!(v.is_string() && v.get<std::string>() == "none")) unsupported(key, "tool calling");
    } else if (key == "parallel_tool_calls") {
      (void)boolean(key, v);  // only means something with tools, which are refused above
    } else if (key == "response_format" && chat) {
      if (!v.is_object()) wrong_type(key, "an object", v);
      auto t = v.find("type");
      if (t == v.end() || !t->is_string() || t->get<std::string>() != "text")
        unsupported(key, "structured output; only {\"type\": \"text\"} is accepted");
    } else if (key == "echo" && !chat) {
      if (boolean(key, v)) unsupported(key, "echoing the prompt");
    } else if (key == "suffix" && !chat) {
      if (!string(key, v).empty()) unsupported(key, "a suffix (fill in the middle)");
    } else if (key == "user") {
      (void)string(key, v);  // an end-user id OpenAI uses for abuse monitoring: nothing to do with it here
    } else {
      // OpenAI's own message for this, which clients may match on.
      throw invalid_request(
          "Unrecognized request argument supplied: " + (key.empty() ? "\"\" (a field with an empty name)" : key), key);
    }
  }
  if (!have_model) throw invalid_request("you must provide a model parameter", "model");
  if (!have_input) {
    const char* what = chat ? "messages" : "prompt";
    throw invalid_request(std::string("'") + what + "' is required", what);
  }
  if (max_tokens && max_completion_tokens && *max_tokens != *max_completion_tokens)
    throw invalid_request("'max_tokens' and 'max_completion_tokens' disagree; give one of them", "max_tokens");
  if (max_tokens || max_completion_tokens)
    r.max_tokens = static_cast<int32_t>(max_tokens ? *max_tokens : *max_completion_tokens);
  if (have_stream_options && !r.stream)
    throw invalid_request("'stream_options' is only allowed when 'stream' is true", "stream_options");

  // The engine's own rules for the sampling parameters and stop strings (one copy of each rule).
  GenerateOptions check;
  check.sampling = r.sampling;
  check.stop_strings = r.stop;
  if (auto e = check.validate(); !e.empty()) {
    std::optional<std::string> param;
    if (e.starts_with("temperature"))
      param = "temperature";
    else if (e.starts_with("top-k"))
      param = "top_k";
    else if (e.starts_with("top-p"))
      param = "top_p";
    else if (e.starts_with("min-p"))
      param = "min_p";
    else if (e.starts_with("repetition penalty"))
      param = "repeat_penalty";
    else if (e.starts_with("repetition window"))
      param = "repeat_last_n";
    else if (e.starts_with("stop"))
      param = "stop";
    throw invalid_request(e, param);
  }
  return r;
}

}  // namespace trit::server
