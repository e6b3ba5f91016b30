#include "run_job.h"

#include <exception>

namespace trit::server {

JobResult run_job(Session& session, Job& job) {
  const GenerationRequest& req = job.request();
  GenerateOptions go;
  go.sampling = req.sampling;
  go.max_tokens = req.max_tokens;
  go.stop_strings = req.stop_strings;
  go.stop_tokens = req.stop_tokens;
  go.on_text = [&](std::string_view piece) { job.append(piece); };
  // Session::cancel() from the engine thread itself, between steps: generate() resets the flag when it
  // starts, so a cancel from another thread before that would be lost.
  go.on_token = [&](int32_t) {
    if (job.cancelled()) session.cancel();
  };
  go.on_prefill_progress = [&](int32_t, int32_t) {
    if (job.cancelled()) session.cancel();
  };
  JobResult out;
  out.prompt_tokens = static_cast<int32_t>(req.prompt.size());
  try {
    const GenerateResult r = session.generate(req.prompt, go);
    out.reason = r.reason;
    out.cached_tokens = r.stats.reused_tokens;
    out.completion_tokens = r.stats.generated_tokens;
    out.ttft_ms = r.stats.ttft_ms;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

}  // namespace trit::server
