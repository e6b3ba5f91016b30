#pragma once
// One request's generation, shared by the HTTP thread that submitted it and the engine thread that runs
// it. The engine appends text as it is decoded and finishes the job once; the HTTP side waits for text
// and writes it to its client at its own pace, so a slow client never holds up the engine, and cancels
// the job when its client goes away (the engine stops it within one token, or drops it from the queue).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "trit/sampler.h"
#include "trit/session.h"

namespace trit::server {

// What the engine needs to run a request: token ids and generation parameters, nothing about HTTP.
struct GenerationRequest {
  std::vector<int32_t> prompt;
  SamplingParams sampling;
  int32_t max_tokens = 0;                 // > 0, already clamped to the room the context leaves
  std::vector<std::string> stop_strings;  // not returned; text that may start one is held back
  std::vector<int32_t> stop_tokens;       // a chat format's end of turn
  // The model the prompt was made for. A scheduler whose model can change (the app's, which serves
  // whatever its window has loaded) refuses a job for another model: its token ids mean nothing there.
  std::shared_ptr<const Model> model;
};

struct JobResult {
  FinishReason reason = FinishReason::Stop;
  int32_t prompt_tokens = 0;
  int32_t cached_tokens = 0;      // prompt tokens found in the KV cache (not processed again)
  int32_t completion_tokens = 0;  // tokens sampled, a final end-of-turn token included
  double ttft_ms = 0;             // from the start of the job's generation to its first token
  std::string error;              // non-empty: the engine failed on this job (the text so far stands)
  // Non-empty (with reason Cancelled): the server, not the client, ended the job, and why (its model was
  // unloaded or replaced in the app). The client is told so with a 503; empty: the server is stopping.
  std::string unavailable;
};

// The result of a job that was cancelled before it produced anything (or by a stopping server).
JobResult cancelled_result();

class Job {
 public:
  explicit Job(GenerationRequest request) : request_(std::move(request)) {}

  const GenerationRequest& request() const { return request_; }

  // HTTP side. Waits up to `timeout` for text or the end, appends the text that came to `text`, and
  // returns the result once the job has finished (after its last text was handed out).
  std::optional<JobResult> wait(std::string& text, std::chrono::milliseconds timeout);
  // Waits for the end; the whole text is appended to `text`.
  JobResult wait_all(std::string& text);
  // The client is gone: the engine stops this job within one token (or never starts it).
  void cancel() { cancelled_.store(true); }

  // Engine side.
  bool cancelled() const { return cancelled_.load(); }
  void append(std::string_view text);
  void finish(JobResult result);  // once; wakes the waiter

 private:
  GenerationRequest request_;
  std::atomic<bool> cancelled_{false};
  std::mutex mutex_;
  std::condition_variable cv_;
  std::string pending_;  // appended by the engine, not yet taken by wait()
  std::optional<JobResult> result_;
};

}  // namespace trit::server
