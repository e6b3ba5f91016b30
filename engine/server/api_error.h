#pragma once
// An error answered to an API client, in OpenAI's shape:
//   {"error": {"message": "...", "type": "invalid_request_error", "param": "temperature", "code": null}}
// with its HTTP status (and headers such as Retry-After). The request parser, the HTTP layer and the
// scheduler throw or return these; error_body() is the one place that writes them.
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace trit::server {

class ApiError : public std::runtime_error {
 public:
  ApiError(int http_status, const std::string& message, std::string error_type,
           std::optional<std::string> error_param = std::nullopt, std::optional<std::string> error_code = std::nullopt)
      : std::runtime_error(message),
        status(http_status),
        type(std::move(error_type)),
        param(std::move(error_param)),
        code(std::move(error_code)) {}

  int status;
  std::string type;                  // "invalid_request_error", "authentication_error", ...
  std::optional<std::string> param;  // the request field at fault, if one is
  std::optional<std::string> code;   // a machine-readable code ("context_length_exceeded"), if any
  std::vector<std::pair<std::string, std::string>> headers;  // extra response headers (Retry-After)
};

// 400: a malformed request or a bad parameter.
ApiError invalid_request(std::string message, std::optional<std::string> param = std::nullopt,
                         std::optional<std::string> code = std::nullopt);

// The JSON body of an error response (and of an error event in a stream).
std::string error_body(const ApiError& e);

}  // namespace trit::server
