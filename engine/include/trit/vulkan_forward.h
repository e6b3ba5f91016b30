#pragma once
// The Vulkan forward pass of BitNet b1.58 (../shared/docs/bitnet-b158.md): the same numerics as the
// CPU reference (W1.58A8 int8 activations, exact int32 ternary sums, fp32 elsewhere, F16 or F32 KV
// cache), on any Vulkan 1.2 device with subgroup arithmetic (lavapipe in CI, discrete GPUs for speed).
//
// At construction every weight is uploaded to device memory (the I2_S codes exactly as stored, the F16
// embedding split by rows into chunks that each fit one storage binding), every intermediate buffer,
// KV cache and descriptor set is created, and the command buffers are recorded once: one for a single
// token (decode) and three for a block of tokens (prefill: no logits, last token's logits, every
// token's logits). eval() writes the tokens and (position, count) into small host-visible buffers and
// submits one recorded command buffer per block: one submit per decoded token. No host copy of the
// weights is kept: the Model may be closed once the constructor returns.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trit/devices.h"
#include "trit/forward.h"
#include "trit/model.h"
#include "trit/sampler.h"

namespace trit {

struct VulkanForwardOptions {
  KvPrecision kv = KvPrecision::F16;
  int32_t context = 0;             // session context length; 0: the model's trained length
  DeviceChoice device;             // index or name; default: the best device (discrete first)
  uint32_t block = 512;            // tokens per prefill submit (reduced if a buffer would not fit one binding)
  uint64_t max_binding_range = 0;  // debug/tests: pretend bindings cover at most this (0: device limit)
  // Activations in fp32 (what runs) or double (the verification build of the same shaders: see
  // trit/forward.h). f64 on a device without shaderFloat64 throws VulkanError.
  Precision precision = Precision::Fp32;
  // Only vendor-neutral features: the device's VK_NV_* extensions are treated as absent (the NVIDIA
  // cooperative matrix, the SM count), so an NVIDIA GPU runs the path an AMD or Intel GPU gets
  // (trit-cli bench --generic): VK_KHR_cooperative_matrix where the driver offers it (the prefill
  // GEMM's KHR twin). Everything else is still chosen from the device's features.
  bool vendor_neutral = false;
  // Diagnostics: keep the driver's statistics of the decode kernels (register counts, spills) where the
  // device reports them (VK_KHR_pipeline_executable_properties): kernel_statistics().
  bool pipeline_statistics = false;
  // Record a GPU timestamp after every kernel group (one per kernel kind per layer) and accumulate the
  // time per kernel kind (profile()). Off by default: the normal command buffers carry no timestamps.
  bool profile = false;
  // The tuned kernel variants where the device has what they need (packed int8 dot product in the
  // ternary kernels, the shared-memory one-token LM head); false: the portable baseline kernels
  // everywhere, for A/B measurements (trit-cli bench --baseline-kernels).
  bool tuned_kernels = true;
  // Tests: false leaves device-local buffers unmapped even where the host could see them
  // (vk::ContextOptions::map_device_memory), as on a discrete GPU without a host-visible BAR.
  bool map_device_memory = true;
  // Tests: the packed int8 dot product variants even where the device has the instructions but does
  // not call them accelerated (lavapipe), so the variants a GPU runs are also tested on the CPU driver.
  bool force_dot_product = false;
  // Decode runs each layer as one dispatch of persistent workgroups (vulkan/persistent_decode.h) where
  // all of them can be resident at once: 0 = one workgroup per multiprocessor, as a vendor extension
  // reports them or, on other GPUs, as measured at load (corrected once if the kernel itself finds that
  // grid not resident; CPU devices: the fused kernels), > 0 = exactly that many (tests; dropped for the
  // fused kernels if not resident), < 0 = never (A/B measurements). Needs tuned_kernels.
  int32_t persistent_groups = 0;
  // Device-chained steps (greedy and sampled) read an int8 copy of the LM head's table, with a proven
  // bound on each row's error, and compute in F16 only the rows that could be chosen: the maximum for
  // greedy steps (shaders/lm_head.glsl BOUNDED), the rows that can be among the sampler's top k after
  // the repetition penalty for sampled ones (TOPK). The same tokens as the F16 head from about half the
  // head's bytes, for one more copy of the table at half its size in device memory (skipped where that
  // does not fit). false: the F16 head for every row (A/B measurements, tests). Needs tuned_kernels.
  bool bounded_head = true;
  // Sequences, each with its own KV cache of `context` positions (a server's parallel streams; up to
  // 64): eval_sequence fills one, decode_batch steps several at once (trit/forward.h). Sequence 0 is
  // also what eval and the device-chained decoding use.
  int32_t sequences = 1;
};

// GPU time of one kernel kind summed over the submits since reset_profile() (profile mode only).
struct KernelTime {
  std::string pass;      // "decode" (one-token submits), "block" (prefill), "batchN" (batched steps of up to N)
  std::string kernel;    // "qkv", "attention", "lm_head", ...
  double ms = 0;         // total GPU milliseconds
  uint64_t submits = 0;  // submits of that pass measured
};

class VulkanForward final : public Forward {
 public:
  // Throws VulkanError (no device, not enough memory, an unsupported shape) or std::invalid_argument
  // (a context outside 1..model context).
  VulkanForward(const Model& model, const VulkanForwardOptions& options = {});
  ~VulkanForward() override;
  VulkanForward(const VulkanForward&) = delete;
  VulkanForward& operator=(const VulkanForward&) = delete;

