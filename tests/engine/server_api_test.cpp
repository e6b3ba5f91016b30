// The OpenAI API layer of `trit-cli serve`: request parsing and validation (every error a client can
// cause, hostile JSON included), the response, chunk and error bodies, the served model's prompts, the
// listening rules, the single-stream scheduler's queue and cancellation, and over loopback what HTTP
// clients can do to the server (raw sockets: a test must send what no well-behaved client library sends).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <trit/model.h>
#include <trit/session.h>
#include <trit/tokenizer.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "api_error.h"
#include "batch_scheduler.h"
#include "http_server.h"
#include "openai_request.h"
#include "openai_response.h"
#include "sequence_set.h"
#include "serial_scheduler.h"
#include "served_model.h"
#include "slow_forward.h"
#include "test_support.h"

namespace {
using nlohmann::json;
using trit::server::ApiError;
using trit::server::CompletionRequest;
using trit::server::Endpoint;
using trit::server::parse_completion_request;

CompletionRequest chat(const std::string& body) {
  return parse_completion_request(body, Endpoint::ChatCompletions);
}
CompletionRequest completion(const std::string& body) {
  return parse_completion_request(body, Endpoint::Completions);
}

// The ApiError a body gives: its status, param and code, and that its message contains `text`.
void expect_error(const std::string& body, const std::string& text, const std::string& param = "",
                  const std::string& code = "", Endpoint endpoint = Endpoint::ChatCompletions) {
  try {
    parse_completion_request(body, endpoint);
    ADD_FAILURE() << "accepted: " << body.substr(0, 200);
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400) << e.what();
    EXPECT_EQ(e.type, "invalid_request_error");
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << "message: " << e.what();
    EXPECT_EQ(e.param.value_or(""), param) << e.what();
    EXPECT_EQ(e.code.value_or(""), code) << e.what();
  }
}

const std::string kHi = R"("messages":[{"role":"user","content":"Hi"}])";
std::string with(const std::string& fields) {
  return R"({"model":"m",)" + kHi + (fields.empty() ? "" : "," + fields) + "}";
}

TEST(ServerRequest, ReadsAChatRequest) {
  const auto r = chat(R"({"model":"m","messages":[{"role":"system","content":"Be brief."},
      {"role":"user","content":[{"type":"text","text":"Hello "},{"type":"text","text":"there"}]},
      {"role":"assistant","content":"Hi!"},{"role":"developer","content":"d"}],
      "max_completion_tokens":7,"temperature":0,"top_p":0.5,"top_k":3,"min_p":0.1,"repeat_penalty":1.0,
      "seed":-1,"stop":["\n\n","END"],"stream":true,"stream_options":{"include_usage":true},"n":1,
      "presence_penalty":0,"frequency_penalty":0,"logprobs":false,"tools":[],"tool_choice":"none","user":"u1",
      "response_format":{"type":"text"},"logit_bias":{}})");
  EXPECT_EQ(r.model, "m");
  ASSERT_EQ(r.messages.size(), 4u);
  EXPECT_EQ(r.messages[0].role, trit::ChatRole::System);
  EXPECT_EQ(r.messages[1].content, "Hello there");
  EXPECT_EQ(r.messages[2].role, trit::ChatRole::Assistant);
  EXPECT_EQ(r.messages[3].role, trit::ChatRole::System);  // OpenAI's newer name for the system role
  EXPECT_EQ(r.max_tokens, 7);
  EXPECT_EQ(r.sampling.temperature, 0.f);
  EXPECT_EQ(r.sampling.top_p, 0.5f);
  EXPECT_EQ(r.sampling.top_k, 3);
  EXPECT_EQ(r.sampling.seed, ~0ull);
  EXPECT_EQ(r.stop, (std::vector<std::string>{"\n\n", "END"}));
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
}

TEST(ServerRequest, OmittedAndNullParametersTakeTheEngineDefaults) {
  const auto r = chat(with(R"("temperature":null,"max_tokens":null,"stop":null,"seed":null)"));
  const trit::SamplingParams defaults;
  EXPECT_EQ(r.sampling.temperature, defaults.temperature);
  EXPECT_EQ(r.sampling.top_k, defaults.top_k);
  EXPECT_EQ(r.sampling.repeat_penalty, defaults.repeat_penalty);
  EXPECT_FALSE(r.max_tokens.has_value());
  EXPECT_TRUE(r.stop.empty());
  EXPECT_FALSE(r.stream);
}

TEST(ServerRequest, ReadsACompletionPrompt) {
  EXPECT_EQ(completion(R"({"model":"m","prompt":"Once","stop":"."})").prompt, "Once");
  EXPECT_EQ(completion(R"({"model":"m","prompt":["Once"],"echo":false,"suffix":null,"best_of":1})").prompt, "Once");
  EXPECT_EQ(completion(R"({"model":"m","prompt":"x","stop":"."})").stop, std::vector<std::string>{"."});
}

TEST(ServerRequest, RefusesMalformedJson) {
  expect_error("", "not valid JSON");
  expect_error("{\"model\":", "not valid JSON");
  expect_error(R"({"model":"m",})", "not valid JSON");
  expect_error("[1,2]", "must be a JSON object, not an array");
  expect_error("\"text\"", "must be a JSON object, not a string");
}

