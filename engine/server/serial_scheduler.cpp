#include "serial_scheduler.h"

#include <exception>

#include "engine_thread.h"
#include "run_job.h"

namespace trit::server {

SerialScheduler::SerialScheduler(std::function<std::unique_ptr<Session>()> make_session, size_t queue_limit)
    : queue_limit_(queue_limit) {
  thread_ = start_engine_thread(
      [this, make = std::move(make_session)] {
        session_ = make();
        context_ = session_->context_length();
      },
      [this] { run(); });
}

SerialScheduler::~SerialScheduler() {
  shutdown();
}

Scheduler::Admission SerialScheduler::submit(std::shared_ptr<Job> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return Admission::ShuttingDown;
    // One runs and queue_limit_ wait, counted together: a job the engine thread has not taken from the
    // queue yet holds the running place, so admission does not depend on how fast it is taken.
    if (queue_.size() + (running_ ? 1 : 0) >= 1 + queue_limit_) return Admission::QueueFull;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
  return Admission::Accepted;
}

size_t SerialScheduler::load() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + (running_ ? 1 : 0);
}

void SerialScheduler::shutdown() {
  std::deque<std::shared_ptr<Job>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
    if (running_) running_->cancel();
  }
  cv_.notify_one();
  for (auto& job : dropped) job->finish(cancelled_result());
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void SerialScheduler::run() {
  for (;;) {
    std::shared_ptr<Job> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_ = job;
    }
    // A client that left while its job waited costs nothing.
    JobResult result = job->cancelled() ? cancelled_result() : run_job(*session_, *job);
    {
      std::lock_guard lock(mutex_);
      running_.reset();
    }
    job->finish(std::move(result));
  }
  session_.reset();  // the engine's objects are released on the thread that made them
}

}  // namespace trit::server
