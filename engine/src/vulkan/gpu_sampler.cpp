// The GPU sampler's pipelines, recording and per-draw state (vulkan/gpu_sampler.h).
#include "vulkan/gpu_sampler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "vulkan/ceil_div.h"

namespace trit::vk {
namespace {

constexpr uint32_t kMinWorkgroup = 256;  // the radix select keeps one histogram bin per invocation
// state, logits, candidates, draws, step, next token, ring, list (LIST; a placeholder otherwise).
constexpr uint32_t kBindings = 8;

}  // namespace

GpuSampler::GpuSampler(const Context& ctx, uint32_t max_vocab, bool f64) : ctx_(ctx), max_vocab_(max_vocab), f64_(f64) {
  const DeviceInfo& d = ctx.info();
  if (max_vocab == 0) throw VulkanError("GPU sampler: the vocabulary is empty");
  if (f64 && !d.shader_float64)
    throw VulkanError(d.name + " has no double precision in shaders; use the fp32 GPU sampler");
  if (!d.subgroup_arithmetic)
    throw VulkanError(d.name + " lacks subgroup arithmetic in compute shaders, which the GPU sampler needs");
  // Workgroups of at least 256 (one radix-select histogram bin per invocation) with at most 128 subgroups
  // (the greedy reduction keeps one partial per subgroup). On devices with wide subgroups (GPUs) as wide
  // as allowed up to 1024, since the last workgroup merges and sorts up to kMaxTopK candidates alone;
  // 256 where subgroups are narrow (lavapipe, where each workgroup is a CPU thread stepping its
  // invocations, and wider ones ran 10 times slower).
  const uint32_t min_sg = std::max(1u, d.min_subgroup_size);
  const uint32_t wg =
      std::min<uint32_t>({d.subgroup_size >= 32 ? 1024u : kMinWorkgroup, d.max_workgroup_invocations, 128 * min_sg});
  if (wg < kMinWorkgroup)
    throw VulkanError(d.name + " allows workgroups of " + std::to_string(wg) + " invocations (subgroups of " +
                      std::to_string(min_sg) + "); the GPU sampler needs " + std::to_string(kMinWorkgroup));
  // (The list variant keeps the ids of its slices, half as long: kListSlice.)
  const uint64_t shared = std::max(uint64_t{kSlice} * 4, uint64_t{kListSlice} * 8) +
                          uint64_t{kMaxTopK} * (8 + (f64 ? 8 : 4)) + 256 * 4 + 16 * 4 + 128 * 8 + 64;
  if (shared > d.max_shared_memory)
    throw VulkanError("the GPU sampler needs " + std::to_string(shared) + " bytes of shared memory, " + d.name +
                      " has " + std::to_string(d.max_shared_memory));
  const std::string stem = f64 ? "sample_token_f64" : "sample_token";
  for (const uint32_t list : {0u, 1u})
    (list ? list_pipeline_ : pipeline_) = std::make_unique<Pipeline>(
        ctx, stem, kBindings, 8,
        std::vector<uint32_t>{wg, list ? kListSlice : kSlice, kMaxTopK, GpuSamplerState::kMaxPenalised, list});
  // A counter of the workgroups through the first phase (zero between draws), then each slice's region
  // of up to min(kMaxTopK, slice) (key, id) pairs.
  const uint64_t bytes = 8 + std::max(uint64_t{ceil_div(max_vocab, kSlice)} * std::min(kMaxTopK, kSlice),
                                      uint64_t{ceil_div(max_vocab, kListSlice)} * std::min(kMaxTopK, kListSlice)) *
                                 8;
  candidates_ = Buffer(ctx, bytes, MemoryUse::Device);
  const uint32_t zero[2] = {0, 0};
  candidates_.upload(zero, sizeof zero);
}

std::vector<std::string> GpuSampler::statistics() const {
  std::vector<std::string> out;
  pipeline_->statistics_to(out, pipeline_->name());
  list_pipeline_->statistics_to(out, list_pipeline_->name() + " list");
  return out;
}

void GpuSampler::wait() {
  pipeline_->handle();
  list_pipeline_->handle();
}

GpuSampler::~GpuSampler() = default;

bool GpuSampler::supports(const SamplingParams& p) {
  if (!p.validate().empty()) return false;
  if (p.repeat_penalty != 1.f && static_cast<uint32_t>(p.repeat_last_n) > GpuSamplerState::kMaxPenalised) return false;
  if (p.temperature <= 0.f) return true;
  return p.top_k >= 1 && static_cast<uint32_t>(p.top_k) <= kMaxTopK;
}

void GpuSampler::record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& logits_row, uint32_t vocab,
                        const BufferRange& state, const GpuSamplerChain& chain, const BufferRange* list) {
  if (vocab == 0 || vocab > max_vocab_)
    throw VulkanError("GPU sampler: vocabulary of " + std::to_string(vocab) + " logits, built for 1.." +
                      std::to_string(max_vocab_));
  auto need = [](const BufferRange& r, uint64_t bytes, const char* what) {
    if (!r.buffer || r.bytes() < bytes)
      throw VulkanError(std::string("GPU sampler: the ") + what + " range holds " +
                        std::to_string(r.buffer ? r.bytes() : 0) + " bytes, " + std::to_string(bytes) + " needed");
  };
  need(state, kStateBytes, "state");
  need(logits_row, uint64_t{vocab} * 4, "logits");
  if (chain.ring_size == 0) throw VulkanError("GPU sampler: the chain's ring has no slots");
  need(chain.step, 8, "step");
  need(chain.draws, uint64_t{chain.ring_size} * sizeof(GpuSamplerDraw), "draws");
  need(chain.next_token, 4, "next token");
  need(chain.ring, uint64_t{chain.ring_size} * 4, "token ring");
  if (list) need(*list, list_bytes(vocab), "candidate list");
  const uint32_t push[] = {vocab, chain.ring_size};
  const BufferRange cand{&candidates_, 0, 0};
  const BufferRange r[] = {state,      logits_row,       cand,       chain.draws,
                           chain.step, chain.next_token, chain.ring, list ? *list : cand};
  // (A list holds at most vocab rows.)
  const Pipeline& p = list ? *list_pipeline_ : *pipeline_;
  cs.dispatch(p, da.make(p, r), push, sizeof push, ceil_div(vocab, list ? kListSlice : kSlice));
}

