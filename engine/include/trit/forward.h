#pragma once
// A forward pass over a model with its own KV cache: the one interface both the CPU reference and the
// Vulkan engine implement, so sessions, the CLI and the tests treat them alike.
#include <cstdint>
#include <span>
#include <stdexcept>

namespace trit {

enum class KvPrecision { F16, F32 };

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
