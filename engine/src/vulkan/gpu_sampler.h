#pragma once
// Sampling the next token on the GPU from one row of float logits, with exactly the semantics of
// trit::Sampler::sample (engine/src/sampler.cpp): repetition penalty on the distinct recent tokens,
// greedy argmax (lowest id on ties), top-k (ties to the lower id), the min-p prefilter where top-k does
// not cut, softmax in double (float on devices without shaderFloat64), top-p, min-p, and one draw
// r = u * mass with the uniform u the host draws from the same splitmix64 stream
// (Sampler::draw_uniform). So the logits never leave the GPU: only the 4-byte token comes back.
//
// One dispatch of ceil(vocab / kSlice) workgroups (shaders/sample_token.glsl), recorded once and
// replayed per token:
//   phase 1, every workgroup: the repetition penalty within its slice of kSlice logits, then the
//            slice's top k candidates (radix select on the (logit, -id) order; a reduction for k = 1);
//   phase 2, the last workgroup to finish phase 1 (an atomic counter): the top k of all slices'
//            candidates, a bitonic sort, then the CPU sampler's steps, sums in the CPU's order.
// The dispatch ends a decode step on the device as greedy_step.comp does (GpuSamplerChain): it reads
// the step's position and its draw, publishes the token and the next step's input, advances the
// position and slides the penalty window, so sampled steps chain in one submit with no host between
// them. The window is a ring of repeat_last_n slots, the token at position p in slot p % repeat_last_n:
// it holds repeats where the CPU keeps distinct ids, which changes nothing, since the shader sets a
// penalised logit from the logit as it came (penalising an id twice writes the same value twice).
// Supported: greedy, and top_k in 1..kMaxTopK (supports()); other settings stay on the CPU sampler.
//
// With a candidate list (record's `list`), the logits of only the listed rows are read: the bounded LM
// head of a sampled step (shaders/lm_head.glsl TOPK) computes and lists every row that can be among the
// top k after the penalty, so the choice is the one the sampler makes from every logit (see there).
// Phase 1 then takes slices of the list instead of the vocabulary; with a few hundred rows listed, one
// workgroup does the selecting and the others only count themselves in.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trit/sampler.h"
#include "vulkan/context.h"

namespace trit::vk {

// The sampler's state, std430 (shaders/sample_common.glsl, `State`): the parameters and the penalty
// window the host writes when a chain starts (prepare()), the window then kept by the device; phase 2
// writes token, status and kept. Allocate it host-visible (MemoryUse::Readback) with
// GpuSampler::kStateBytes.
struct GpuSamplerState {
  static constexpr uint32_t kMaxPenalised = 256;  // longest penalty window (repeat_last_n bound)

  float temperature = 0.f;                  //  0  <= 0: greedy
  int32_t top_k = 0;                        //  4
  float top_p = 1.f;                        //  8
  float min_p = 0.f;                        // 12
  float repeat_penalty = 1.f;               // 16  1: no penalty
  uint32_t penalty_count = 0;               // 20  slots of the window: repeat_last_n with the penalty on, else 0
  float min_p_offset = 0.f;                 // 24  temperature * logf(min_p), the CPU's prefilter offset (float)
  float inv_temperature_f = 0.f;            // 28  1.0f / temperature (fp32 shaders)
  double inv_temperature = 0.0;             // 32  1.0 / temperature in double (fp64 shaders)
  int32_t token = -1;                       // 40  out: the last chosen token; -1 with status != 0
  uint32_t status = 0;                      // 44  out: 0 ok, 1 unsupported parameters, 2 internal error
  uint32_t kept = 0;                        // 48  out: candidates left for the draw after every cutoff
  int32_t penalty_ids[kMaxPenalised] = {};  // 52  token at position p in slot p % penalty_count; -1: none
};
static_assert(offsetof(GpuSamplerState, inv_temperature) == 32 && offsetof(GpuSamplerState, token) == 40 &&
                  offsetof(GpuSamplerState, penalty_ids) == 52 && sizeof(GpuSamplerState) == 56 + 4 * 256,
              "GpuSamplerState must match the std430 State block of shaders/sample_common.glsl");

// One step's draw (std430 uvec4 of the Draws buffer): the uniform in [0, 1) as double bits and in float.
struct GpuSamplerDraw {
  uint32_t lo = 0, hi = 0;
  float f = 0.f;
  uint32_t unused = 0;
};
static_assert(sizeof(GpuSamplerDraw) == 16);

// The buffers a sampled decode step shares with greedy_step.comp. ring_size slots: the step at position
// p reads its draw from draws[p % ring_size] (host-written before the submit) and writes its token to
// ring[p % ring_size] (0xffffffff where the draw failed) and to next_token[0]; step holds vk::Params,
// whose pos0 the dispatch reads and advances.
struct GpuSamplerChain {
  BufferRange step, draws, next_token, ring;
  uint32_t ring_size = 0;
};

class GpuSampler {
 public:
  static constexpr uint32_t kMaxTopK = 1024;    // K_MAX: the largest top_k sampled on the GPU
  static constexpr uint32_t kSlice = 2048;      // logits per workgroup of phase 1
  static constexpr uint32_t kListSlice = 1024;  // with a list: entries per workgroup (ids kept in shared memory)
  static constexpr uint64_t kStateBytes = sizeof(GpuSamplerState);

