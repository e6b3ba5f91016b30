#pragma once
// Writes GGUF files byte by byte for tests and fuzz seeds: valid tiny BitNet models, and the means to
// break them precisely (override counts, offsets, types, raw bytes). Header-only, no engine dependency.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace trit::test {

// GGUF metadata value type ids and GGML tensor type ids used by the builder.
enum : uint32_t {
  kU8 = 0,
  kI8 = 1,
  kU16 = 2,
  kI16 = 3,
  kU32 = 4,
  kI32 = 5,
  kF32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kU64 = 10,
  kI64 = 11,
  kF64 = 12
};
enum : uint32_t { kTF32 = 0, kTF16 = 1, kTQ4_0 = 2, kTQ4_K = 12, kTBF16 = 30, kTTQ1_0 = 34, kTTQ2_0 = 35, kTI2_S = 36 };

class Bytes {
 public:
  std::vector<uint8_t> v;
  template <typename T>
  Bytes& put(T x) {
    uint8_t b[sizeof(T)];
    std::memcpy(b, &x, sizeof x);
    v.insert(v.end(), b, b + sizeof b);
    return *this;
  }
  Bytes& str(const std::string& s) {
    put<uint64_t>(s.size());
    v.insert(v.end(), s.begin(), s.end());
    return *this;
  }
  Bytes& raw(const std::vector<uint8_t>& b) {
    v.insert(v.end(), b.begin(), b.end());
    return *this;
  }
};

struct BuilderKv {
  std::string key;
  uint32_t type;
  std::vector<uint8_t> payload;  // the encoded value, without key and type
};

struct BuilderTensor {
  std::string name;
  uint32_t type;
  std::vector<uint64_t> shape;
  std::vector<uint8_t> data;
  bool explicit_offset = false;  // use `offset` verbatim (relative) instead of laying out automatically
  uint64_t offset = 0;
};

class GgufBuilder {
 public:
  char magic[4] = {'G', 'G', 'U', 'F'};
  uint32_t version = 3;
  bool override_counts = false;  // write n_tensors / n_kv below instead of the real counts
  uint64_t n_tensors = 0, n_kv = 0;
  uint64_t alignment = 32;  // layout only; write general.alignment yourself to change what readers use
  std::vector<BuilderKv> kvs;
  std::vector<BuilderTensor> tensors;

  // Adds or replaces a key.
  GgufBuilder& kv(const std::string& key, uint32_t type, std::vector<uint8_t> payload) {
    for (auto& e : kvs)
      if (e.key == key) {
        e.type = type;
        e.payload = std::move(payload);
        return *this;
      }
    kvs.push_back({key, type, std::move(payload)});
    return *this;
  }
  GgufBuilder& add_kv_dup(const std::string& key, uint32_t type, std::vector<uint8_t> payload) {
    kvs.push_back({key, type, std::move(payload)});
    return *this;
  }
  void remove_kv(const std::string& key) {
    std::erase_if(kvs, [&](const BuilderKv& e) { return e.key == key; });
  }
  GgufBuilder& u32(const std::string& k, uint32_t x) { return kv(k, kU32, Bytes().put(x).v); }
  GgufBuilder& i32(const std::string& k, int32_t x) { return kv(k, kI32, Bytes().put(x).v); }
  GgufBuilder& f32(const std::string& k, float x) { return kv(k, kF32, Bytes().put(x).v); }
  GgufBuilder& str(const std::string& k, const std::string& s) { return kv(k, kString, Bytes().str(s).v); }
  GgufBuilder& str_array(const std::string& k, const std::vector<std::string>& a) {
    Bytes b;
    b.put<uint32_t>(kString).put<uint64_t>(a.size());
    for (const auto& s : a) b.str(s);
    return kv(k, kArray, b.v);
  }
  GgufBuilder& i32_array(const std::string& k, const std::vector<int32_t>& a) {
    Bytes b;
    b.put<uint32_t>(kI32).put<uint64_t>(a.size());
    for (auto x : a) b.put(x);
    return kv(k, kArray, b.v);
  }