TEST(ServerRequest, RefusesInvalidUtf8AndLoneSurrogates) {
  expect_error("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a\xff\"}]}", "not valid JSON");
  expect_error("{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"\xc3\"}]}", "not valid JSON");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":"\ud800"}]})", "not valid JSON");
}

TEST(ServerRequest, RefusesDeepNestingAtTheLimitOnly) {
  auto nested = [](int depth) {
    return std::string(static_cast<size_t>(depth), '[') + std::string(static_cast<size_t>(depth), ']');
  };
  // The object is level 1: arrays nested 64 deep inside it reach level 65, past the limit of 64...
  expect_error(with("\"user\":" + nested(trit::server::kMaxJsonDepth)), "deeper than 64 levels");
  // ...63 deep is within it, and is refused for what it is, not for its depth.
  expect_error(with("\"user\":" + nested(trit::server::kMaxJsonDepth - 1)), "'user' must be a string, not an array",
               "user");
  // A body of a million brackets is refused at the limit without recursing through them.
  expect_error(std::string(1'000'000, '['), "deeper than 64 levels");
}

TEST(ServerRequest, RefusesNumbersOutOfRange) {
  expect_error(with(R"("temperature":1e400)"), "not valid JSON");
  expect_error(with(R"("temperature":1e300)"), "'temperature' is out of range", "temperature");
  expect_error(with(R"("max_tokens":100000000000000000000)"), "'max_tokens' must be an integer, not a number",
               "max_tokens");
  expect_error(with(R"("max_tokens":18446744073709551615)"), "'max_tokens' must be at most 2147483647", "max_tokens");
  expect_error(with(R"("max_tokens":0)"), "'max_tokens' must be between 1 and 2147483647 (got 0)", "max_tokens");
  expect_error(with(R"("max_tokens":2.5)"), "'max_tokens' must be an integer, not a number", "max_tokens");
  expect_error(with(R"("top_k":-1)"), "'top_k' must be between 0", "top_k");
}

TEST(ServerRequest, RefusesWrongTypes) {
  expect_error(with(R"("temperature":"hot")"), "'temperature' must be a number, not a string", "temperature");
  expect_error(with(R"("stream":"yes")"), "'stream' must be a boolean, not a string", "stream");
  expect_error(with(R"("stop":3)"), "'stop' must be a string or an array of strings, not an integer", "stop");
  expect_error(with(R"("stop":["a",1])"), "'stop[1]' must be a string, not an integer", "stop[1]");
  expect_error(with(R"("seed":1.5)"), "'seed' must be an integer, not a number", "seed");
  expect_error(R"({"model":7,"messages":[{"role":"user","content":"Hi"}]})", "'model' must be a string, not an integer",
               "model");
  expect_error(R"({"model":"m","messages":{}})", "'messages' must be an array, not an object", "messages");
  expect_error(R"({"model":"m","messages":["hi"]})", "'messages[0]' must be an object, not a string", "messages[0]");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":5}]})",
               "'messages[0].content' must be a string or an array of content parts", "messages[0].content");
}

TEST(ServerRequest, ChecksSamplingWithTheEngineRules) {
  expect_error(with(R"("temperature":-1)"), "temperature must be >= 0", "temperature");
  expect_error(with(R"("top_p":0)"), "top-p must be in (0, 1]", "top_p");
  expect_error(with(R"("min_p":1)"), "min-p must be in [0, 1)", "min_p");
  expect_error(with(R"("repeat_penalty":0)"), "repetition penalty must be > 0", "repeat_penalty");
  expect_error(with(R"("stop":["ok",""])"), "stop string 2 is empty", "stop");
  expect_error(with(R"("stop":["a","b","c","d","e"])"), "'stop' takes at most 4 strings", "stop");
}

TEST(ServerRequest, RefusesWhatItDoesNotSupport) {
  const std::string code = "unsupported_parameter";
  expect_error(with(R"("n":2)"), "more than one choice", "n", code);
  expect_error(with(R"("logprobs":true)"), "log probabilities", "logprobs", code);
  expect_error(with(R"("top_logprobs":2)"), "log probabilities", "top_logprobs", code);
  expect_error(with(R"("tools":[{"type":"function","function":{"name":"f"}}])"), "tool calling", "tools", code);
  expect_error(with(R"("tool_choice":"auto")"), "tool calling", "tool_choice", code);
  expect_error(with(R"("presence_penalty":0.5)"), "use repeat_penalty", "presence_penalty", code);
  expect_error(with(R"("logit_bias":{"12":5})"), "logit biases", "logit_bias", code);
  expect_error(with(R"("response_format":{"type":"json_object"})"), "structured output", "response_format", code);
  expect_error(R"({"model":"m","messages":[{"role":"tool","content":"x","tool_call_id":"1"}]})",
               "tool and function messages", "messages[0].role", code);
  expect_error(R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]})",
               "content parts of type \"image_url\"", "messages[0].content[0].type", code);
  expect_error(R"({"model":"m","prompt":["a","b"]})", "several prompts", "prompt", code, Endpoint::Completions);
  expect_error(R"({"model":"m","prompt":[1,2,3]})", "token ids", "prompt", code, Endpoint::Completions);
  expect_error(R"({"model":"m","prompt":"a","echo":true})", "echoing", "echo", code, Endpoint::Completions);
  expect_error(R"({"model":"m","prompt":"a","suffix":"b"})", "suffix", "suffix", code, Endpoint::Completions);
}

