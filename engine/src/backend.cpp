// Backend factory (trit/backend.h). New backends add a branch here and a name to backend_names().
#include "trit/backend.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "sequence_set.h"
#include "trit/cpu_forward.h"
#include "trit/sampler.h"
#include "trit/vulkan_forward.h"

namespace trit {

const char* to_string(Precision p) {
  return p == Precision::F64 ? "f64" : "fp32";
}

bool Forward::samples_on_device(const SamplingParams&) const {
  return false;
}

int32_t Forward::decode_greedy(int32_t, int32_t, int32_t, const std::function<bool(int32_t)>&) {
  throw std::logic_error(
      "Forward::decode_greedy: this backend decodes through eval only (decodes_on_device() is false)");
}

int32_t Forward::decode_sample(int32_t, int32_t, int32_t, Sampler&, std::span<const int32_t>,
                               const std::function<bool(int32_t)>&) {
  throw std::logic_error(
      "Forward::decode_sample: this backend samples on the host only (samples_on_device() is false)");
}

void Forward::eval_sequence(int32_t seq, std::span<const int32_t> tokens, int32_t pos, std::span<float> logits,
                            bool all_logits) {
  if (seq != 0)
    throw std::out_of_range("Forward::eval_sequence: sequence " + std::to_string(seq) + " is outside [0, " +
                            std::to_string(sequences()) + ")");
  eval(tokens, pos, logits, all_logits);
}

void Forward::check_batch(std::span<const BatchToken> batch, size_t outputs, size_t per_entry) const {
  const int32_t n = static_cast<int32_t>(batch.size()), vocab = vocab_size();
  if (n == 0) throw std::invalid_argument("decode_batch: no tokens to decode");
  if (n > max_batch())
    throw std::invalid_argument("decode_batch: " + std::to_string(n) + " entries, at most " +
                                std::to_string(max_batch()) + " per step");
  if (outputs != batch.size() * per_entry)
    throw std::invalid_argument("decode_batch: the output span has " + std::to_string(outputs) + " entries, expected " +
                                std::to_string(batch.size() * per_entry));
  std::vector<bool> seen(static_cast<size_t>(sequences()));
  for (int32_t i = 0; i < n; ++i) {
    const BatchToken& b = batch[static_cast<size_t>(i)];
    const std::string at = "decode_batch: entry " + std::to_string(i) + ": ";
    if (b.seq < 0 || b.seq >= sequences())
      throw std::out_of_range(at + "sequence " + std::to_string(b.seq) + " is outside [0, " +
                              std::to_string(sequences()) + ")");
    if (seen[static_cast<size_t>(b.seq)])
      throw std::invalid_argument(at + "sequence " + std::to_string(b.seq) + " appears twice in one step");
    seen[static_cast<size_t>(b.seq)] = true;
    if (b.token < 0 || b.token >= vocab)
      throw std::out_of_range(at + "token " + std::to_string(b.token) + " is outside the vocabulary [0, " +
                              std::to_string(vocab) + ")");
    if (b.pos < 0 || b.pos > cached_positions(b.seq))
      throw std::invalid_argument(at + "position " + std::to_string(b.pos) + " of sequence " + std::to_string(b.seq) +
                                  " is past its " + std::to_string(cached_positions(b.seq)) +
                                  " position(s) in the KV cache");
    if (b.pos >= context_length())
      throw ContextFullError("context full: sequence " + std::to_string(b.seq) + " at position " +
                             std::to_string(b.pos) + " would pass the context length of " +
                             std::to_string(context_length()));
  }
}

void Forward::check_penalties(std::span<const BatchToken> batch, std::span<const RowPenalty> penalties) const {
  if (!penalties.empty() && penalties.size() != batch.size())
    throw std::invalid_argument("batched step: " + std::to_string(penalties.size()) + " penalties for " +
                                std::to_string(batch.size()) + " entries");
  for (size_t i = 0; i < penalties.size(); ++i) {
    const std::string at = "batched step: entry " + std::to_string(i) + ": ";
    std::vector<int32_t> ids(penalties[i].tokens.begin(), penalties[i].tokens.end());
    for (int32_t t : ids)
      if (t < 0 || t >= vocab_size())
        throw std::out_of_range(at + "penalised token " + std::to_string(t) + " is outside the vocabulary");
    std::sort(ids.begin(), ids.end());
    if (std::adjacent_find(ids.begin(), ids.end()) != ids.end())
      throw std::invalid_argument(at + "a penalised token appears twice");
  }
}

void Forward::check_top(size_t k) const {
  const auto vocab = static_cast<size_t>(vocab_size());
  if (k == 0 || k >= vocab)
    throw std::invalid_argument("decode_batch_top: k " + std::to_string(k) + " is not in 1.." +
                                std::to_string(vocab - 1));
}

namespace {

// Entry i's row of a batched step with its penalty applied, as Sampler::sample applies it.
void penalise_row(std::span<float> row, std::span<const RowPenalty> penalties, size_t i) {
  if (penalties.empty()) return;
  for (int32_t t : penalties[i].tokens)
    row[static_cast<size_t>(t)] = repeat_penalised(row[static_cast<size_t>(t)], penalties[i].penalty);
}

}  // namespace

void Forward::decode_batch(std::span<const BatchToken> batch, std::span<float> logits) {
  const auto vocab = static_cast<size_t>(vocab_size());
  check_batch(batch, logits.size(), vocab);
  for (size_t i = 0; i < batch.size(); ++i)
    eval_sequence(batch[i].seq, std::span<const int32_t>(&batch[i].token, 1), batch[i].pos,
                  logits.subspan(i * vocab, vocab), false);
}

void Forward::decode_batch_argmax(std::span<const BatchToken> batch, std::span<int32_t> argmax,
                                  std::span<const RowPenalty> penalties) {
  check_batch(batch, argmax.size(), 1);
  check_penalties(batch, penalties);
  const auto vocab = static_cast<size_t>(vocab_size());
  std::vector<float> rows(batch.size() * vocab);
  decode_batch(batch, rows);
  for (size_t i = 0; i < batch.size(); ++i) {
    const std::span<float> row = std::span<float>(rows).subspan(i * vocab, vocab);
    penalise_row(row, penalties, i);
    argmax[i] = trit::argmax(row);
  }
}

bool Forward::decode_batch_top(std::span<const BatchToken> batch, std::span<const RowPenalty> penalties, size_t k,
                               std::vector<std::vector<TopLogit>>& tops) {
  check_batch(batch, batch.size(), 1);
  check_penalties(batch, penalties);
  check_top(k);
  const auto vocab = static_cast<size_t>(vocab_size());
  std::vector<float> rows(batch.size() * vocab);
  decode_batch(batch, rows);
  tops.assign(batch.size(), {});
  bool finite_order = true;
  for (size_t i = 0; i < batch.size(); ++i) {
    const std::span<float> row = std::span<float>(rows).subspan(i * vocab, vocab);
    penalise_row(row, penalties, i);
    std::vector<TopLogit>& top = tops[i];
    top.reserve(vocab);
    for (size_t t = 0; t < vocab; ++t) {
      finite_order = finite_order && row[t] == row[t];
      top.push_back({row[t], static_cast<int32_t>(t)});
    }
    std::partial_sort(top.begin(), top.begin() + static_cast<std::ptrdiff_t>(k), top.end(), TopLogit::before);
    top.resize(k);
  }
  return finite_order;
}

Precision parse_precision(const std::string& name) {
  if (name == "fp32" || name == "f32") return Precision::Fp32;
  if (name == "f64" || name == "fp64" || name == "double") return Precision::F64;
  throw std::invalid_argument("unknown precision '" + name +
                              "' (expected fp32, or f64 for the double-precision verification build)");
}

std::vector<std::string> backend_names() {
  return {"cpu", "vulkan"};
}

std::unique_ptr<Forward> make_forward(const std::string& backend, std::shared_ptr<const Model> model,
                                      ForwardOptions options) {
  if (options.sequences < 1)
    throw std::invalid_argument("make_forward: " + std::to_string(options.sequences) + " sequences (at least 1)");
  if (backend == "cpu") {
    // The reference keeps one cache per CpuForward: several sequences are several of them.
    std::vector<std::unique_ptr<Forward>> each;
    for (int32_t s = 0; s < options.sequences; ++s)
      each.push_back(
          std::make_unique<CpuForward>(model, options.kv, options.context, options.threads, options.precision));
    if (each.size() == 1) return std::move(each.front());
    return std::make_unique<SequenceSet>(std::move(each));
  }
  if (backend == "vulkan") {
    if (!model) throw std::invalid_argument("make_forward: no model");
    VulkanForwardOptions vo;
    vo.kv = options.kv;
    vo.context = options.context;
    vo.device.index = options.device;
    vo.precision = options.precision;
    vo.vendor_neutral = options.vendor_neutral;
    vo.sequences = options.sequences;
    return std::make_unique<VulkanForward>(*model, vo);  // VulkanError (a runtime_error) if it cannot run here
  }
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown backend '" + backend + "' (expected one of: " + known + ")");
}

}  // namespace trit
