#pragma once
// A forward pass over a model with its own KV cache: the one interface both the CPU reference and the
// Vulkan engine implement, so sessions, the CLI and the tests treat them alike.
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>

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
};

}  // namespace trit
