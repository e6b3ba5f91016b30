#pragma once
// The primitive operations of the BitNet b1.58 forward pass as plain, readable functions
// (../shared/docs/bitnet-b158.md), in fp32 as a GPU kernel computes them: every kernel is tested
// against these. The integer sums of the ternary products are exact in int32. The CPU reference
// forward pass (cpu_forward.h) runs the very same code (src/cpu/ops_impl.h) in double precision,
// which is what reproduces the golden logits; see there for why. Nothing here allocates or keeps state
// unless it says so; sizes are checked and a mismatch throws std::invalid_argument naming the operation.
#include <cstddef>
#include <cstdint>
#include <span>

#include "trit/model.h"

namespace trit::ref {

// ---- half precision ---------------------------------------------------------------------------------

// IEEE binary16 bits -> float. Exact for every input: subnormals, +-0, +-inf, NaN (payload kept).
float f16_to_f32(uint16_t h);

// float -> IEEE binary16 bits, rounding to nearest, ties to even. Values at or above 65520 in magnitude
// become inf, values that round below the smallest subnormal (2^-24) become a signed zero, results
// in the subnormal range are rounded like any other, NaN stays NaN (quiet, top payload bits kept).
uint16_t f32_to_f16(float f);

// f32_to_f16 then f16_to_f32: the value a float takes when stored in an F16 buffer (the F16 KV cache).
float round_to_f16(float f);

// double -> IEEE binary16 bits with one rounding (to nearest even), never through float first (that
// would round twice and miss the nearest half for values just beside a midpoint). Same rules as above.
uint16_t f64_to_f16(double d);

// ---- norms, activation quantization, activations ----------------------------------------------------

// out[i] = x[i] / sqrt(mean(x^2) + eps) * w[i]. x, w and out have the same size; out may alias x.
void rmsnorm(std::span<const float> x, std::span<const float> w, float eps, std::span<float> out);

// Per-token int8 quantization of a bitlinear input (W1.58A8):
// s = 127 / max(max|x|, 1e-5), xq[i] = clamp(round_half_away_from_zero(x[i] * s), -128, 127).
// Returns s (the caller divides the integer sums by it). xq has the size of x.
float quantize_int8_per_token(std::span<const float> x, std::span<int8_t> xq);

// Squared-ReLU gate of the FFN: out[i] = max(g[i], 0)^2 * u[i]. out may alias g or u.
void squared_relu_gate(std::span<const float> g, std::span<const float> u, std::span<float> out);
// SiLU-gated FFN (LLaMA): out[i] = g[i] / (1 + e^-g[i]) * u[i]. out may alias g or u.
void silu_gate(std::span<const float> g, std::span<const float> u, std::span<float> out);

// ---- I2_S ternary weights ---------------------------------------------------------------------------

// The 2-bit code of flat element i of an I2_S tensor (i = row * cols + col): block = i / 128,
// pos = i % 128, group = pos / 32, byte = codes[block * 32 + pos % 32], code = (byte >> (6 - 2*group)) & 3.
uint32_t i2s_code(const uint8_t* codes, std::size_t i);

// The ternary weight (-1, 0, +1) of flat element i: code - 1 (0 -> -1, 1 -> 0, 2 -> +1).
// Throws std::invalid_argument on code 3, which a valid file never holds.
int i2s_weight(const uint8_t* codes, std::size_t i);

// Decodes row `row` of m into out[0..m.cols) as -1/0/+1 (code - 1; assumes codes were validated, so a
// code 3 comes out as +2 rather than throwing: this is the hot path of the reference matmul).
void decode_ternary_row(const TernaryMatrix& m, uint32_t row, std::span<int8_t> out);

// y[r] = (sum_k w[r][k] * xq[k]) / s * m.scale for r in [0, m.rows): one token through a ternary
// matrix. xq has m.cols entries, y has m.rows; the sum is exact in int32.
void ternary_matvec(const TernaryMatrix& m, std::span<const int8_t> xq, float s, std::span<float> y);

// The same for a block of n tokens: xq is [n x m.cols] row-major, s has n entries (one per token),
// y is [n x m.rows]. Equal, bit for bit, to n calls of ternary_matvec.
void ternary_matmul(const TernaryMatrix& m, std::span<const int8_t> xq, std::span<const float> s, std::span<float> y);

// bitlinear(W, x) = ternary_matvec(W, quantize_int8_per_token(x)): the whole W1.58A8 product of one
// token. x has m.cols entries, y has m.rows.
void bitlinear(const TernaryMatrix& m, std::span<const float> x, std::span<float> y);

// ---- attention --------------------------------------------------------------------------------------

// NeoX rotary embedding in place on vec = [n_heads x head_dim] (any number of heads, one position):
// within each head, dimension i pairs with i + head_dim/2 for i in [0, head_dim/2), angle
// theta = pos * base^(-2i/head_dim), (a, b) -> (a cos - b sin, a sin + b cos). The angle is computed
// in double precision (large positions lose the low bits of theta in float), applied in float.
// head_dim must be even and divide vec.size().
void rope_neox(std::span<float> vec, uint32_t head_dim, int32_t pos, float base);
// The normal (GPT-J / LLaMA, llama.cpp's NORM) rotary embedding: element 2i pairs with 2i + 1, with the
// same angle; otherwise as rope_neox.
void rope_normal(std::span<float> vec, uint32_t head_dim, int32_t pos, float base);

// Attention of one query over the first n_ctx positions of a KV cache (the caller makes it causal by
// passing n_ctx = query position + 1). q and out are [heads x head_dim]; k and v are row-major
// [positions x (kv_heads * head_dim)] with at least n_ctx rows. Query head h reads KV head
// h / (heads / kv_heads) (GQA). out[h] = softmax(q[h] . K^T / sqrt(head_dim)) . V, the softmax
// subtracting the row maximum first. heads must be a multiple of kv_heads and n_ctx >= 1.
void attention(std::span<const float> q, std::span<const float> k, std::span<const float> v, uint32_t n_ctx,
               uint32_t heads, uint32_t kv_heads, uint32_t head_dim, std::span<float> out);

// The same over an F16 cache (IEEE binary16 bits, widened with f16_to_f32 as they are read).
void attention(std::span<const float> q, std::span<const uint16_t> k, std::span<const uint16_t> v, uint32_t n_ctx,
               uint32_t heads, uint32_t kv_heads, uint32_t head_dim, std::span<float> out);

// ---- embedding and LM head --------------------------------------------------------------------------

// out = token_embd[token] widened to float; token_embd is F16 [vocab x dim], out has dim entries.
// Throws std::out_of_range if token is not in [0, vocab).
void embed_token(const uint16_t* token_embd, uint32_t vocab, uint32_t dim, int32_t token, std::span<float> out);

// Tied F16 LM head: logits[t] = sum_d token_embd[t][d] * x[d] for t in [0, vocab). x has dim entries,
// logits has vocab.
void lm_head(const uint16_t* token_embd, uint32_t vocab, uint32_t dim, std::span<const float> x,
             std::span<float> logits);

// Index of the largest value (the first one on ties). Throws std::invalid_argument on an empty span.
uint32_t argmax(std::span<const float> values);

}  // namespace trit::ref
