#include "batch_scheduler.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>

#include "engine_thread.h"
#include "trit/reply.h"
#include "trit/sampler.h"
#include "trit/session.h"
#include "trit/tokenizer.h"

namespace trit::server {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

// One sequence of the forward pass and the request decoding in it, if any.
struct BatchScheduler::Stream {
  int32_t seq = 0;
  std::vector<int32_t> cached;  // the tokens this sequence's cache holds, in order
  std::shared_ptr<Job> job;     // null: free
  GenerateOptions options;
  GenerateResult result;
  std::unique_ptr<Sampler> sampler;
  std::unique_ptr<Reply> reply;
  int32_t input = 0;   // the next step's input: the last token sampled
  int32_t reused = 0;  // prompt tokens found in the cache
  std::string error;
};

BatchScheduler::BatchScheduler(std::shared_ptr<const Model> model,
                               std::function<std::unique_ptr<Forward>()> make_forward, size_t queue_limit)
    : model_(std::move(model)), queue_limit_(queue_limit) {
  if (!model_) throw std::invalid_argument("BatchScheduler: no model");
  thread_ = start_engine_thread(
      [this, make = std::move(make_forward)] {
        auto forward = make();
        if (forward->sequences() < 2)
          throw std::invalid_argument("BatchScheduler: the forward pass holds " + std::to_string(forward->sequences()) +
                                      " sequence; batching needs at least 2");
        forward_ = std::move(forward);
        context_ = forward_->context_length();
        slots_ = std::min(forward_->sequences(), forward_->max_batch());
        for (int32_t s = 0; s < slots_; ++s) {
          streams_.push_back(std::make_unique<Stream>());
          streams_.back()->seq = s;
        }
      },
      [this] { run(); });
}

BatchScheduler::~BatchScheduler() {
  shutdown();
}

Scheduler::Admission BatchScheduler::submit(std::shared_ptr<Job> job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_) return Admission::ShuttingDown;
    // Every sequence and queue_limit_ waiting places, counted together (as SerialScheduler counts them),
    // so admission does not depend on how soon the engine thread takes a job in.
    if (queue_.size() + running_ >= static_cast<size_t>(slots_) + queue_limit_) return Admission::QueueFull;
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
  return Admission::Accepted;
}

size_t BatchScheduler::load() const {
  std::lock_guard lock(mutex_);
  return queue_.size() + running_;
}

void BatchScheduler::shutdown() {
  std::deque<std::shared_ptr<Job>> dropped;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    dropped.swap(queue_);
  }
  cv_.notify_one();
  for (auto& job : dropped) job->finish(cancelled_result());
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

void BatchScheduler::end(Stream& s) {
  if (s.reply) s.reply->finish();
  JobResult r;
  r.reason = s.result.reason;
  r.prompt_tokens = static_cast<int32_t>(s.job->request().prompt.size());
  r.cached_tokens = s.reused;
  r.completion_tokens = static_cast<int32_t>(s.result.tokens.size());
  r.ttft_ms = s.result.stats.ttft_ms;
  r.error = s.error;
  std::shared_ptr<Job> job = std::move(s.job);
  s.job.reset();
  s.reply.reset();
  s.sampler.reset();
  s.error.clear();
  {
    std::lock_guard lock(mutex_);
    --running_;
  }
  job->finish(std::move(r));
}