void GpuSampler::prepare(GpuSamplerState& s, const SamplingParams& p, std::span<const int32_t> recent, uint32_t pos) {
  if (!supports(p)) throw std::invalid_argument("GPU sampler: these sampling parameters are for the CPU sampler");
  s.temperature = p.temperature;
  s.top_k = p.top_k;
  s.top_p = p.top_p;
  s.min_p = p.min_p;
  s.repeat_penalty = p.repeat_penalty;
  // Exactly the CPU's float expression for the prefilter floor's offset (std::log of a float is logf).
  s.min_p_offset = p.min_p > 0.f ? p.temperature * std::log(p.min_p) : 0.f;
  s.inv_temperature = p.temperature > 0.f ? 1.0 / p.temperature : 0.0;
  s.inv_temperature_f = p.temperature > 0.f ? 1.f / p.temperature : 0.f;
  s.penalty_count = p.repeat_penalty != 1.f && p.repeat_last_n > 0 ? static_cast<uint32_t>(p.repeat_last_n) : 0;
  std::fill(std::begin(s.penalty_ids), std::end(s.penalty_ids), -1);
  // The window's positions pos + 1 - n .. pos, each in its slot (those before recent stay empty;
  // out-of-range ids are kept, and skipped by the shader as by the CPU).
  const uint32_t n = s.penalty_count;
  const size_t have = std::min<size_t>(recent.size(), n);
  for (size_t i = 0; i < have; ++i) s.penalty_ids[(pos - static_cast<uint32_t>(i)) % n] = recent[recent.size() - 1 - i];
  s.token = -1;
  s.status = 0;
  s.kept = 0;
}

GpuSamplerDraw GpuSampler::draw(Sampler& sampler) {
  GpuSamplerDraw d;
  if (!(sampler.params().temperature > 0.f)) return d;  // greedy draws none, as on the CPU
  const double u = sampler.draw_uniform();
  uint64_t bits = 0;
  std::memcpy(&bits, &u, 8);
  d.lo = static_cast<uint32_t>(bits);
  d.hi = static_cast<uint32_t>(bits >> 32);
  d.f = static_cast<float>(u);
  return d;
}

}  // namespace trit::vk
