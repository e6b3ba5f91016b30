#include "server/app_scheduler.h"

#include <algorithm>
#include <mutex>
#include <vector>

#include "engine_thread/engine_bridge.h"
#include "engine_thread/engine_worker.h"

namespace trit::api {

namespace {
server::JobResult endedByServer(std::string why) {
  server::JobResult r;
  r.reason = FinishReason::Cancelled;
  r.unavailable = std::move(why);
  return r;
}
}  // namespace

// One accepted job. Finishing it is idempotent (Job::finish keeps the first result); the destructor
// finishes a job whose queued call was dropped unrun (the engine thread ended first).
struct AppScheduler::Ticket {
  explicit Ticket(std::shared_ptr<server::Job> j) : job(std::move(j)) {}
  ~Ticket() { job->finish(endedByServer({})); }
  std::shared_ptr<server::Job> job;
  bool running = false;     // guarded by Shared::mutex
  std::string interrupted;  // guarded by Shared::mutex: why the server ended it while it ran
};

struct AppScheduler::Shared {
  std::mutex mutex;
  std::vector<std::shared_ptr<Ticket>> live;  // accepted and not finished, in the order they came
  bool stopping = false;
  size_t limit = 1;  // running and waiting together
};

AppScheduler::AppScheduler(chat::EngineBridge* engine, size_t queueLimit)
    : engine_(engine), shared_(std::make_shared<Shared>()) {
  shared_->limit = 1 + queueLimit;
}

AppScheduler::~AppScheduler() {
  shutdown();
}

server::Scheduler::Admission AppScheduler::submit(std::shared_ptr<server::Job> job) {
  std::shared_ptr<Ticket> ticket;
  {
    std::lock_guard lock(shared_->mutex);
    if (shared_->stopping) return Admission::ShuttingDown;
    // One runs and the rest wait, counted together (as SerialScheduler does).
    if (shared_->live.size() >= shared_->limit) return Admission::QueueFull;
    ticket = std::make_shared<Ticket>(std::move(job));
    shared_->live.push_back(ticket);
  }
  engine_->runOnEngine([shared = shared_, ticket](chat::EngineWorker& worker) {
    {
      std::lock_guard lock(shared->mutex);
      // Ended while it waited (interrupted, shut down): already finished, nothing to run.
      if (std::find(shared->live.begin(), shared->live.end(), ticket) == shared->live.end()) return;
      ticket->running = true;
    }
    // A client that left while its job waited costs nothing.
    server::JobResult result = ticket->job->cancelled() ? endedByServer({}) : worker.runApiJob(*ticket->job);
    {
      std::lock_guard lock(shared->mutex);
      std::erase(shared->live, ticket);
      if (!ticket->interrupted.empty() && result.reason == FinishReason::Cancelled)
        result.unavailable = ticket->interrupted;
    }
    ticket->job->finish(std::move(result));
  });
  return Admission::Accepted;
}

int32_t AppScheduler::context_length() const {
  return engine_->servedContextLength();
}

size_t AppScheduler::load() const {
  std::lock_guard lock(shared_->mutex);
  return shared_->live.size();
}

void AppScheduler::shutdown() {
  endAll({}, true);
}

void AppScheduler::interruptAll(const std::string& why) {
  endAll(why, false);
}

void AppScheduler::endAll(const std::string& why, bool stop) {
  std::vector<std::shared_ptr<Ticket>> waiting;
  {
    std::lock_guard lock(shared_->mutex);
    if (stop) shared_->stopping = true;
    std::vector<std::shared_ptr<Ticket>> running;
    for (auto& t : shared_->live) {
      if (t->running) {
        t->interrupted = why;
        t->job->cancel();  // the engine thread stops it within one token and finishes it
        running.push_back(t);
      } else {
        waiting.push_back(t);
      }
    }
    shared_->live = std::move(running);
  }
  for (auto& t : waiting) t->job->finish(endedByServer(why));
}

}  // namespace trit::api
