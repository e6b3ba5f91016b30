#pragma once
// A loaded ternary model (BitNet b1.58 and the family of ../shared/docs/ternary-family.md): hyper-parameters read from
// the GGUF metadata and zero-copy views of the weights inside the memory-mapped file. This is the contract between the
// loader (gguf.h) and every forward pass (CPU reference, Vulkan). See ../shared/docs/bitnet-b158.md.
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

// What a ternary architecture computes, beyond its sizes: the one description the CPU reference, the
// Vulkan forward pass and the shaders (as specialization constants) follow. Read from the file by the
// loader (gguf/architecture.cpp): the architecture name fixes the graph, the tensors present fix the head.
enum class FfnKind : uint32_t {
  SquaredRelu = 0,  // relu(gate)^2 * up (BitNet b1.58 2B4T)
  SiluGated = 1,    // silu(gate) * up, silu(g) = g / (1 + e^-g) (LLaMA: Falcon3, Falcon-E)
};
enum class RopeStyle : uint32_t {
  NeoX = 0,    // element i pairs with i + head_dim/2
  Normal = 1,  // element 2i pairs with 2i + 1
};
// The ternary weight formats (../shared/docs/ternary-family.md); the value of a code is code - 1.
enum class WeightFormat : uint32_t {
  I2_S = 0,   // 128 elements in 32 bytes, one f32 scale per tensor
  TQ2_0 = 1,  // 256 elements in 66 bytes (2-bit codes, then an f16 scale per block)
  TQ1_0 = 2,  // 256 elements in 54 bytes (five trits a byte, then an f16 scale per block)
};
const char* weight_format_name(WeightFormat f);  // "I2_S", "TQ2_0", "TQ1_0"

struct Architecture {
  FfnKind ffn = FfnKind::SquaredRelu;
  bool sub_norms = true;  // attn_sub_norm before wo and ffn_sub_norm before down
  RopeStyle rope = RopeStyle::NeoX;
  bool tied_head = true;  // the LM head is token_embd (else the F16 output.weight)
};

struct ModelConfig {
  std::string architecture;   // general.architecture: "bitnet-25", "bitnet-b1.58" or "llama"
  Architecture arch;          // what that architecture computes
  std::string weight_format;  // the ternary matrices' format, e.g. "I2_S" ("TQ2_0+TQ1_0" if mixed)
  uint64_t parameters = 0;    // elements of every tensor (the head counted once when tied)
  std::string name;           // general.name, may be empty
  uint32_t vocab = 0;         // length of tokenizer.ggml.tokens
  uint32_t dim = 0;           // embedding_length
  uint32_t layers = 0;        // block_count
  uint32_t heads = 0;         // attention.head_count
  uint32_t kv_heads = 0;      // attention.head_count_kv
  uint32_t head_dim = 0;      // dim / heads
  uint32_t ffn = 0;           // feed_forward_length
  uint32_t context = 0;       // context_length (trained)
  float rms_eps = 1e-5f;      // attention.layer_norm_rms_epsilon
  float rope_base = 10000.f;  // rope.freq_base
  int32_t bos = -1;           // tokenizer.ggml.bos_token_id
  int32_t eos = -1;           // tokenizer.ggml.eos_token_id
  int32_t eot = -1;           // <|eot_id|> if the vocabulary has it, else -1
};

// A ternary matrix: `rows` output units, each of `cols` inputs (ne0 = cols, contiguous), in the file's
// format (weight_format_name; layouts in ../shared/docs/ternary-family.md and gguf/ternary_blocks.h).
// I2_S: for flat index i, block = i/128, pos = i%128, group = pos/32, byte = codes[block*32 + pos%32],
// code = (byte >> (6 - 2*group)) & 3, weight = code - 1, and one scale for the tensor.
// TQ2_0 / TQ1_0: 256-element blocks, each with its own f16 scale inside the block; `scale` is 1.
struct TernaryMatrix {
  const uint8_t* codes = nullptr;  // the tensor's data inside the mapped file
  float scale = 1.f;               // I2_S: the per-tensor scale from the tensor's 32-byte tail
  uint32_t rows = 0;
  uint32_t cols = 0;
  WeightFormat format = WeightFormat::I2_S;
};

struct LayerWeights {
  std::span<const float> attn_norm;      // [dim]
  std::span<const float> attn_sub_norm;  // [heads*head_dim], empty without sub-norms
  std::span<const float> ffn_norm;       // [dim]
  std::span<const float> ffn_sub_norm;   // [ffn], empty without sub-norms
  TernaryMatrix wq, wk, wv, wo;          // [heads*hd x dim], [kv*hd x dim] x2, [dim x heads*hd]
  TernaryMatrix gate, up, down;          // [ffn x dim] x2, [dim x ffn]
};

struct ModelWeights {
  const uint16_t* token_embd = nullptr;  // F16 [vocab x dim], also the LM head where it is tied
  const uint16_t* output = nullptr;      // F16 [vocab x dim]: the untied LM head, else token_embd
  const uint16_t* head() const { return output ? output : token_embd; }
  std::vector<LayerWeights> layers;
  std::span<const float> output_norm;  // [dim]
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
