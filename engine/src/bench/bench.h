#pragma once
// llama-bench style measurements on any backend: prompt processing (pp) and token generation (tg;
// greedy, or sampled with the default SamplingParams) at chosen context depths, a warm-up run, then
// the median of N runs, with the roofline ratio (bytes a decode step must read x tokens/s / measured
// copy bandwidth). See docs/benchmarks.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trit/backend.h"
#include "trit/model.h"

namespace trit::bench {

struct BenchOptions {
  std::string backend = "vulkan";
  int device = -1;
  int32_t prompt_tokens = 512;        // pp size; 0 skips prefill
  int32_t gen_tokens = 128;           // tg size; 0 skips generation
  std::vector<int32_t> depths = {0};  // tg is measured after prefilling this many tokens
  int32_t reps = 5;                   // measured runs (after one warm-up) per figure
  KvPrecision kv = KvPrecision::F16;
  uint64_t seed = 1;                      // the random token ids used as input
  bool profile = false;                   // Vulkan only: GPU time per kernel kind (timestamp queries)
  bool tuned_kernels = true;              // Vulkan only: false runs the portable baseline kernels
  bool persistent = true;                 // Vulkan only: false keeps decode off the persistent kernel (A/B)
  bool bounded_head = true;               // Vulkan only: false runs the LM head over every row in F16 (A/B)
  bool sample = false;                    // tg samples with the default SamplingParams (seed: `seed`), not greedy
  Precision precision = Precision::Fp32;  // of the activations (f64: the verification build)
  bool vendor_neutral = false;            // Vulkan only: the path AMD and Intel GPUs get (--generic)
  bool pipeline_statistics = false;       // Vulkan only: the driver's statistics of the decode kernels
  // Batched decode (a server's streams, Forward::decode_batch): for each N, N sequences each prefilled
  // with its own `prompt_tokens` tokens (at least 1) decode gen_tokens steps together, greedy (each
  // row's argmax from the device) or with `sample` sampled as the server samples (each sequence its own
  // sampler with the defaults, the best top_k from the device); the figure is all sequences' tokens per
  // second.
  std::vector<int32_t> batches;
  // Vulkan only: the copy-bandwidth and dispatch-latency probes (the roofline's denominator); false
  // skips them (seconds on a CPU driver; the test suite's reports that need neither).
  bool probes = true;
};

// GPU milliseconds per token of one kernel kind over a figure's measured runs (--profile).
struct KernelShare {
  std::string kernel;
  double ms_per_token = 0;
};

struct Figure {
  std::string test;        // "pp512", "tg128@d1024"
  int32_t depth = 0;       // context already filled before the timed part
  int32_t tokens = 0;      // tokens processed in the timed part
  std::vector<double> ms;  // each measured run
  double median_ms = 0;
  double tokens_per_s = 0;           // tokens / median
  double bytes_per_token = 0;        // tg only: bytes a decode step reads (weights, LM head, KV cache)
  double roofline = 0;               // tg only: bytes_per_token * tokens_per_s / copy bandwidth
  double f16_rows = 0;               // tg sampled on the device from the int8 head: rows per token computed in F16
  double top_steps = -1;             // sampled batched steps: the share taken from the device's best top_k (-1: none)
  std::vector<KernelShare> kernels;  // --profile: GPU time per token by kernel kind
};

// GPU microseconds of one dependent kernel step (a dispatch followed by a barrier), measured as a chain
// of such steps: the floor under every decode step, which runs a few hundred of them per token.
struct DispatchLatency {
  double device_params_us = 0;  // one workgroup, parameters read from device-local memory
  double host_params_us = 0;    // one workgroup, parameters read from host-visible system memory
  double wide_us = 0;           // 512 workgroups, parameters in device-local memory
  double switching_us = 0;      // one workgroup, four pipelines taking turns
  double big_group_us = 0;      // one workgroup of 1024 invocations
};

struct BenchReport {
  std::string model, backend, device;
  std::string precision;        // of the activations: "fp32" or "f64"
  bool vendor_neutral = false;  // vendor-specific extensions ignored (--generic)
  double load_ms = 0;           // forward pass construction (upload) time
  // Vulkan only: how long after the load the persistent decode kernel (compiled in the background;
  // decode runs the fused kernels until then) kept the bench waiting; 0 where it is not used.
  double persistent_wait_ms = 0;
  double resident_mb = 0;         // this process's resident memory (VmRSS) right after the load
  double copy_bandwidth_gbs = 0;  // read+write bytes per second of a device buffer copy (0: not measured)
  DispatchLatency dispatch;       // Vulkan only (0: not measured)
  std::string decode_kernels;     // Vulkan only: VulkanForward::decode_kernels()
  std::string lm_head;            // Vulkan only: which table decode's device-chained steps read
  std::string decode;             // how tg chooses its tokens: "greedy" or "sampled (defaults)"
  int32_t vocab = 0;
  std::string prefill_kernels;     // Vulkan only: what runs a block's ternary matrices (the GEMM)
  std::string batched_kernels;     // Vulkan only: what runs batched steps' products (--batch)
  std::string batched_head;        // Vulkan only, with batched steps: which table their LM head reads
  std::string batched_attention;   // Vulkan only, with batched steps: VulkanForward::batched_attention()
  std::string batched_lone_steps;  // VulkanForward::batched_lone_steps()
  std::vector<Figure> figures;
  std::vector<std::string> kernel_statistics;  // --pipeline-stats: "kernel: name: value"
};

// Bytes a decode step at position `pos` must read: every ternary weight byte, the F16 LM head (int8_head:
// its int8 copy and per-row bounds, as the bounded head reads them), the KV cache up to pos (both K and
// V, all layers, in elements of kv_element_bytes) and the norms.
double decode_bytes(const ModelConfig& config, const ModelWeights& weights, int32_t pos, KvPrecision kv,
                    Precision precision, bool int8_head = false);

// Read+write bandwidth of a large device-local buffer copy on the chosen Vulkan device, in GB/s.
double measure_copy_bandwidth(int device);

// The cost of one dependent kernel step on the chosen Vulkan device (zeros without timestamp queries).
DispatchLatency measure_dispatch_latency(int device);

BenchReport run_bench(std::shared_ptr<const Model> model, const BenchOptions& options);

std::string to_json(const BenchReport& report);
std::string to_table(const BenchReport& report);

}  // namespace trit::bench
