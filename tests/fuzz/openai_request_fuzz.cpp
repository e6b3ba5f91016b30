// libFuzzer target: the API server's request parser (engine/server/openai_request.cpp) on arbitrary
// bytes. Every byte of a request comes from a client of `trit-cli serve` or of the app's server, so it
// is hostile input. Built with clang (tests/fuzz/CMakeLists.txt), run for a bounded time as the CTest
// test openai_request_fuzz.
//
// An input is what the HTTP layer hands the parser: its first byte picks the route (even: POST
// /v1/chat/completions, odd: POST /v1/completions), the rest up to the first newline is the
// Content-Type header (and, after a tab, the Content-Encoding), and the rest is the body
// ("0application/json\n{...}", "1text/plain\tgzip\n{...}": the body as cpp-httplib hands it on, decoded).
// As the server does, the Content-Type and Content-Encoding are checked first, then the body parsed.
// Besides crashes and sanitizer reports it checks what the parser promises (openai_request.h):
// - nothing but an ApiError escapes; a refused request gets 400 (415 for a multipart Content-Type or an
//   encoding cpp-httplib does not decode only; 413 is the HTTP layer's), type invalid_request_error, a
//   message, and a body error_body() can
//   write; an error about one field names it in `param` (and a message quoting a field quotes that one;
//   an empty param is a field with an empty name, and the message says so);
// - an accepted request is for the route it came on, holds only what the engine can run (sampling
//   parameters the engine's rules accept, max_tokens in [1, 2^31), at most 4 stop strings, none empty)
//   and only valid UTF-8 text, has its input (chat: messages; completions: a prompt) and asks for usage
//   only in a stream.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "api_error.h"
#include "openai_request.h"

namespace {
using trit::server::ApiError;
using trit::server::CompletionRequest;
using trit::server::Endpoint;

[[noreturn]] void fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "openai_request_fuzz: %s: %.*s\n", what, static_cast<int>(std::min<size_t>(detail.size(), 300)),
               detail.data());
  std::abort();
}

bool valid_utf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1;
      cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2;
      cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;
    for (size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are not UTF-8.
    if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return false;
    i += n + 1;
  }
  return true;
}

void check_error(const ApiError& e, bool unreadable) {
  const std::string message = e.what();
  if (e.status == 415) {
    if (!unreadable) fail("415 for a Content-Type and Content-Encoding that can be read", message);
  } else if (e.status != 400) {
    fail("an error status other than 400 or 415", std::to_string(e.status) + " " + message);
  }
  if (e.type != "invalid_request_error") fail("an error type other than invalid_request_error", e.type);
  if (message.empty()) fail("an error without a message", "");
  // A field with an empty name is named by an empty param, and the message says so.
  if (e.param && e.param->empty() && message.find("(a field with an empty name)") == std::string::npos)
    fail("an error naming an empty param does not say the name is empty", message);
  if (e.param && message.starts_with("'") && !message.starts_with("'" + *e.param + "'"))
    fail("the message quotes another field than the param it names", message + " / param " + *e.param);
  // Only an error about the whole body (its JSON or its Content-Type) names no field.
  const bool whole_body = message.starts_with("the request body ");
  if (!e.param && !whole_body) fail("an error about a field does not name it in param", message);
  if (e.param && whole_body) fail("an error about the whole body names a param", message);
  const auto body = nlohmann::json::parse(trit::server::error_body(e), nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body["error"]["message"].is_string()) fail("error_body() wrote no valid JSON", message);
}

void check_request(const CompletionRequest& r, Endpoint endpoint) {
  if (r.endpoint != endpoint) fail("the request is for another route", "");
  if (!valid_utf8(r.model)) fail("the model name is not UTF-8", r.model);
  if (endpoint == Endpoint::ChatCompletions) {
    if (r.messages.empty()) fail("a chat request without messages", "");
    if (!r.prompt.empty()) fail("a chat request with a prompt", r.prompt);
    for (const auto& m : r.messages)
      if (!valid_utf8(m.content)) fail("a message is not UTF-8", m.content);
  } else {
    if (!r.messages.empty()) fail("a completion request with messages", "");
    if (!valid_utf8(r.prompt)) fail("the prompt is not UTF-8", r.prompt);
  }
  if (r.max_tokens && *r.max_tokens < 1) fail("max_tokens below 1", std::to_string(*r.max_tokens));
  if (auto e = r.sampling.validate(); !e.empty()) fail("sampling the engine refuses", e);
  const auto& s = r.sampling;
  if (!std::isfinite(s.temperature) || !std::isfinite(s.top_p) || !std::isfinite(s.min_p) ||
      !std::isfinite(s.repeat_penalty))
    fail("a sampling parameter is not finite", "");
  if (r.stop.size() > 4) fail("more than 4 stop strings", std::to_string(r.stop.size()));
  for (const auto& stop : r.stop) {
    if (stop.empty()) fail("an empty stop string", "");
    if (!valid_utf8(stop)) fail("a stop string is not UTF-8", stop);
  }
  if (r.include_usage && !r.stream) fail("include_usage without a stream", "");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const Endpoint endpoint = (data[0] & 1) == 0 ? Endpoint::ChatCompletions : Endpoint::Completions;
  std::string_view rest = input.substr(1);
  const size_t newline = rest.find('\n');
  const std::string_view headers = newline == std::string_view::npos ? std::string_view() : rest.substr(0, newline);
  const std::string_view body = newline == std::string_view::npos ? rest : rest.substr(newline + 1);
  const size_t tab = headers.find('\t');
  const std::string_view content_type = headers.substr(0, tab);
  const std::string_view encoding = tab == std::string_view::npos ? std::string_view() : headers.substr(tab + 1);
  // The encodings cpp-httplib decodes, by its own exact comparison.
  const bool decoded =
      encoding.empty() || encoding == "identity" || encoding == "gzip" || encoding == "deflate" || encoding == "br";
  // What a Content-Type's media type is, read independently of the parser: multipart/* in any case.
  std::string media(content_type.substr(std::min(content_type.find_first_not_of(" \t"), content_type.size())));
  for (char& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool multipart = media.starts_with("multipart/");
  try {
    trit::server::check_content_type(content_type);
    if (multipart) fail("a multipart Content-Type was let through", content_type);
    trit::server::check_content_encoding(encoding);
    if (!decoded) fail("a Content-Encoding cpp-httplib does not decode was let through", encoding);
    check_request(trit::server::parse_completion_request(body, endpoint), endpoint);
  } catch (const ApiError& e) {
    check_error(e, multipart || !decoded);
  } catch (const std::exception& e) {
    fail("an exception other than ApiError escaped", e.what());
  } catch (...) {
    fail("something other than an exception escaped", "");
  }
  return 0;
}
