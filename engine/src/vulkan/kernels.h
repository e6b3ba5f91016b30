#pragma once
// The forward pass's compute kernels (shaders/*.comp) as pipelines configured for one device, with one
// recording function each. Every kernel reads binding 0, the per-submit parameters (pos0, n_tokens),
// so a command buffer recorded once serves every position and any token count up to the block size it
// was recorded for. Sizes go in push constants (fixed at recording); tuning knobs are specialization
// constants chosen here from the queried features, never from the device name.
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "trit/forward.h"
#include "vulkan/context.h"
#include "vulkan/ternary_gemm.h"

namespace trit::vk {

// The per-submit parameters at binding 0 of every kernel (shaders/common.glsl): a block of one
// sequence's tokens (batch 0: positions pos0.., cache rows from kv_base), or with batch set one token of
// each of several sequences, whose (position, cache row of position 0) pairs follow as BatchSlot[].
struct Params {
  uint32_t pos0 = 0;
  uint32_t n_tokens = 0;
  uint32_t kv_base = 0;
  uint32_t batch = 0;
};
struct BatchSlot {
  uint32_t pos = 0, kv_row0 = 0;
};

// The largest token block one recording can carry per workgroup row in the matrix kernels.
inline constexpr uint32_t kTokenTile = 8;

// Gate: relu(g)^2 * u (BitNet's FFN); SiluGate: silu(g) * u (LLaMA's).
enum class TernaryMode : uint32_t { Store = 0, Accumulate = 1, Gate = 2, SiluGate = 3 };

// The ternary kernels' inner product: Auto uses the packed int8 dot product (OpSDot) where the device
// reports it accelerated, On wherever the device supports it at all (tests run it on lavapipe), Off the
// portable bit-extraction baseline.
enum class DotProduct { Auto, Off, On };

// A table of `rows` rows of `row_bytes` each, cut into chunks that each fit one storage binding of
// max_range bytes (the LM head and embedding of large vocabularies: 657 MB in 2B4T, 128 MiB per binding
// on lavapipe). Throws VulkanError if one row alone does not fit.
struct RowChunk {
  uint32_t row0 = 0, rows = 0;
};
std::vector<RowChunk> split_rows(uint32_t rows, uint64_t row_bytes, uint64_t max_range);

// cos/sin of pos * base^(-2i/head_dim) for pos < positions, i < head_dim/2, as (cos, sin) float pairs,
// computed in double exactly as ref::rope_neox does.
std::vector<float> make_rope_table(uint32_t positions, uint32_t head_dim, float base);
std::vector<double> make_rope_table_f64(uint32_t positions, uint32_t head_dim, float base);

// The greedy step folded into the one-token LM head (Kernels::lm_head_normed; shaders/lm_head.glsl
// ARGMAX): the argmax of the logits of every chunk of the head (the first on ties) goes to next_token[0]
// and ring[pos0 % ring_size], and pos0 advances, as Kernels::greedy_step does. Each chunk's dispatch
// is given the same `groups` (lm_head_groups summed over all chunks) and its own first workgroup
// `group0` (the sum over the chunks before it); the last workgroup of all to finish publishes, so the
// chunks need no barrier between them. scratch: head_argmax_scratch_bytes(groups) bytes, zeroed before
// first use (each step leaves it zeroed); steps sharing it must run one after another.
struct HeadArgmax {
  BufferRange next_token, ring, scratch;
  uint32_t ring_size = 0;
  uint32_t group0 = 0, groups = 0;
};

// The greedy head's exact argmax from an int8 copy of its table (shaders/lm_head.glsl BOUNDED): the
// chunk's int8 rows and their per-row constants, as Kernels::build_head_q8 writes them. Only the rows
// that could hold the maximum are read in F16; only their logits are written.
struct HeadBound {
  BufferRange q8, consts;
};

// The head of a device-sampled step from the int8 table (shaders/lm_head.glsl TOPK), in two passes over
// every chunk with a barrier between them, then the GPU sampler reading the candidate list
// (GpuSampler::record with `list`). Bounds: each row's lower and upper bound on its logit (HeadBound's
// int8 table) into `bounds`, the largest lower bounds outside the penalty window posted, and from them a
// threshold below which rows cannot be among the sampler's top k. Rows: the rows in the penalty window or
// with an upper bound at least the threshold computed in F16 exactly as the plain head computes them,
// written to the logits and listed; the others are neither. `state` is the sampler's (its top_k,
// temperature and penalty window, as the sampler will read them). Each chunk's dispatch gets the same
// `groups` (lm_head_groups over all chunks) and its own `group0`, as HeadArgmax. scratch:
// head_topk_scratch_bytes(vocab), list: GpuSampler::list_bytes(vocab), both zeroed before first use
// (each step leaves the scratch as it needs it); steps sharing them must run one after another.
struct HeadTopK {
  BufferRange state, bounds, scratch, list;
  uint32_t group0 = 0, groups = 0;
};
enum class TopKPass { Bounds, Rows };

class Kernels {
 public:
  // f64: activations (and their buffers) in double (the *_f64 shaders; needs shaderFloat64), else float.
  // staged_lm_head: the one-token LM head stages x in shared memory where it fits (else the generic one).
  Kernels(const Context& ctx, bool kv_f16, bool f64 = false, DotProduct dot = DotProduct::Auto,
          bool staged_lm_head = true);

