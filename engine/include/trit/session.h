#pragma once
// A conversation's state on one model: the KV cache (through a Forward), prefill with prefix reuse,
// the decode loop with sampling and stop conditions, cancellation from another thread, statistics.
// This is the engine API that the app, the CLI and the tests use.
#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <trit/backend.h>
#include <trit/forward.h>
#include <trit/sampler.h>

namespace trit {

class Model;
class Tokenizer;

// A prompt with more tokens than the session's context holds: nothing was processed. Its message gives
// both figures, by how much the prompt is too long, and what to do.
class PromptTooLongError : public ContextFullError {
 public:
  PromptTooLongError(int32_t prompt_tokens, int32_t context);
  int32_t prompt_tokens() const { return prompt_tokens_; }
  int32_t context() const { return context_; }
  int32_t excess() const { return prompt_tokens_ - context_; }  // tokens to remove for the prompt to fit

 private:
  int32_t prompt_tokens_;
  int32_t context_;
};

struct GenerationStats {
  int32_t prompt_tokens = 0;     // prompt length
  int32_t reused_tokens = 0;     // of those, already in the KV cache (not processed again)
  double prefill_ms = 0;         // time to process the rest of the prompt
  int32_t generated_tokens = 0;  // tokens sampled (including a final EOS/EOT)
  double decode_ms = 0;          // time from the first sampled token to the end
  double ttft_ms = 0;            // from generate() to the first token's text
  // Where the reply's tokens after the first were chosen: "host" (from read-back logits), "device"
  // (the GPU sampler, one token per submit) or "device-greedy" (argmax chained on the GPU).
  const char* sampled_on = "host";
  // Vulkan: the kernels one-token steps ran on at the end of the reply (VulkanForward::decode_kernels;
  // the persistent kernel compiles in the background from load on, so a reply right after the load may
  // start on the fused kernels); empty on the CPU.
  std::string decode_kernels;

  double prompt_tokens_per_s() const;      // processed prompt tokens / prefill time
  double generation_tokens_per_s() const;  // (generated - 1) / decode time: the first token is in ttft
};

enum class FinishReason {
  Stop,         // end of turn (EOS/EOT) or a stop string
  Length,       // max_tokens reached
  Cancelled,    // cancel() was called
  ContextFull,  // the context length was reached while replying: nothing was silently truncated
};
const char* to_string(FinishReason reason);

struct GenerateOptions {
  SamplingParams sampling;
  int32_t max_tokens = 2048;
  std::vector<std::string> stop_strings;  // generation stops before any of these; they are not returned
  // Ids that end the reply like EOS/EOT do (a chat format's end of turn, ChatFormat::stop_tokens()).
  std::vector<int32_t> stop_tokens;
  // Called on the generating thread with each new piece of text (whole UTF-8 characters only).
  std::function<void(std::string_view piece)> on_text;
  // Called on the generating thread with each sampled token id, before its text (token counters, tests).
  std::function<void(int32_t token)> on_token;
  // Called on the generating thread as the prompt is processed: tokens done so far of `total`.
  std::function<void(int32_t done, int32_t total)> on_prefill_progress;

  // Empty if the options are valid, else what is wrong (the sampling parameters, an empty stop string,
  // max_tokens < 0). generate() throws std::invalid_argument with it; front ends call it first so a bad
  // option is refused before any work.
  std::string validate() const;
};

struct GenerateResult {
  std::string text;             // the reply (without a matched stop string or end-of-turn token)
  std::vector<int32_t> tokens;  // every sampled token
  FinishReason reason = FinishReason::Stop;
  GenerationStats stats;
};

struct SessionOptions {
  std::string backend = "vulkan";  // "vulkan" or "cpu"
  int device = -1;                 // Vulkan device index, -1 = best (discrete first)
  int32_t context = 0;             // 0 = the model's trained context length
  KvPrecision kv = KvPrecision::F16;
  Precision precision = Precision::Fp32;  // of the activations (trit/forward.h)
  bool vendor_neutral = false;            // Vulkan: ignore vendor-specific extensions (VulkanForwardOptions)
  // Tokens per prefill chunk (progress and cancellation granularity); 0: the backend's block (the
  // Vulkan engine's block size, 512 on an H100: a 512-token prompt in 128-token chunks took 43 ms
  // there instead of 25), 128 on the CPU.
  int32_t prefill_block = 0;
};

class Session {
 public:
  Session(std::shared_ptr<const Model> model, std::unique_ptr<Forward> forward);
  // Builds the forward pass for `options.backend` on the model (see backend.h).
  static std::unique_ptr<Session> create(std::shared_ptr<const Model> model, const SessionOptions& options);
  // The forward pass options a session with these options runs on (one sequence).
  static ForwardOptions forward_options(const SessionOptions& options);
  ~Session();

  const Model& model() const { return *model_; }
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  int32_t context_length() const { return forward_->context_length(); }
  // Tokens whose keys and values are in the cache, in order (the prompt and reply so far).
  const std::vector<int32_t>& cached_tokens() const { return cached_; }

  // Makes the cache hold exactly `prompt`, reusing the longest prefix already cached and processing
  // the rest in blocks. Returns the logits after the last prompt token. Throws PromptTooLongError (a
  // ContextFullError) when the prompt is longer than the context.
  std::span<const float> prefill(std::span<const int32_t> prompt,
                                 const std::function<void(int32_t, int32_t)>& progress = {});
  // Consumes one token at the end of the cache; returns the logits after it.
  std::span<const float> decode(int32_t token);
  // Keeps only the first n cached tokens (regenerate, edit an earlier message).
  void rewind(int32_t n);

  // prefill(prompt), then sample and decode until end of turn, a stop string, max_tokens, the context
  // limit or cancel(). Throws PromptTooLongError if the prompt itself does not fit (an error, not a
  // finish reason: there is no reply), std::invalid_argument for invalid options. Thread-safe with
  // respect to cancel() only.
  GenerateResult generate(std::span<const int32_t> prompt, const GenerateOptions& options);

  // May be called from any thread: a running generate() or prefill() stops within one token or chunk.
  void cancel() { cancel_.store(true); }

  // The last generate()'s statistics.
  const GenerationStats& stats() const { return stats_; }

 private:
  size_t reusable_prefix(std::span<const int32_t> prompt) const;

  std::shared_ptr<const Model> model_;
  std::unique_ptr<Forward> forward_;
  const Tokenizer* tokenizer_ = nullptr;  // the model's
  std::vector<int32_t> cached_;
  std::vector<float> logits_;
  std::atomic<bool> cancel_{false};
  int32_t prefill_block_ = 128;
  GenerationStats stats_;
};

}  // namespace trit