TEST(ServerRequest, RefusesMissingAndUnknownFields) {
  expect_error(R"({"messages":[{"role":"user","content":"Hi"}]})", "you must provide a model parameter", "model");
  expect_error(R"({"model":"m"})", "'messages' is required", "messages");
  expect_error(R"({"model":"m","messages":[]})", "at least one message", "messages");
  expect_error(R"({"model":"m","messages":[{"content":"x"}]})", "'messages[0].role' is missing", "messages[0].role");
  expect_error(R"({"model":"m","messages":[{"role":"user"}]})", "'messages[0].content' is missing",
               "messages[0].content");
  expect_error(R"({"model":"m","messages":[{"role":"robot","content":"x"}]})", "must be \"system\"",
               "messages[0].role");
  expect_error(with(R"("temprature":0)"), "Unrecognized request argument supplied: temprature", "temprature");
  // A field with an empty name is said to be one (the message ended in "supplied: ", naming nothing).
  expect_error(with(R"("":0)"), "Unrecognized request argument supplied: \"\" (a field with an empty name)", "");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":"x","":1}]})",
               "unrecognized field 'messages[0].' (a field with an empty name)", "messages[0].");
  expect_error(R"({"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"x","":1}]}]})",
               "unrecognized field 'messages[0].content[0].' (a field with an empty name)", "messages[0].content[0].");
  expect_error(with(R"("stream":true,"stream_options":{"":true})"),
               "unrecognized field 'stream_options.' (a field with an empty name)", "stream_options.");
  // Each endpoint's own fields only.
  expect_error(with(R"("prompt":"x")"), "Unrecognized request argument supplied: prompt", "prompt");
  expect_error(R"({"model":"m","prompt":"x","messages":[]})", "Unrecognized request argument supplied: messages",
               "messages", "", Endpoint::Completions);
  expect_error(with(R"("stream_options":{"include_usage":true})"), "only allowed when 'stream' is true",
               "stream_options");
  expect_error(with(R"("max_tokens":5,"max_completion_tokens":6)"), "disagree", "max_tokens");
}

TEST(ServerResponse, WritesErrorsInOpenAIsShape) {
  const json e = json::parse(trit::server::error_body(trit::server::invalid_request("bad", "top_p")));
  EXPECT_EQ(e,
            json::parse(R"({"error":{"message":"bad","type":"invalid_request_error","param":"top_p","code":null}})"));
  ApiError busy(503, "busy", "server_error", std::nullopt, "queue_full");
  EXPECT_EQ(json::parse(trit::server::error_body(busy))["error"]["code"], "queue_full");
  EXPECT_TRUE(json::parse(trit::server::error_body(busy))["error"]["param"].is_null());
  // Client bytes quoted in a message never make the body invalid JSON.
  EXPECT_NO_THROW(json::parse(trit::server::error_body(trit::server::invalid_request("model 'a\xff'"))));
}

TEST(ServerResponse, WritesWholeCompletions) {
  auto h = trit::server::new_response_header(Endpoint::ChatCompletions, "tiny");
  EXPECT_TRUE(h.id.starts_with("chatcmpl-"));
  EXPECT_EQ(h.id.size(), 9u + 24u);
  const json c = json::parse(trit::server::completion_body(h, "Hello", trit::FinishReason::ContextFull, {10, 3, 8}));
  EXPECT_EQ(c["object"], "chat.completion");
  EXPECT_EQ(c["model"], "tiny");
  EXPECT_EQ(c["choices"][0]["message"]["role"], "assistant");
  EXPECT_EQ(c["choices"][0]["message"]["content"], "Hello");
  EXPECT_EQ(c["choices"][0]["finish_reason"], "length");  // a full context ends the reply for its length
  EXPECT_EQ(c["usage"], json::parse(R"({"prompt_tokens":10,"completion_tokens":3,"total_tokens":13,
                                        "prompt_tokens_details":{"cached_tokens":8}})"));
  h = trit::server::new_response_header(Endpoint::Completions, "tiny");
  EXPECT_TRUE(h.id.starts_with("cmpl-"));
  const json t = json::parse(trit::server::completion_body(h, "there", trit::FinishReason::Stop, {1, 1, 0}));
  EXPECT_EQ(t["object"], "text_completion");
  EXPECT_EQ(t["choices"][0]["text"], "there");
  EXPECT_EQ(t["choices"][0]["finish_reason"], "stop");
}

