#pragma once
// The CPU reference forward pass of BitNet b1.58 (../shared/docs/bitnet-b158.md), built from the
// primitives of reference_ops.h run in double precision (src/cpu/ops_impl.h says why), or in fp32
// (Precision::Fp32: the same arithmetic with float activations, as the fp32 GPU build runs): int8 per-token
// activation quantization before every bitlinear (W1.58A8), exact int32 ternary sums, NeoX RoPE, GQA,
// sub-norms, squared ReLU, tied F16 LM head. In double it reproduces the golden logits bit for bit with
// an F16 cache. It is the yardstick the Vulkan engine is measured against, so it favours clarity over speed;
// rows of each matrix product may be split over a few threads, which does not change a single bit.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "trit/forward.h"
#include "trit/model.h"

namespace trit {

class CpuForward final : public Forward {
 public:
  // context: the session's context length, 1..model context (0 picks the model's trained length).
  // kv: F16 rounds K (after RoPE) and V to binary16 when they are stored; F32 keeps them exact.
  // threads: how many threads share each matrix product (0: std::thread::hardware_concurrency()).
  // precision: of the activations (F64: the yardstick). Throws std::invalid_argument for a context
  // outside 1..model context.
  CpuForward(std::shared_ptr<const Model> model, KvPrecision kv, int32_t context = 0, unsigned threads = 1,
             Precision precision = Precision::F64);

  // See Forward::eval. Also throws std::invalid_argument for an empty block, a negative pos, a pos past
  // the positions already in the cache (that would leave a hole) or a logits span of the wrong size,
  // and std::out_of_range for a token outside the vocabulary; in every error case the cache is
  // untouched.
  void eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) override;

  int32_t context_length() const override { return context_; }
  int32_t vocab_size() const override;
  KvPrecision kv_precision() const { return kv_; }
  Precision precision() const { return precision_; }
  // Positions currently held in the KV cache (the next position a continuation starts at).
  int32_t cached_positions() const { return filled_; }
  int32_t cached_positions(int32_t seq) const override;  // (one sequence: seq 0)

 private:
  void ensure_cache(int32_t positions);
  // eval() with activations of type R (float or double), after the arguments were checked.
  template <typename R>
  void forward(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits);
  template <typename R>
  void store_kv(uint32_t layer, int32_t pos, const R* k, const R* v);
  template <typename R>
  void attend(uint32_t layer, const R* q, int32_t n_ctx, R* out) const;
  // y[n x m.rows] = bitlinear(m, x[n x m.cols]) token by token, rows split over the threads.
  template <typename R>
  void bitlinear_block(const TernaryMatrix& m, const R* x, std::size_t n, R* y);

  std::shared_ptr<const Model> model_;
  KvPrecision kv_;
  int32_t context_;
  unsigned threads_;
  Precision precision_;
  int32_t filled_ = 0;
  int32_t cache_positions_ = 0;  // allocated positions per layer; grows on demand up to context_
  // Per layer [positions x kv_heads*head_dim]; one pair is used, by kv_ and (unrounded) precision_.
  std::vector<std::vector<uint16_t>> k16_, v16_;
  std::vector<std::vector<float>> k32_, v32_;
  std::vector<std::vector<double>> k64_, v64_;
  std::vector<int8_t> xq_;    // scratch for the quantized activations of a block
  std::vector<double> xs64_;  // their per-token scales (one of the two, by precision_)
  std::vector<float> xs32_;
};

}  // namespace trit