  GgufBuilder& tensor(const std::string& name, uint32_t type, std::vector<uint64_t> shape, std::vector<uint8_t> data) {
    tensors.push_back({name, type, std::move(shape), std::move(data)});
    return *this;
  }
  BuilderTensor* find_tensor(const std::string& name) {
    for (auto& t : tensors)
      if (t.name == name) return &t;
    return nullptr;
  }
  void remove_tensor(const std::string& name) {
    std::erase_if(tensors, [&](const BuilderTensor& t) { return t.name == name; });
  }

  std::vector<uint8_t> build() const {
    Bytes b;
    b.v.insert(b.v.end(), magic, magic + 4);
    b.put(version);
    b.put<uint64_t>(override_counts ? n_tensors : tensors.size());
    b.put<uint64_t>(override_counts ? n_kv : kvs.size());
    for (const auto& e : kvs) b.str(e.key).put(e.type).raw(e.payload);
    uint64_t next = 0;
    std::vector<uint64_t> offsets;
    for (const auto& t : tensors) {
      uint64_t off = t.explicit_offset ? t.offset : next;
      offsets.push_back(off);
      if (!t.explicit_offset) next = align(next + t.data.size());
      b.str(t.name).put<uint32_t>(static_cast<uint32_t>(t.shape.size()));
      for (auto d : t.shape) b.put(d);
      b.put(t.type).put(off);
    }
    b.v.resize(align(b.v.size()), 0);
    const size_t data_start = b.v.size();
    for (size_t i = 0; i < tensors.size(); ++i) {
      if (tensors[i].explicit_offset) continue;  // its bytes are wherever the test says
      b.v.resize(std::max<size_t>(b.v.size(), data_start + offsets[i]), 0);
      b.raw(tensors[i].data);
      b.v.resize(data_start + align(b.v.size() - data_start), 0);
    }
    return b.v;
  }

 private:
  uint64_t align(uint64_t x) const { return (x + alignment - 1) / alignment * alignment; }
};

// ---- tiny valid BitNet models ----

struct TinySpec {
  std::string arch = "bitnet-25";
  uint32_t dim = 128, heads = 2, kv_heads = 1, ffn = 256, layers = 1, vocab = 6;
  float scale = 0.5f;
  bool sub_norms = true;  // attn_sub_norm and ffn_sub_norm (the bitnet architectures; llama has none)
};

inline std::vector<uint8_t> f32_data(uint64_t n, float base = 1.f) {
  Bytes b;
  for (uint64_t i = 0; i < n; ++i) b.put(base + 0.001f * static_cast<float>(i % 7));
  return b.v;
}

inline std::vector<uint8_t> f16_data(uint64_t n) {
  Bytes b;
  for (uint64_t i = 0; i < n; ++i) b.put<uint16_t>(static_cast<uint16_t>(0x3c00 + (i % 13)));  // ~1.0
  return b.v;
}

// Valid I2_S data: codes 0..2 in a deterministic pattern, then the 32-byte tail with the scale.
inline std::vector<uint8_t> i2s_data(uint64_t n, float scale, uint32_t seed = 1) {
  std::vector<uint8_t> d(n / 4 + 32, 0);
  uint32_t s = seed * 2654435761u + 12345u;
  for (uint64_t i = 0; i < n / 4; ++i) {
    uint8_t byte = 0;
    for (int f = 0; f < 4; ++f) {
      s = s * 1664525u + 1013904223u;
      byte = static_cast<uint8_t>((byte << 2) | ((s >> 16) % 3));
    }
    d[i] = byte;
  }
  for (int k = 0; k < 8; ++k) std::memcpy(d.data() + n / 4 + 4 * k, &scale, 4);
  return d;
}

// Smallest vocabulary a tokenizer accepts: a token for each of the 256 bytes, plus BOS, EOS and EOT.
constexpr uint32_t kTinyByteVocab = 259;

// The GPT-2 byte alphabet (as byte-level BPE spells bytes): printable Latin-1 bytes stand for themselves,
// the other bytes for U+0100 onwards, in byte order. Returned as UTF-8.
inline std::string gpt2_byte_spelling(uint8_t b) {
  const bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
  uint32_t cp = b;
  if (!printable) {
    cp = 256;
    for (int x = 0; x < b; ++x)
      if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || x >= 174)) ++cp;
  }
  std::string out;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return out;
}

