#pragma once
// The API server's scheduler in the app: API requests run on the chat window's own engine thread and
// session (one model in memory, one Vulkan device context), queued on that thread behind whatever the
// window asked for before, so chat replies and API requests take turns first come, first served.
//
// Threads: submit() comes from the HTTP threads, interruptAll() and shutdown() from the UI thread, and
// the jobs run on the engine thread. Every accepted job is finished exactly once: by the engine thread
// when it has run (or was found cancelled), or at once by interruptAll()/shutdown() while it still waits.
#include <memory>
#include <string>

#include "scheduler.h"

namespace trit::chat {
class EngineBridge;
}

namespace trit::api {

class AppScheduler : public server::Scheduler {
 public:
  // `engine` must outlive the jobs' queued calls being posted (the API server stops first). queueLimit:
  // jobs that may wait while one runs.
  AppScheduler(chat::EngineBridge* engine, size_t queueLimit);
  ~AppScheduler() override;

  Admission submit(std::shared_ptr<server::Job> job) override;
  int32_t context_length() const override;
  size_t load() const override;
  // Refuses new jobs; waiting ones end at once, a running one within one token ("shutting down").
  void shutdown() override;

  // The model is being unloaded or replaced: waiting jobs end at once and a running one within one
  // token, each with `why` (a 503 for its client). New jobs are still taken (for the next model).
  void interruptAll(const std::string& why);

  struct Ticket;
  struct Shared;

 private:
  void endAll(const std::string& why, bool stop);

  chat::EngineBridge* engine_;
  std::shared_ptr<Shared> shared_;  // also held by the jobs queued on the engine thread
};

}  // namespace trit::api
