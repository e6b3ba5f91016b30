// ModelConfig from GGUF metadata: every hyper-parameter read from the file (nothing hard-coded) and
// checked for consistency before any tensor is looked at.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "gguf/model_loader.h"

namespace trit::gguf_detail {
namespace {

// What each architecture this engine runs computes (../shared/docs/ternary-family.md). The head's
// tying is not a property of the name: it is read from the tensors (output.weight present or not).
std::optional<Architecture> describe(std::string_view name) {
  if (name == "bitnet-25" || name == "bitnet-b1.58")
    return Architecture{.ffn = FfnKind::SquaredRelu, .sub_norms = true, .rope = RopeStyle::NeoX, .tied_head = true};
  if (name == "llama")  // with ternary linear weights: Falcon3 1.58-bit, Falcon-E, Llama3-8B-1.58
    return Architecture{.ffn = FfnKind::SiluGated, .sub_norms = false, .rope = RopeStyle::Normal, .tied_head = true};
  return std::nullopt;
}

// A count: positive, and small enough for the int32 the forward passes and sessions index with (a
// context_length of 2^31 used to wrap to a negative int: "context length 0 is outside 1..-1").
uint32_t positive(const GgufMetadata& md, const std::string& key) {
  uint32_t v = md.get_u32(key);
  if (v == 0) throw ModelError("metadata key '" + key + "' is 0; it must be positive");
  if (v > static_cast<uint32_t>(INT32_MAX))
    throw ModelError("metadata key '" + key + "' = " + std::to_string(v) +
                     " is out of range; it must be between 1 and " + std::to_string(INT32_MAX));
  return v;
}

int32_t token_id(const GgufMetadata& md, const std::string& key, uint32_t vocab) {
  auto id = md.find_i32(key);
  if (!id) return -1;
  if (*id < 0 || static_cast<uint32_t>(*id) >= vocab)
    throw ModelError("metadata key '" + key + "' = " + std::to_string(*id) + " is outside the vocabulary (" +
                     std::to_string(vocab) + " tokens)");
  return *id;
}

}  // namespace

ModelConfig read_model_config(const GgufFile& f) {
  const GgufMetadata& md = f.metadata();
  ModelConfig c;
  c.architecture = std::string(md.get_string("general.architecture"));
  if (c.architecture == "bitnet")
    throw ModelError(
        "architecture 'bitnet' (1bitLLM's BitNet b1.58 with a SentencePiece vocabulary) is not supported: "
        "this engine runs bitnet-25, bitnet-b1.58 and llama files with ternary weights");
  auto arch = describe(c.architecture);
  if (!arch)
    throw ModelError("unknown architecture '" + c.architecture +
                     "' (general.architecture): supported are bitnet-25, bitnet-b1.58 and llama with ternary weights");
  c.arch = *arch;
  c.arch.tied_head = f.find_tensor("output.weight") == nullptr;
  if (auto n = md.find_string("general.name")) c.name = std::string(*n);
  const std::string p = c.architecture + ".";

  const auto& tokens = md.get_string_array("tokenizer.ggml.tokens");
  if (tokens.empty()) throw ModelError("metadata key 'tokenizer.ggml.tokens' is empty: the vocabulary has no tokens");
  if (tokens.size() > static_cast<size_t>(INT32_MAX))
    throw ModelError("vocabulary of " + std::to_string(tokens.size()) + " tokens is too large");
  c.vocab = static_cast<uint32_t>(tokens.size());
  if (auto vs = md.find_u32(p + "vocab_size"); vs && *vs != c.vocab)
    throw ModelError("inconsistent hyper-parameters: " + p + "vocab_size " + std::to_string(*vs) +
                     " differs from the " + std::to_string(c.vocab) + " entries of tokenizer.ggml.tokens");

  c.dim = positive(md, p + "embedding_length");
  c.layers = positive(md, p + "block_count");
  c.heads = positive(md, p + "attention.head_count");
  // head_count_kv is optional in GGUF (absent means no grouping), as llama.cpp reads it.
  c.kv_heads = md.contains(p + "attention.head_count_kv") ? positive(md, p + "attention.head_count_kv") : c.heads;
  c.ffn = positive(md, p + "feed_forward_length");
  c.context = positive(md, p + "context_length");

  if (c.dim % c.heads != 0)
    throw ModelError("inconsistent hyper-parameters: embedding_length " + std::to_string(c.dim) +
                     " is not divisible by attention.head_count " + std::to_string(c.heads));
  if (c.kv_heads > c.heads || c.heads % c.kv_heads != 0)
    throw ModelError("inconsistent hyper-parameters: attention.head_count " + std::to_string(c.heads) +
                     " is not divisible by attention.head_count_kv " + std::to_string(c.kv_heads));
  c.head_dim = c.dim / c.heads;
  if (c.head_dim % 2 != 0)
    throw ModelError("inconsistent hyper-parameters: head dimension " + std::to_string(c.head_dim) +
                     " (embedding_length / head_count) is odd; RoPE rotates pairs of elements");
  for (const char* key : {"attention.key_length", "attention.value_length"})
    if (auto v = md.find_u32(p + key); v && *v != c.head_dim)
      throw ModelError("inconsistent hyper-parameters: " + p + key + " " + std::to_string(*v) +
                       " differs from embedding_length / head_count = " + std::to_string(c.head_dim) +
                       " (heads of another width than the hidden size's share are not supported)");
  if (auto rd = md.find_u32(p + "rope.dimension_count"); rd && *rd != c.head_dim)
    throw ModelError("inconsistent hyper-parameters: rope.dimension_count " + std::to_string(*rd) +
                     " differs from the head dimension " + std::to_string(c.head_dim) +
                     " (partial rotary embeddings are not supported)");

  c.rms_eps = md.get_f32(p + "attention.layer_norm_rms_epsilon");
  if (!std::isfinite(c.rms_eps) || c.rms_eps <= 0.f || c.rms_eps >= 1.f)
    throw ModelError("metadata key '" + p + "attention.layer_norm_rms_epsilon' = " + std::to_string(c.rms_eps) +
                     " is not a sane epsilon (0 < eps < 1)");
  // rope.freq_base is optional in GGUF; its absence means the GGUF default 10000.
  if (auto base = md.find_f32(p + "rope.freq_base")) c.rope_base = *base;
  if (!std::isfinite(c.rope_base) || c.rope_base <= 1.f)
    throw ModelError("metadata key '" + p + "rope.freq_base' = " + std::to_string(c.rope_base) +
                     " is not a valid RoPE base (must be finite and > 1)");

  c.bos = token_id(md, "tokenizer.ggml.bos_token_id", c.vocab);
  c.eos = token_id(md, "tokenizer.ggml.eos_token_id", c.vocab);
  c.eot = token_id(md, "tokenizer.ggml.eot_token_id", c.vocab);
  if (c.eot < 0) {
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i] == "<|eot_id|>") {
        c.eot = static_cast<int32_t>(i);
        break;
      }
  }
  return c;
}

}  // namespace trit::gguf_detail
