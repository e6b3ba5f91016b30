// trit-cli serve MODEL [--host H] [--port N] [--api-key KEY] [--parallel N] [--queue N] [--context N] ...
// The OpenAI-compatible HTTP API on one model (engine/server, docs/api.md). Prints one line per address
// on stdout once listening ("trit-cli serve: listening on http://127.0.0.1:8080"), logs one line per
// request on stderr, and stops cleanly on SIGINT or SIGTERM (requests in flight are cancelled).
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "args.h"
#include "batch_scheduler.h"
#include "command.h"
#include "http_server.h"
#include "serial_scheduler.h"
#include "served_model.h"
#include "trit/backend.h"
#include "trit/chat.h"
#include "trit/model.h"
#include "trit/session.h"

namespace {

int run_serve(const std::vector<std::string>& argv) {
  std::set<std::string> valued = {"--host",  "--port",    "--api-key",      "--parallel",
                                  "--queue", "--context", "--allow-origin", "--max-body"};
  valued.insert(trit::cli::kSessionValued.begin(), trit::cli::kSessionValued.end());
  std::set<std::string> switches = {"--quiet"};
  switches.insert(trit::cli::kSessionSwitches.begin(), trit::cli::kSessionSwitches.end());
  trit::cli::Args a(argv, valued, switches);
  const std::string& path = a.single_positional("MODEL");

  // Every option is checked before the model is loaded.
  trit::server::ServerOptions so;
  so.host = a.get("--host", so.host);
  so.port = static_cast<int>(a.get_int("--port", so.port, 0, 65535));
  so.api_key = a.get("--api-key", "");
  if (a.has("--api-key") && so.api_key.empty()) throw std::invalid_argument("--api-key: the key is empty");
  so.parallel = static_cast<int>(a.get_int("--parallel", 1, 1, 64));
  so.queue = static_cast<size_t>(a.get_int("--queue", static_cast<long long>(so.queue), 0, 4096));
  so.allowed_origins = a.get_all("--allow-origin");
  so.max_body_bytes =
      static_cast<size_t>(a.get_int("--max-body", static_cast<long long>(so.max_body_bytes), 1024, 1ll << 30));
  so.log_requests = !a.has("--quiet");
  if (auto e = trit::server::validate(so); !e.empty()) throw std::invalid_argument(e);
  const trit::SessionOptions session_options = trit::cli::session_options(a, "--context");

  // SIGINT and SIGTERM are taken by sigwait below, on this thread only: every thread started from here
  // on (the engine's, the HTTP server's) inherits the blocked mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto model = trit::Model::open(path);
  const auto served_model = std::make_shared<const trit::server::ServedModel>(model, path);
  const trit::server::ServedModel& served = *served_model;
  // One request at a time runs on a Session (device-chained decoding, the fastest single stream);
  // several decode together in batched steps, each in a sequence of its own.
  std::unique_ptr<trit::server::Scheduler> scheduler;
  if (so.parallel > 1) {
    trit::ForwardOptions fo = trit::Session::forward_options(session_options);
    fo.sequences = so.parallel;
    scheduler = std::make_unique<trit::server::BatchScheduler>(
        model, [&] { return trit::make_forward(session_options.backend, model, fo); }, so.queue);
  } else {
    scheduler = std::make_unique<trit::server::SerialScheduler>(
        [&] { return trit::Session::create(served.shared_model(), session_options); }, so.queue);
  }
  trit::server::HttpServer http([served_model] { return served_model; }, *scheduler, so);
  http.start();

  const auto kind = trit::chat_format_kind(*model);
  std::fprintf(stderr,
               "trit-cli serve: model '%s' (%s), context %d tokens, %s backend; %d request%s decode%s together, "
               "%zu more may wait\n",
               served.id().c_str(), std::string(trit::chat_format_name(kind)).c_str(), scheduler->context_length(),
               session_options.backend.c_str(), so.parallel, so.parallel > 1 ? "s" : "", so.parallel > 1 ? "" : "s",
               so.queue);
  for (const auto& url : http.urls()) std::printf("trit-cli serve: listening on %s\n", url.c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::fprintf(stderr, "trit-cli serve: %s: stopping\n", sig == SIGINT ? "interrupted" : "terminated");
  scheduler->shutdown();  // queued and running requests end (cancelled) and their clients are answered
  // cpp-httplib's workers wait out the keep-alive timeout (5 s) on idle connections before they can be
  // joined. Every request has been answered and the engine released by now, so after a short grace
  // period for the last responses to be written the process ends without waiting for idle ones.
  std::promise<void> stopped;
  auto done = stopped.get_future();
  std::thread stopper([&] {
    http.stop();
    stopped.set_value();
  });
  if (done.wait_for(std::chrono::seconds(1)) == std::future_status::timeout) {
    std::fflush(nullptr);
    std::_Exit(0);
  }
  stopper.join();
  return 0;
}

const trit::cli::Registration reg{
    {"serve",
     "serve MODEL [--host 127.0.0.1] [--port 8080] [--api-key KEY] [--parallel N] [--queue 16] [--context N] "
     "[--allow-origin ORIGIN ...] [--max-body BYTES] [--backend vulkan|cpu] [--device N] [--kv f16|f32] "
     "[--precision fp32|f64] [--generic] [--quiet]",
     "serve the model over an OpenAI-compatible HTTP API (docs/api.md); --port 0 picks a free port. "
     "--parallel N (1-64): up to N requests decode together in the same steps, each with a KV cache of "
     "--context tokens; the others wait in a queue of --queue places (503 when full)",
     run_serve}};

}  // namespace
