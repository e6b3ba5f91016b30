// Binding and validating the weights of a BitNet b1.58 model inside a parsed GGUF file.
#include "gguf/model_loader.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_set>

#include "gguf/f16_scan.h"
#include "gguf/half.h"
#include "gguf/i2s_scan.h"
#include "gguf/ternary_blocks.h"

namespace trit::gguf_detail {
namespace {

std::string shape_str(const std::vector<uint64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

// Shapes compare like ggml's: missing trailing dimensions are 1, so [512] equals [512, 1].
bool same_shape(const std::vector<uint64_t>& got, const std::vector<uint64_t>& want) {
  size_t n = std::max(got.size(), want.size());
  for (size_t i = 0; i < n; ++i) {
    uint64_t g = i < got.size() ? got[i] : 1;
    uint64_t w = i < want.size() ? want[i] : 1;
    if (g != w) return false;
  }
  return true;
}

class Binder {
 public:
  Binder(const GgufFile& f, LoadedModel& m) : f_(f), m_(m), c_(m.config) {}

  void run() {
    check_extra_tensors();
    auto& w = m_.weights;
    const Architecture& a = c_.arch;
    w.token_embd = f16_table("token_embd.weight");
    for (uint32_t l = 0; l < c_.layers; ++l) {
      std::string b = "blk." + std::to_string(l) + ".";
      LayerWeights lw;
      uint64_t q = uint64_t{c_.heads} * c_.head_dim, kv = uint64_t{c_.kv_heads} * c_.head_dim;
      lw.attn_norm = norm(b + "attn_norm.weight", c_.dim, "dim");
      if (a.sub_norms) lw.attn_sub_norm = norm(b + "attn_sub_norm.weight", q, "heads*head_dim");
      lw.ffn_norm = norm(b + "ffn_norm.weight", c_.dim, "dim");
      if (a.sub_norms) lw.ffn_sub_norm = norm(b + "ffn_sub_norm.weight", c_.ffn, "ffn");
      lw.wq = ternary(b + "attn_q.weight", c_.dim, q, "dim x heads*head_dim");
      lw.wk = ternary(b + "attn_k.weight", c_.dim, kv, "dim x kv_heads*head_dim");
      lw.wv = ternary(b + "attn_v.weight", c_.dim, kv, "dim x kv_heads*head_dim");
      lw.wo = ternary(b + "attn_output.weight", q, c_.dim, "heads*head_dim x dim");
      lw.gate = ternary(b + "ffn_gate.weight", c_.dim, c_.ffn, "dim x ffn");
      lw.up = ternary(b + "ffn_up.weight", c_.dim, c_.ffn, "dim x ffn");
      lw.down = ternary(b + "ffn_down.weight", c_.ffn, c_.dim, "ffn x dim");
      w.layers.push_back(lw);
    }
    w.output_norm = norm("output_norm.weight", c_.dim, "dim");
    if (!a.tied_head) w.output = f16_table("output.weight");
    check_unused_tensors();
    m_.config.weight_format = format_summary();
    for (const auto& t : f_.tensors()) m_.config.parameters += t.n_elements();
  }

 private:
  const GgufFile& f_;
  LoadedModel& m_;
  const ModelConfig& c_;
  std::unordered_set<std::string> used_;
  uint32_t formats_ = 0;  // bit per WeightFormat seen

  // Tensors the graph has no place for are errors rather than silently ignored weights.
  void check_extra_tensors() {
    for (const auto& t : f_.tensors()) {
      if (t.name.size() > 5 && t.name.ends_with(".bias"))
        throw ModelError("bias tensor '" + t.name + "' is not supported (BitNet b1.58 has no biases)");
      if (t.name.starts_with("blk.")) {
        size_t dot = t.name.find('.', 4);
        std::string_view num = std::string_view(t.name).substr(4, dot == std::string::npos ? 0 : dot - 4);
        uint64_t layer = 0;
        bool numeric = !num.empty() && num.size() <= 9;
        for (char ch : num) {
          if (ch < '0' || ch > '9')
            numeric = false;
          else
            layer = layer * 10 + static_cast<uint64_t>(ch - '0');
        }
        if (numeric && layer >= c_.layers)
          throw ModelError("tensor '" + t.name + "' belongs to layer " + std::to_string(layer) +
                           ", but block_count is " + std::to_string(c_.layers));
      }
    }
  }

  // Every tensor must have a place in the graph: one left over (rope_freqs.weight of a Llama 3.1, a
  // sub-norm in an architecture without them) would be a weight the engine silently ignores.
  void check_unused_tensors() {
    for (const auto& t : f_.tensors())
      if (!used_.contains(t.name))
        throw ModelError("tensor '" + t.name + "' has no place in the " + c_.architecture +
                         " graph this engine runs (an unsupported variant of the architecture)");
  }

  std::string format_summary() const {
    std::string out;
    for (WeightFormat f : {WeightFormat::I2_S, WeightFormat::TQ2_0, WeightFormat::TQ1_0})
      if (formats_ & (1u << static_cast<uint32_t>(f)))
        out += (out.empty() ? "" : "+") + std::string(weight_format_name(f));
    return out;
  }

  const GgufTensorInfo& tensor(const std::string& name, const std::vector<uint64_t>& shape, const char* shape_meaning) {
    const GgufTensorInfo* t = f_.find_tensor(name);
    if (!t) throw ModelError("missing tensor '" + name + "'");
    used_.insert(t->name);
    if (!same_shape(t->shape, shape))
      throw ModelError("tensor '" + name + "' has shape " + shape_str(t->shape) + ", expected " + shape_str(shape) +
                       " (" + shape_meaning + ")");
    return *t;
  }

  [[noreturn]] void wrong_type(const GgufTensorInfo& t, const char* expected) {
    throw ModelError("tensor '" + t.name + "' has type " + ggml_type_name(t.type) + ", expected " + expected);
  }

  // An F16 [vocab x dim] table: the embedding, and the LM head (the same one where tied).
  const uint16_t* f16_table(const std::string& name) {
    const auto& t = tensor(name, {c_.dim, c_.vocab}, "dim x vocab");
    if (t.type != GgmlType::F16) wrong_type(t, "F16");
    const auto bytes = f_.tensor_data(t);
    const uint8_t* p = bytes.data();
    if (reinterpret_cast<uintptr_t>(p) % alignof(uint16_t) != 0)
      throw ModelError("tensor '" + name + "' is not 2-byte aligned in the file (general.alignment " +
                       std::to_string(f_.alignment()) + ")");
    // The table is (or is) the LM head: one NaN or infinity poisons every logit computed with it.
    if (auto i = find_nonfinite_f16(bytes)) {
      uint16_t h;
      std::memcpy(&h, p + 2 * *i, 2);
      throw ModelError("tensor '" + name + "' holds a non-finite value (" + std::to_string(half_to_float(h)) +
                       ") at index " + std::to_string(*i) + " (token " + std::to_string(*i / c_.dim) + ", element " +
                       std::to_string(*i % c_.dim) + "); weights must be finite numbers");
    }
    return static_cast<const uint16_t*>(static_cast<const void*>(p));
  }

  std::span<const float> norm(const std::string& name, uint64_t n, const char* meaning) {
    std::span<const float> v = norm_values(name, n, meaning);
    // A NaN or infinity in a norm turns every activation after it into NaN: the reply is garbage and
    // the CPU and Vulkan paths disagree about it. Norms are small (dim or ffn floats), so this is cheap.
    for (size_t i = 0; i < v.size(); ++i)
      if (!std::isfinite(v[i]))
        throw ModelError("tensor '" + name + "' holds a non-finite value (" + std::to_string(v[i]) + ") at index " +
                         std::to_string(i) + "; norm weights must be finite numbers");
    return v;
  }

  std::span<const float> norm_values(const std::string& name, uint64_t n, const char* meaning) {
    const auto& t = tensor(name, {n}, meaning);
    auto bytes = f_.tensor_data(t);
    if (t.type == GgmlType::F32) {
      if (reinterpret_cast<uintptr_t>(bytes.data()) % alignof(float) == 0)
        return {static_cast<const float*>(static_cast<const void*>(bytes.data())), n};
      // A file with general.alignment < 4 may place floats unaligned: copy rather than read misaligned.
      auto& v = m_.owned_norms.emplace_back(n);
      std::memcpy(v.data(), bytes.data(), n * sizeof(float));
      return v;
    }
    if (t.type == GgmlType::F16) {
      auto& v = m_.owned_norms.emplace_back(n);
      for (uint64_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, bytes.data() + 2 * i, 2);
        v[i] = half_to_float(h);
      }
      return v;
    }
    wrong_type(t, "F32 (or F16)");
  }

  TernaryMatrix ternary(const std::string& name, uint64_t cols, uint64_t rows, const char* meaning) {
    const auto& t = tensor(name, {cols, rows}, meaning);
    TernaryMatrix m;
    if (!ternary::format_of(t.type, m.format))
      throw ModelError("tensor '" + name + "' has type " + ggml_type_name(t.type) +
                       ", not a ternary weight format (I2_S, TQ2_0 or TQ1_0): this engine runs ternary (1.58-bit) "
                       "models only");
    formats_ |= 1u << static_cast<uint32_t>(m.format);
    const uint32_t block = m.format == WeightFormat::I2_S ? ternary::kI2sBlock : ternary::kTqBlock;
    if (cols % block != 0)
      throw ModelError("tensor '" + name + "' has K = " + std::to_string(cols) + " inputs per row, not a multiple of " +
                       std::to_string(block) + " (" + weight_format_name(m.format) +
                       " packs blocks of that many elements that must not straddle rows)");
    auto bytes = f_.tensor_data(t);
    m.codes = bytes.data();
    m.rows = static_cast<uint32_t>(rows);
    m.cols = static_cast<uint32_t>(cols);
    if (m.format == WeightFormat::I2_S) {
      uint64_t n = cols * rows;
      float scale;
      std::memcpy(&scale, bytes.data() + n / 4, sizeof scale);
      if (!std::isfinite(scale) || scale <= 0.f)
        throw ModelError("tensor '" + name + "' has invalid I2_S scale " + std::to_string(scale) +
                         " in its 32-byte tail (must be finite and > 0)");
      if (auto e = find_i2s_code3(bytes.first(n / 4)))
        throw ModelError("tensor " + name + " contains the invalid I2_S code 3 at element " + std::to_string(*e) +
                         " (row " + std::to_string(*e / cols) + ", column " + std::to_string(*e % cols) + ")");
      m.scale = scale;
      return m;
    }
    check_tq_blocks(name, m);
    return m;
  }

  // Every block's scale finite, and (TQ2_0) no code 3: TQ1_0's base-3 bytes have no invalid value. The
  // code 3 scan does not need the layout; a hit is located by decoding its row.
  void check_tq_blocks(const std::string& name, const TernaryMatrix& m) {
    const uint64_t row = ternary::row_bytes(m.format, m.cols);
    const uint32_t blocks = m.cols / ternary::kTqBlock;
    const uint64_t bb = ternary::row_bytes(m.format, ternary::kTqBlock);
    for (uint32_t r = 0; r < m.rows; ++r)
      for (uint32_t b = 0; b < blocks; ++b) {
        const uint8_t* blk = m.codes + r * row + b * bb;
        const float d = half_to_float(ternary::block_scale_bits(m.format, m.codes + r * row, b));
        if (!std::isfinite(d))
          throw ModelError("tensor '" + name + "' has a non-finite " + weight_format_name(m.format) + " block scale (" +
                           std::to_string(d) + ") in row " + std::to_string(r) + ", block " + std::to_string(b));
        if (m.format == WeightFormat::TQ2_0 && any_code3({blk, 64})) {
          std::vector<int8_t> w(m.cols);
          std::vector<float> scales(blocks);
          ternary::decode_row(m, r, w.data(), scales.data());
          const auto col = std::find(w.begin(), w.end(), int8_t{2}) - w.begin();  // code 3 decodes to 2
          throw ModelError("tensor '" + name + "' contains the invalid TQ2_0 code 3 at row " + std::to_string(r) +
                           ", column " + std::to_string(col));
        }
      }
  }
};

}  // namespace

LoadedModel load_model(const GgufFile& f) {
  LoadedModel m;
  m.config = read_model_config(f);
  Binder(f, m).run();
  return m;
}

}  // namespace trit::gguf_detail
