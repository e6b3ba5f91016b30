#pragma once
// The OpenAI-compatible HTTP API over cpp-httplib: routes, authentication, CORS, limits and streaming.
// Request bodies are parsed in openai_request.h, responses written in openai_response.h, and generation
// goes through a Scheduler; this file only connects them to HTTP.
//
// Threads: each listening address has cpp-httplib's accept thread and a pool of worker threads; a worker
// reads one request, validates and tokenizes it, submits a Job and then writes the job's text to its
// client as the engine thread appends it (streamed as Server-Sent Events, or whole at the end).
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "scheduler.h"
#include "served_model.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace trit::server {

struct ServerOptions {
  // "127.0.0.1" or "localhost" (the default) listen on both loopback addresses, 127.0.0.1 and ::1; "::"
  // on every interface of both families (a dual-stack socket; IPv4 only without IPv6); any other
  // address is taken as given. Listening anywhere but on loopback needs an api_key.
  std::string host = "127.0.0.1";
  int port = 8080;      // 0: any free port (start() returns it)
  std::string api_key;  // empty: no key (loopback only); else every /v1 request needs "Authorization: Bearer KEY"
  // Web pages allowed to call the API from a browser (CORS), besides pages served from localhost,
  // 127.0.0.1 and [::1] on any port; "*" allows every origin. A request from any other page is refused.
  std::vector<std::string> allowed_origins;
  size_t max_body_bytes = 8u << 20;        // larger request bodies are answered 413
  int parallel = 1;                        // requests the scheduler runs at once (sizes the worker pools)
  size_t queue = 16;                       // requests that may wait for a turn (sizes the worker pools)
  std::chrono::seconds read_timeout{10};   // a client that sends nothing for this long is dropped
  std::chrono::seconds write_timeout{30};  // a client that reads nothing for this long is dropped
  // An idle keep-alive connection is closed after this long. stop() waits for idle connections to reach
  // it, so the app, which stops and restarts its server while running, keeps it short.
  std::chrono::seconds keep_alive_timeout{5};
  bool log_requests = true;  // one line per request on stderr
};

// Empty if the options can be used, else what is wrong (a non-loopback host without an API key, ...).
std::string validate(const ServerOptions& options);
// True for "localhost", 127.0.0.0/8 and ::1.
bool is_loopback_host(const std::string& host);
// True if a page from `origin` may call the API (CORS): localhost pages, or one of `allowed`.
bool origin_allowed(const std::string& origin, const std::vector<std::string>& allowed);

class HttpServer {
 public:
  // `models` names the model each request is for (null: none is loaded, and requests get 503).
  HttpServer(ModelSource models, Scheduler& scheduler, ServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds every address and starts serving; returns the port. Throws std::runtime_error naming the
  // address that could not be bound.
  int start();
  // The addresses listened on, as URLs ("http://127.0.0.1:8080", "http://[::1]:8080").
  const std::vector<std::string>& urls() const { return urls_; }
  // Stops listening and waits for the worker threads (stop the scheduler first: waiting requests end).
  void stop();

 private:
  struct Listener;
  void install_routes(httplib::Server& http);
  // A validated request: model, prompt, admission, then the reply (whole or streamed). Throws ApiError.
  void serve_completion(const httplib::Request& req, httplib::Response& res, const CompletionRequest& request,
                        const ServedModel& model);
  void log(const std::string& method, const std::string& path, int status, const std::string& detail) const;

  ModelSource models_;
  Scheduler& scheduler_;
  ServerOptions options_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::string> urls_;
};

}  // namespace trit::server
