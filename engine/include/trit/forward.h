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
// precision, so the double verification build keeps them in double on every backend, as the golden
// files' "f32kv" variant does; fp32 builds keep floats). Sizes: kv_element_bytes.
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

// Bytes of one cached K or V element: 2 for F16, else those of the activations (4 in fp32, 8 in f64).
// The one rule for the caches' sizes (the GPU kernels' side of it: shaders/kv_cache.glsl).
constexpr uint32_t kv_element_bytes(KvPrecision kv, Precision activations) {
  return kv == KvPrecision::F16 ? 2 : activations == Precision::F64 ? 8 : 4;
}

// Thrown when positions would run past the session's context length.
class ContextFullError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A row's repetition penalty in Forward::decode_batch_argmax: the distinct tokens its sampler
// penalises (Sampler::penalised_tokens) and the factor.
struct RowPenalty {
  std::span<const int32_t> tokens;
  float penalty = 1.f;
};

// One token of one sequence in a batched decode step (Forward::decode_batch).
struct BatchToken {
  int32_t seq = 0;    // which of the forward pass's sequences
  int32_t token = 0;  // the input token
  int32_t pos = 0;    // its position in that sequence (at most the positions the sequence holds)
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

  // Several sequences, each with its own KV cache and positions (a server decoding several streams):
  // how many this forward pass holds (ForwardOptions::sequences), 1 unless it was made with more.
  virtual int32_t sequences() const { return 1; }
  // eval on sequence `seq`'s cache (eval() is sequence 0's); the same contract per sequence, and
  // std::out_of_range for a sequence outside [0, sequences()).
  virtual void eval_sequence(int32_t seq, std::span<const int32_t> tokens, int32_t pos, std::span<float> logits,
                             bool all_logits);
  // Positions sequence `seq` holds in its cache.
  virtual int32_t cached_positions(int32_t seq) const = 0;
  // One decode step of several sequences at once: entry i consumes batch[i].token at batch[i].pos of
  // sequence batch[i].seq (each sequence at most once) and its logits are row i of `logits`
  // ([batch.size() x vocab]). Each row is bit for bit what that entry gives in a step of its own, whatever
  // else the step holds, so a stream's tokens do not depend on which others run beside it. Arguments are
  // checked first (as eval: std::invalid_argument, std::out_of_range, ContextFullError); on an error no
  // cache is touched. The default evaluates the entries one after another.
  virtual void decode_batch(std::span<const BatchToken> batch, std::span<float> logits);
  // decode_batch for a step whose rows are all taken greedily: argmax[i] is trit::argmax of row i after
  // penalties[i] (none where `penalties` is empty; else one per entry, of distinct tokens), i.e. a greedy Sampler's
  // choice (on a row holding NaN the device's order, where NaN ranks lowest, may pick another), the same token whatever
  // else the step holds. A backend may find it without handing back the rows (the Vulkan one: no read-back of the
  // logits); the default takes decode_batch's rows.
  virtual void decode_batch_argmax(std::span<const BatchToken> batch, std::span<int32_t> argmax,
                                   std::span<const RowPenalty> penalties);
  // A batched step whose rows are sampled from their best k (Sampler::sample_top): entry i's best k logits
  // after its penalty (penalties as decode_batch_argmax takes them), in TopLogit::before order, in
  // tops[i] (the first k of decode_batch's row, penalised). 0 < k < vocab_size(). False where a row holds
  // a NaN (tops unspecified; the caller takes decode_batch's rows: the step may be run again, writing the
  // same cache entries). A backend may find them without handing back the rows (the Vulkan one for k up
  // to vk::Kernels::kTopRowsMax); the default takes decode_batch's rows.
  virtual bool decode_batch_top(std::span<const BatchToken> batch, std::span<const RowPenalty> penalties, size_t k,
                                std::vector<std::vector<TopLogit>>& tops);
  // The most entries one decode_batch takes (sequences() by default).
  virtual int32_t max_batch() const { return sequences(); }

 protected:
  // decode_batch's argument rules, in one place for every backend: throws as decode_batch documents.
  // `outputs`: the size of the caller's span, which must hold per_entry values an entry (decode_batch:
  // a row of logits; decode_batch_argmax: one token).
  void check_batch(std::span<const BatchToken> batch, size_t outputs, size_t per_entry) const;
  // decode_batch_argmax's penalties: none, or one per entry, each of distinct tokens inside the
  // vocabulary; throws std::invalid_argument or std::out_of_range naming the entry.
  void check_penalties(std::span<const BatchToken> batch, std::span<const RowPenalty> penalties) const;
  // decode_batch_top's k: in 1 .. vocab_size() - 1; throws std::invalid_argument.
  void check_top(size_t k) const;
};

}  // namespace trit