TEST(ServerResponse, WritesStreamChunks) {
  const auto h = trit::server::new_response_header(Endpoint::ChatCompletions, "tiny");
  const json role = json::parse(trit::server::role_chunk(h, false));
  EXPECT_EQ(role["object"], "chat.completion.chunk");
  EXPECT_EQ(role["id"], h.id);
  EXPECT_EQ(role["choices"][0]["delta"]["role"], "assistant");
  EXPECT_FALSE(role.contains("usage"));
  const json text = json::parse(trit::server::text_chunk(h, "Hi", true));
  EXPECT_EQ(text["choices"][0]["delta"], json::parse(R"({"content":"Hi"})"));
  EXPECT_TRUE(text["choices"][0]["finish_reason"].is_null());
  EXPECT_TRUE(text.contains("usage") && text["usage"].is_null());
  const json fin = json::parse(trit::server::finish_chunk(h, trit::FinishReason::Length, false));
  EXPECT_EQ(fin["choices"][0]["delta"], json::object());
  EXPECT_EQ(fin["choices"][0]["finish_reason"], "length");
  const json usage = json::parse(trit::server::usage_chunk(h, {5, 2, 0}));
  EXPECT_EQ(usage["choices"], json::array());
  EXPECT_EQ(usage["usage"]["total_tokens"], 7);
  const auto th = trit::server::new_response_header(Endpoint::Completions, "tiny");
  EXPECT_EQ(json::parse(trit::server::text_chunk(th, "x", false))["choices"][0]["text"], "x");
  EXPECT_EQ(trit::server::sse_event("{}"), "data: {}\n\n");
  EXPECT_EQ(trit::server::sse_done(), "data: [DONE]\n\n");
}

TEST(ServerOptions, ListensElsewhereThanLoopbackOnlyWithAKey) {
  trit::server::ServerOptions o;
  EXPECT_EQ(trit::server::validate(o), "");
  for (const char* host : {"localhost", "127.0.0.1", "127.1.2.3", "::1"}) {
    o.host = host;
    EXPECT_EQ(trit::server::validate(o), "") << host;
  }
  for (const char* host : {"0.0.0.0", "::", "192.168.1.4", "example.org", "128.0.0.1"}) {
    o.host = host;
    EXPECT_NE(trit::server::validate(o).find("give an API key (--api-key KEY)"), std::string::npos) << host;
  }
  o.api_key = "k";
  EXPECT_EQ(trit::server::validate(o), "");
  o.allowed_origins = {"localhost:3000"};
  EXPECT_NE(trit::server::validate(o).find("is not an origin"), std::string::npos);
}

TEST(ServerOptions, AllowsLocalPagesAndListedOrigins) {
  using trit::server::origin_allowed;
  EXPECT_TRUE(origin_allowed("http://localhost:3000", {}));
  EXPECT_TRUE(origin_allowed("http://127.0.0.1", {}));
  EXPECT_TRUE(origin_allowed("https://[::1]:8443", {}));
  EXPECT_FALSE(origin_allowed("http://localhost.evil.example", {}));
  EXPECT_FALSE(origin_allowed("http://localhost:3000.evil.example", {}));
  EXPECT_FALSE(origin_allowed("http://evil.example", {}));
  EXPECT_FALSE(origin_allowed("null", {}));
  EXPECT_TRUE(origin_allowed("https://app.example", {"https://app.example"}));
  EXPECT_FALSE(origin_allowed("https://app.example:444", {"https://app.example"}));
  EXPECT_TRUE(origin_allowed("https://anything.example", {"*"}));
}

// A scheduler that takes nothing, for tests of the HTTP layer alone.
class RefusingScheduler : public trit::server::Scheduler {
 public:
  Admission submit(std::shared_ptr<trit::server::Job>) override { return Admission::ShuttingDown; }
  int32_t context_length() const override { return 0; }
  size_t load() const override { return 0; }
  void shutdown() override {}
};

// The app stops its server right after starting it when the user toggles it quickly: a stop() that came
// before the listening threads were running was lost (cpp-httplib ignores stop() until then), and
// stop() then waited for them forever.
TEST(ServerLifecycle, StopRightAfterStartReturns) {
  RefusingScheduler scheduler;
  trit::server::ServerOptions o;
  o.port = 0;
  o.log_requests = false;
  for (int i = 0; i < 20; ++i) {
    trit::server::HttpServer http([] { return std::shared_ptr<const trit::server::ServedModel>(); }, scheduler, o);
    EXPECT_GT(http.start(), 0);
    http.stop();
  }
}

// A raw HTTP client over loopback: a connection to 127.0.0.1:port (or [::1]:port) that sends bytes as given.
class RawConnection {
 public:
  explicit RawConnection(int port, bool ipv6 = false) : fd_(socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0)) {
    timeval tv{10, 0};  // a server that never answers fails the test instead of hanging it
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    if (ipv6) {
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_port = htons(static_cast<uint16_t>(port));
      a.sin6_addr = in6addr_loopback;
      connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port));
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
    }
  }
  ~RawConnection() { close(); }
  bool connected() const { return connected_; }
  bool send_all(const std::string& bytes) {
    for (size_t sent = 0; sent < bytes.size();) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  // Everything the server sends until it closes the connection (or 10 s pass).
  std::string read_to_end() {
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, 0)) > 0;) out.append(buf, static_cast<size_t>(n));
    return out;
  }
  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
  bool connected_ = false;
};