  // Pipelines for this device and a candidate buffer for vocabularies up to max_vocab. f64: the softmax
  // and cutoffs in double, bit for bit the CPU sampler's arithmetic (needs shaderFloat64); float
  // otherwise (close, not identical). Throws VulkanError when the device cannot run it.
  GpuSampler(const Context& ctx, uint32_t max_vocab, bool f64);
  explicit GpuSampler(const Context& ctx, uint32_t max_vocab) : GpuSampler(ctx, max_vocab, ctx.info().shader_float64) {}
  // The kernel compiles on its own thread from construction (Pipeline); wait() blocks until it is
  // built and throws VulkanError if the driver could not compile it, so a caller can fall back to
  // sampling on the host before recording anything.
  void wait();
  ~GpuSampler();
  GpuSampler(const GpuSampler&) = delete;
  GpuSampler& operator=(const GpuSampler&) = delete;

  // Whether these parameters are sampled on the GPU: greedy (temperature <= 0), or top_k in
  // 1..kMaxTopK, with at most kMaxPenalised penalised tokens (repeat_last_n, when the penalty is on).
  // Everything else (top_k 0, larger top_k, invalid parameters) is for the CPU sampler.
  static bool supports(const SamplingParams& params);

  // Records the dispatch choosing the next token from logits_row (vocab floats, not modified) with the
  // parameters and window in `state` (a range of at least kStateBytes), ending the decode step of
  // `chain`. The logits must be written and made visible before (a barrier after the LM head); add a
  // barrier before a later dispatch reads what it wrote (the host reads the ring after the submit's
  // fence). One GpuSampler's recordings share its candidate buffer: submit them one after another (as
  // decode does), not concurrently.
  // With `list` (list_bytes(vocab) bytes: a count, then that many row ids, bit 31 set on the ids in the
  // penalty window), only the listed rows' logits are read; the list must hold every row that can be
  // among the top k after the penalty (and at least k rows), each once, in any order.
  void record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& logits_row, uint32_t vocab,
              const BufferRange& state, const GpuSamplerChain& chain, const BufferRange* list = nullptr);
  static uint64_t list_bytes(uint32_t vocab) { return 4 + 4 * uint64_t{vocab}; }
  static constexpr uint32_t kListPenalised = 0x80000000u;  // the flag of a penalised row in the list

  // Fills `state` for a chain of steps with these parameters (which must be supported), the first at
  // position pos: recent holds the tokens at positions pos + 1 - recent.size() .. pos (the first
  // step's input last; any number, the last repeat_last_n of them are the window, as the CPU sampler
  // sees them in its history).
  static void prepare(GpuSamplerState& state, const SamplingParams& params, std::span<const int32_t> recent,
                      uint32_t pos);
  // The draw of one step, taken from sampler's stream as sampler.sample would take it: greedy draws
  // nothing (zeros).
  static GpuSamplerDraw draw(Sampler& sampler);

  bool f64() const { return f64_; }
  uint32_t max_vocab() const { return max_vocab_; }
  // The driver's statistics of its two kernels (Pipeline::statistics), "sample_token[ list]: name: value".
  std::vector<std::string> statistics() const;

 private:
  const Context& ctx_;
  uint32_t max_vocab_;
  bool f64_;
  std::unique_ptr<Pipeline> pipeline_, list_pipeline_;
  Buffer candidates_;
};

}  // namespace trit::vk
