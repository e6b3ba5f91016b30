// The CPU reference forward pass: the spec's pseudo-code (bitnet-b158.md, "Forward pass for one token")
// run over a block of tokens, one layer at a time, with activations in double precision (ops_impl.h
// says why; the ternary sums are exact integers either way) or, for the fp32 build's checks, in float.
// The KV cache holds F16 (rounded once from the activation) or unrounded values (float, or double in
// the double run), as the golden files' two variants do. A block is processed as a whole per matrix
// so each weight row is decoded once per block; attention for token t of the block sees
// positions [0, pos+t], exactly the causal view token-by-token evaluation gives.
#include "trit/cpu_forward.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "cpu/ops_impl.h"
#include "cpu/parallel.h"
#include "cpu/ternary_rows.h"
#include "trit/reference_ops.h"

namespace trit {
namespace {

template <typename R>
R* row(std::vector<R>& v, std::size_t i, std::size_t width) {
  return v.data() + i * width;
}

uint16_t to_f16(double v) {
  return ref::f64_to_f16(v);
}
uint16_t to_f16(float v) {
  return ref::f32_to_f16(v);
}

}  // namespace

CpuForward::CpuForward(std::shared_ptr<const Model> model, KvPrecision kv, int32_t context, unsigned threads,
                       Precision precision)
    : model_(std::move(model)), kv_(kv), context_(context), threads_(threads), precision_(precision) {
  if (!model_) throw std::invalid_argument("CpuForward: no model");
  const auto& cfg = model_->config();
  const auto model_ctx = static_cast<int32_t>(cfg.context);
  if (context_ == 0) context_ = model_ctx;
  if (context_ < 1 || context_ > model_ctx)
    throw std::invalid_argument("CpuForward: context length " + std::to_string(context) + " is outside 1.." +
                                std::to_string(model_ctx) + " (the model's context length)");
  if (threads_ == 0) threads_ = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t layers = cfg.layers;
  if (kv_ == KvPrecision::F16) {
    k16_.resize(layers);
    v16_.resize(layers);
  } else if (precision_ == Precision::F64) {
    k64_.resize(layers);
    v64_.resize(layers);
  } else {
    k32_.resize(layers);
    v32_.resize(layers);
  }
}

int32_t CpuForward::vocab_size() const {
  return static_cast<int32_t>(model_->config().vocab);
}

int32_t CpuForward::cached_positions(int32_t seq) const {
  if (seq != 0) throw std::out_of_range("CpuForward holds one sequence; sequence " + std::to_string(seq) + " asked");
  return filled_;
}

void CpuForward::ensure_cache(int32_t positions) {
  if (positions <= cache_positions_) return;
  // Grow geometrically (a session of a few tokens does not pay for the whole context up front).
  const int32_t grown = std::min(context_, std::max(positions, std::max(64, cache_positions_ * 2)));
  const auto& cfg = model_->config();
  const std::size_t n = static_cast<std::size_t>(grown) * cfg.kv_heads * cfg.head_dim;
  for (auto* caches : {&k16_, &v16_})
    for (auto& c : *caches) c.resize(n);
  for (auto* caches : {&k32_, &v32_})
    for (auto& c : *caches) c.resize(n);
  for (auto* caches : {&k64_, &v64_})
    for (auto& c : *caches) c.resize(n);
  cache_positions_ = grown;
}

template <typename R>
void CpuForward::store_kv(uint32_t layer, int32_t pos, const R* k, const R* v) {
  const auto& cfg = model_->config();
  const std::size_t n = std::size_t{cfg.kv_heads} * cfg.head_dim, off = static_cast<std::size_t>(pos) * n;
  for (std::size_t i = 0; i < n; ++i) {
    if (kv_ == KvPrecision::F16) {
      k16_[layer][off + i] = to_f16(k[i]);
      v16_[layer][off + i] = to_f16(v[i]);
    } else if constexpr (std::is_same_v<R, double>) {
      k64_[layer][off + i] = k[i];
      v64_[layer][off + i] = v[i];
    } else {
      k32_[layer][off + i] = k[i];
      v32_[layer][off + i] = v[i];
    }
  }
}

template <typename R>
void CpuForward::attend(uint32_t layer, const R* q, int32_t n_ctx, R* out) const {
  const auto& cfg = model_->config();
  const auto n = static_cast<uint32_t>(n_ctx);
  if (kv_ == KvPrecision::F16)
    cpu::attention(q, k16_[layer].data(), v16_[layer].data(), n, cfg.heads, cfg.kv_heads, cfg.head_dim, out);
  else if constexpr (std::is_same_v<R, double>)
    cpu::attention(q, k64_[layer].data(), v64_[layer].data(), n, cfg.heads, cfg.kv_heads, cfg.head_dim, out);
  else
    cpu::attention(q, k32_[layer].data(), v32_[layer].data(), n, cfg.heads, cfg.kv_heads, cfg.head_dim, out);
}

template <typename R>
void CpuForward::bitlinear_block(const TernaryMatrix& m, const R* x, std::size_t n, R* y) {
  std::vector<R>& xs = [this]() -> std::vector<R>& {
    if constexpr (std::is_same_v<R, double>)
      return xs64_;
    else
      return xs32_;
  }();
  xq_.resize(n * m.cols);
  xs.resize(n);
  for (std::size_t t = 0; t < n; ++t) xs[t] = cpu::quantize_int8(x + t * m.cols, m.cols, xq_.data() + t * m.cols);
  cpu::parallel_for(m.rows, threads_, [&](std::size_t r0, std::size_t r1) {
    cpu::ternary_rows<R>(m, xq_.data(), xs.data(), n, y, static_cast<uint32_t>(r0), static_cast<uint32_t>(r1));
  });
}

void CpuForward::eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) {
  const auto& cfg = model_->config();
  const std::size_t n = tokens.size();

  // Validate everything before touching the cache.
  if (n == 0) throw std::invalid_argument("CpuForward::eval: no tokens to evaluate");
  if (pos < 0) throw std::invalid_argument("CpuForward::eval: negative position " + std::to_string(pos));
  if (static_cast<int64_t>(pos) + static_cast<int64_t>(n) > context_)
    throw ContextFullError("context full: " + std::to_string(n) + " token(s) at position " + std::to_string(pos) +
                           " would pass the context length of " + std::to_string(context_));
  if (pos > filled_)
    throw std::invalid_argument("CpuForward::eval: position " + std::to_string(pos) + " is past the " +
                                std::to_string(filled_) + " position(s) in the KV cache");
  const std::size_t want = (all_logits ? n : 1) * cfg.vocab;
  if (logits.size() != want)
    throw std::invalid_argument("CpuForward::eval: logits span has " + std::to_string(logits.size()) +
                                " entries, expected " + std::to_string(want));
  for (std::size_t t = 0; t < n; ++t)
    if (tokens[t] < 0 || static_cast<uint32_t>(tokens[t]) >= cfg.vocab)
      throw std::out_of_range("CpuForward::eval: token " + std::to_string(tokens[t]) + " at index " +
                              std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(cfg.vocab) + ")");

  ensure_cache(pos + static_cast<int32_t>(n));
  filled_ = pos;  // positions from pos on are being rewritten; if anything below throws, they are gone
  if (precision_ == Precision::F64)
    forward<double>(tokens, pos, logits, all_logits);
  else
    forward<float>(tokens, pos, logits, all_logits);
  filled_ = pos + static_cast<int32_t>(n);
}