// A request with a body, on a connection the server closes after answering.
std::string http_post(const std::string& path, const std::string& headers, const std::string& body) {
  return "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + headers +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// The status of an HTTP response ("HTTP/1.1 415 ..."), 0 if there is none.
int status_of(const std::string& response) {
  return response.starts_with("HTTP/1.1 ") && response.size() >= 12 ? std::stoi(response.substr(9, 3)) : 0;
}

// The JSON body of a whole (not chunked) response.
json body_of(const std::string& response) {
  const auto at = response.find("\r\n\r\n");
  return at == std::string::npos ? json() : json::parse(response.substr(at + 4), nullptr, false);
}

// GET /health over a fresh loopback connection: its status (0: no connection).
int health(int port, bool ipv6 = false) {
  RawConnection c(port, ipv6);
  if (!c.connected() || !c.send_all("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")) return 0;
  return status_of(c.read_to_end());
}

bool has_ipv6_loopback() {
  const int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// cpp-httplib's default socket options set SO_REUSEPORT: a second server (another trit-cli serve, or
// the app's) listened on the port of the first without a word, and the kernel split the connections
// between them, each answering with its own model (and key). The second is refused.
TEST(ServerLifecycle, ASecondServerCannotListenOnTheSamePort) {
  RefusingScheduler scheduler;
  trit::server::ServerOptions o;
  o.port = 0;
  o.log_requests = false;
  const auto none = [] { return std::shared_ptr<const trit::server::ServedModel>(); };
  trit::server::HttpServer first(none, scheduler, o);
  o.port = first.start();
  trit::server::HttpServer second(none, scheduler, o);
  try {
    second.start();
    ADD_FAILURE() << "a second server listens on port " << o.port;
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(o.port)), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(health(o.port), 200);  // the first serves on
}

// "::" (the app's "allow other machines") listens on every interface of both families: one dual-stack
// socket, as cpp-httplib makes every IPv6 socket.
TEST(ServerLifecycle, EveryInterfaceMeansIPv4AndIPv6) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "this machine has no IPv6 loopback (::1)";
  RefusingScheduler scheduler;
  trit::server::ServerOptions o;
  o.host = "::";
  o.api_key = "k";
  o.port = 0;
  o.log_requests = false;
  trit::server::HttpServer http([] { return std::shared_ptr<const trit::server::ServedModel>(); }, scheduler, o);
  const int port = http.start();
  EXPECT_EQ(http.urls(), std::vector<std::string>{"http://[::]:" + std::to_string(port)});
  EXPECT_EQ(health(port), 200);
  EXPECT_EQ(health(port, true), 200);
}

// cpp-httplib parses a multipart/form-data body part by part even when the handler reads it whole,
// calling part callbacks it was not given: the bad_function_call it threw inside the library aborted
// trit-cli serve on one request. A multipart body is refused with 415, and the server serves on.
TEST(ServerHttp, RefusesAMultipartBodyAndServesOn) {
  RefusingScheduler scheduler;
  trit::server::ServerOptions o;
  o.port = 0;
  o.log_requests = false;
  trit::server::HttpServer http([] { return std::shared_ptr<const trit::server::ServedModel>(); }, scheduler, o);
  const int port = http.start();
  const std::string form = "--xx\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nhello\r\n--xx--\r\n";
  for (const char* type : {"multipart/form-data; boundary=xx", "multipart/form-data", "Multipart/Mixed; boundary=xx"}) {
    RawConnection c(port);
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.send_all(http_post("/v1/chat/completions", std::string("Content-Type: ") + type + "\r\n", form)));
    const std::string response = c.read_to_end();
    EXPECT_EQ(status_of(response), 415) << type << ": " << response;
    const json error = body_of(response)["error"];
    EXPECT_EQ(error["code"], "unsupported_media_type") << response;
    EXPECT_NE(error["message"].get<std::string>().find("must be JSON"), std::string::npos) << response;
  }
  RawConnection next(port);
  ASSERT_TRUE(next.connected());
  ASSERT_TRUE(next.send_all("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(status_of(next.read_to_end()), 200);
}

// A server with no model (every valid completion is answered 503 model_not_loaded) on a free port.
class NoModelServer {
 public:
  NoModelServer() {
    trit::server::ServerOptions o;
    o.port = 0;
    o.log_requests = false;
    http_ = std::make_unique<trit::server::HttpServer>(
        [] { return std::shared_ptr<const trit::server::ServedModel>(); }, scheduler_, o);
    port_ = http_->start();
  }
  // The response to a POST of `body` to /v1/chat/completions with `headers` ("Name: value\r\n" each).
  std::string post(const std::string& headers, const std::string& body) const {
    RawConnection c(port_);
    if (!c.connected() || !c.send_all(http_post("/v1/chat/completions", headers, body))) return {};
    return c.read_to_end();
  }

 private:
  RefusingScheduler scheduler_;
  std::unique_ptr<trit::server::HttpServer> http_;
  int port_ = 0;
};

// cpp-httplib decodes gzip, deflate and br bodies and passes any other Content-Encoding through as it
// came: a zstd body was refused as "not valid JSON", and a broken gzip one as "cut short, or sent too
// slowly". Each is now told what is wrong with its encoding.
TEST(ServerHttp, SaysWhatIsWrongWithABodysEncoding) {
  const NoModelServer server;
  const std::string chat = R"({"model":"m","messages":[{"role":"user","content":"Hi"}]})";
  const std::string gzipped(
      "\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\x03\xab\x56\xca\xcd\x4f\x49\xcd\x51\xb2\x52\xca\x55\xd2\x51\xca\x4d\x2d"
      "\x2e\x4e\x4c\x4f\x2d\x56\xb2\x8a\xae\x56\x2a\xca\xcf\x49\x05\x8a\x97\x16\xa7\x16\x01\xa5\x92\xf3\xf3\x4a\x52"
      "\xf3\x4a\x80\x02\x1e\x99\x4a\xb5\xb1\xb5\x00\xd9\x30\x6e\x53\x39\x00\x00\x00",
      73);
  // Read and parsed: the request is fine, and only the missing model stops it.
  for (const auto& [headers, body] : std::vector<std::pair<std::string, std::string>>{
           {"Content-Encoding: gzip\r\n", gzipped}, {"Content-Encoding: identity\r\n", chat}, {"", chat}}) {
    const std::string response = server.post(headers, body);
    EXPECT_EQ(status_of(response), 503) << headers << response;
    EXPECT_EQ(body_of(response)["error"]["code"], "model_not_loaded") << headers << response;
  }
  for (const char* encoding : {"zstd", "compress", "GZIP"}) {
    const std::string response = server.post(std::string("Content-Encoding: ") + encoding + "\r\n", chat);
    EXPECT_EQ(status_of(response), 415) << encoding << ": " << response;
    EXPECT_EQ(body_of(response)["error"]["code"], "unsupported_media_type") << response;
    EXPECT_NE(body_of(response)["error"]["message"].get<std::string>().find(std::string("'") + encoding + "'"),
              std::string::npos)
        << response;
  }
  for (const char* encoding : {"gzip", "br"}) {
    const std::string response = server.post(std::string("Content-Encoding: ") + encoding + "\r\n", chat);
    EXPECT_EQ(status_of(response), 400) << encoding << ": " << response;
    EXPECT_NE(body_of(response)["error"]["message"].get<std::string>().find("could not be decompressed"),
              std::string::npos)
        << response;
  }
}

// A Range header asks for part of a resource; a completion is not one (RFC 9110 14.2: ignored for
// methods without range handling). cpp-httplib cut the JSON reply to the range asked for.
TEST(ServerHttp, IgnoresRangeHeaders) {
  const NoModelServer server;
  const std::string response =
      server.post("Range: bytes=0-10\r\n", R"({"model":"m","messages":[{"role":"user","content":"Hi"}]})");
  EXPECT_EQ(status_of(response), 503) << response;
  EXPECT_EQ(body_of(response)["error"]["code"], "model_not_loaded") << response;
  EXPECT_EQ(response.find("Content-Range"), std::string::npos) << response;
  // A malformed one is refused by cpp-httplib before any handler runs: the message says what to do.
  const std::string bad = server.post("Range: bytes=z\r\n", "{}");
  EXPECT_EQ(status_of(bad), 416) << bad;
  EXPECT_NE(body_of(bad)["error"]["message"].get<std::string>().find("Range header is malformed"), std::string::npos)
      << bad;
}

class ServedModelTest : public ::testing::Test {
 protected:
  static std::filesystem::path golden(const char* name) { return trit::test::shared_dir() / "golden" / name; }
};

TEST_F(ServedModelTest, NamesTheModelAndBuildsPrompts) {
  const auto path = golden("golden-a.gguf");
  trit::server::ServedModel m(trit::Model::open(path), path);
  EXPECT_EQ(m.id(), "synthetic-bitnet-7");  // general.name
  EXPECT_TRUE(m.answers_to("golden-a"));
  EXPECT_TRUE(m.answers_to("golden-a.gguf"));
  EXPECT_FALSE(m.answers_to("gpt-4o"));
  EXPECT_TRUE(m.is_chat_model());
  auto r = chat(R"({"model":"golden-a","messages":[{"role":"user","content":"Hi"}]})");
  const auto format = trit::ChatFormat::for_model(m.model());
  EXPECT_EQ(m.prompt_tokens(r), format->render(r.messages));
  EXPECT_EQ(m.stop_tokens(r), format->stop_tokens());
  r = completion(R"({"model":"golden-a","prompt":"Once"})");
  const auto& tok = m.model().tokenizer();
  EXPECT_EQ(m.prompt_tokens(r), tok.encode("Once", false, true));
  EXPECT_EQ(m.prompt_tokens(r).front(), tok.bos());
  EXPECT_TRUE(m.stop_tokens(r).empty());
}

// GET /v1/models lists the model served, and nothing while the app has no model loaded.
TEST_F(ServedModelTest, TheModelListHoldsTheServedModelOrNothing) {
  const auto path = golden("golden-a.gguf");
  trit::server::ServedModel m(trit::Model::open(path), path);
  const auto list = json::parse(trit::server::model_list(&m));
  EXPECT_EQ(list["object"], "list");
  ASSERT_EQ(list["data"].size(), 1u);
  EXPECT_EQ(list["data"][0]["id"], "synthetic-bitnet-7");
  EXPECT_EQ(json::parse(trit::server::model_list(nullptr)), json::parse(R"({"object":"list","data":[]})"));
}

TEST_F(ServedModelTest, ABaseModelRefusesChatAndPointsToCompletions) {
  const auto path = golden("golden-c.gguf");
  trit::server::ServedModel m(trit::Model::open(path), path);
  EXPECT_FALSE(m.is_chat_model());
  try {
    m.prompt_tokens(chat(R"({"model":"x","messages":[{"role":"user","content":"Hi"}]})"));
    ADD_FAILURE() << "a base model rendered a chat";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.code.value_or(""), "model_not_chat");
    EXPECT_NE(std::string(e.what()).find("POST /v1/completions"), std::string::npos);
  }
  EXPECT_FALSE(m.prompt_tokens(completion(R"({"model":"x","prompt":"Hi"})")).empty());
}

class SerialSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override { model_ = trit::Model::open(trit::test::shared_dir() / "golden" / "golden-a.gguf"); }
  std::unique_ptr<trit::server::SerialScheduler> scheduler(size_t queue) {
    return std::make_unique<trit::server::SerialScheduler>(
        [this] {
          const auto& tok = model_->tokenizer();
          return std::make_unique<trit::Session>(
              model_, std::make_unique<trit::test::SlowForward>(tok.vocab_size(), tok.encode("a")[0]));
        },
        queue);
  }
  std::shared_ptr<trit::server::Job> job(int32_t max_tokens) {
    trit::server::GenerationRequest g;
    g.prompt = model_->tokenizer().encode("Hello", false, true);
    g.sampling.temperature = 0;
    g.max_tokens = max_tokens;
    return std::make_shared<trit::server::Job>(std::move(g));
  }
  std::shared_ptr<trit::Model> model_;
};

