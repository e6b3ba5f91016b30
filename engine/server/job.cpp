#include "job.h"

namespace trit::server {

std::optional<JobResult> Job::wait(std::string& text, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mutex_);
  cv_.wait_for(lock, timeout, [&] { return !pending_.empty() || result_.has_value(); });
  text += pending_;
  pending_.clear();
  return result_;
}

JobResult Job::wait_all(std::string& text) {
  std::unique_lock lock(mutex_);
  cv_.wait(lock, [&] { return result_.has_value(); });
  text += pending_;
  pending_.clear();
  return *result_;
}

void Job::append(std::string_view text) {
  if (text.empty()) return;
  {
    std::lock_guard lock(mutex_);
    pending_ += text;
  }
  cv_.notify_all();
}

void Job::finish(JobResult result) {
  {
    std::lock_guard lock(mutex_);
    if (result_) return;
    result_ = std::move(result);
  }
  cv_.notify_all();
}

JobResult cancelled_result() {
  JobResult r;
  r.reason = FinishReason::Cancelled;
  return r;
}

}  // namespace trit::server