template <typename R>
void CpuForward::forward(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) {
  const auto& cfg = model_->config();
  const auto& w = model_->weights();
  const std::size_t n = tokens.size();
  const std::size_t dim = cfg.dim, qdim = std::size_t{cfg.heads} * cfg.head_dim,
                    kvdim = std::size_t{cfg.kv_heads} * cfg.head_dim, ffn = cfg.ffn;
  const float eps = cfg.rms_eps;
  std::vector<R> x(n * dim), h(n * dim), q(n * qdim), k(n * kvdim), v(n * kvdim), o(n * qdim), proj(n * dim),
      gate(n * ffn), up(n * ffn);

  for (std::size_t t = 0; t < n; ++t) {
    const uint16_t* e = w.token_embd + static_cast<std::size_t>(tokens[t]) * dim;
    for (std::size_t d = 0; d < dim; ++d) x[t * dim + d] = ref::f16_to_f32(e[d]);
  }

  for (uint32_t l = 0; l < cfg.layers; ++l) {
    const LayerWeights& lw = w.layers[l];

    // Attention block.
    for (std::size_t t = 0; t < n; ++t) cpu::rmsnorm(row(x, t, dim), lw.attn_norm.data(), dim, eps, row(h, t, dim));
    bitlinear_block(lw.wq, h.data(), n, q.data());
    bitlinear_block(lw.wk, h.data(), n, k.data());
    bitlinear_block(lw.wv, h.data(), n, v.data());
    for (std::size_t t = 0; t < n; ++t) {
      const int32_t p = pos + static_cast<int32_t>(t);
      cpu::rope(row(q, t, qdim), qdim, cfg.head_dim, p, cfg.rope_base, cfg.arch.rope);
      cpu::rope(row(k, t, kvdim), kvdim, cfg.head_dim, p, cfg.rope_base, cfg.arch.rope);
      store_kv(l, p, row(k, t, kvdim), row(v, t, kvdim));
    }
    // Token t sees positions [0, pos + t]: causal within the block as well as over the cache.
    cpu::parallel_for(n, threads_, [&](std::size_t t0, std::size_t t1) {
      for (std::size_t t = t0; t < t1; ++t)
        attend(l, row(q, t, qdim), pos + static_cast<int32_t>(t) + 1, row(o, t, qdim));
    });
    if (cfg.arch.sub_norms)
      for (std::size_t t = 0; t < n; ++t)
        cpu::rmsnorm(row(o, t, qdim), lw.attn_sub_norm.data(), qdim, eps, row(o, t, qdim));
    bitlinear_block(lw.wo, o.data(), n, proj.data());
    for (std::size_t i = 0; i < n * dim; ++i) x[i] += proj[i];

    // Feed-forward block: squared-ReLU or SiLU gate, then the sub-norm over ffn where the architecture has it.
    for (std::size_t t = 0; t < n; ++t) cpu::rmsnorm(row(x, t, dim), lw.ffn_norm.data(), dim, eps, row(h, t, dim));
    bitlinear_block(lw.gate, h.data(), n, gate.data());
    bitlinear_block(lw.up, h.data(), n, up.data());
    if (cfg.arch.ffn == FfnKind::SquaredRelu)
      cpu::squared_relu_gate(gate.data(), up.data(), n * ffn, gate.data());
    else
      cpu::silu_gate(gate.data(), up.data(), n * ffn, gate.data());
    if (cfg.arch.sub_norms)
      for (std::size_t t = 0; t < n; ++t)
        cpu::rmsnorm(row(gate, t, ffn), lw.ffn_sub_norm.data(), ffn, eps, row(gate, t, ffn));
    bitlinear_block(lw.down, gate.data(), n, proj.data());
    for (std::size_t i = 0; i < n * dim; ++i) x[i] += proj[i];
  }

  // Final norm and LM head on the tokens whose logits are wanted; vocabulary rows over the threads.
  const std::size_t first = all_logits ? 0 : n - 1, wanted = n - first;
  for (std::size_t t = first; t < n; ++t) cpu::rmsnorm(row(x, t, dim), w.output_norm.data(), dim, eps, row(x, t, dim));
  const R* xs = row(x, first, dim);
  cpu::parallel_for(cfg.vocab, threads_, [&](std::size_t r0, std::size_t r1) {
    cpu::lm_head_rows(w.head(), cfg.dim, xs, wanted, logits.data(), cfg.vocab, r0, r1);
  });
}

}  // namespace trit