TEST_F(SerialSchedulerTest, OneRunsAndTheQueueHoldsTheRest) {
  using Admission = trit::server::Scheduler::Admission;
  auto s = scheduler(1);
  EXPECT_EQ(s->context_length(), 4096);
  auto running = job(100000), waiting = job(3), refused = job(3);
  EXPECT_EQ(s->submit(running), Admission::Accepted);
  EXPECT_EQ(s->submit(waiting), Admission::Accepted);
  EXPECT_EQ(s->submit(refused), Admission::QueueFull);  // however fast the engine takes the first
  EXPECT_EQ(s->load(), 2u);
  std::string text;
  EXPECT_FALSE(running->wait(text, std::chrono::seconds(5)).has_value());
  EXPECT_FALSE(text.empty());  // the first job streams while the second waits
  running->cancel();
  const auto r1 = running->wait_all(text);
  EXPECT_EQ(r1.reason, trit::FinishReason::Cancelled);
  std::string second;
  const auto r2 = waiting->wait_all(second);
  EXPECT_EQ(r2.reason, trit::FinishReason::Length);
  EXPECT_EQ(second, "aaa");
  EXPECT_EQ(r2.completion_tokens, 3);
  EXPECT_EQ(r2.prompt_tokens, static_cast<int32_t>(waiting->request().prompt.size()));
}

