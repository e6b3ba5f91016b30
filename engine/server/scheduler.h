#pragma once
// Where jobs are run: the HTTP layer submits jobs and knows nothing else about the engine. The
// implementation owns the engine thread (and through it every Vulkan object) and decides which jobs
// decode when: SerialScheduler runs one at a time; a batched scheduler that decodes several sequences in
// the same steps implements this same interface.
//
// What an implementation must do:
// - submit(): callable from any thread, never blocks on the engine; a job is either accepted (it will be
//   finished exactly once, whatever happens: done, cancelled, failed or shut down) or refused at once.
// - Run accepted jobs in submission order as capacity allows; call Job::append with text as it is decoded
//   (whole UTF-8 characters, stop strings never partly) and Job::finish once.
// - Honour Job::cancelled() within one decode step, and never start a job already cancelled.
// - Greedy results of a job do not depend on what else runs (the same tokens as run alone).
// - shutdown(): refuse new jobs, finish every queued and running one as cancelled, join the engine.
#include <memory>

#include "job.h"

namespace trit::server {

class Scheduler {
 public:
  enum class Admission {
    Accepted,
    QueueFull,     // every slot and every queue place is taken: try again later (HTTP 503)
    ShuttingDown,  // the server is stopping (HTTP 503)
  };

  virtual ~Scheduler() = default;
  virtual Admission submit(std::shared_ptr<Job> job) = 0;
  // Tokens one sequence can hold (prompt and reply).
  virtual int32_t context_length() const = 0;
  // Jobs running and waiting now (for /health and logs).
  virtual size_t load() const = 0;
  virtual void shutdown() = 0;
};

}  // namespace trit::server