  // Starts compiling the kernels that are made on first use, for a model with query heads per KV head
  // `group`, hidden size `dim` and vocabulary `vocab`, so they compile beside the others (each Pipeline
  // compiles on its own thread) instead of one after another when a recording first needs them;
  // bounded_head: also the head's passes from the int8 table (greedy and sampled), where the caller may
  // use them.
  void prepare(uint32_t group, uint32_t dim, uint32_t vocab, bool bounded_head);

  // x[t] = table[tok[t]] (F16 -> F32) for the tokens whose id is in [row0, row0 + rows) of this chunk.
  void embed(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& tokens,
             const BufferRange& table_chunk, const BufferRange& x, uint32_t dim, uint32_t row0, uint32_t rows,
             uint32_t max_tokens);

  // Per token: h = rmsnorm(x, w) (or x itself when w is null), then q = int8(h) and s; or, with h given
  // and q null, only h (the final norm); with h, q and s given, h and its int8 planes into q and their
  // constants into s (the final norm of a batched greedy step: lm_head_batch). k must be a multiple of 4. last_only:
  // only the last submitted token, written to output row 0. Blocks of tokens run narrower workgroups than
  // one token, which sum a row's squares in another order; `batched` (a batched decode step's rows) takes
  // the block pipeline at every step size, so a row's bits do not depend on how many its step holds.
  void rmsnorm_quant(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& x,
                     const BufferRange* w, const BufferRange* h, const BufferRange* q, const BufferRange* s, uint32_t k,
                     float eps, uint32_t max_tokens, bool last_only = false, bool batched = false);

  // y = ternary(W) . xq / s * scale (Store), y += that (Accumulate), or with W2: relu(W xq)^2 * (W2 xq)
  // (Gate), silu(W xq) * (W2 xq) (SiluGate). With block scales d (and d2 for W2: one float per 256
  // elements of a row, TQ1_0 / TQ2_0 files) the scale is per block instead: see ternary_matmul.glsl.
  // Blocks run on the GEMM where there is one; gemm false: the matvec kernel, whose workgroups cover
  // every row for up to kTokenTile tokens (a batched decode step's few tokens, where the GEMM's tiles of
  // 64 rows left most multiprocessors idle: 5.4 ms for 8 tokens of 2B4T on the H100).
  void ternary(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, TernaryMode mode,
               const BufferRange& w, float scale, const BufferRange* w2, float scale2, const BufferRange& xq,
               const BufferRange& s, const BufferRange& y, uint32_t rows, uint32_t k, uint32_t max_tokens,
               const BufferRange* d = nullptr, const BufferRange* d2 = nullptr, bool gemm = true);

  // RoPE on q (in place) and k, then k, v appended to the caches at each token's position (vk::Params). normal: pairs
  // (2i, 2i+1) (LLaMA) instead of NeoX's (i, i + head_dim/2).
  void rope_kv(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& q,
               const BufferRange& k, const BufferRange& v, const BufferRange& rope_table, const BufferRange& k_cache,
               const BufferRange& v_cache, uint32_t heads, uint32_t kv_heads, uint32_t head_dim, uint32_t max_tokens,
               bool normal = false);

