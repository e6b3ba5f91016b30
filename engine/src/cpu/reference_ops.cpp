// Plain implementations of the forward pass primitives (see trit/reference_ops.h). Written for clarity
// first: every GPU kernel is compared with these, so a reader must be able to check them against the spec.
#include "trit/reference_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/ops_impl.h"
#include "cpu/ternary_rows.h"
#include "gguf/ternary_blocks.h"
#include "trit/sampler.h"

namespace trit::ref {
namespace {

void require(bool ok, const char* op, const std::string& what) {
  if (!ok) throw std::invalid_argument(std::string(op) + ": " + what);
}

std::string sz(std::size_t n) {
  return std::to_string(n);
}

}  // namespace

// ---- half precision ---------------------------------------------------------------------------------

float f16_to_f32(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exp = (h >> 10) & 0x1fu;
  const uint32_t man = h & 0x3ffu;
  if (exp == 0) {
    // Zero or subnormal: man * 2^-24, exact in float.
    const float mag = std::ldexp(static_cast<float>(man), -24);
    return sign ? -mag : mag;
  }
  if (exp == 31) return std::bit_cast<float>(sign | 0x7f800000u | (man << 13));  // inf / NaN
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));        // rebias 15 -> 127
}

uint16_t f32_to_f16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const auto sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {
    if (ax == 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u);  // inf
    // NaN: keep the top payload bits and force the quiet bit so it cannot become inf.
    return static_cast<uint16_t>(sign | 0x7e00u | ((ax >> 13) & 0x3ffu));
  }
  // 65520 is halfway between the largest half (65504) and 2^16; the tie goes to the even neighbour,
  // which is the overflow, so everything from 65520 up becomes inf.
  if (ax >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    // Below 2^-14: the result is a half subnormal (units of 2^-24) or zero.
    const uint32_t e = ax >> 23;
    if (e < 102) return sign;  // below 2^-25: rounds to zero (2^-25 itself is a tie, handled below)
    const uint32_t m = (ax & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // value = m * 2^(e-150) = (m >> shift) units of 2^-24
    uint32_t q = m >> shift;
    const uint32_t rem = m & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;  // may carry into the smallest normal: correct
    return static_cast<uint16_t>(sign | q);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 23-bit mantissa to 10 bits.
  const uint32_t r = ax - 0x38000000u;
  uint32_t q = r >> 13;
  const uint32_t rem = r & 0x1fffu;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;  // a carry into the exponent is correct
  return static_cast<uint16_t>(sign | q);
}

float round_to_f16(float f) {
  return f16_to_f32(f32_to_f16(f));
}

uint16_t f64_to_f16(double d) {
  // The same steps as f32_to_f16 on the 64-bit layout (11-bit exponent, 52-bit mantissa), so a double
  // is rounded once, never through float first.
  const uint64_t x = std::bit_cast<uint64_t>(d);
  const auto sign = static_cast<uint16_t>((x >> 48) & 0x8000u);
  const uint64_t ax = x & 0x7fffffffffffffffull;
  if (ax >= 0x7ff0000000000000ull) {
    if (ax == 0x7ff0000000000000ull) return static_cast<uint16_t>(sign | 0x7c00u);
    return static_cast<uint16_t>(sign | 0x7e00u | ((ax >> 42) & 0x3ffu));
  }
  if (ax >= 0x40effe0000000000ull) return static_cast<uint16_t>(sign | 0x7c00u);  // >= 65520
  if (ax < 0x3f10000000000000ull) {                                               // < 2^-14
    const uint64_t e = ax >> 52;
    if (e < 998) return sign;  // below 2^-25
    const uint64_t m = (ax & 0xfffffffffffffull) | 0x10000000000000ull;
    const uint64_t shift = 1051 - e;  // value = m * 2^(e-1075) = (m >> shift) units of 2^-24
    uint64_t q = m >> shift;
    const uint64_t rem = m & ((uint64_t{1} << shift) - 1u);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return static_cast<uint16_t>(sign | q);
  }
  const uint64_t r = ax - (uint64_t{1008} << 52);  // rebias 1023 -> 15
  uint64_t q = r >> 42;
  const uint64_t rem = r & ((uint64_t{1} << 42) - 1u);
  const uint64_t half = uint64_t{1} << 41;
  if (rem > half || (rem == half && (q & 1u))) ++q;
  return static_cast<uint16_t>(sign | q);
}

// ---- norms, activation quantization, activations ----------------------------------------------------

void rmsnorm(std::span<const float> x, std::span<const float> w, float eps, std::span<float> out) {
  require(!x.empty(), "rmsnorm", "empty input");
  require(w.size() == x.size() && out.size() == x.size(), "rmsnorm",
          "size mismatch: x " + sz(x.size()) + ", w " + sz(w.size()) + ", out " + sz(out.size()));
  cpu::rmsnorm(x.data(), w.data(), x.size(), eps, out.data());  // reads x[i] before writing out[i]
}

float quantize_int8_per_token(std::span<const float> x, std::span<int8_t> xq) {
  require(xq.size() == x.size(), "quantize_int8_per_token",
          "size mismatch: x " + sz(x.size()) + ", xq " + sz(xq.size()));
  return cpu::quantize_int8(x.data(), x.size(), xq.data());
}

void squared_relu_gate(std::span<const float> g, std::span<const float> u, std::span<float> out) {
  require(u.size() == g.size() && out.size() == g.size(), "squared_relu_gate",
          "size mismatch: g " + sz(g.size()) + ", u " + sz(u.size()) + ", out " + sz(out.size()));
  cpu::squared_relu_gate(g.data(), u.data(), g.size(), out.data());
}

void silu_gate(std::span<const float> g, std::span<const float> u, std::span<float> out) {
  require(u.size() == g.size() && out.size() == g.size(), "silu_gate",
          "size mismatch: g " + sz(g.size()) + ", u " + sz(u.size()) + ", out " + sz(out.size()));
  cpu::silu_gate(g.data(), u.data(), g.size(), out.data());
}

// ---- I2_S ternary weights ---------------------------------------------------------------------------

uint32_t i2s_code(const uint8_t* codes, std::size_t i) {
  const std::size_t block = i / 128, pos = i % 128, group = pos / 32, gp = pos % 32;
  return (codes[block * 32 + gp] >> (6 - 2 * group)) & 3u;
}

int i2s_weight(const uint8_t* codes, std::size_t i) {
  const uint32_t code = i2s_code(codes, i);
  if (code == 3)
    throw std::invalid_argument("i2s_weight: element " + sz(i) + " has code 3, which no valid I2_S tensor holds");
  return static_cast<int>(code) - 1;
}

namespace {
void check_matrix(const TernaryMatrix& m, const char* op) {
  require(m.codes != nullptr, op, "matrix has no data");
  const uint32_t block = m.format == WeightFormat::I2_S ? ternary::kI2sBlock : ternary::kTqBlock;
  require(
      m.cols % block == 0, op,
      "matrix has " + sz(m.cols) + " columns, not a multiple of " + weight_format_name(m.format) + "'s " + sz(block));
}
}  // namespace

void decode_ternary_row(const TernaryMatrix& m, uint32_t row, std::span<int8_t> out) {
  check_matrix(m, "decode_ternary_row");
  require(row < m.rows, "decode_ternary_row", "row " + sz(row) + " of a matrix with " + sz(m.rows) + " rows");
  require(out.size() == m.cols, "decode_ternary_row",
          "output has " + sz(out.size()) + " entries, the row " + sz(m.cols));
  std::vector<float> scales(m.cols / ternary::kTqBlock + 1);
  ternary::decode_row(m, row, out.data(), scales.data());
}

void ternary_matvec(const TernaryMatrix& m, std::span<const int8_t> xq, float s, std::span<float> y) {
  ternary_matmul(m, xq, std::span<const float>(&s, 1), y);
}

void ternary_matmul(const TernaryMatrix& m, std::span<const int8_t> xq, std::span<const float> s, std::span<float> y) {
  check_matrix(m, "ternary_matmul");
  const std::size_t n = s.size();
  require(n >= 1, "ternary_matmul", "no tokens");
  require(xq.size() == n * m.cols, "ternary_matmul",
          "input has " + sz(xq.size()) + " entries, expected " + sz(n) + " tokens x " + sz(m.cols));
  require(y.size() == n * m.rows, "ternary_matmul",
          "output has " + sz(y.size()) + " entries, expected " + sz(n) + " tokens x " + sz(m.rows));
  cpu::ternary_rows<float>(m, xq.data(), s.data(), n, y.data(), 0, m.rows);
}

void bitlinear(const TernaryMatrix& m, std::span<const float> x, std::span<float> y) {
  std::vector<int8_t> xq(x.size());
  const float s = quantize_int8_per_token(x, xq);
  ternary_matvec(m, xq, s, y);
}

// ---- attention --------------------------------------------------------------------------------------

namespace {
void rope_checked(const char* op, std::span<float> vec, uint32_t head_dim, int32_t pos, float base, RopeStyle style) {
  require(head_dim >= 2 && head_dim % 2 == 0, op, "head_dim " + sz(head_dim) + " is not a positive even number");
  require(vec.size() % head_dim == 0, op,
          "vector of " + sz(vec.size()) + " entries is not a whole number of heads of " + sz(head_dim));
  cpu::rope(vec.data(), vec.size(), head_dim, pos, base, style);
}
}  // namespace

void rope_neox(std::span<float> vec, uint32_t head_dim, int32_t pos, float base) {
  rope_checked("rope_neox", vec, head_dim, pos, base, RopeStyle::NeoX);
}

void rope_normal(std::span<float> vec, uint32_t head_dim, int32_t pos, float base) {
  rope_checked("rope_normal", vec, head_dim, pos, base, RopeStyle::Normal);
}

namespace {
template <typename T>
void attention_impl(std::span<const float> q, std::span<const T> k, std::span<const T> v, uint32_t n_ctx,
                    uint32_t heads, uint32_t kv_heads, uint32_t head_dim, std::span<float> out) {
  const char* op = "attention";
  require(heads >= 1 && kv_heads >= 1 && heads % kv_heads == 0, op,
          sz(heads) + " query heads are not a multiple of " + sz(kv_heads) + " KV heads");
  require(head_dim >= 1, op, "head_dim is 0");
  require(n_ctx >= 1, op, "no positions to attend to");
  const std::size_t qdim = std::size_t{heads} * head_dim, kvdim = std::size_t{kv_heads} * head_dim;
  require(q.size() == qdim && out.size() == qdim, op,
          "q has " + sz(q.size()) + " and out " + sz(out.size()) + " entries, expected " + sz(qdim));
  require(k.size() >= n_ctx * kvdim && v.size() >= n_ctx * kvdim, op,
          "cache holds fewer than " + sz(n_ctx) + " positions of " + sz(kvdim));
  cpu::attention(q.data(), k.data(), v.data(), n_ctx, heads, kv_heads, head_dim, out.data());
}
}  // namespace

void attention(std::span<const float> q, std::span<const float> k, std::span<const float> v, uint32_t n_ctx,
               uint32_t heads, uint32_t kv_heads, uint32_t head_dim, std::span<float> out) {
  attention_impl(q, k, v, n_ctx, heads, kv_heads, head_dim, out);
}

void attention(std::span<const float> q, std::span<const uint16_t> k, std::span<const uint16_t> v, uint32_t n_ctx,
               uint32_t heads, uint32_t kv_heads, uint32_t head_dim, std::span<float> out) {
  attention_impl(q, k, v, n_ctx, heads, kv_heads, head_dim, out);
}

// ---- embedding and LM head --------------------------------------------------------------------------

void embed_token(const uint16_t* token_embd, uint32_t vocab, uint32_t dim, int32_t token, std::span<float> out) {
  require(token_embd != nullptr, "embed_token", "no embedding table");
  require(out.size() == dim, "embed_token", "output has " + sz(out.size()) + " entries, dim is " + sz(dim));
  if (token < 0 || static_cast<uint32_t>(token) >= vocab)
    throw std::out_of_range("token id " + std::to_string(token) + " is outside the vocabulary [0, " + sz(vocab) + ")");
  const uint16_t* row = token_embd + static_cast<std::size_t>(token) * dim;
  for (uint32_t d = 0; d < dim; ++d) out[d] = f16_to_f32(row[d]);
}

void lm_head(const uint16_t* token_embd, uint32_t vocab, uint32_t dim, std::span<const float> x,
             std::span<float> logits) {
  require(token_embd != nullptr, "lm_head", "no embedding table");
  require(x.size() == dim && logits.size() == vocab, "lm_head",
          "x has " + sz(x.size()) + " entries (dim " + sz(dim) + "), logits " + sz(logits.size()) + " (vocab " +
              sz(vocab) + ")");
  cpu::lm_head_rows(token_embd, dim, x.data(), 1, logits.data(), vocab, 0, vocab);
}

uint32_t argmax(std::span<const float> values) {
  require(!values.empty(), "argmax", "empty input");
  return static_cast<uint32_t>(trit::argmax(values));
}

}  // namespace trit::ref
