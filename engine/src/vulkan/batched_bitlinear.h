#pragma once
// The BitLinear steps of a batched decode step (one token of each of several sequences, common.glsl's
// batch mode). Each is two dispatches: every token's input row normalized and quantized to int8 once
// (rmsnorm_quant.glsl, in the order the product reads it), then a small matrix product that reads each
// weight once for all the tokens and meets each loaded input with four rows (shaders/bitlinear_batch.glsl),
// with the one-token kernels' epilogues: RoPE and the KV append, the residual, the gate. Where the device
// offers int8 cooperative matrices (and the file has no block scales) the product runs on them instead
// (shaders/bitlinear_batch_coop.glsl): the same bits, a step's cost nearly flat in its tokens. With an overlap
// (BatchInput::overlap) no barrier separates the two: the product's workgroups load their weights while
// the rows are quantized and wait for a count of them (H100, 2B4T shape: a barrier there cost a step of
// 4 tokens a fifth of its time).
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vulkan/context.h"
#include "vulkan/decode_graph.h"
#include "vulkan/fused_decode.h"

namespace trit::vk {

// A BitLinear's input in a batched step: each token's row of x (k wide), normalized by `norm`'s weights
// (none: quantized as it is). `rows`: where the int8 rows (as wide as the widest input) and a scale per
// token go, for up to rows.tokens tokens (the dispatches cover that many; the step's count is
// params.n_tokens).
struct BatchRows {
  BufferRange q, s;
  uint32_t tokens = 0;
};
// A step whose product kernels overlap their quantization (no barrier between the two; see run):
// `ready` holds a count per BitLinear of the step, zero at its start, `failed` the flag a wait that gave
// up raises; `slot` is this BitLinear's count.
struct BatchOverlap {
  BufferRange ready, failed;
  uint32_t slot = 0;
};
struct BatchInput {
  BufferRange x;
  std::optional<BufferRange> norm;
  float eps = 0;
  BatchRows rows;
  std::optional<BatchOverlap> overlap;  // none: a barrier between the quantization and the product
};

class BatchedBitLinear {
 public:
  // Whether the kernels can serve a model of this shape: input widths multiples of 128 (256 with block
  // scales), projection widths and the head dimension multiples of 4 (a lane group holds two RoPE pairs).
  static bool fits(uint32_t dim, uint32_t ffn, uint32_t qdim, uint32_t kvdim, uint32_t head_dim, bool block_scales);

  // one_token: the one-token kernels, whose numerics these follow (its workgroup sizes for the
  // quantization, its lanes per row where float sums depend on them); it outlives this.
  BatchedBitLinear(const Context& ctx, const FusedDecode& one_token, bool kv_f16, bool f64, bool dot,
                   const DecodeGraph& graph);
  ~BatchedBitLinear();

  // The driver's statistics of each product kernel made so far (Pipeline::statistics), "bitlinear_batch
  // mode M k K: name: value" lines (bitlinear_batch_coop for the cooperative-matrix kernel).
  std::vector<std::string> statistics() const;

  // Starts compiling the kernels a model of this shape records (see FusedDecode::prepare) for steps of
  // up to `tokens` tokens. overlap: the kernels of steps whose products overlap their quantization
  // (BatchInput::overlap).
  void prepare(uint32_t dim, uint32_t qdim, uint32_t kvdim, uint32_t ffn, uint32_t tokens, bool overlap);

  // What the products run on: "cooperative-matrix (VK_NV_cooperative_matrix), int8 16x16x32" or
  // "small-matrix kernel".
  std::string describe() const;

  // Steps of at least this many tokens run their products on cooperative matrices, where the device
  // offers them (0: never); smaller ones on the small-matrix kernel, which is faster there (its cost
  // grows with the tokens, the cooperative-matrix kernel's hardly, from a higher start). A caller
  // records the two sizes apart (VulkanForward's batched steps).
  uint32_t coop_min_tokens() const;
  // Measured (H200, 2B4T shape, tokens/s at context 128, small-matrix -> cooperative-matrix, two
  // rounds): 3 tokens 1,460-1,472 -> 1,352-1,356, 4 tokens 1,879-1,887 -> 1,771-1,781, 5 tokens
  // 2,132-2,144 -> 2,155-2,202, 6 tokens 2,506-2,508 -> 2,604-2,661; after 1,024 tokens 4 tokens 1,636
  // -> 1,560, 6 tokens 2,002 -> 2,166. (The crossover was 7 before the cooperative-matrix kernel's
  // workgroups walked K from different chunks.)
  static constexpr uint32_t kCoopMinTokens = 5;