bool BatchScheduler::start(const std::shared_ptr<Job>& job, Stream& s, size_t common) {
  const GenerationRequest& req = job->request();
  s.job = job;
  s.result = {};
  s.reused = 0;
  s.options = {};
  s.options.sampling = req.sampling;
  s.options.max_tokens = req.max_tokens;
  s.options.stop_strings = req.stop_strings;
  s.options.stop_tokens = req.stop_tokens;
  s.options.on_text = [j = job.get()](std::string_view piece) { j->append(piece); };
  const auto t0 = Clock::now();
  const std::span<const int32_t> prompt(req.prompt);
  const auto n = static_cast<int32_t>(prompt.size());
  try {
    if (n == 0) throw std::invalid_argument("the prompt is empty");
    if (n > context_) throw PromptTooLongError(n, context_);
    if (auto e = s.options.validate(); !e.empty()) throw std::invalid_argument(e);
    // The cached prefix is kept, but the last prompt token is always evaluated again for its logits.
    common = std::min(common, prompt.size() - 1);
    s.cached.resize(common);
    s.reused = static_cast<int32_t>(common);
    std::vector<float> logits(static_cast<size_t>(forward_->vocab_size()));
    const int32_t block = std::max(1, forward_->prefill_block());
    for (auto pos = static_cast<int32_t>(common); pos < n;) {
      if (job->cancelled()) {
        s.result.reason = FinishReason::Cancelled;
        end(s);
        return false;
      }
      const int32_t len = std::min(block, n - pos);
      s.cached.resize(static_cast<size_t>(pos));  // (if the eval throws, positions from pos on are gone)
      forward_->eval_sequence(s.seq, prompt.subspan(static_cast<size_t>(pos), static_cast<size_t>(len)), pos, logits,
                              false);
      s.cached.insert(s.cached.end(), prompt.begin() + pos, prompt.begin() + pos + len);
      pos += len;
    }
    s.sampler = std::make_unique<Sampler>(s.options.sampling);
    s.reply = std::make_unique<Reply>(model_->tokenizer(), s.options, s.result, t0);
    if (s.options.max_tokens <= 0 || job->cancelled()) {
      if (job->cancelled()) s.result.reason = FinishReason::Cancelled;
      end(s);
      return false;
    }
    const int32_t tok = s.sampler->sample(logits, s.cached);
    if (!s.reply->accept(tok, static_cast<int32_t>(s.cached.size()) >= context_)) {
      end(s);
      return false;
    }
    s.input = tok;
    return true;
  } catch (const std::exception& e) {
    s.error = e.what();
    end(s);
    return false;
  }
}

void BatchScheduler::step(std::vector<Stream*>& active) {
  // A client that went away leaves before the step.
  std::erase_if(active, [&](Stream* s) {
    if (!s->job->cancelled()) return false;
    s->result.reason = FinishReason::Cancelled;
    end(*s);
    return true;
  });
  if (active.empty()) return;
  std::vector<BatchToken> batch;
  for (Stream* s : active) batch.push_back({s->seq, s->input, static_cast<int32_t>(s->cached.size())});
  const auto vocab = static_cast<size_t>(forward_->vocab_size());
  // The step consumes each stream's input: its history for the repetition penalty from here on.
  for (Stream* s : active) s->cached.push_back(s->input);
  std::vector<int32_t> tokens(active.size());
  std::vector<std::string> errors(active.size());
  // A step of greedy streams only needs each row's argmax after its penalty, which the device finds
  // itself (no rows read back; a greedy sampler draws nothing, so skipping it changes no stream's
  // random state).
  const bool argmax_only = std::all_of(active.begin(), active.end(),
                                       [](const Stream* s) { return s->sampler->params().temperature <= 0.f; });
  // A step whose sampled streams cut to their best top_k (the default) needs each row's best k only,
  // which the device finds (Sampler::sample_top: the same tokens, the same draws); greedy rows take the
  // first of theirs.
  bool from_top = !argmax_only && std::all_of(active.begin(), active.end(), [&](const Stream* s) {
    return s->sampler->params().temperature <= 0.f || s->sampler->samples_from_top(static_cast<int32_t>(vocab));
  });
  size_t top_k = 1;
  for (const Stream* s : active)
    if (s->sampler->params().temperature > 0.f)
      top_k = std::max(top_k, static_cast<size_t>(std::max(s->sampler->params().top_k, 1)));
  std::vector<std::vector<TopLogit>> tops;
  std::vector<RowPenalty> penalties;
  if (argmax_only || from_top)
    for (Stream* s : active)
      penalties.push_back(
          {s->sampler->penalised_tokens(s->cached, static_cast<int32_t>(vocab)), s->sampler->params().repeat_penalty});
  // The rows' buffer lives across steps: a fresh one of several MB a step cost its page faults.
  if (!argmax_only && step_logits_.size() < batch.size() * vocab) step_logits_.resize(batch.size() * vocab);
  const std::span<float> logits = std::span<float>(step_logits_).first(argmax_only ? 0 : batch.size() * vocab);
  try {
    if (argmax_only) {
      forward_->decode_batch_argmax(batch, tokens, penalties);
    } else {
      // (A row holding a NaN: the rows after all, the step taken again.)
      if (from_top) from_top = forward_->decode_batch_top(batch, penalties, top_k, tops);
      if (!from_top) forward_->decode_batch(batch, logits);
    }
  } catch (const std::exception& e) {
    // Whatever the step wrote is lost: every stream in it ends with the error, its cache forgotten.
    for (Stream* s : active) {
      s->cached.clear();
      s->error = e.what();
      end(*s);
    }
    return;
  }
  // Each stream samples its own row with its own sampler and history, so the rows may be sampled side
  // by side: one thread a stream beyond the first where any row is sampled (a sampled row takes a few
  // hundred us on the host, a greedy one tens), else all on this thread.
  auto sample = [&](size_t i) {
    try {
      Sampler& sampler = *active[i]->sampler;
      if (from_top) {
        const auto k = static_cast<size_t>(sampler.params().top_k);
        tokens[i] = sampler.params().temperature <= 0.f
                        ? tops[i].front().id
                        : sampler.sample_top(std::span<const TopLogit>(tops[i]).first(k), static_cast<int32_t>(vocab));
        return;
      }
      tokens[i] = sampler.sample(logits.subspan(i * vocab, vocab), active[i]->cached);
    } catch (const std::exception& e) {
      errors[i] = e.what();
    }
  };
  const bool sampled =
      std::any_of(active.begin(), active.end(), [](const Stream* s) { return s->sampler->params().temperature > 0.f; });
  std::vector<std::thread> workers;
  if (sampled && !from_top && std::thread::hardware_concurrency() > 1)
    for (size_t i = 1; i < active.size(); ++i) workers.emplace_back(sample, i);
  if (!argmax_only)
    for (size_t i = 0; i < (workers.empty() ? active.size() : 1); ++i) sample(i);
  for (std::thread& w : workers) w.join();
  for (size_t i = 0; i < active.size(); ++i) {
    Stream& s = *active[i];
    try {
      if (!errors[i].empty()) throw std::runtime_error(errors[i]);
      if (!s.reply->accept(tokens[i], static_cast<int32_t>(s.cached.size()) >= context_)) {
        end(s);
        continue;
      }
      s.input = tokens[i];
    } catch (const std::exception& e) {
      s.error = e.what();
      end(s);
    }
  }
}

