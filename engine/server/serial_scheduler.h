#pragma once
// The single-stream scheduler: one engine thread owns the Session and runs jobs one at a time, in the
// order they came, from a bounded queue. Consecutive requests that share a prompt prefix reuse it from
// the KV cache (Session::prefill keeps the longest common prefix).
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "scheduler.h"
#include "trit/session.h"

namespace trit::server {

class SerialScheduler : public Scheduler {
 public:
  // make_session runs on the engine thread, which then owns the session; what it throws is rethrown
  // here. queue_limit: jobs that may wait while one runs (0: none wait).
  SerialScheduler(std::function<std::unique_ptr<Session>()> make_session, size_t queue_limit);
  ~SerialScheduler() override;

  Admission submit(std::shared_ptr<Job> job) override;
  int32_t context_length() const override { return context_; }
  size_t load() const override;
  void shutdown() override;

 private:
  void run();

  std::unique_ptr<Session> session_;  // used on the engine thread only
  int32_t context_ = 0;
  size_t queue_limit_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  std::shared_ptr<Job> running_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace trit::server