  // See Forward::eval. Like CpuForward it also throws std::invalid_argument for an empty block, a
  // negative pos, a pos past the cached positions or a logits span of the wrong size, and
  // std::out_of_range for a token outside the vocabulary; in those cases the cache is untouched.
  void eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) override;
  // Blocks of a sequence other than 0 always run the block kernels (the one-token kernels serve
  // sequence 0): a single token there is a block of one.
  void eval_sequence(int32_t seq, std::span<const int32_t> tokens, int32_t pos, std::span<float> logits,
                     bool all_logits) override;
  int32_t sequences() const override;
  int32_t cached_positions(int32_t seq) const override;
  // With several sequences, one recorded step for up to sequences() of them (shaders/common.glsl's
  // batch mode): the block path's norms and quantization per token, the ternary matvec kernel reading
  // each weight once for up to 8 tokens, RoPE and the KV append at each token's own position and
  // sequence, split-K attention token by token, every entry's logits. Every token's arithmetic is the
  // same whatever else the step holds. With one sequence, the entry's own step (eval).
  void decode_batch(std::span<const BatchToken> batch, std::span<float> logits) override;
  // Each row's argmax on the device (shaders/argmax_rows.comp): only the slices' bests come back.
  void decode_batch_argmax(std::span<const BatchToken> batch, std::span<int32_t> argmax,
                           std::span<const RowPenalty> penalties) override;
  bool decode_batch_top(std::span<const BatchToken> batch, std::span<const RowPenalty> penalties, size_t k,
                        std::vector<std::vector<TopLogit>>& tops) override;

  int32_t context_length() const override;
  int32_t vocab_size() const override;

  // Greedy decoding on the device: the argmax of each step's logits feeds the next step's embedding
  // without the host, chains of steps per submit with two queued, so the GPU does not wait for the
  // host between tokens and no logits are read back. Step i consumes its input at pos + i (the first
  // input is `token`) and hands its argmax (trit::argmax's choice) to on_token; returning false stops
  // (steps already queued then run but their tokens are dropped, and their cache entries lie past
  // cached_positions(), to be overwritten). At most max_steps steps; returns the tokens delivered.
  // Throws ContextFullError if pos + max_steps passes the context, like eval for bad arguments.
  int32_t decode_greedy(int32_t token, int32_t pos, int32_t max_steps,
                        const std::function<bool(int32_t)>& on_token) override;
  bool decodes_on_device() const override { return true; }
  int32_t prefill_block() const override { return static_cast<int32_t>(block_size()); }

  // decode_greedy with each token sampled on the device (vulkan/gpu_sampler.h) with `sampler`'s
  // parameters and random stream, exactly as sampler.sample(logits, history) would choose it, history
  // being the context up to and including the step's input: `recent` holds the tokens before pos (at
  // least the last repeat_last_n of them for the repetition penalty; more are ignored), and the device
  // extends the window with each chosen token. Each step's uniform is drawn from sampler when the step
  // is queued, so steps queued past a stop take draws too. Needs samples_on_device(sampler.params())
  // (std::invalid_argument otherwise); throws VulkanError if the device sampler fails.
  int32_t decode_sample(int32_t token, int32_t pos, int32_t max_steps, Sampler& sampler,
                        std::span<const int32_t> recent, const std::function<bool(int32_t)>& on_token) override;
  bool samples_on_device(const SamplingParams& params) const override;

