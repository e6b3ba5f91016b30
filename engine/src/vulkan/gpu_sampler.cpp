// The GPU sampler's pipelines, recording and per-draw state (vulkan/gpu_sampler.h).
#include "vulkan/gpu_sampler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace trit::vk {
namespace {

constexpr uint32_t kSelectWorkgroup = 256;  // the radix select keeps one histogram bin per invocation

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

}  // namespace

GpuSampler::GpuSampler(const Context& ctx, uint32_t max_vocab, bool f64) : ctx_(ctx), max_vocab_(max_vocab), f64_(f64) {
  const DeviceInfo& d = ctx.info();
  if (max_vocab == 0) throw VulkanError("GPU sampler: the vocabulary is empty");
  if (f64 && !d.shader_float64) throw VulkanError(d.name + " has no double precision in shaders; use the fp32 GPU sampler");
  if (!d.subgroup_arithmetic)
    throw VulkanError(d.name + " lacks subgroup arithmetic in compute shaders, which the GPU sampler needs");
  if (d.max_workgroup_invocations < kSelectWorkgroup)
    throw VulkanError(d.name + " allows " + std::to_string(d.max_workgroup_invocations) +
                      " invocations per workgroup; the GPU sampler needs 256");
  // The merging pass is one workgroup: as wide as the device allows, up to 1024.
  const uint32_t final_wg = std::min<uint32_t>(1024, d.max_workgroup_invocations);
  const uint64_t shared = uint64_t{kMaxTopK} * (8 + (f64 ? 8 : 4)) + 256 * 4 + 256;
  if (shared > d.max_shared_memory)
    throw VulkanError("the GPU sampler needs " + std::to_string(shared) + " bytes of shared memory, " + d.name +
                      " has " + std::to_string(d.max_shared_memory));
  const std::string sfx = f64 ? "_f64" : "";
  const uint32_t p_max = GpuSamplerState::kMaxPenalised;
  select_ = std::make_unique<Pipeline>(ctx, "sample_select" + sfx, 3, 4,
                                       std::vector<uint32_t>{kSelectWorkgroup, kSlice, kMaxTopK, p_max});
  final_ = std::make_unique<Pipeline>(ctx, "sample_final" + sfx, 2, 4, std::vector<uint32_t>{final_wg, kSlice, kMaxTopK, p_max});
  // Each slice's region holds up to min(kMaxTopK, kSlice) (key, id) pairs.
  const uint64_t pairs = uint64_t{ceil_div(max_vocab, kSlice)} * std::min(kMaxTopK, kSlice);
  candidates_ = Buffer(ctx, pairs * 8, MemoryUse::Device);
}

GpuSampler::~GpuSampler() = default;

bool GpuSampler::supports(const SamplingParams& p) {
  if (!p.validate().empty()) return false;
  if (p.repeat_penalty != 1.f && static_cast<uint32_t>(p.repeat_last_n) > GpuSamplerState::kMaxPenalised) return false;
  if (p.temperature <= 0.f) return true;
  return p.top_k >= 1 && static_cast<uint32_t>(p.top_k) <= kMaxTopK;
}

void GpuSampler::record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& logits_row, uint32_t vocab,
                        const BufferRange& state) {
  if (vocab == 0 || vocab > max_vocab_)
    throw VulkanError("GPU sampler: vocabulary of " + std::to_string(vocab) + " logits, built for 1.." +
                      std::to_string(max_vocab_));
  const uint64_t state_bytes = state.size ? state.size : state.buffer->size() - state.offset;
  if (state_bytes < kStateBytes)
    throw VulkanError("GPU sampler: the state range holds " + std::to_string(state_bytes) + " bytes, " +
                      std::to_string(kStateBytes) + " needed");
  const uint64_t logit_bytes = logits_row.size ? logits_row.size : logits_row.buffer->size() - logits_row.offset;
  if (logit_bytes < uint64_t{vocab} * 4)
    throw VulkanError("GPU sampler: the logits range holds " + std::to_string(logit_bytes / 4) + " floats, " +
                      std::to_string(vocab) + " needed");
  const BufferRange cand{&candidates_, 0, 0};
  const uint32_t push[] = {vocab};
  const BufferRange r1[] = {state, logits_row, cand};
  cs.dispatch(*select_, da.make(*select_, r1), push, sizeof push, ceil_div(vocab, kSlice));
  cs.barrier();
  const BufferRange r2[] = {state, cand};
  cs.dispatch(*final_, da.make(*final_, r2), push, sizeof push, 1);
}

void GpuSampler::prepare(GpuSamplerState& s, std::span<const int32_t> history, Sampler& sampler) {
  const SamplingParams& p = sampler.params();
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
  s.penalty_count = 0;
  if (p.repeat_penalty != 1.f && p.repeat_last_n > 0) {
    // The distinct ids of the window, as the CPU sampler penalises them (out-of-range ids are skipped
    // by the shader, as by the CPU).
    const size_t n = std::min(history.size(), static_cast<size_t>(p.repeat_last_n));
    int32_t* ids = s.penalty_ids;
    std::copy(history.end() - static_cast<std::ptrdiff_t>(n), history.end(), ids);
    std::sort(ids, ids + n);
    s.penalty_count = static_cast<uint32_t>(std::unique(ids, ids + n) - ids);
  }
  s.uniform = p.temperature > 0.f ? sampler.draw_uniform() : 0.0;
  s.uniform_f = static_cast<float>(s.uniform);
  s.token = -1;
  s.status = 0;
  s.kept = 0;
}

}  // namespace trit::vk