// n tokens. From kTinyByteVocab on, a vocabulary the engine's tokenizer accepts (the 256 byte tokens,
// reserved control tokens, then BOS, EOS, EOT; types from tiny_token_types); below it, short dummy
// tokens for tests that stop at the metadata or the weights.
inline std::vector<std::string> tiny_vocab(uint32_t n) {
  std::vector<std::string> v;
  if (n >= kTinyByteVocab) {
    for (int b = 0; b < 256; ++b) v.push_back(gpt2_byte_spelling(static_cast<uint8_t>(b)));
    while (v.size() + 3 < n) v.push_back("<|reserved_" + std::to_string(v.size()) + "|>");
    for (const char* s : {"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"}) v.push_back(s);
    return v;
  }
  for (uint32_t i = 0; i + 3 < n; ++i) v.push_back(std::string(1, static_cast<char>('a' + i % 26)) + std::to_string(i));
  for (const char* s : {"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"})
    if (v.size() < n) v.push_back(s);
  return v;
}

// Types of tiny_vocab(n): normal (1), and control (3) for the added tokens of a byte-level vocabulary.
inline std::vector<int32_t> tiny_token_types(uint32_t n) {
  std::vector<int32_t> t(n, 1);
  if (n >= kTinyByteVocab)
    for (uint32_t i = 256; i < n; ++i) t[i] = 3;
  return t;
}

inline GgufBuilder tiny_model(const TinySpec& s = {}) {
  GgufBuilder b;
  const std::string p = s.arch + ".";
  b.str("general.architecture", s.arch).str("general.name", "tiny").u32("general.alignment", 32);
  b.u32(p + "context_length", 256).u32(p + "embedding_length", s.dim).u32(p + "feed_forward_length", s.ffn);
  b.u32(p + "block_count", s.layers).u32(p + "attention.head_count", s.heads);
  b.u32(p + "attention.head_count_kv", s.kv_heads).f32(p + "attention.layer_norm_rms_epsilon", 1e-5f);
  b.f32(p + "rope.freq_base", 500000.f).str("tokenizer.ggml.model", "gpt2");
  auto vocab = tiny_vocab(s.vocab);
  b.str_array("tokenizer.ggml.tokens", vocab);
  b.i32_array("tokenizer.ggml.token_type", tiny_token_types(s.vocab));
  b.u32("tokenizer.ggml.bos_token_id", s.vocab - 3).u32("tokenizer.ggml.eos_token_id", s.vocab - 2);
  const uint64_t hd = s.dim / s.heads, q = uint64_t{s.heads} * hd, kv = uint64_t{s.kv_heads} * hd;
  b.tensor("token_embd.weight", kTF16, {s.dim, s.vocab}, f16_data(uint64_t{s.dim} * s.vocab));
  uint32_t seed = 1;
  for (uint32_t l = 0; l < s.layers; ++l) {
    const std::string n = "blk." + std::to_string(l) + ".";
    auto mat = [&](const std::string& name, uint64_t cols, uint64_t rows) {
      b.tensor(n + name, kTI2_S, {cols, rows}, i2s_data(cols * rows, s.scale, seed++));
    };
    b.tensor(n + "attn_norm.weight", kTF32, {s.dim}, f32_data(s.dim));
    mat("attn_q.weight", s.dim, q);
    mat("attn_k.weight", s.dim, kv);
    mat("attn_v.weight", s.dim, kv);
    if (s.sub_norms) b.tensor(n + "attn_sub_norm.weight", kTF32, {q}, f32_data(q));
    mat("attn_output.weight", q, s.dim);
    b.tensor(n + "ffn_norm.weight", kTF32, {s.dim}, f32_data(s.dim));
    mat("ffn_gate.weight", s.dim, s.ffn);
    mat("ffn_up.weight", s.dim, s.ffn);
    if (s.sub_norms) b.tensor(n + "ffn_sub_norm.weight", kTF32, {s.ffn}, f32_data(s.ffn));
    mat("ffn_down.weight", s.ffn, s.dim);
  }
  b.tensor("output_norm.weight", kTF32, {s.dim}, f32_data(s.dim));
  return b;
}

}  // namespace trit::test