  const DeviceInfo& device() const;
  uint32_t block_size() const;        // tokens per prefill submit
  uint32_t embedding_chunks() const;  // bindings the F16 embedding / LM head was split into
  // Layer groups: consecutive layers whose weights, and caches, share one buffer each (as many as one
  // storage binding holds); the persistent kernel decodes a group per dispatch.
  uint32_t layer_groups() const;
  uint64_t device_bytes() const;  // device memory the weights, caches and buffers take
  Precision precision() const;    // of the activations
  bool fused_decode() const;      // one-token steps run the fused kernels (vulkan/fused_decode.h)
  // Workgroups of the persistent decode kernel (one dispatch per layer group); 0 when decode does not use it
  // (also after it once gave up waiting for a workgroup and the fused kernels took over). The kernel
  // compiles in the background from load on and decode switches to it at the next call once it is
  // ready; this waits for that compilation.
  uint32_t persistent_groups();
  // The kernels one-token steps run on now, without waiting for a compilation: "persistent (N
  // workgroups)", or "fused" / "unfused" followed by why the persistent kernel is not in use
  // ("fused (persistent kernel: compiling)").
  std::string decode_kernels() const override;
  // Whether device greedy steps take the argmax from the int8 copy of the head (bounded_head), and whether
  // device-sampled steps take their candidates from it (also needs the GPU sampler).
  bool bounded_head() const;
  bool bounded_sampling_head() const;
  // Whether batched greedy steps (decode_batch_argmax) take each row's argmax from the int8 head too
  // (vk::Kernels::lm_head_batch).
  bool bounded_batch_head() const;
  // Rows of the LM head that device-sampled steps computed in F16 since load, with bounded_sampling_head()
  // (0 otherwise, where every step computes every row); tests and the bench report the share.
  uint64_t sampled_head_f16_rows() const;
  // Which kernel runs the ternary matrices of a block of tokens (prefill): the GEMM's description
  // (dot product, or cooperative matrices through VK_NV_ or VK_KHR_cooperative_matrix, with the
  // fragment shape and tile), or the block matvec kernel where no GEMM is used.
  std::string prefill_kernels() const;
  // What runs the products of batched steps of more than two tokens (vulkan/batched_bitlinear.h):
  // "cooperative-matrix (VK_NV_cooperative_matrix), int8 16x16x32" or "small-matrix kernel"; empty
  // where batched steps run the one-token kernels (one sequence, or a shape they do not serve).
  std::string batched_kernels() const;
  // What runs batched steps' attention: "grouped by KV head, up to N splits" (vulkan/grouped_attention.h,
  // the persistent kernel's arithmetic) or "per query head, splits of K keys"; empty where the engine
  // holds one sequence or batched steps run the unfused kernels.
  std::string batched_attention() const;
  // What runs a batched step of one token (a lone stream among several sequences): "persistent kernel,
  // the batched steps' bits" (decode_layer.glsl STEP_BITS, once the persistent kernel is in use) or
  // "one-token kernels"; empty where the engine holds one sequence or batched steps run the unfused kernels.
  std::string batched_lone_steps() const;
  // Tests: makes the next one-token submit look as if a grid barrier of the persistent kernel gave up
  // waiting (no effect without it), to exercise the recovery onto the fused kernels.
  void debug_fail_persistent_decode();
  // Whether batched steps of more than two tokens run each BitLinear's product beside its quantization
  // (no barrier between; false once a product gave up waiting, and where no batched kernels run).
  bool overlapped_batch_steps() const;
  // Tests: makes the next such step look as if a product gave up waiting for its rows.
  void debug_fail_batch_overlap();
  // Tests: the counts of quantized rows the last such step's products waited for, one per BitLinear of
  // each layer (each should hold the step's token count: the step starts them at zero).
  std::vector<uint32_t> debug_batch_row_counts() const;
  int32_t cached_positions() const;  // sequence 0's

  // With pipeline_statistics: the driver's statistics of the persistent decode kernels, the fused
  // kernels' BitLinears, the LM heads, the batched steps' BitLinears and the GPU sampler, "kernel:
  // name: value" lines (empty without the option, the device's support or the kernels).
  std::vector<std::string> kernel_statistics();

  // Profile mode: time per kernel kind since the last reset, in recording order; empty otherwise.
  std::vector<KernelTime> profile() const;
  void reset_profile();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trit