  // h = int8(norm(x) * nw) per token, then:
  // q = rope(Wq h), rope(Wk h) and Wv h appended to the caches at each token's position of its sequence.
  // dim: width of x; qdim / kvdim: rows of Wq and of Wk / Wv.
  void qkv(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& wq,
           const MatrixRef& wk, const MatrixRef& wv, const BatchInput& in, const BufferRange& q,
           const BufferRange& rope, const BufferRange& k_cache, const BufferRange& v_cache, uint32_t dim, uint32_t qdim,
           uint32_t kvdim, uint32_t head_dim);
  // y += W h (k: width of x, rows: of W).
  void residual(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& w,
                const BatchInput& in, const BufferRange& y, uint32_t rows, uint32_t k);
  // y = relu(Wg h)^2 * (Wu h) (silu(Wg h) * (Wu h) in a SiLU graph).
  void gate(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& wg,
            const MatrixRef& wu, const BatchInput& in, const BufferRange& y, uint32_t rows, uint32_t k);

 private:
  struct Shape {
    uint32_t tpr, vpl, wg, slots;
  };
  Shape shape(uint32_t mode, uint32_t k, uint32_t rows, uint32_t unit) const;
  // Workgroups in y of a product for up to `tokens` tokens (see the .cpp).
  uint32_t side_by_side(const Shape& s, uint32_t k, uint32_t tokens) const;
  struct ProductPush;
  // The cooperative-matrix kernel's fragment shape where the device offers one it tiles (cm 0: none).
  struct Coop {
    uint32_t cm = 0, cn = 0, ck = 0;
    bool khr = false;
  };
  static Coop choose_coop(const DeviceInfo& d, bool block_scales);
  // Its shared memory with `split` subgroups a workgroup and `tiles` token tiles; its subgroups a
  // workgroup for a product (rows: MODE 0 the visiting indices); whether it serves the product for up to
  // `tokens` tokens (its shared memory; MODE 0: its rows a workgroup divide the projections' `unit`).
  uint32_t coop_shared_bytes(uint32_t mode, uint32_t split, uint32_t tiles) const;
  uint32_t coop_split(uint32_t mode, uint32_t k, uint32_t rows, uint32_t tiles) const;
  bool coop_serves(uint32_t mode, uint32_t k, uint32_t unit, uint32_t tokens) const;
  // Its token tiles for a product of up to `tokens` tokens; 0: the small-matrix kernel serves it.
  uint32_t coop_tiles(uint32_t mode, uint32_t k, uint32_t unit, uint32_t tokens) const;
  // tiles: the cooperative-matrix kernel's (coop_tiles), 0 the small-matrix kernel.
  const Pipeline& product(uint32_t mode, uint32_t k, uint32_t rows, uint32_t unit, bool wait, uint32_t tiles);
  const Pipeline& quantizer(uint32_t mode, uint32_t k, uint32_t rows, bool has_norm, bool signal);
  // The input's quantization, a barrier (none with an overlap: the product waits for its count), then
  // the product with bindings 1-3 and 6-12 as given.
  void run(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, BufferRange (&bindings)[15],
           const BatchInput& in, ProductPush push, uint32_t mode, uint32_t k, uint32_t rows, uint32_t unit);

  const Context& ctx_;
  const FusedDecode& one_token_;
  bool kv_f16_, f64_, dot_;
  DecodeGraph graph_;
  uint32_t min_subgroup_;
  Coop coop_;
  struct Entry {
    std::array<uint32_t, 5> key;
    std::unique_ptr<Pipeline> pipe;
  };
  std::vector<Entry> products_, quantizers_;
};

}  // namespace trit::vk
