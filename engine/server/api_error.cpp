#include "api_error.h"

#include <nlohmann/json.hpp>

namespace trit::server {

ApiError invalid_request(std::string message, std::optional<std::string> param, std::optional<std::string> code) {
  return ApiError(400, std::move(message), "invalid_request_error", std::move(param), std::move(code));
}

std::string error_body(const ApiError& e) {
  using nlohmann::json;
  json err = {{"message", e.what()},
              {"type", e.type},
              {"param", e.param ? json(*e.param) : json(nullptr)},
              {"code", e.code ? json(*e.code) : json(nullptr)}};
  // Messages may quote client input: replace rather than throw on bytes that are not UTF-8.
  return json{{"error", err}}.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace trit::server
