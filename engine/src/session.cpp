#include <trit/session.h>

#include <trit/backend.h>
#include <trit/gguf.h>
#include <trit/model.h>
#include <trit/reply.h>
#include <trit/tokenizer.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>

namespace trit {
namespace {
using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

PromptTooLongError::PromptTooLongError(int32_t prompt_tokens, int32_t context)
    : ContextFullError("the prompt is " + std::to_string(prompt_tokens) + " tokens but the context holds " +
                       std::to_string(context) + ": it is " + std::to_string(prompt_tokens - context) +
                       (prompt_tokens - context == 1 ? " token" : " tokens") +
                       " too long. Shorten the prompt or use a longer context"),
      prompt_tokens_(prompt_tokens),
      context_(context) {}

double GenerationStats::prompt_tokens_per_s() const {
  const int32_t processed = prompt_tokens - reused_tokens;
  return prefill_ms > 0 ? processed * 1000.0 / prefill_ms : 0.0;
}

double GenerationStats::generation_tokens_per_s() const {
  return decode_ms > 0 && generated_tokens > 1 ? (generated_tokens - 1) * 1000.0 / decode_ms : 0.0;
}

const char* to_string(FinishReason reason) {
  switch (reason) {
    case FinishReason::Stop:
      return "stop";
    case FinishReason::Length:
      return "length";
    case FinishReason::Cancelled:
      return "cancelled";
    case FinishReason::ContextFull:
      return "context_full";
  }
  return "unknown";
}

Session::Session(std::shared_ptr<const Model> model, std::unique_ptr<Forward> forward)
    : model_(std::move(model)), forward_(std::move(forward)) {
  if (!model_ || !forward_) throw std::invalid_argument("Session needs a model and a forward pass");
  tokenizer_ = &model_->tokenizer();  // built and validated by Model::open
  logits_.resize(static_cast<size_t>(forward_->vocab_size()));
}

ForwardOptions Session::forward_options(const SessionOptions& options) {
  ForwardOptions fo;
  fo.context = options.context;
  fo.kv = options.kv;
  fo.device = options.device;
  fo.precision = options.precision;
  fo.vendor_neutral = options.vendor_neutral;
  return fo;
}

std::unique_ptr<Session> Session::create(std::shared_ptr<const Model> model, const SessionOptions& options) {
  auto forward = make_forward(options.backend, model, forward_options(options));
  // 0: the backend's own block (the Vulkan engine's, 512 tokens where it fits one binding), so a
  // prompt is not cut into smaller submits than the engine takes at once; 128 on the CPU.
  int32_t block = options.prefill_block;
  if (block <= 0) block = forward->prefill_block();
  auto session = std::make_unique<Session>(std::move(model), std::move(forward));
  session->prefill_block_ = std::max<int32_t>(1, block);
  return session;
}

Session::~Session() = default;

size_t Session::reusable_prefix(std::span<const int32_t> prompt) const {
  // The cached prefix is kept, but the last prompt token is always processed again: its logits are not kept.
  size_t common = 0;
  while (common < cached_.size() && common < prompt.size() && cached_[common] == prompt[common]) ++common;
  return prompt.empty() ? 0 : std::min(common, prompt.size() - 1);
}

void Session::rewind(int32_t n) {
  if (n < 0) throw std::invalid_argument("cannot rewind to a negative position");
  if (static_cast<size_t>(n) < cached_.size()) cached_.resize(static_cast<size_t>(n));
}

std::span<const float> Session::prefill(std::span<const int32_t> prompt,
                                        const std::function<void(int32_t, int32_t)>& progress) {
  if (prompt.empty()) throw std::invalid_argument("cannot prefill an empty prompt");
  const auto n = static_cast<int32_t>(prompt.size());
  if (n > context_length()) throw PromptTooLongError(n, context_length());
  for (int32_t t : prompt)
    if (t < 0 || t >= forward_->vocab_size())
      throw std::invalid_argument("token id " + std::to_string(t) + " is outside the vocabulary of " +
                                  std::to_string(forward_->vocab_size()));

  const size_t common = reusable_prefix(prompt);
  rewind(static_cast<int32_t>(common));

  int32_t pos = static_cast<int32_t>(common);
  if (progress) progress(pos, n);
  while (pos < n) {
    if (cancel_.load()) return {};
    const int32_t len = std::min(prefill_block_, n - pos);
    forward_->eval(prompt.subspan(static_cast<size_t>(pos), static_cast<size_t>(len)), pos, logits_, false);
    cached_.insert(cached_.end(), prompt.begin() + pos, prompt.begin() + pos + len);
    pos += len;
    if (progress) progress(pos, n);
  }
  return logits_;
}

std::span<const float> Session::decode(int32_t token) {
  if (static_cast<int32_t>(cached_.size()) >= context_length())
    throw ContextFullError("the context of " + std::to_string(context_length()) + " tokens is full");
  if (token < 0 || token >= forward_->vocab_size())
    throw std::invalid_argument("token id " + std::to_string(token) + " is outside the vocabulary");
  const int32_t t[1] = {token};
  forward_->eval(t, static_cast<int32_t>(cached_.size()), logits_, false);
  cached_.push_back(token);
  return logits_;
}

GenerateResult Session::generate(std::span<const int32_t> prompt, const GenerateOptions& options) {
  if (auto e = options.validate(); !e.empty()) throw std::invalid_argument(e);
  cancel_.store(false);
  const auto t0 = Clock::now();
  GenerateResult result;
  stats_ = {};
  auto& st = result.stats;
  st.prompt_tokens = static_cast<int32_t>(prompt.size());
  st.reused_tokens = static_cast<int32_t>(reusable_prefix(prompt));

  Sampler sampler(options.sampling);
  prefill(prompt, options.on_prefill_progress);  // a prompt that does not fit throws PromptTooLongError
  st.prefill_ms = ms_since(t0);
  if (cancel_.load()) {
    result.reason = FinishReason::Cancelled;
    stats_ = st;
    return result;
  }

  std::vector<float> work(logits_.size());
  Reply reply(*tokenizer_, options, result, t0);
  auto accept = [&](int32_t tok) {
    return reply.accept(tok, static_cast<int32_t>(cached_.size()) >= context_length());
  };

  // Where the tokens are chosen: on the GPU, in chains of steps with no host in the loop, plain greedy
  // by argmax (decode_greedy) and every other setting the GPU sampler supports by it (decode_sample);
  // the rest (or the CPU backend) on the host from read-back logits. The first token always comes
  // from the prompt's logits on the host.
  Forward& fw = *forward_;
  const bool on_device = fw.decodes_on_device();
  const SamplingParams& sp = options.sampling;
  const bool plain_greedy = sp.plain_greedy();
  const bool device_sampling = on_device && fw.samples_on_device(sp);
  bool go = options.max_tokens > 0;
  if (go && cancel_.load()) {
    result.reason = FinishReason::Cancelled;
    go = false;
  }
  int32_t tok = 0;
  if (go) {
    std::copy(logits_.begin(), logits_.end(), work.begin());
    tok = sampler.sample(work, cached_);
    go = accept(tok);
  }
  if (on_device && plain_greedy)
    st.sampled_on = "device-greedy";
  else if (device_sampling)
    st.sampled_on = "device";
  if (go && on_device && (plain_greedy || device_sampling)) {
    int32_t input = tok;
    const auto pos = static_cast<int32_t>(cached_.size());
    const auto steps =
        std::min<int32_t>(options.max_tokens - static_cast<int32_t>(result.tokens.size()), context_length() - pos);
    auto on_token = [&](int32_t out) {
      cached_.push_back(input);  // the step that chose `out` consumed `input`
      input = out;
      if (cancel_.load()) {
        result.reason = FinishReason::Cancelled;
        return false;
      }
      return accept(out);
    };
    if (plain_greedy) {
      fw.decode_greedy(tok, pos, steps, on_token);
    } else {
      // The penalty window before the first input: the cache's last repeat_last_n tokens, copied (the
      // callback grows cached_; the device extends the window itself).
      const auto n = std::min(cached_.size(), static_cast<size_t>(std::max(0, sp.repeat_last_n)));
      const std::vector<int32_t> recent(cached_.end() - static_cast<std::ptrdiff_t>(n), cached_.end());
      fw.decode_sample(tok, pos, steps, sampler, recent, on_token);
    }
    go = false;
  }
  while (go) {
    if (cancel_.load()) {
      result.reason = FinishReason::Cancelled;
      break;
    }
    decode(tok);
    std::copy(logits_.begin(), logits_.end(), work.begin());
    tok = sampler.sample(work, cached_);
    go = accept(tok);
  }
  reply.finish();
  st.generated_tokens = static_cast<int32_t>(result.tokens.size());
  st.decode_kernels = fw.decode_kernels();
  if (!result.tokens.empty()) st.decode_ms = ms_since(reply.first_token_time());
  stats_ = st;
  return result;
}

}  // namespace trit
