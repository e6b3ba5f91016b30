#pragma once
// The one-token (decode) BitLinear kernels with the input's RMSNorm and int8 quantization fused in
// (shaders/bitlinear_decode.glsl). Decode time is set by the number of dependent kernel steps, so a
// layer runs as five: QKV (+ RoPE + KV append), attention, wo (+ residual), gate/up (+ ReLU^2), down
// (+ residual), instead of eleven. Prefill keeps the separate kernels (vulkan/kernels.h), where each step
// carries hundreds of tokens.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vulkan/context.h"
#include "vulkan/decode_graph.h"

namespace trit::vk {

// A ternary matrix as bound: its codes and its per-tensor scale, or its scales per 256-element block.
struct MatrixRef {
  BufferRange codes;
  float scale = 1.f;
  std::optional<BufferRange> block_scales;
  // What the kernels bind for its block scales: them, or its codes where it has none (then unread).
  BufferRange scales_binding() const { return block_scales ? *block_scales : codes; }
};

class FusedDecode {
 public:
  // The layout the kernels need for a model of this shape on this device, or nullopt with the reason
  // (then the caller keeps the unfused kernels).
  struct Layout {
    uint32_t wg = 0, tpr = 0;  // invocations per workgroup, lanes per row
    uint32_t rows_per_wg() const { return wg / tpr; }
  };
  // Invocations per workgroup of a step whose rows take `lanes` lanes each: the layout's, except where
  // the lanes are more than the layout's (long rows) and the device reports its multiprocessors: then
  // as many rows per workgroup as make one wave of workgroups over them, where that is wider than the
  // layout and fits the device (max_invocations, 64 subgroups of min_subgroup).
  static uint32_t workgroup(const Layout& layout, uint32_t lanes, uint32_t rows, uint32_t multiprocessors,
                            uint32_t max_invocations, uint32_t min_subgroup);
  static std::optional<Layout> plan(const DeviceInfo& d, uint32_t dim, uint32_t ffn, uint32_t qdim, uint32_t kvdim,
                                    uint32_t head_dim, bool f64, std::string* why = nullptr);

  // What the model's graph asks of the kernels (trit::Architecture, and whether its matrices carry block
  // scales: all of them, or none, or the caller keeps the unfused kernels).

  FusedDecode(const Context& ctx, const Layout& layout, bool kv_f16, bool f64, bool dot, const DecodeGraph& graph);
  ~FusedDecode();

  // Starts compiling the kernels a model of this shape records (each Pipeline compiles on its own
  // thread), so they build during the weight upload instead of one after another when the decode
  // command buffers are recorded (on the H100 with an empty driver cache that was ~1.2 s of load).
  // attention_wg, split_keys: as attention() will be called with.
  void prepare(uint32_t dim, uint32_t qdim, uint32_t ffn, uint32_t attention_wg, uint32_t split_keys);

  // The driver's statistics of each BitLinear kernel made so far (Pipeline::statistics), "bitlinear_decode
  // mode M k K tokens T: name: value" lines (T 0: one token's decode; else a batched step's, T a pass).
  std::vector<std::string> statistics() const;

  // q = rope(Wq h), and rope(Wk h), Wv h appended to the caches at params.pos0, with h = norm(x) * nw
  // quantized to int8. dim: width of x; qdim/kvdim: rows of Wq and of Wk/Wv.
  void qkv(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& wq,
           const MatrixRef& wk, const MatrixRef& wv, const BufferRange& x, const BufferRange& nw, float eps,
           const BufferRange& q, const BufferRange& rope, const BufferRange& k_cache, const BufferRange& v_cache,
           uint32_t dim, uint32_t qdim, uint32_t kvdim, uint32_t head_dim, uint32_t batch = 0);

  // y += W int8(norm(x) * nw) (k: width of x, rows: of W); nw null: y += W int8(x), no norm.
  void residual(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& w,
                const BufferRange& x, const BufferRange* nw, float eps, const BufferRange& y, uint32_t rows, uint32_t k,
                uint32_t batch = 0);

  // One token's attention over positions [0, params.pos0] (attention.glsl with TRIT_SELF_COMBINE): split
  // over key chunks of split_keys, the last split to finish merging the partials, so it is one step.
  // `arrived` holds one zeroed uint per head; `scratch` the partials (Kernels::attention_scratch_bytes).
  // wg and split_keys: the attention kernel's workgroup size and keys per split (Kernels::split_keys(),
  // the same for every call; the workgroup size may differ, one kernel made per size).
  // tokens > 0: a batched decode step of up to that many tokens, each of its own sequence (common.glsl's
  // batch mode; one token too): a zeroed uint per (token, head) in `arrived`, the partials of that many
  // tokens in `scratch`. 0: the one-token kernel (sequence 0 at params.pos0).
  void attention(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& q,
                 const BufferRange& k_cache, const BufferRange& v_cache, const BufferRange& out,
                 const BufferRange& scratch, const BufferRange& arrived, uint32_t heads, uint32_t kv_heads,
                 uint32_t head_dim, uint32_t max_context, uint32_t wg, uint32_t split_keys, uint32_t tokens = 0);

  // y = relu(Wg h)^2 * (Wu h) (or silu(Wg h) * (Wu h) in a SiLU graph), h = int8(norm(x) * nw).
  void gate(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& wg,
            const MatrixRef& wu, const BufferRange& x, const BufferRange& nw, float eps, const BufferRange& y,
            uint32_t rows, uint32_t k, uint32_t batch = 0);
  // (batch > 0 in qkv, residual and gate: a batched decode step of up to that many tokens, each of its
  // own sequence, common.glsl's batch mode: x, y and q hold a row per token; each weight is read once.
  // 0: the one-token kernel.)

  // Input rows the kernel of a step quantizes into shared memory at a time in a batched step of up to
  // `batch` tokens: as many as fit beside the rest, at most 8 (0 for the one-token kernel).
  uint32_t tokens_per_pass(uint32_t mode, uint32_t k, uint32_t rows, uint32_t batch) const;

  // The step kinds (bitlinear_decode.glsl MODE), and for a step of `rows` rows of k inputs: workgroup()
  // on this device and the lanes per row (the batched step's kernels follow both for the same numerics).
  static constexpr uint32_t kQkv = 0, kResidual = 1, kGate = 2;
  uint32_t workgroup_for(uint32_t mode, uint32_t k, uint32_t rows) const;
  // Lanes per row of a pipeline: the layout's, or twice as many for long rows (see the .cpp).
  uint32_t lanes_per_row(uint32_t mode, uint32_t k) const;

 private:
  const Pipeline& pipeline(uint32_t mode, uint32_t k, uint32_t rows, bool has_norm = true, uint32_t tokens = 0);
  const Pipeline& attention_pipeline(uint32_t wg, uint32_t split_keys, bool batched = false);
  const Context& ctx_;
  Layout layout_;
  bool kv_f16_, f64_, dot_;
  DecodeGraph graph_;
  uint32_t min_subgroup_;
  struct Entry {
    uint32_t mode, k;
    bool has_norm;
    uint32_t tpr, wg, tokens;
    std::unique_ptr<Pipeline> pipe;
  };
  std::vector<Entry> pipes_;
  struct Attention {
    uint32_t wg, from;  // workgroup size; attention.glsl's TOKENS_FROM
    std::unique_ptr<Pipeline> pipe;
  };
  std::vector<Attention> attention_;  // made on first use
  uint32_t attention_split_ = 0;      // keys per split of every attention kernel (0: none made yet)
};

}  // namespace trit::vk