  // One token (max_tokens == 1) with a scratch buffer of attention_scratch_bytes(...) and a context
  // longer than split_keys(): the keys are split over several workgroups per head (split-K) and merged
  // by a second dispatch. Blocks never split (one workgroup per head and token is parallel enough).
  // batch: a batched decode step (each token of its own sequence, common.glsl): token by token, split
  // like one token, never the block kernel (which serves consecutive tokens of one sequence).
  void attention(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& q,
                 const BufferRange& k_cache, const BufferRange& v_cache, const BufferRange& out, uint32_t heads,
                 uint32_t kv_heads, uint32_t head_dim, uint32_t max_tokens, uint32_t max_context = 0,
                 const BufferRange* scratch = nullptr, bool batch = false);
  uint32_t split_keys() const { return attn_wg_; }
  uint32_t attention_splits(uint32_t max_context) const { return (max_context + split_keys() - 1) / split_keys(); }
  uint64_t attention_scratch_bytes(uint32_t heads, uint32_t head_dim, uint32_t max_tokens, uint32_t max_context) const {
    return uint64_t{heads} * max_tokens * attention_splits(max_context) * (head_dim + 2) * real_bytes();
  }

  // logits[t][row0 + r] = table_chunk[r] . x[t] for r < rows; logits rows are `vocab` long.
  void lm_head(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& table_chunk,
               const BufferRange& x, const BufferRange& logits, uint32_t rows, uint32_t dim, uint32_t row0,
               uint32_t vocab, uint32_t max_tokens);
  // The final RMSNorm and the LM head of the last submitted token (row n_tokens - 1 of the residual
  // x) in one dispatch per chunk: logits[row0 + r] = table_chunk[r] . (x * w) / rms(x). Where
  // lm_head_norms(dim) is false (no staged one-token head: x too wide for shared memory, or baseline
  // kernels) it throws; the caller then runs rmsnorm_quant and lm_head. rows_per_group: rows a
  // workgroup reads (a multiple of 4; 0: lm_head_rows_per_group(vocab) of this device).
  // With `argmax`, the head also ends a device-side greedy step as greedy_step() would (params is then
  // the step's parameters, which it advances): see HeadArgmax. A submit of no tokens publishes nothing.
  void lm_head_normed(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                      const BufferRange& table_chunk, const BufferRange& x, const BufferRange& norm_w, float eps,
                      const BufferRange& logits, uint32_t rows, uint32_t dim, uint32_t row0, uint32_t vocab,
                      uint32_t rows_per_group = 0, const HeadArgmax* argmax = nullptr,
                      const HeadBound* bound = nullptr);
  bool lm_head_norms(uint32_t dim) const;
  // Whether the head can run from the int8 table (BOUNDED, and the sampled steps' TOPK passes) for this
  // shape: hidden size a multiple of 16, the int8 planes, per-row bounds and the passes' histograms fit
  // shared memory beside the staged x.
  bool lm_head_bounds(uint32_t dim, uint32_t vocab) const;
  // Whether a sampled step's int8 head (lm_head_topk's two passes) fits too: more shared memory.
  bool lm_head_topk_fits(uint32_t dim, uint32_t vocab) const;
  // One pass of the sampled step's head over one chunk (see HeadTopK); needs lm_head_topk_fits(dim, vocab).
  void lm_head_topk(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                    const BufferRange& table_chunk, const BufferRange& x, const BufferRange& norm_w, float eps,
                    const BufferRange& logits, uint32_t rows, uint32_t dim, uint32_t row0, uint32_t vocab,
                    TopKPass pass, const HeadBound& bound, const HeadTopK& topk, uint32_t rows_per_group = 0);
  static uint64_t head_topk_bounds_bytes(uint32_t vocab) { return 8 * uint64_t{vocab}; }
  // Eight words (arrivals, threshold, rows computed in F16 as 64 bits, posts), then a word per row posted.
  static uint64_t head_topk_scratch_bytes(uint32_t vocab) { return 32 + 4 * uint64_t{vocab}; }
  // Byte offset in that scratch of the rows the sampled steps computed in F16 before the last one (64
  // bits); the last one's are the list's count.
  static constexpr uint64_t kTopKRowsOffset = 8;
  // The int8 copy of an F16 table chunk (shaders/lm_head_q8.comp), once at load: q8_chunk holds
  // head_q8_bytes(rows, dim) bytes, consts_chunk head_q8_consts_bytes(rows).
  void build_head_q8(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& table_chunk,
                     const BufferRange& q8_chunk, const BufferRange& consts_chunk, uint32_t rows, uint32_t dim);
  static uint64_t head_q8_bytes(uint32_t rows, uint32_t dim) { return uint64_t{rows} * dim; }
  static uint64_t head_q8_consts_bytes(uint32_t rows) { return uint64_t{rows} * 16; }
  // The head of a batched greedy step from the int8 table (shaders/lm_head_batch.glsl): for each of the
  // step's tokens (h: the final norm's rows, `planes` and `consts` as rmsnorm_quant writes them with
  // both h and q given) only the rows that can be its argmax after the penalty (penalised: argmax_rows'
  // lists) are computed in F16, to the block head's bits (Kernels::lm_head with max_tokens > 1); every
  // other row of its logits is written -inf, so argmax_rows finds the block head's token. thr: a word per
  // token, zeroed before each step. Needs batch_head_tokens(dim) > 0.
  //
  // top: the head of a batched sampled step instead (Head::Top, lm_head_batch.glsl TOPK), in three passes
  // with a barrier after each: bounds over every chunk, select (once, any chunk's arguments), rows over
  // every chunk. The rows that can be among a token's best kTopRowsMax after the penalty (penalised:
  // top_rows' lists) are computed in F16, every other row -inf, so top_rows finds the block head's lists
  // wherever k <= kTopRowsMax. thr then holds batch_head_top_words(tokens, groups) words (thresholds,
  // then posts); tokens: the largest token count of any step using them.
  struct BatchHeadTop {
    enum class Pass : uint32_t { Bounds = 1, Rows = 2, Select = 3 } pass;  // (lm_head_batch.glsl's TOPK)
    BufferRange upper_keys;                                                // batch_head_upper_bytes(tokens, vocab)
    uint32_t group0;  // this chunk's first workgroup along x (batch_head_groups of the chunks before)
    uint32_t groups;  // batch_head_groups of every chunk together
    uint32_t tokens;
  };
  void lm_head_batch(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                     const BufferRange& table_chunk, const BufferRange& h, const HeadBound& bound,
                     const BufferRange& planes, const BufferRange& consts, const BufferRange& penalised,
                     const BufferRange& thr, const BufferRange& logits, uint32_t rows, uint32_t dim, uint32_t row0,
                     uint32_t vocab, uint32_t max_tokens, bool portable = false, const BatchHeadTop* top = nullptr);
  // lm_head_batch's workgroups along x for a chunk of `rows` rows, and the words of a sampled step's
  // thresholds and posts, and the bytes of its upper keys.
  uint32_t batch_head_groups(uint32_t rows, uint32_t dim, bool portable = false) const;
  static uint64_t batch_head_top_words(uint32_t tokens, uint32_t groups) {
    return uint64_t{tokens} + uint64_t{tokens} * groups;
  }
  static uint64_t batch_head_upper_bytes(uint32_t tokens, uint32_t vocab) { return uint64_t{tokens} * vocab * 4; }
  // Tokens a workgroup of lm_head_batch takes for this hidden size; 0: no int8 head for batched steps.
  // It runs where the bounds' integer sums run on the tensor cores (int8 16x16x32 cooperative matrices,
  // 32-lane subgroups: 8 tokens a workgroup, a hidden size a multiple of 256, chunks of at least 16 rows,
  // planes for whole tiles of tokens). portable: the variant that sums them on the integer units, on any device (8
  // tokens a workgroup, or fewer where their planes do not fit shared memory); it is slower than the F16 block head on
  // the H100 (8 streams: 2,706 against 2,898 tokens/s), so only tests run it.
  uint32_t batch_head_tokens(uint32_t dim, bool portable = false) const;
  // The driver's statistics of the LM head kernels made so far, one token's and the batched steps'
  // (Pipeline::statistics), each line prefixed with the kernel's name and variant.
  std::vector<std::string> statistics() const;
  // Bytes of the planes and of the constants rmsnorm_quant writes for `tokens` tokens.
  static uint64_t head_planes_bytes(uint32_t tokens, uint32_t dim) { return 2ull * tokens * dim; }
  uint64_t head_plane_consts_bytes(uint32_t tokens) const { return 4ull * tokens * real_bytes(); }
  // Workgroups of lm_head_normed's dispatch for a chunk of `rows` (rows_per_group as there).
  uint32_t lm_head_groups(uint32_t rows, uint32_t vocab, uint32_t rows_per_group = 0) const;
  // Rows per workgroup of the one-token LM head for a vocabulary: the workgroup size, or where the
  // multiprocessors are known (Context::multiprocessors), as many rows as make two workgroups each.
  static uint32_t lm_head_rows_per_group(uint32_t vocab, uint32_t multiprocessors, uint32_t workgroup);

