#pragma once
// The arithmetic of the reference primitives, written once for a working precision R (float or double).
// reference_ops.cpp exposes the float instantiation (what a GPU kernel computes, so kernels are tested
// against it); the CPU forward pass runs the double one. Why double there: the activation quantization
// makes the network discontinuous, and on the golden models one int8 rounding that lands on the other
// side of a .5 (or one K/V value on the other side of an F16 rounding midpoint) shifts every later
// logit by tenths. The golden logits were computed in double; an fp32 pipeline crosses such a boundary
// within a few dozen tokens, a double one does not, so the yardstick stays a yardstick.
// No size checks here: the public wrappers and CpuForward validate before calling.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "trit/model.h"
#include "trit/reference_ops.h"

namespace trit::cpu {

inline float widen(float v) {
  return v;
}
inline double widen(double v) {
  return v;
}
inline float widen(uint16_t v) {
  return ref::f16_to_f32(v);
}

// out = x / sqrt(mean(x^2) + eps) * w; out may alias x.
template <typename R>
void rmsnorm(const R* x, const float* w, std::size_t n, float eps, R* out) {
  R ss = 0;
  for (std::size_t i = 0; i < n; ++i) ss += x[i] * x[i];
  const R inv = R(1) / std::sqrt(ss / static_cast<R>(n) + static_cast<R>(eps));
  for (std::size_t i = 0; i < n; ++i) out[i] = x[i] * inv * static_cast<R>(w[i]);
}

// s = 127 / max(max|x|, 1e-5); xq = clamp(round_half_away(x * s), -128, 127); returns s.
template <typename R>
R quantize_int8(const R* x, std::size_t n, int8_t* xq) {
  R amax = 0;
  for (std::size_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(x[i]));
  const R s = R(127) / std::max(amax, static_cast<R>(1e-5f));
  for (std::size_t i = 0; i < n; ++i)
    xq[i] = static_cast<int8_t>(std::clamp(std::round(x[i] * s), R(-128), R(127)));  // std::round: half away
  return s;
}

// out = max(g, 0)^2 * u; out may alias g or u.
template <typename R>
void squared_relu_gate(const R* g, const R* u, std::size_t n, R* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const R r = std::max(g[i], R(0));
    out[i] = r * r * u[i];
  }
}

// out = silu(g) * u = g / (1 + e^-g) * u; out may alias g or u.
template <typename R>
void silu_gate(const R* g, const R* u, std::size_t n, R* out) {
  for (std::size_t i = 0; i < n; ++i) out[i] = g[i] / (R(1) + std::exp(-g[i])) * u[i];
}

// RoPE in place over n / head_dim heads; the angle in double, applied in R. NeoX pairs element i with
// i + head_dim/2, normal (LLaMA) pairs 2i with 2i + 1; pair i turns by pos * base^(-2i/head_dim) in both.
template <typename R>
void rope(R* vec, std::size_t n, uint32_t head_dim, int32_t pos, float base, RopeStyle style) {
  const uint32_t half = head_dim / 2;
  const bool neox = style == RopeStyle::NeoX;
  for (uint32_t i = 0; i < half; ++i) {
    const double theta = static_cast<double>(pos) * std::pow(static_cast<double>(base), -2.0 * i / head_dim);
    const auto c = static_cast<R>(std::cos(theta));
    const auto sn = static_cast<R>(std::sin(theta));
    const uint32_t first = neox ? i : 2 * i, second = neox ? i + half : 2 * i + 1;
    for (std::size_t h = 0; h < n; h += head_dim) {
      const R a = vec[h + first], b = vec[h + second];
      vec[h + first] = a * c - b * sn;
      vec[h + second] = a * sn + b * c;
    }
  }
}

// One query over cache rows [0, n_ctx) of [positions x kv_heads*head_dim] (T: float, double or F16 bits).
template <typename R, typename T>
void attention(const R* q, const T* k, const T* v, uint32_t n_ctx, uint32_t heads, uint32_t kv_heads, uint32_t head_dim,
               R* out) {
  const std::size_t kvdim = std::size_t{kv_heads} * head_dim;
  const uint32_t group = heads / kv_heads;
  const R scale = R(1) / std::sqrt(static_cast<R>(head_dim));
  std::vector<R> p(n_ctx);
  for (uint32_t h = 0; h < heads; ++h) {
    const std::size_t kvoff = std::size_t{h / group} * head_dim;
    const R* qh = q + std::size_t{h} * head_dim;
    R mx = -INFINITY;
    for (uint32_t t = 0; t < n_ctx; ++t) {
      const T* kt = k + t * kvdim + kvoff;
      R dot = 0;
      for (uint32_t d = 0; d < head_dim; ++d) dot += qh[d] * static_cast<R>(widen(kt[d]));
      p[t] = dot * scale;
      mx = std::max(mx, p[t]);
    }
    R sum = 0;
    for (uint32_t t = 0; t < n_ctx; ++t) {
      p[t] = std::exp(p[t] - mx);
      sum += p[t];
    }
    R* oh = out + std::size_t{h} * head_dim;
    std::fill(oh, oh + head_dim, R(0));
    for (uint32_t t = 0; t < n_ctx; ++t) {
      const T* vt = v + t * kvdim + kvoff;
      const R w = p[t] / sum;
      for (uint32_t d = 0; d < head_dim; ++d) oh[d] += w * static_cast<R>(widen(vt[d]));
    }
  }
}

// LM head (the tied embedding or the untied output.weight, F16) for n tokens at once: logits[t * vocab_stride + r] =
// sum_d E[r][d] * x[t][d] for rows r in [r0, r1). Each F16 row is widened once and applied to every token.
template <typename R>
void lm_head_rows(const uint16_t* token_embd, uint32_t dim, const R* x, std::size_t n, float* logits,
                  std::size_t vocab_stride, std::size_t r0, std::size_t r1) {
  std::vector<R> e(dim);
  for (std::size_t r = r0; r < r1; ++r) {
    const uint16_t* row = token_embd + r * dim;
    for (uint32_t d = 0; d < dim; ++d) e[d] = static_cast<R>(ref::f16_to_f32(row[d]));
    for (std::size_t t = 0; t < n; ++t) {
      const R* xt = x + t * dim;
      R acc = 0;
      for (uint32_t d = 0; d < dim; ++d) acc += e[d] * xt[d];
      logits[t * vocab_stride + r] = static_cast<float>(acc);
    }
  }
}

}  // namespace trit::cpu
