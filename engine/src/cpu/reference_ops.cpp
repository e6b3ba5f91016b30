// Plain implementations of the forward pass primitives (see trit/reference_ops.h). Written for clarity
// first: every GPU kernel is compared with these, so a reader must be able to check them against the spec.
#include "trit/reference_ops.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "cpu/ternary_rows.h"

namespace trit::ref {
namespace {

void require(bool ok, const char* op, const std::string& what) {
  if (!ok) throw std::invalid_argument(std::string(op) + ": " + what);
}

std::string sz(std::size_t n) { return std::to_string(n); }

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
  return std::bit_cast<float>(sign | ((exp + 112u) << 23) | (man << 13));          // rebias 15 -> 127
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

float round_to_f16(float f) { return f16_to_f32(f32_to_f16(f)); }

// ---- norms, activation quantization, activations ----------------------------------------------------

void rmsnorm(std::span<const float> x, std::span<const float> w, float eps, std::span<float> out) {
  require(!x.empty(), "rmsnorm", "empty input");
  require(w.size() == x.size() && out.size() == x.size(), "rmsnorm",
          "size mismatch: x " + sz(x.size()) + ", w " + sz(w.size()) + ", out " + sz(out.size()));
  float ss = 0.f;
  for (float v : x) ss += v * v;
  const float inv = 1.f / std::sqrt(ss / static_cast<float>(x.size()) + eps);
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = x[i] * inv * w[i];
}

float quantize_int8_per_token(std::span<const float> x, std::span<int8_t> xq) {
  require(xq.size() == x.size(), "quantize_int8_per_token",
          "size mismatch: x " + sz(x.size()) + ", xq " + sz(xq.size()));
  float amax = 0.f;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  const float s = 127.f / std::max(amax, 1e-5f);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const float r = std::round(x[i] * s);  // std::round: halves go away from zero
    xq[i] = static_cast<int8_t>(std::clamp(r, -128.f, 127.f));
  }
  return s;
}

void squared_relu_gate(std::span<const float> g, std::span<const float> u, std::span<float> out) {
  require(u.size() == g.size() && out.size() == g.size(), "squared_relu_gate",
          "size mismatch: g " + sz(g.size()) + ", u " + sz(u.size()) + ", out " + sz(out.size()));
  for (std::size_t i = 0; i < g.size(); ++i) {
    const float r = std::max(g[i], 0.f);
    out[i] = r * r * u[i];
  }
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
  require(m.cols % 128 == 0, op, "matrix has " + sz(m.cols) + " columns, not a multiple of 128");
}
}  // namespace

void decode_ternary_row(const TernaryMatrix& m, uint32_t row, std::span<int8_t> out) {
  check_matrix(m, "decode_ternary_row");
  require(row < m.rows, "decode_ternary_row", "row " + sz(row) + " of a matrix with " + sz(m.rows) + " rows");
  require(out.size() == m.cols, "decode_ternary_row",
          "output has " + sz(out.size()) + " entries, the row " + sz(m.cols));
  cpu::decode_row(m, row, out.data());
}

void ternary_matvec(const TernaryMatrix& m, std::span<const int8_t> xq, float s, std::span<float> y) {
  ternary_matmul(m, xq, std::span<const float>(&s, 1), y);
}

void ternary_matmul(const TernaryMatrix& m, std::span<const int8_t> xq, std::span<const float> s,
                    std::span<float> y) {
  check_matrix(m, "ternary_matmul");
  const std::size_t n = s.size();
  require(n >= 1, "ternary_matmul", "no tokens");
  require(xq.size() == n * m.cols, "ternary_matmul",
          "input has " + sz(xq.size()) + " entries, expected " + sz(n) + " tokens x " + sz(m.cols));
  require(y.size() == n * m.rows, "ternary_matmul",
          "output has " + sz(y.size()) + " entries, expected " + sz(n) + " tokens x " + sz(m.rows));
  cpu::ternary_rows(m, xq.data(), s.data(), n, y.data(), 0, m.rows);
}

void bitlinear(const TernaryMatrix& m, std::span<const float> x, std::span<float> y) {
  std::vector<int8_t> xq(x.size());
  const float s = quantize_int8_per_token(x, xq);
  ternary_matvec(m, xq, s, y);
}

// ---- attention --------------------------------------------------------------------------------------

void rope_neox(std::span<float> vec, uint32_t head_dim, int32_t pos, float base) {
  require(head_dim >= 2 && head_dim % 2 == 0, "rope_neox", "head_dim " + sz(head_dim) + " is not a positive even number");
  require(vec.size() % head_dim == 0, "rope_neox",
          "vector of " + sz(vec.size()) + " entries is not a whole number of heads of " + sz(head_dim));
  const uint32_t half = head_dim / 2;
  for (uint32_t i = 0; i < half; ++i) {
    const double theta = static_cast<double>(pos) * std::pow(static_cast<double>(base), -2.0 * i / head_dim);
    const auto c = static_cast<float>(std::cos(theta));
    const auto sn = static_cast<float>(std::sin(theta));
    for (std::size_t h = 0; h < vec.size(); h += head_dim) {
      const float a = vec[h + i], b = vec[h + i + half];
      vec[h + i] = a * c - b * sn;
      vec[h + i + half] = a * sn + b * c;
    }
  }
}

namespace {
inline float widen(float v) { return v; }
inline float widen(uint16_t v) { return f16_to_f32(v); }

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
  const uint32_t group = heads / kv_heads;
  const float scale = 1.f / std::sqrt(static_cast<float>(head_dim));
  std::vector<float> p(n_ctx);
  for (uint32_t h = 0; h < heads; ++h) {
    const std::size_t kvoff = std::size_t{h / group} * head_dim;
    const float* qh = q.data() + std::size_t{h} * head_dim;
    float mx = -INFINITY;
    for (uint32_t t = 0; t < n_ctx; ++t) {
      const T* kt = k.data() + t * kvdim + kvoff;
      float dot = 0.f;
      for (uint32_t d = 0; d < head_dim; ++d) dot += qh[d] * widen(kt[d]);
      p[t] = dot * scale;
      mx = std::max(mx, p[t]);
    }
    float sum = 0.f;
    for (uint32_t t = 0; t < n_ctx; ++t) {
      p[t] = std::exp(p[t] - mx);
      sum += p[t];
    }
    float* oh = out.data() + std::size_t{h} * head_dim;
    std::fill(oh, oh + head_dim, 0.f);
    for (uint32_t t = 0; t < n_ctx; ++t) {
      const T* vt = v.data() + t * kvdim + kvoff;
      const float w = p[t] / sum;
      for (uint32_t d = 0; d < head_dim; ++d) oh[d] += w * widen(vt[d]);
    }
  }
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
  for (uint32_t t = 0; t < vocab; ++t) {
    const uint16_t* row = token_embd + static_cast<std::size_t>(t) * dim;
    float acc = 0.f;
    for (uint32_t d = 0; d < dim; ++d) acc += f16_to_f32(row[d]) * x[d];
    logits[t] = acc;
  }
}

uint32_t argmax(std::span<const float> values) {
  require(!values.empty(), "argmax", "empty input");
  uint32_t best = 0;
  for (uint32_t i = 1; i < values.size(); ++i)
    if (values[i] > values[best]) best = i;
  return best;
}

}  // namespace trit::ref