  // Ends a device-side greedy decode step (shaders/greedy_step.comp): the argmax of logits[0..vocab)
  // (the first on ties) goes to next_token[0] and to ring[pos0 % ring_size], and step's pos0 (vk::Params)
  // advances. scratch: greedy_scratch_bytes(vocab) bytes, zeroed before first use (each step leaves it
  // zeroed); steps sharing it must run one after another.
  void greedy_step(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& step, const BufferRange& logits,
                   const BufferRange& next_token, const BufferRange& ring, const BufferRange& scratch, uint32_t vocab,
                   uint32_t ring_size);
  uint64_t greedy_scratch_bytes(uint32_t vocab) const;
  // The argmax of each of a batched step's first n_tokens rows of logits ([rows][vocab]), without
  // reading them back (shaders/argmax_rows.comp): the best of slice s of row t, in greedy_step's order,
  // lands in best[t * argmax_slices(vocab) + s] as (float bits, index), which argmax_of_slices() turns
  // into the row's token. Row t's penalised tokens (penalised[t * (kArgmaxPenalisedMax + 1)]: their
  // count, then their ids) stay out of its slices; their logits land in gathered[t * kArgmaxPenalisedMax
  // + j]. best: max_rows * argmax_slices(vocab) * 8 bytes; penalised and gathered as laid out.
  void argmax_rows(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& logits,
                   const BufferRange& best, const BufferRange& penalised, const BufferRange& gathered, uint32_t vocab,
                   uint32_t max_rows);
  uint32_t argmax_slices(uint32_t vocab) const;
  static constexpr uint32_t kArgmaxPenalisedMax = 256;
  // A row's token from its slices' (float bits, index) pairs and its penalised tokens' gathered logits:
  // the first largest of the slices' bests and the penalised logits under `penalty` (repeat_penalised),
  // which is trit::argmax of the penalised row (the slices cover ascending ranges of it).
  static int32_t argmax_of_slices(std::span<const uint32_t> pairs, std::span<const int32_t> penalised = {},
                                  std::span<const float> gathered = {}, float penalty = 1.f);
  // The best kTopRowsMax of each slice of a batched step's rows (argmax_rows.comp with K), for sampled
  // steps: slice s of row t leaves them, best first in argmax_rows' order, at top[(t * slices + s) *
  // kTopRowsMax + r] as (float bits, index), and nan[t * slices + s] = 1 where the slice holds a NaN;
  // penalised tokens as argmax_rows. top_of_slices() turns a row's into its top k.
  void top_rows(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& logits,
                const BufferRange& top, const BufferRange& penalised, const BufferRange& gathered,
                const BufferRange& nan, uint32_t vocab, uint32_t max_rows);
  static constexpr uint32_t kTopRowsMax = 64;
  // The bytes of one row's lists in top_rows' output: kTopRowsMax (float bits, index) pairs a slice.
  uint64_t top_row_bytes(uint32_t vocab) const { return uint64_t{argmax_slices(vocab)} * kTopRowsMax * 8; }
  // A row's best k (k <= kTopRowsMax) after its penalty, in TopLogit::before order, from its slices'
  // pairs (kTopRowsMax a slice) and flags and its penalised tokens' gathered logits: the first k of the
  // penalised row in that order (every one of them is among its slice's best or penalised), merged from
  // the slices' sorted lists. False, with `out` unspecified, where the row holds a NaN (the two orders
  // differ there).
  static bool top_of_slices(std::span<const uint32_t> pairs, std::span<const uint32_t> nan,
                            std::span<const int32_t> penalised, std::span<const float> gathered, float penalty,
                            size_t k, std::vector<TopLogit>& out);
  // The scratch of a head whose chunks' dispatches have `groups` workgroups in all (HeadArgmax).
  static uint64_t head_argmax_scratch_bytes(uint32_t groups) { return 8 + 8 * uint64_t{groups}; }

