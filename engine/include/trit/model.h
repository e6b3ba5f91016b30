#pragma once
// A loaded BitNet b1.58 model: hyper-parameters read from the GGUF metadata and zero-copy views of the
// weights inside the memory-mapped file. This is the contract between the loader (gguf.h) and every
// forward pass (CPU reference, Vulkan). See ../shared/docs/bitnet-b158.md.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace trit {

class GgufFile;
class Tokenizer;

// Every load failure: a truncated or hostile file, an unsupported type, inconsistent shapes.
// what() is a complete sentence a user can act on, naming the file's problem precisely.
class ModelError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ModelConfig {
  std::string architecture;  // "bitnet-25" or "bitnet-b1.58"
  std::string name;          // general.name, may be empty
  uint32_t vocab = 0;        // length of tokenizer.ggml.tokens
  uint32_t dim = 0;          // embedding_length
  uint32_t layers = 0;       // block_count
  uint32_t heads = 0;        // attention.head_count
  uint32_t kv_heads = 0;     // attention.head_count_kv
  uint32_t head_dim = 0;     // dim / heads
  uint32_t ffn = 0;          // feed_forward_length
  uint32_t context = 0;      // context_length (trained)
  float rms_eps = 1e-5f;     // attention.layer_norm_rms_epsilon
  float rope_base = 10000.f; // rope.freq_base
  int32_t bos = -1;          // tokenizer.ggml.bos_token_id
  int32_t eos = -1;          // tokenizer.ggml.eos_token_id
  int32_t eot = -1;          // <|eot_id|> if the vocabulary has it, else -1
};

// A ternary (I2_S) matrix: `rows` output units, each of `cols` inputs (ne0 = cols, contiguous).
// Codes are packed per the spec: for flat index i, block = i/128, pos = i%128, group = pos/32,
// byte = codes[block*32 + pos%32], code = (byte >> (6 - 2*group)) & 3, weight = code - 1.
struct TernaryMatrix {
  const uint8_t* codes = nullptr;  // rows*cols/4 bytes inside the mapped file
  float scale = 1.f;               // per-tensor scale from the tensor's 32-byte tail
  uint32_t rows = 0;
  uint32_t cols = 0;
};

struct LayerWeights {
  std::span<const float> attn_norm;      // [dim]
  std::span<const float> attn_sub_norm;  // [heads*head_dim]
  std::span<const float> ffn_norm;       // [dim]
  std::span<const float> ffn_sub_norm;   // [ffn]
  TernaryMatrix wq, wk, wv, wo;          // [heads*hd x dim], [kv*hd x dim] x2, [dim x heads*hd]
  TernaryMatrix gate, up, down;          // [ffn x dim] x2, [dim x ffn]
};

struct ModelWeights {
  const uint16_t* token_embd = nullptr;  // F16 [vocab x dim], also the tied LM head
  std::vector<LayerWeights> layers;
  std::span<const float> output_norm;    // [dim]
};

class Model {
 public:
  // Opens and validates a GGUF file (memory-mapped). Throws ModelError with a specific message.
  static std::shared_ptr<Model> open(const std::filesystem::path& path);
  // The validation behind open(), on a file already parsed: the hyper-parameters and their ranges,
  // every tensor (presence, shape, type, finite norms, I2_S scales and codes) and the tokenizer. What it
  // accepts, the engine runs; `trit-cli inspect` and the app's model list call it for their verdict.
  // Throws ModelError naming the file and the problem.
  static std::shared_ptr<Model> from_file(std::unique_ptr<GgufFile> file);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const ModelConfig& config() const { return config_; }
  const ModelWeights& weights() const { return weights_; }
  const GgufFile& file() const { return *file_; }
  // The file's tokenizer, built and validated when the model was opened.
  const Tokenizer& tokenizer() const { return *tokenizer_; }
  const std::filesystem::path& path() const { return path_; }

 private:
  Model() = default;
  std::filesystem::path path_;
  std::unique_ptr<GgufFile> file_;
  std::unique_ptr<Tokenizer> tokenizer_;
  ModelConfig config_;
  ModelWeights weights_;
  std::vector<std::vector<float>> owned_norms_;  // norms stored as F16 in the file, widened to F32
};

}  // namespace trit
