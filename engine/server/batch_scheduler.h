#pragma once
// Continuous batching: one engine thread decodes every running request in the same steps
// (Forward::decode_batch), each in a sequence of its own. A request that comes in is prefilled into a
// free sequence before the next step and joins it; one that ends (end of turn, stop string, max_tokens,
// the context, or its client gone) leaves at once and frees its sequence. Each sequence keeps what its
// last request left in its cache, and a new request takes the free sequence that keeps the most (the
// prefix it shares with the prompt, against the history it would overwrite; the rest is prefilled). Tokens are chosen
// on the host with the request's own sampler, from each row's argmax or best top_k found on the device
// (Forward::decode_batch_argmax, decode_batch_top: what the whole row gives) or from the row itself, so a request's
// tokens are what it gets alone: the step's rows do not depend on one another (Forward::decode_batch) and neither do
// the samplers.
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "scheduler.h"
#include "trit/forward.h"
#include "trit/model.h"

namespace trit::server {

class BatchScheduler : public Scheduler {
 public:
  // make_forward runs on the engine thread, which then owns the forward pass; its sequences() are the
  // requests that decode together (at least 2; fewer: SerialScheduler). What it throws is rethrown here.
  // queue_limit: requests that may wait while every sequence is busy.
  BatchScheduler(std::shared_ptr<const Model> model, std::function<std::unique_ptr<Forward>()> make_forward,
                 size_t queue_limit);
  ~BatchScheduler() override;

  Admission submit(std::shared_ptr<Job> job) override;
  int32_t context_length() const override { return context_; }
  size_t load() const override;
  void shutdown() override;
  // Requests that decode in the same steps at most.
  int32_t parallel() const { return slots_; }

 private:
  struct Stream;
  void run();
  // Prefills the job's prompt into a free sequence, whose cache holds its first `common` tokens already,
  // and takes its first token; false when the job ended there (finished).
  bool start(const std::shared_ptr<Job>& job, Stream& s, size_t common);
  void step(std::vector<Stream*>& active);
  void end(Stream& s);

  std::shared_ptr<const Model> model_;
  std::unique_ptr<Forward> forward_;              // used on the engine thread only
  std::vector<std::unique_ptr<Stream>> streams_;  // one per sequence (engine thread)
  std::vector<float> step_logits_;                // a step's rows of logits (engine thread)
  int32_t context_ = 0;
  int32_t slots_ = 0;
  size_t queue_limit_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Job>> queue_;
  size_t running_ = 0;  // jobs in sequences (guarded by mutex_)
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace trit::server
