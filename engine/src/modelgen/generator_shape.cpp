// Named and explicit model shapes for the generator, and the rules every shape must satisfy.
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "trit/model_generator.h"

namespace trit {
namespace {

constexpr uint32_t kMaxDim = 1u << 16;
constexpr uint32_t kMaxFfn = 1u << 18;
constexpr uint32_t kMaxLayers = 1024;

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

}  // namespace

GeneratorShape parse_generator_shape(std::string_view text) {
  GeneratorShape s;
  if (text == "tiny") {
    s = {"tiny", 256, 4, 2, 512, 2};
  } else if (text == "small") {
    s = {"small", 512, 8, 2, 1536, 4};
  } else if (text == "2b4t") {
    s = {"2b4t", 2560, 20, 5, 6912, 30};
  } else if (text == "falcon3-1b") {  // the reported Falcon3 1.58-bit shapes (ternary-family.md)
    s = {"falcon3-1b", 2048, 8, 4, 8192, 18};
  } else if (text == "falcon3-3b") {
    s = {"falcon3-3b", 3072, 12, 4, 9216, 22};
  } else if (text == "falcon3-7b") {
    s = {"falcon3-7b", 3072, 12, 4, 23040, 28};
  } else if (text == "falcon3-10b") {
    s = {"falcon3-10b", 3072, 12, 4, 23040, 40};
  } else {
    auto parts = split(text, ',');
    if (parts.size() != 5)
      throw GeneratorError(
          "shape '" + std::string(text) +
          "' is not understood: use tiny, small, 2b4t, falcon3-1b, falcon3-3b, falcon3-7b, falcon3-10b or "
          "DIM,HEADS,KV_HEADS,FFN,LAYERS (five integers)");
    static const char* names[] = {"DIM", "HEADS", "KV_HEADS", "FFN", "LAYERS"};
    uint32_t v[5];
    for (size_t i = 0; i < 5; ++i) {
      auto p = parts[i];
      auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), v[i]);
      if (p.empty() || ec != std::errc() || end != p.data() + p.size())
        throw GeneratorError("shape '" + std::string(text) + "': " + names[i] + " '" + std::string(p) +
                             "' is not a non-negative integer");
    }
    s = {std::string(text), v[0], v[1], v[2], v[3], v[4]};
  }
  validate_generator_shape(s);
  return s;
}

void validate_generator_shape(const GeneratorShape& s) {
  auto bad = [&](const std::string& why) {
    throw GeneratorError("shape '" + s.label + "' (dim " + std::to_string(s.dim) + ", heads " +
                         std::to_string(s.heads) + ", kv heads " + std::to_string(s.kv_heads) + ", ffn " +
                         std::to_string(s.ffn) + ", layers " + std::to_string(s.layers) + "): " + why);
  };
  if (s.dim == 0 || s.heads == 0 || s.kv_heads == 0 || s.ffn == 0 || s.layers == 0) bad("every value must be positive");
  if (s.dim > kMaxDim) bad("dim is larger than " + std::to_string(kMaxDim));
  if (s.ffn > kMaxFfn) bad("ffn is larger than " + std::to_string(kMaxFfn));
  if (s.layers > kMaxLayers) bad("more than " + std::to_string(kMaxLayers) + " layers");
  if (s.dim % s.heads != 0) bad("dim is not divisible by the number of heads");
  if (s.heads % s.kv_heads != 0) bad("heads is not divisible by kv heads (grouped-query attention)");
  if (s.head_dim() % 2 != 0)
    bad("head dim " + std::to_string(s.head_dim()) + " (dim / heads) is odd; RoPE rotates pairs of dimensions");
  if (s.dim % 128 != 0)
    bad("dim is not a multiple of 128; attn_q/k/v/output and ffn_gate/up are I2_S matrices with K = dim, and I2_S "
        "needs K to be a multiple of 128");
  if (s.ffn % 128 != 0)
    bad("ffn is not a multiple of 128; ffn_down is an I2_S matrix with K = ffn, and I2_S needs K to be a multiple of "
        "128");
}

float generator_ternary_scale(std::string_view role, uint32_t k) {
  double gain = 0;
  if (role == "attn_q" || role == "attn_k") {
    gain = 0.5;
  } else if (role == "attn_v" || role == "attn_output" || role == "ffn_gate" || role == "ffn_up" ||
             role == "ffn_down") {
    gain = 2.0;
  } else {
    throw GeneratorError("no ternary scale rule for tensor role '" + std::string(role) + "'");
  }
  if (k == 0) throw GeneratorError("ternary scale: K must be positive");
  return static_cast<float>(gain / std::sqrt(k * 2.0 / 3.0));
}

}  // namespace trit