  bool kv_f16() const { return kv_f16_; }
  bool f64() const { return f64_; }
  bool dot_product() const { return dot_; }
  // The block path's GEMM (vulkan/ternary_gemm.h), or null where blocks use the matvec kernel.
  const TernaryGemm* gemm() const { return gemm_.get(); }
  // Bytes of one activation value (4 or 8).
  uint32_t real_bytes() const { return f64_ ? 8 : 4; }
  // Bytes of one KV cache element (trit::kv_element_bytes: 2, or those of the activations).
  uint32_t kv_bytes() const {
    return kv_element_bytes(kv_f16_ ? KvPrecision::F16 : KvPrecision::F32, f64_ ? Precision::F64 : Precision::Fp32);
  }
  // Largest head_dim the attention kernel takes.
  uint32_t max_head_dim() const { return 4 * attn_wg_; }

 private:
  const Context& ctx_;
  bool kv_f16_;
  bool f64_;
  bool dot_ = false;
  bool staged_lm_head_ = true;
  uint32_t wg_ = 64, mat_wg_ = 64, tpr_ = 16, attn_wg_ = 64, token_wg_ = 64;
  uint32_t lm_wg_ = 64;  // threads (and rows) per workgroup of the one-token LM head
  std::unique_ptr<Pipeline> embed_, attn_, attn_combine_, greedy_, argmax_rows_, top_rows_;
  // argmax_rows and top_rows: argmax_rows.comp (`p`, made for per_slice bests a slice) over the rows, its
  // ranges checked (`what` names the caller in the errors).
  void row_bests(CommandSequence& cs, DescriptorAllocator& da, const Pipeline& p, uint32_t per_slice,
                 const BufferRange& params, const BufferRange& logits, const BufferRange& best,
                 const BufferRange& penalised, const BufferRange& gathered, const BufferRange& nan, uint32_t vocab,
                 uint32_t max_rows, const std::string& what);
  // One workgroup per token, [one token, block]: a block's workgroups are narrower (block_token_wg_).
  std::unique_ptr<Pipeline> norm_q8_[2], quant_q8_[2], norm_f32_[2], rope_[2];
  std::unique_ptr<Pipeline> norm_planes_[2];  // made on first use
  struct HeadBatch {
    uint32_t dim = 0;
    std::unique_ptr<Pipeline> pipe;
  } head_batch_[2][4];  // [tensor cores, portable][greedy, a sampled step's bounds, rows and select passes]
  const Pipeline& head_batch(uint32_t dim, bool portable, uint32_t topk);
  uint32_t head_coop() const;  // 0: none, 1: VK_NV_cooperative_matrix, 2: VK_KHR_cooperative_matrix
  // lm_head_batch's rows per workgroup for `tokens` tokens a workgroup and this hidden size (0: none fit).
  uint32_t batch_head_rows(uint32_t tokens, uint32_t dim, bool coop) const;
  std::unique_ptr<Pipeline> rope_normal_[2];  // made on first use (LLaMA files)
  uint32_t block_token_wg_ = 64;
  std::unique_ptr<Pipeline> ternary_[4][2][2];  // [mode][decode, block][block scales]; SiLU and scaled on first use
  const Pipeline& ternary_pipeline(uint32_t mode, uint32_t block, bool scaled);
  std::unique_ptr<TernaryGemm> gemm_;  // blocks, where the int8 dot product is in use
  std::unique_ptr<Pipeline> lm_head_[2];
  // The one-token LM head with x staged in shared memory, per hidden size, rows per workgroup and
  // whether it ends a greedy step (made on first use).
  std::unique_ptr<Pipeline> head_q8_;
  struct LmHeadDecode {
    uint32_t dim = 0, rows_per_group = 0;
    bool argmax = false, bounded = false;
    uint32_t topk = 0;  // lm_head.glsl TOPK: 0, or 1 + TopKPass
    std::unique_ptr<Pipeline> pipe;
  };
  std::vector<LmHeadDecode> lm_head_decode_;
  const Pipeline& lm_head_decode(uint32_t dim, uint32_t rows_per_group, bool argmax, bool bounded = false,
                                 uint32_t topk = 0);
  uint32_t lm_head_rpw(uint32_t vocab, uint32_t rows_per_group) const;  // rows_per_group, 0: the device's
  uint64_t lm_head_shared_bytes(uint32_t dim) const;
  // Block attention for a tile of tokens and the `group` query heads of a KV head per workgroup
  // (shaders/attention_block), per group size (made on first use), with the tile's token count; null
  // where the device cannot run it (then attention.glsl runs token by token).
  struct BlockAttention {
    uint32_t group = 0, tile = 0;
    std::unique_ptr<Pipeline> pipe;
  };
  std::vector<BlockAttention> attn_block_;
  const BlockAttention* attention_block(uint32_t group);
};

}  // namespace trit::vk
