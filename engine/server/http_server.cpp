#include "http_server.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "client_connection.h"
#include "openai_request.h"
#include "openai_response.h"

namespace trit::server {
namespace {

// Every callback cpp-httplib calls is wrapped here: trit-cli links the C++ runtime statically and the
// system's cpp-httplib dynamically, so an exception must never cross from one into the other.
template <class F>
void guarded(httplib::Response& res, F&& f) noexcept {
  auto fail = [&](const ApiError& e) {
    try {
      res.status = e.status;
      for (const auto& [k, v] : e.headers) res.set_header(k, v);
      res.set_content(error_body(e), "application/json");
    } catch (...) {
      res.status = 500;
    }
  };
  try {
    f();
  } catch (const ApiError& e) {
    fail(e);
  } catch (const std::exception& e) {
    fail(ApiError(500, std::string("internal error: ") + e.what(), "server_error"));
  } catch (...) {
    fail(ApiError(500, "internal error", "server_error"));
  }
}

void send_error(httplib::Response& res, const ApiError& e) {
  res.status = e.status;
  for (const auto& [k, v] : e.headers) res.set_header(k, v);
  res.set_content(error_body(e), "application/json");
}

// The error cpp-httplib's own statuses stand for, in OpenAI's shape.
ApiError error_for_status(const httplib::Request& req, int status) {
  switch (status) {
    case 404:
      return ApiError(404, "Unknown request URL: " + req.method + " " + req.path, "invalid_request_error", std::nullopt,
                      "unknown_url");
    case 413:
      return ApiError(413, "the request body is too large", "invalid_request_error", std::nullopt, "request_too_large");
    case 414:
      return ApiError(414, "the request line is too long", "invalid_request_error");
    case 416:  // cpp-httplib refuses a malformed Range header before any handler could ignore it
      return ApiError(416, "the Range header is malformed; this API serves no byte ranges: leave it out",
                      "invalid_request_error");
    case 400:
      return invalid_request("malformed HTTP request");
    default:
      return ApiError(status, "the request failed with HTTP status " + std::to_string(status),
                      status >= 500 ? "server_error" : "invalid_request_error");
  }
}

// 503: the app's window has no model loaded. A 503 rather than a 404: the server and the request are fine
// and the same request succeeds once a model is loaded (OpenAI's clients retry a 503 a few times).
ApiError no_model_loaded() {
  return ApiError(503, "no model is loaded: load a model in Trit's window, and the API serves it", "server_error",
                  std::nullopt, "model_not_loaded");
}

// 503: a job the server ended before its client did: the server is stopping, or the job's model was
// unloaded or replaced in the app (JobResult::unavailable says which).
ApiError ended_by_server(const JobResult& r) {
  if (!r.unavailable.empty()) return ApiError(503, r.unavailable, "server_error", std::nullopt, "model_unavailable");
  return ApiError(503, "the server is shutting down", "server_error", std::nullopt, "shutting_down");
}

bool constant_time_equal(const std::string& a, const std::string& b) {
  unsigned char diff = a.size() == b.size() ? 0 : 1;
  const size_t n = std::max(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    const unsigned char x = i < a.size() ? static_cast<unsigned char>(a[i]) : 0;
    const unsigned char y = i < b.size() ? static_cast<unsigned char>(b[i]) : 0;
    diff = static_cast<unsigned char>(diff | (x ^ y));
  }
  return diff == 0;
}

// False where the kernel has no IPv6 (ipv6.disable=1): no IPv6 socket can be made.
bool has_ipv6() {
  const int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  close(fd);
  return true;
}

std::string bracket(const std::string& host) {
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

std::mutex log_mutex;
}  // namespace

bool is_loopback_host(const std::string& host) {
  if (host == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, host.c_str(), &v6) == 1) return IN6_IS_ADDR_LOOPBACK(&v6);
  return false;
}

bool origin_allowed(const std::string& origin, const std::vector<std::string>& allowed) {
  for (const auto& a : allowed)
    if (a == "*" || a == origin) return true;
  // A page served from this machine, on any port: http(s)://localhost, 127.0.0.1 or [::1].
  for (const char* scheme : {"http://", "https://"}) {
    if (!origin.starts_with(scheme)) continue;
    std::string rest = origin.substr(std::char_traits<char>::length(scheme));
    for (const char* host : {"localhost", "127.0.0.1", "[::1]"}) {
      const std::string h = host;
      if (rest == h) return true;
      if (rest.starts_with(h + ":")) {
        const std::string port = rest.substr(h.size() + 1);
        if (!port.empty() && port.size() <= 5 &&
            std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
          return true;
      }
    }
  }
  return false;
}

std::string validate(const ServerOptions& o) {
  if (o.host.empty()) return "the host to listen on is empty";
  if (o.port < 0 || o.port > 65535) return "the port must be between 0 and 65535 (got " + std::to_string(o.port) + ")";
  if (!is_loopback_host(o.host) && o.api_key.empty())
    return "listening on '" + o.host +
           "' lets other machines reach the API: give an API key (--api-key KEY) as well, "
           "or listen on 127.0.0.1";
  if (o.parallel < 1 || o.parallel > 64)
    return "parallel must be between 1 and 64 (got " + std::to_string(o.parallel) + ")";
  if (o.queue > 4096) return "the queue must hold at most 4096 requests (got " + std::to_string(o.queue) + ")";
  if (o.max_body_bytes < 1024) return "the request size limit must be at least 1024 bytes";
  for (const auto& a : o.allowed_origins)
    if (a.empty() || (a != "*" && a.find("://") == std::string::npos))
      return "'" + a + "' is not an origin: give scheme, host and port, e.g. http://localhost:3000 (or * for any)";
  return {};
}

struct HttpServer::Listener {
  std::string host;
  httplib::Server http;
  std::thread thread;
};

HttpServer::HttpServer(ModelSource models, Scheduler& scheduler, ServerOptions options)
    : models_(std::move(models)), scheduler_(scheduler), options_(std::move(options)) {
  if (auto e = validate(options_); !e.empty()) throw std::invalid_argument(e);
}

HttpServer::~HttpServer() {
  stop();
}

int HttpServer::start() {
  // Loopback means both loopback addresses. "::" is every interface of both families already: cpp-httplib
  // makes each IPv6 socket dual-stack (IPV6_V6ONLY off), so IPv4 clients come in as ::ffff:a.b.c.d. (A
  // second socket on 0.0.0.0 and the same port would need SO_REUSEPORT, refused below.)
  std::vector<std::string> hosts;
  if (options_.host == "127.0.0.1" || options_.host == "localhost")
    hosts = {"127.0.0.1", "::1"};
  else
    hosts = {options_.host};
  int port = options_.port;
  for (size_t i = 0; i < hosts.size(); ++i) {
    auto l = std::make_unique<Listener>();
    l->host = hosts[i];
    install_routes(l->http);
    // Each worker holds one request from its first byte to its last; streams, the waiting queue and a
    // few slow or idle connections all need one.
    const size_t workers = static_cast<size_t>(options_.parallel) + options_.queue + 16;
    l->http.new_task_queue = [workers] { return new httplib::ThreadPool(workers); };
    l->http.set_payload_max_length(options_.max_body_bytes);
    l->http.set_read_timeout(options_.read_timeout.count(), 0);
    l->http.set_write_timeout(options_.write_timeout.count(), 0);
    l->http.set_keep_alive_max_count(100);
    l->http.set_keep_alive_timeout(options_.keep_alive_timeout.count());
    l->http.set_tcp_nodelay(true);  // stream chunks leave at once
    // cpp-httplib's default options add SO_REUSEPORT, with which a second server (another trit-cli
    // serve, the app's) listened on this port too and the kernel split the connections between them.
    // SO_REUSEADDR alone still lets a restarted server bind while old connections linger.
    l->http.set_socket_options([](socket_t sock) {
      int yes = 1;
      setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    bool ok = false;
    if (port == 0) {
      port = l->http.bind_to_any_port(l->host);
      ok = port > 0;
    } else {
      ok = l->http.bind_to_port(l->host, port);
    }
    if (!ok) {
      // The second loopback address is a convenience: a machine without IPv6 still serves on 127.0.0.1.
      if (i > 0 && hosts[i] == "::1") {
        std::fprintf(stderr,
                     "trit-cli serve: note: not listening on [::1]:%d (no IPv6 loopback, or the port is taken there)\n",
                     port);
        continue;
      }
      // Every interface on a machine without IPv6 (a kernel without it): every IPv4 interface. (A port
      // taken on IPv6 is refused as taken, not served on IPv4 alone.)
      if (hosts[i] == "::" && i + 1 == hosts.size() && !has_ipv6()) {
        std::fprintf(stderr, "trit-cli serve: note: this machine has no IPv6; listening on IPv4 only (0.0.0.0)\n");
        hosts.push_back("0.0.0.0");
        continue;
      }
      throw std::runtime_error("cannot listen on " + bracket(l->host) + ":" + std::to_string(options_.port) +
                               " (the port is in use, or the address is not this machine's)");
    }
    urls_.push_back("http://" + bracket(l->host) + ":" + std::to_string(port));
    listeners_.push_back(std::move(l));
  }
  for (auto& l : listeners_) l->thread = std::thread([&http = l->http] { http.listen_after_bind(); });
  // cpp-httplib ignores stop() until its thread has begun listening; a stop() right after start() (the
  // app's switch toggled quickly) would be lost and stop() would wait for that thread forever.
  for (auto& l : listeners_)
    while (!l->http.is_running()) std::this_thread::sleep_for(std::chrono::microseconds(100));
  return port;
}

void HttpServer::stop() {
  for (auto& l : listeners_) l->http.stop();
  for (auto& l : listeners_)
    if (l->thread.joinable()) l->thread.join();
  listeners_.clear();
}

void HttpServer::install_routes(httplib::Server& http) {
  using httplib::Request;
  using httplib::Response;
  const ServerOptions& opt = options_;

  // Origin (CORS) and API key, before anything else a request does. Throws ApiError.
  auto gate = [&opt](const Request& req, Response& res, bool needs_key) {
    if (req.has_header("Origin")) {
      const std::string origin = req.get_header_value("Origin");
      if (!origin_allowed(origin, opt.allowed_origins))
        throw ApiError(403,
                       "requests from the web page origin '" + origin +
                           "' are not allowed; start the server with "
                           "--allow-origin " +
                           origin + " to allow them",
                       "invalid_request_error", std::nullopt, "origin_not_allowed");
      res.set_header("Access-Control-Allow-Origin", origin);
      res.set_header("Vary", "Origin");
    }
    if (!needs_key || opt.api_key.empty()) return;
    const std::string auth = req.get_header_value("Authorization");
    if (auth.empty())
      throw ApiError(401, "You didn't provide an API key. Send it as the header 'Authorization: Bearer KEY'.",
                     "invalid_request_error", std::nullopt, "invalid_api_key");
    if (!auth.starts_with("Bearer ") || !constant_time_equal(auth.substr(7), opt.api_key))
      throw ApiError(401, "Incorrect API key provided.", "invalid_request_error", std::nullopt, "invalid_api_key");
  };

  auto log = [this](const Request& req, int status, const std::string& detail) {
    this->log(req.method, req.path, status, detail);
  };

  // Every response with an error status passes here (cpp-httplib calls it for any status >= 400): the
  // statuses cpp-httplib sets itself get their OpenAI-shaped body, and each error is logged once.
  http.set_error_handler(httplib::Server::HandlerWithResponse([log](const Request& req, Response& res) {
    guarded(res, [&] {
      if (res.body.empty()) send_error(res, error_for_status(req, res.status));
      const auto body = nlohmann::json::parse(res.body, nullptr, /*allow_exceptions=*/false);
      log(req, res.status, body.contains("error") ? body["error"].value("message", "") : "");
    });
    return httplib::Server::HandlerResponse::Handled;
  }));
  // Every response here is made for its request: none is a resource to take byte ranges of, and RFC
  // 9110 (14.2) lets a server ignore Range. cpp-httplib would cut the JSON reply to the range asked
  // for. (The Request is cpp-httplib's own, not const, handed to this handler as const.)
  http.set_pre_routing_handler([](const Request& req, Response&) {
    const_cast<Request&>(req).ranges.clear();
    return httplib::Server::HandlerResponse::Unhandled;
  });
  http.set_exception_handler([](const Request&, Response& res, std::exception_ptr) {
    guarded(res, [&] { send_error(res, ApiError(500, "internal error", "server_error")); });
  });

  http.Get("/health", [gate](const Request& req, Response& res) {
    guarded(res, [&] {
      gate(req, res, false);
      res.set_content(R"({"status":"ok"})", "application/json");
    });
  });
  http.Get("/v1/models", [this, gate](const Request& req, Response& res) {
    guarded(res, [&] {
      gate(req, res, true);
      res.set_content(model_list(models_().get()), "application/json");
    });
  });
  http.Get("/v1/models/(.+)", [this, gate](const Request& req, Response& res) {
    guarded(res, [&] {
      gate(req, res, true);
      const std::string name = req.matches[1];
      const auto model = models_();
      if (!model)
        throw ApiError(404, "The model '" + name + "' does not exist; no model is loaded", "invalid_request_error",
                       "model", "model_not_found");
      if (!model->answers_to(name))
        throw ApiError(404, "The model '" + name + "' does not exist; this server serves '" + model->id() + "'",
                       "invalid_request_error", "model", "model_not_found");
      res.set_content(model_object(*model), "application/json");
    });
  });

  auto completion = [this, gate](Endpoint endpoint) {
    return [this, gate, endpoint](const Request& req, Response& res, const httplib::ContentReader& reader) {
      guarded(res, [&] {
        // The whole body is read, even one too large (then discarded as it comes), so the connection
        // stays in step for the client's next request.
        std::string body;
        bool too_large = false;
        const size_t limit = options_.max_body_bytes;
        auto collect = [&](const char* data, size_t n) noexcept {
          if (too_large || body.size() + n > limit) {
            too_large = true;
            body.clear();
            body.shrink_to_fit();
          } else {
            try {
              body.append(data, n);
            } catch (...) {  // out of memory: stop reading (this callback runs inside cpp-httplib)
              return false;
            }
          }
          return true;
        };
        // cpp-httplib reads a multipart/form-data body part by part even for the plain reader, whose
        // part callbacks are empty: calling one threw bad_function_call inside the library and aborted
        // the server. Such a body is read (and dropped) through the multipart reader, then refused.
        const bool read = req.is_multipart_form_data()
                              ? reader([](const httplib::MultipartFormData&) noexcept { return true; },
                                       [](const char*, size_t) noexcept { return true; })
                              : reader(collect);
        gate(req, res, true);
        check_content_type(req.get_header_value("Content-Type"));
        const std::string encoding = req.get_header_value("Content-Encoding");
        check_content_encoding(encoding);
        if (too_large || res.status == 413)
          throw ApiError(413, "the request body is larger than the limit of " + std::to_string(limit) + " bytes",
                         "invalid_request_error", std::nullopt, "request_too_large");
        if (!read && !encoding.empty() && encoding != "identity")
          throw invalid_request("the request body could not be decompressed as " + encoding + " (it is not " +
                                encoding + " data, or it was cut short)");
        if (!read) throw invalid_request("the request body could not be read (cut short, or sent too slowly)");
        const CompletionRequest request = parse_completion_request(body, endpoint);
        // The model is taken once: a request is tokenized for, and runs on, the model loaded when it came.
        const auto model = models_();
        if (!model) throw no_model_loaded();
        serve_completion(req, res, request, *model);
      });
    };
  };
  http.Post("/v1/chat/completions", completion(Endpoint::ChatCompletions));
  http.Post("/v1/completions", completion(Endpoint::Completions));

  // CORS preflight: a browser asks before a cross-origin POST with JSON or an Authorization header.
  http.Options(".*", [gate](const Request& req, Response& res) {
    guarded(res, [&] {
      gate(req, res, false);
      res.status = 204;
      res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
      const std::string asked = req.get_header_value("Access-Control-Request-Headers");
      res.set_header("Access-Control-Allow-Headers", asked.empty() ? "Authorization, Content-Type" : asked);
      res.set_header("Access-Control-Max-Age", "600");
    });
  });

  // Known paths with the wrong method: 405 with the methods they take.
  auto not_allowed = [](const char* allow) {
    return [allow](const Request& req, Response& res) {
      guarded(res, [&] {
        ApiError e(405, "Method " + req.method + " is not allowed on " + req.path + "; use " + allow,
                   "invalid_request_error", std::nullopt, "method_not_allowed");
        e.headers.emplace_back("Allow", allow);
        throw e;
      });
    };
  };
  for (const char* path : {"/v1/chat/completions", "/v1/completions"}) {
    http.Get(path, not_allowed("POST"));
    http.Put(path, not_allowed("POST"));
    http.Patch(path, not_allowed("POST"));
    http.Delete(path, not_allowed("POST"));
  }
  for (const char* path : {"/v1/models", "/v1/models/(.+)", "/health"}) {
    http.Post(path, not_allowed("GET"));
    http.Put(path, not_allowed("GET"));
    http.Patch(path, not_allowed("GET"));
    http.Delete(path, not_allowed("GET"));
  }
}

void HttpServer::log(const std::string& method, const std::string& path, int status, const std::string& detail) const {
  if (!options_.log_requests) return;
  std::lock_guard lock(log_mutex);
  std::fprintf(stderr, "trit-cli serve: %s %s %d%s%s\n", method.c_str(), path.c_str(), status,
               detail.empty() ? "" : " ", detail.c_str());
}

namespace {
Usage usage_of(const JobResult& r) {
  return {r.prompt_tokens, r.completion_tokens, r.cached_tokens};
}

// The log line's account of a finished job (the cached prompt tokens show item 4's prefix reuse).
std::string summary(const JobResult& r, bool streamed) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%sprompt %d tokens (%d cached), %d generated, first after %.1f ms, finish %s",
                streamed ? "stream, " : "", r.prompt_tokens, r.cached_tokens, r.completion_tokens, r.ttft_ms,
                to_string(r.reason));
  return buf;
}

// Writes a job's stream to its client until the job ends; false as soon as a write fails (the client is
// gone). Waiting for text, it sends an SSE comment every second: a client that left while its request
// waited or was prefilled is noticed too.
bool stream_job(Job& job, const ResponseHeader& h, bool include_usage, httplib::DataSink& sink, JobResult& result) {
  auto send = [&](const std::string& s) { return sink.write(s.data(), s.size()); };
  if (h.endpoint == Endpoint::ChatCompletions && !send(sse_event(role_chunk(h, include_usage)))) return false;
  for (;;) {
    std::string text;
    const std::optional<JobResult> done = job.wait(text, std::chrono::seconds(1));
    if (!text.empty()) {
      if (!send(sse_event(text_chunk(h, text, include_usage)))) return false;
    } else if (!done) {
      if (!send(": waiting\n\n")) return false;
      continue;
    }
    if (!done) continue;
    result = *done;
    if (!done->error.empty()) {
      if (!send(sse_event(error_body(ApiError(500, "generation failed: " + done->error, "server_error")))))
        return false;
    } else if (done->reason == FinishReason::Cancelled) {
      if (!send(sse_event(error_body(ended_by_server(*done))))) return false;
    } else {
      if (!send(sse_event(finish_chunk(h, done->reason, include_usage)))) return false;
      if (include_usage && !send(sse_event(usage_chunk(h, usage_of(*done))))) return false;
    }
    if (!send(sse_done())) return false;
    sink.done();
    return true;
  }
}
}  // namespace

void HttpServer::serve_completion(const httplib::Request& req, httplib::Response& res, const CompletionRequest& r,
                                  const ServedModel& model) {
  if (!model.answers_to(r.model))
    throw ApiError(404, "The model '" + r.model + "' does not exist; this server serves '" + model.id() + "'",
                   "invalid_request_error", "model", "model_not_found");
  std::vector<int32_t> prompt = model.prompt_tokens(r);
  const int32_t context = scheduler_.context_length();
  const auto n = static_cast<int32_t>(prompt.size());
  if (n > context)
    throw invalid_request(std::string(PromptTooLongError(n, context).what()) + " (trit-cli serve --context)",
                          r.endpoint == Endpoint::ChatCompletions ? "messages" : "prompt", "context_length_exceeded");
  GenerationRequest g;
  g.prompt = std::move(prompt);
  g.sampling = r.sampling;
  // A prompt of n tokens leaves room for context - n + 1 (the first comes from the prompt's logits).
  g.max_tokens = static_cast<int32_t>(std::min<int64_t>(r.max_tokens.value_or(INT32_MAX), int64_t{context} - n + 1));
  g.stop_strings = r.stop;
  g.stop_tokens = model.stop_tokens(r);
  g.model = model.shared_model();
  auto job = std::make_shared<Job>(std::move(g));
  switch (scheduler_.submit(job)) {
    case Scheduler::Admission::Accepted:
      break;
    case Scheduler::Admission::QueueFull: {
      ApiError e(503, "the server is busy: every place in its queue is taken; retry shortly", "server_error",
                 std::nullopt, "queue_full");
      e.headers.emplace_back("Retry-After", "1");
      throw e;
    }
    case Scheduler::Admission::ShuttingDown:
      throw ApiError(503, "the server is shutting down", "server_error", std::nullopt, "shutting_down");
  }
  const ResponseHeader h = new_response_header(r.endpoint, model.id());
  if (!r.stream) {
    // Nothing is written until the reply is done, so a client that leaves is noticed by watching its
    // connection: after each piece of text (each token) and every 50 ms while the request waits or its
    // prompt is processed. The engine then stops it before its next step.
    const ClientConnection client(req.local_addr, req.local_port, req.remote_addr, req.remote_port);
    std::string text;
    std::optional<JobResult> finished;
    while (!(finished = job->wait(text, std::chrono::milliseconds(50)))) {
      if (client.gone()) {
        job->cancel();
        job->wait_all(text);  // the engine lets go of it within a step: the next request finds it free
        // For the log: cpp-httplib writes nothing to a client that closed the connection, even one that
        // closed only its sending side (nc -N), whose reply it would not have sent either.
        throw ApiError(400, "the client closed the connection before the reply was done: the request was cancelled",
                       "invalid_request_error", std::nullopt, "client_closed_request");
      }
    }
    const JobResult& done = *finished;
    if (!done.error.empty()) throw ApiError(500, "generation failed: " + done.error, "server_error");
    if (done.reason == FinishReason::Cancelled) throw ended_by_server(done);
    res.set_content(completion_body(h, text, done.reason, usage_of(done)), "application/json");
    log(req.method, req.path, 200, summary(done, false));
    return;
  }
  res.set_header("Cache-Control", "no-cache");
  res.set_header("X-Accel-Buffering", "no");
  res.set_chunked_content_provider(
      "text/event-stream",
      [this, job, h, include_usage = r.include_usage, method = req.method, path = req.path](size_t,
                                                                                            httplib::DataSink& sink) {
        JobResult result;
        bool ok = false;
        try {
          ok = stream_job(*job, h, include_usage, sink, result);
        } catch (...) {
          ok = false;
        }
        if (!ok) job->cancel();
        try {
          log(method, path, 200, ok ? summary(result, true) : "stream, client gone: cancelled");
        } catch (...) {
        }
        return ok;
      },
      [job](bool success) {
        if (!success) job->cancel();
      });
}

}  // namespace trit::server