TEST_F(SerialSchedulerTest, ACancelledJobStopsWithinOneTokenOrNeverStarts) {
  auto s = scheduler(4);
  auto first = job(100000), queued = job(5);
  s->submit(first);
  s->submit(queued);
  std::string text;
  while (text.size() < 3) first->wait(text, std::chrono::seconds(5));
  queued->cancel();
  first->cancel();
  const size_t at_cancel = text.size();
  const auto r = first->wait_all(text);
  EXPECT_EQ(r.reason, trit::FinishReason::Cancelled);
  EXPECT_LE(text.size(), at_cancel + 2);  // the token in flight, and at most one more
  std::string none;
  const auto q = queued->wait_all(none);
  EXPECT_EQ(q.reason, trit::FinishReason::Cancelled);
  EXPECT_EQ(q.completion_tokens, 0);
  EXPECT_TRUE(none.empty());
}

TEST_F(SerialSchedulerTest, ShutdownEndsRunningAndQueuedJobsAndRefusesNewOnes) {
  auto s = scheduler(4);
  auto a = job(100000), b = job(5);
  s->submit(a);
  s->submit(b);
  s->shutdown();
  std::string text;
  EXPECT_EQ(a->wait_all(text).reason, trit::FinishReason::Cancelled);
  EXPECT_EQ(b->wait_all(text).reason, trit::FinishReason::Cancelled);
  EXPECT_EQ(s->submit(job(1)), trit::server::Scheduler::Admission::ShuttingDown);
}

TEST_F(SerialSchedulerTest, ReportsPrefixReuseBetweenRequests) {
  auto s = scheduler(1);
  auto a = job(2), b = job(2);
  std::string text;
  s->submit(a);
  EXPECT_EQ(a->wait_all(text).cached_tokens, 0);
  s->submit(b);
  // The same prompt: all of it is in the cache but its last token, which is run again for its logits.
  EXPECT_EQ(b->wait_all(text).cached_tokens, static_cast<int32_t>(b->request().prompt.size()) - 1);
}

