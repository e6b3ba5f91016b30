#pragma once
// A forward pass over a model with its own KV cache: the one interface both the CPU reference and the
// Vulkan engine implement, so sessions, the CLI and the tests treat them alike.
#include <cstdint>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>

#include "trit/sampler.h"

namespace trit {

// How K (after RoPE) and V are stored: rounded to F16, or not rounded (F32: kept at the activation
// precision, so the CPU reference's double verification run keeps them in double, as the golden files'
// "f32kv" variant does; a GPU build keeps F32).
enum class KvPrecision { F16, F32 };

// Precision of the activations (everything but the exact integer ternary sums and the caches). fp32 is
// what runs: every GPU has it at full rate, where double runs at 1/32 to 1/64 of it on consumer cards
// (none at all on Intel Arc). f64 is the verification build of the same code: it reproduces the
// double-precision golden logits bit for bit and so proves the algorithm (shared/golden/README.md).
// Nothing chooses f64 activations on its own. (The GPU sampler's few operations run in double where the
// device has it, to pick exactly what trit::Sampler picks on the CPU: vulkan/gpu_sampler.h.)
enum class Precision { Fp32, F64 };
const char* to_string(Precision p);  // "fp32", "f64"
// "fp32" or "f64" (also "f32", "fp64", "double"); throws std::invalid_argument naming the choices.
Precision parse_precision(const std::string& name);

// Thrown when positions would run past the session's context length.
class ContextFullError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Forward {
 public:
  virtual ~Forward() = default;

  // Consumes tokens at positions [pos, pos + tokens.size()), writing their K/V into the cache (any
  // cache entries at or after `pos` are overwritten, which is how a rewind works). Writes the logits
  // of the last token into `logits` ([vocab]) or, when all_logits, every token's row
  // ([tokens.size() x vocab]). Throws ContextFullError if pos + n > context_length().
  virtual void eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) = 0;

  virtual int32_t context_length() const = 0;
  virtual int32_t vocab_size() const = 0;

  // What a backend offers beyond eval: its callers (Session, the bench) ask these rather than cast to a
  // backend's class. The defaults describe a backend that does everything through eval (the CPU).

  // Tokens per prefill submit the backend takes at once.
  virtual int32_t prefill_block() const { return 128; }
  // Whether decode_greedy chains greedy steps with no host in the loop (a GPU backend), and whether
  // decode_sample does so with these sampling settings.
  virtual bool decodes_on_device() const { return false; }
  virtual bool samples_on_device(const SamplingParams& params) const;
  // Device-side decoding (VulkanForward documents the contract): only where decodes_on_device() /
  // samples_on_device() say so; elsewhere they throw std::logic_error.
  virtual int32_t decode_greedy(int32_t token, int32_t pos, int32_t max_steps,
                                const std::function<bool(int32_t)>& on_token);
  virtual int32_t decode_sample(int32_t token, int32_t pos, int32_t max_steps, Sampler& sampler,
                                std::span<const int32_t> recent, const std::function<bool(int32_t)>& on_token);
  // The kernels one-token steps run, for statistics ("" where there is nothing to name).
  virtual std::string decode_kernels() const { return {}; }
};

}  // namespace trit
