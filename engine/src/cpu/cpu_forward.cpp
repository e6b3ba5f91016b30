// The CPU reference forward pass: the spec's pseudo-code (bitnet-b158.md, "Forward pass for one token")
// run over a block of tokens, one layer at a time. A block is processed as a whole per matrix so each
// weight row is decoded once per block; attention for token t of the block sees positions [0, pos+t],
// which is exactly the causal view token-by-token evaluation would give.
#include "trit/cpu_forward.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <thread>

#include "cpu/parallel.h"
#include "cpu/ternary_rows.h"
#include "trit/reference_ops.h"

namespace trit {
namespace {

std::span<float> row(std::vector<float>& v, std::size_t i, std::size_t width) {
  return std::span<float>(v).subspan(i * width, width);
}

}  // namespace

CpuForward::CpuForward(std::shared_ptr<const Model> model, KvPrecision kv, int32_t context, unsigned threads)
    : model_(std::move(model)), kv_(kv), context_(context), threads_(threads) {
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
  } else {
    k32_.resize(layers);
    v32_.resize(layers);
  }
}

int32_t CpuForward::vocab_size() const { return static_cast<int32_t>(model_->config().vocab); }

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
  cache_positions_ = grown;
}

void CpuForward::store_kv(uint32_t layer, int32_t pos, std::span<const float> k, std::span<const float> v) {
  const std::size_t off = static_cast<std::size_t>(pos) * k.size();
  if (kv_ == KvPrecision::F16) {
    for (std::size_t i = 0; i < k.size(); ++i) {
      k16_[layer][off + i] = ref::f32_to_f16(k[i]);
      v16_[layer][off + i] = ref::f32_to_f16(v[i]);
    }
  } else {
    std::copy(k.begin(), k.end(), k32_[layer].begin() + static_cast<std::ptrdiff_t>(off));
    std::copy(v.begin(), v.end(), v32_[layer].begin() + static_cast<std::ptrdiff_t>(off));
  }
}

void CpuForward::attend(uint32_t layer, std::span<const float> q, int32_t n_ctx, std::span<float> out) const {
  const auto& cfg = model_->config();
  const auto n = static_cast<uint32_t>(n_ctx);
  if (kv_ == KvPrecision::F16)
    ref::attention(q, std::span<const uint16_t>(k16_[layer]), std::span<const uint16_t>(v16_[layer]), n, cfg.heads,
                   cfg.kv_heads, cfg.head_dim, out);
  else
    ref::attention(q, std::span<const float>(k32_[layer]), std::span<const float>(v32_[layer]), n, cfg.heads,
                   cfg.kv_heads, cfg.head_dim, out);
}

void CpuForward::bitlinear_block(const TernaryMatrix& m, std::span<const float> x, std::size_t n, std::span<float> y) {
  xq_.resize(n * m.cols);
  xs_.resize(n);
  for (std::size_t t = 0; t < n; ++t)
    xs_[t] = ref::quantize_int8_per_token(x.subspan(t * m.cols, m.cols),
                                          std::span<int8_t>(xq_).subspan(t * m.cols, m.cols));
  cpu::parallel_for(m.rows, threads_, [&](std::size_t r0, std::size_t r1) {
    cpu::ternary_rows(m, xq_.data(), xs_.data(), n, y.data(), static_cast<uint32_t>(r0), static_cast<uint32_t>(r1));
  });
}

void CpuForward::eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) {
  const auto& cfg = model_->config();
  const auto& w = model_->weights();
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

  const std::size_t dim = cfg.dim, qdim = std::size_t{cfg.heads} * cfg.head_dim,
                    kvdim = std::size_t{cfg.kv_heads} * cfg.head_dim, ffn = cfg.ffn;
  std::vector<float> x(n * dim), h(n * dim), q(n * qdim), k(n * kvdim), v(n * kvdim), o(n * qdim), proj(n * dim),
      gate(n * ffn), up(n * ffn);

  for (std::size_t t = 0; t < n; ++t) ref::embed_token(w.token_embd, cfg.vocab, cfg.dim, tokens[t], row(x, t, dim));

  for (uint32_t l = 0; l < cfg.layers; ++l) {
    const LayerWeights& lw = w.layers[l];

    // Attention block.
    for (std::size_t t = 0; t < n; ++t) ref::rmsnorm(row(x, t, dim), lw.attn_norm, cfg.rms_eps, row(h, t, dim));
    bitlinear_block(lw.wq, h, n, q);
    bitlinear_block(lw.wk, h, n, k);
    bitlinear_block(lw.wv, h, n, v);
    for (std::size_t t = 0; t < n; ++t) {
      const int32_t p = pos + static_cast<int32_t>(t);
      ref::rope_neox(row(q, t, qdim), cfg.head_dim, p, cfg.rope_base);
      ref::rope_neox(row(k, t, kvdim), cfg.head_dim, p, cfg.rope_base);
      store_kv(l, p, row(k, t, kvdim), row(v, t, kvdim));
    }
    cpu::parallel_for(n, threads_, [&](std::size_t t0, std::size_t t1) {
      for (std::size_t t = t0; t < t1; ++t)
        attend(l, row(q, t, qdim), pos + static_cast<int32_t>(t) + 1, row(o, t, qdim));
    });
    for (std::size_t t = 0; t < n; ++t) ref::rmsnorm(row(o, t, qdim), lw.attn_sub_norm, cfg.rms_eps, row(o, t, qdim));
    bitlinear_block(lw.wo, o, n, proj);
    for (std::size_t i = 0; i < n * dim; ++i) x[i] += proj[i];

    // Feed-forward block: squared ReLU gate, sub-norm over ffn.
    for (std::size_t t = 0; t < n; ++t) ref::rmsnorm(row(x, t, dim), lw.ffn_norm, cfg.rms_eps, row(h, t, dim));
    bitlinear_block(lw.gate, h, n, gate);
    bitlinear_block(lw.up, h, n, up);
    ref::squared_relu_gate(gate, up, gate);
    for (std::size_t t = 0; t < n; ++t)
      ref::rmsnorm(row(gate, t, ffn), lw.ffn_sub_norm, cfg.rms_eps, row(gate, t, ffn));
    bitlinear_block(lw.down, gate, n, proj);
    for (std::size_t i = 0; i < n * dim; ++i) x[i] += proj[i];
  }

  // Tied LM head on the tokens whose logits are wanted, vocabulary rows split over the threads.
  const std::size_t first = all_logits ? 0 : n - 1;
  for (std::size_t t = first; t < n; ++t) {
    std::span<float> xt = row(x, t, dim);
    ref::rmsnorm(xt, w.output_norm, cfg.rms_eps, xt);
    std::span<float> out = logits.subspan((t - first) * cfg.vocab, cfg.vocab);
    cpu::parallel_for(cfg.vocab, threads_, [&](std::size_t v0, std::size_t v1) {
      ref::lm_head(w.token_embd + v0 * dim, static_cast<uint32_t>(v1 - v0), cfg.dim, xt, out.subspan(v0, v1 - v0));
    });
  }
  filled_ = pos + static_cast<int32_t>(n);
}

}  // namespace trit