// A SlowForward that counts its passes (prefill and decode steps alike).
class CountingForward : public trit::test::SlowForward {
 public:
  CountingForward(int32_t vocab, int32_t token, std::shared_ptr<std::atomic<int>> passes)
      : SlowForward(vocab, token), passes_(std::move(passes)) {}
  void eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all) override {
    ++*passes_;
    SlowForward::eval(tokens, pos, logits, all);
  }

 private:
  std::shared_ptr<std::atomic<int>> passes_;
};

// A scheduler that keeps the jobs the HTTP layer submits, so a test can watch them.
class RecordingScheduler : public trit::server::Scheduler {
 public:
  explicit RecordingScheduler(Scheduler& inner) : inner_(inner) {}
  Admission submit(std::shared_ptr<trit::server::Job> job) override {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(job);
    }
    return inner_.submit(std::move(job));
  }
  int32_t context_length() const override { return inner_.context_length(); }
  size_t load() const override { return inner_.load(); }
  void shutdown() override { inner_.shutdown(); }
  std::shared_ptr<trit::server::Job> first() {
    std::lock_guard lock(mutex_);
    return jobs_.empty() ? nullptr : jobs_.front();
  }

 private:
  Scheduler& inner_;
  std::mutex mutex_;
  std::vector<std::shared_ptr<trit::server::Job>> jobs_;
};

// A client of a non-streamed request that disconnects has its request cancelled within a step, under
// either scheduler (parameter: the requests decoded together; 1 is `--parallel 1`'s SerialScheduler).
// The job ran to its end before: nothing is written to such a client until the reply is done, and
// cpp-httplib notices a closed connection only when a write fails.
class ServerDisconnectTest : public ::testing::TestWithParam<int> {
 protected:
  void SetUp() override { model_ = trit::Model::open(path_); }
  std::unique_ptr<trit::server::Scheduler> scheduler() {
    const auto& tok = model_->tokenizer();
    const int32_t vocab = tok.vocab_size(), token = tok.encode("a")[0];
    if (GetParam() == 1)
      return std::make_unique<trit::server::SerialScheduler>(
          [this, vocab, token] {
            return std::make_unique<trit::Session>(model_, std::make_unique<CountingForward>(vocab, token, passes_));
          },
          4);
    return std::make_unique<trit::server::BatchScheduler>(
        model_,
        [this, vocab, token] {
          std::vector<std::unique_ptr<trit::Forward>> each;
          for (int s = 0; s < GetParam(); ++s) each.push_back(std::make_unique<CountingForward>(vocab, token, passes_));
          return std::make_unique<trit::SequenceSet>(std::move(each));
        },
        4);
  }
  const std::filesystem::path path_ = trit::test::shared_dir() / "golden" / "golden-a.gguf";
  std::shared_ptr<trit::Model> model_;
  std::shared_ptr<std::atomic<int>> passes_ = std::make_shared<std::atomic<int>>(0);
};

TEST_P(ServerDisconnectTest, ANonStreamedRequestIsCancelledWhenItsClientLeaves) {
  auto engine = scheduler();
  RecordingScheduler recording(*engine);
  auto served = std::make_shared<const trit::server::ServedModel>(model_, path_);
  trit::server::ServerOptions o;
  o.port = 0;
  o.log_requests = false;
  trit::server::HttpServer http([served] { return served; }, recording, o);
  const int port = http.start();
  // Greedy, and no max_tokens: it would run until the context (4096) is full, about 8 s.
  const std::string chat = R"({"model":"golden-a","messages":[{"role":"user","content":"Hi"}],"temperature":0)";
  const auto deadline = [] { return std::chrono::steady_clock::now() + std::chrono::seconds(5); };
  {
    RawConnection c(port);
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.send_all(http_post("/v1/chat/completions", "Content-Type: application/json\r\n", chat + "}")));
    for (const auto until = deadline();
         (!recording.first() || *passes_ < 5) && std::chrono::steady_clock::now() < until;)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_GE(*passes_, 5) << "the request did not start decoding";
  }  // the client closes the connection while its reply decodes
  const auto job = recording.first();
  for (const auto until = deadline(); !job->cancelled() && std::chrono::steady_clock::now() < until;)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(job->cancelled()) << "the job was not cancelled when its client left";
  const int at_cancel = *passes_;
  std::string text;
  EXPECT_EQ(job->wait_all(text).reason, trit::FinishReason::Cancelled);
  EXPECT_LE(*passes_, at_cancel + 1) << "more than the step in flight ran after the cancellation";
  // The server serves the next request at once.
  RawConnection next(port);
  ASSERT_TRUE(next.connected());
  ASSERT_TRUE(next.send_all(http_post("/v1/chat/completions", "", chat + R"(,"max_tokens":2})")));
  const std::string response = next.read_to_end();
  EXPECT_EQ(status_of(response), 200) << response;
  EXPECT_EQ(body_of(response)["usage"]["completion_tokens"], 2) << response;
}

INSTANTIATE_TEST_SUITE_P(Schedulers, ServerDisconnectTest, ::testing::Values(1, 2),
                         [](const ::testing::TestParamInfo<int>& p) { return p.param == 1 ? "Serial" : "Batch"; });

}  // namespace