void BatchScheduler::run() {
  for (;;) {
    std::vector<std::shared_ptr<Job>> admitted;
    bool any_active = std::any_of(streams_.begin(), streams_.end(), [](const auto& s) { return s->job != nullptr; });
    {
      std::unique_lock lock(mutex_);
      if (!any_active) cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) break;
      // A request that comes in joins at the next step, as far as sequences are free.
      size_t free = static_cast<size_t>(slots_) - running_;
      while (free > 0 && !queue_.empty()) {
        admitted.push_back(std::move(queue_.front()));
        queue_.pop_front();
        ++running_;
        --free;
      }
    }
    for (auto& job : admitted) {
      if (job->cancelled()) {  // a client that left while its request waited costs nothing
        {
          std::lock_guard lock(mutex_);
          --running_;
        }
        job->finish(cancelled_result());
        continue;
      }
      // The free sequence that keeps the most: its common prefix with the prompt is not processed again,
      // but the rest of its cache is lost for later requests (a conversation's history). Score 2 x common
      // - cached: an empty sequence scores 0, so one sharing only a token or two with the prompt keeps
      // its history and a sequence holding the prompt's whole prefix is taken.
      const auto& prompt = job->request().prompt;
      Stream* best = nullptr;
      int64_t best_score = 0;
      size_t best_common = 0;
      for (auto& s : streams_) {
        if (s->job) continue;
        size_t c = 0;
        while (c < s->cached.size() && c < prompt.size() && s->cached[c] == prompt[c]) ++c;
        const int64_t score = 2 * static_cast<int64_t>(c) - static_cast<int64_t>(s->cached.size());
        if (!best || score > best_score) best = s.get(), best_score = score, best_common = c;
      }
      start(job, *best, best_common);
    }
    std::vector<Stream*> active;
    for (auto& s : streams_)
      if (s->job) active.push_back(s.get());
    if (!active.empty()) step(active);
  }
  // Stopping: every request still decoding ends, cancelled.
  for (auto& s : streams_)
    if (s->job) {
      s->result.reason = FinishReason::Cancelled;
      end(*s);
    }
  forward_.reset();  // the engine's objects are released on the thread that made them
}

}  // namespace trit::server
