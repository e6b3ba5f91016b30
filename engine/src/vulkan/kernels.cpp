// Pipelines and dispatch recording for the forward-pass kernels (vulkan/kernels.h).
#include "vulkan/kernels.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "trit/sampler.h"
#include "vulkan/ceil_div.h"
#include "vulkan/gpu_sampler.h"

namespace trit::vk {
namespace {

// Rows each subgroup of the one-token LM head reads at once (shaders/lm_head.glsl RIF): independent
// loads in flight that share one read of x from shared memory. On the H100 (2B4T head, 512-thread
// workgroups): 2 rows 0.245 ms, 4 rows 0.229 ms, 8 rows 0.488 ms (registers). The head of a block or
// a batched step takes as many rows a lane group, so each load of x serves that many rows.
constexpr uint32_t kLmHeadRowsInFlight = 4;

// Every lm_head pipeline declares the ARGMAX and TOPK variants' bindings and push constants
// (shaders/lm_head.glsl); the others bind placeholders there.
constexpr uint32_t kLmHeadBindings = 14, kLmHeadPush = 32;
// lm_head_batch.glsl: candidates a lane group computes a round (RIF), rows a subgroup bounds at a time (RQ).
constexpr uint32_t kBatchHeadCandidates = 2, kBatchHeadBoundRows = 4;

// 16-byte words of logits per invocation of the greedy step (shaders/greedy_step.comp PER).
constexpr uint32_t kGreedyWordsPerInvocation = 4;
// Logits per invocation of a batched step's argmax (shaders/argmax_rows.comp PER).
constexpr uint32_t kArgmaxRowsPerInvocation = 8;
// argmax.glsl's NONE: no index (a slice of penalised tokens only, or past its last best).
constexpr uint32_t kNoIndex = 0xffffffffu;

// Block attention (shaders/attention_block.glsl): 256 invocations, chunks of 32 keys (32 keys x 8 query
// groups in the score pass; fewer for wide cache rows: Kernels::attention_block), head sizes up to 128
// (the shared query rows are sized for it).
constexpr uint32_t kBlockAttentionWorkgroup = 256, kBlockAttentionChunk = 32, kBlockAttentionMaxHeadDim = 128;

uint32_t f32_bits(float f) {
  return std::bit_cast<uint32_t>(f);
}

void require(bool ok, const std::string& what) {
  if (!ok) throw VulkanError(what);
}

}  // namespace

Kernels::Kernels(const Context& ctx, bool kv_f16, bool f64, DotProduct dot, bool staged_lm_head)
    : ctx_(ctx), kv_f16_(kv_f16), f64_(f64), staged_lm_head_(staged_lm_head) {
  const DeviceInfo& d = ctx.info();
  require(dot != DotProduct::On || d.integer_dot_product,
          d.name + " has no integer dot product in shaders (VK_KHR_shader_integer_dot_product)");
  dot_ = dot == DotProduct::On || (dot == DotProduct::Auto && d.integer_dot_product && d.integer_dot_4x8_accelerated);
  require(!f64 || d.shader_float64, d.name + " has no double precision in shaders; use the fp32 path");
  const std::string sfx = f64 ? "_f64" : "";
  // Blocks of tokens (prefill) run as a tiled GEMM wherever the int8 dot product is in use: on int8
  // cooperative matrices where the device offers a shape that tiles, else with the dot product.
  if (dot_) gemm_ = std::make_unique<TernaryGemm>(ctx, f64, TernaryGemm::choose(d));
  require(d.subgroup_arithmetic, d.name + " lacks subgroup arithmetic in compute shaders, which the engine needs");
  // Wider rows per lane group on devices with wide subgroups; lavapipe (8) keeps the small baseline.
  if (d.subgroup_size >= 32) {
    mat_wg_ = 128;
    tpr_ = 32;
    wg_ = 128;
    attn_wg_ = 64;
    // One workgroup per token (norms, RoPE): in decode that is the only workgroup on the device, so
    // it should be as wide as allowed; its passes over the row are chains of dependent loads, and 1024
    // threads take a 2560-wide row in one step instead of five (measured: 8.7 us per norm at 128).
    token_wg_ = std::min<uint32_t>({1024, d.max_workgroup_invocations, 64 * std::max(1u, d.min_subgroup_size)});
    // A block has a workgroup per token already: narrower ones leave fewer idle invocations (a
    // 2560-wide row is 640 real4s) and fewer subgroup partials to sum, and more fit an SM at once.
    block_token_wg_ = std::min(256u, token_wg_);
    // The one-token LM head: as many rows per workgroup as threads (x staged once per 512 rows, 1.6%
    // of the rows' bytes). Measured on the H100 (2B4T head of 657 MB, threads / rows per workgroup:
    // ms): 128/64: 0.267, 256/256: 0.260, 512/512: 0.229, 1024/1024: 0.226, 1024/2048: 0.276.
    lm_wg_ = std::min<uint32_t>({512, d.max_workgroup_invocations, 64 * std::max(1u, d.min_subgroup_size)});
  }
  // common.glsl keeps one partial per subgroup in 64 slots.
  const uint32_t min_sg = std::max(1u, d.min_subgroup_size);
  for (uint32_t w : {wg_, mat_wg_, attn_wg_, token_wg_, block_token_wg_, lm_wg_})
    require(w / min_sg <= 64 && w <= d.max_workgroup_invocations,
            "workgroup size " + std::to_string(w) + " does not suit " + d.name);

  embed_ = std::make_unique<Pipeline>(ctx, "embed" + sfx, 4, 12, std::vector<uint32_t>{wg_});
  for (uint32_t b = 0; b < 2; ++b) {
    const uint32_t twg = b ? block_token_wg_ : token_wg_;
    norm_q8_[b] = std::make_unique<Pipeline>(ctx, "rmsnorm_quant" + sfx, 7, 16, std::vector<uint32_t>{twg, 1, 0, 1});
    quant_q8_[b] = std::make_unique<Pipeline>(ctx, "rmsnorm_quant" + sfx, 7, 16, std::vector<uint32_t>{twg, 0, 0, 1});
    norm_f32_[b] = std::make_unique<Pipeline>(ctx, "rmsnorm_quant" + sfx, 7, 16, std::vector<uint32_t>{twg, 1, 1, 0});
    rope_[b] = std::make_unique<Pipeline>(ctx, "rope_kv" + sfx, 7, 12, std::vector<uint32_t>{twg, kv_f16 ? 1u : 0u});
  }
  // The 2B4T graph's variants compile now, beside the others; the rest of the family's on first use.
  for (uint32_t mode = 0; mode < 3; ++mode)
    for (uint32_t b = 0; b < 2; ++b) ternary_pipeline(mode, b, false);
  for (uint32_t b = 0; b < 2; ++b)
    lm_head_[b] = std::make_unique<Pipeline>(
        ctx, "lm_head" + sfx, kLmHeadBindings, kLmHeadPush,
        std::vector<uint32_t>{mat_wg_, tpr_, b ? kTokenTile : 1, 0, 64, kLmHeadRowsInFlight});
  attn_ = std::make_unique<Pipeline>(ctx, "attention" + sfx, 6, 16,
                                     std::vector<uint32_t>{attn_wg_, kv_f16 ? 1u : 0u, split_keys()});
  attn_combine_ = std::make_unique<Pipeline>(ctx, "attention_combine" + sfx, 3, 12, std::vector<uint32_t>{attn_wg_});
  greedy_ = std::make_unique<Pipeline>(ctx, "greedy_step", 5, 8, std::vector<uint32_t>{wg_, kGreedyWordsPerInvocation});
  argmax_rows_ = std::make_unique<Pipeline>(
      ctx, "argmax_rows", 6, 8, std::vector<uint32_t>{wg_, kArgmaxRowsPerInvocation, kArgmaxPenalisedMax, 1});
  top_rows_ = std::make_unique<Pipeline>(
      ctx, "argmax_rows", 6, 8, std::vector<uint32_t>{wg_, kArgmaxRowsPerInvocation, kArgmaxPenalisedMax, kTopRowsMax});
}

const Pipeline& Kernels::ternary_pipeline(uint32_t mode, uint32_t block, bool scaled) {
  auto& p = ternary_[mode][block][scaled ? 1 : 0];
  if (!p)
    p = std::make_unique<Pipeline>(
        ctx_, std::string(dot_ ? "ternary_matmul_dot" : "ternary_matmul") + (f64_ ? "_f64" : ""), 8, 16,
        std::vector<uint32_t>{mat_wg_, tpr_, mode, block ? kTokenTile : 1, scaled ? 1u : 0u});
  return *p;
}

void Kernels::embed(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& tokens,
                    const BufferRange& table_chunk, const BufferRange& x, uint32_t dim, uint32_t row0, uint32_t rows,
                    uint32_t max_tokens) {
  require(dim % 2 == 0, "embed: dim " + std::to_string(dim) + " is odd");
  const BufferRange r[] = {params, tokens, table_chunk, x};
  const uint32_t push[] = {dim, row0, rows};
  cs.dispatch(*embed_, da.make(*embed_, r), push, sizeof push, 1, max_tokens);
}

void Kernels::rmsnorm_quant(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                            const BufferRange& x, const BufferRange* w, const BufferRange* h, const BufferRange* q,
                            const BufferRange* s, uint32_t k, float eps, uint32_t max_tokens, bool last_only,
                            bool batched) {
  require(k % 4 == 0 && k > 0, "rmsnorm_quant: size " + std::to_string(k) + " is not a positive multiple of 4");
  const Pipeline* p = nullptr;
  const size_t block = (max_tokens > 1 || batched) && !last_only ? 1 : 0;
  if (q && s && h) {
    require(w != nullptr && !last_only, "rmsnorm_quant: h's planes need a weight and every token");
    // (The workgroup of the f32 variant of the same size: the same h.)
    if (!norm_planes_[block])
      norm_planes_[block] =
          std::make_unique<Pipeline>(ctx_, std::string("rmsnorm_quant") + (f64_ ? "_f64" : ""), 7, 16,
                                     std::vector<uint32_t>{block ? block_token_wg_ : token_wg_, 1, 1, 0, 0, 0, 0, 1});
    p = norm_planes_[block].get();
  } else if (q && s) {
    p = w ? norm_q8_[block].get() : quant_q8_[block].get();
  } else {
    require(w && h, "rmsnorm_quant: the f32 variant needs a weight and an output");
    p = norm_f32_[block].get();
  }
  const BufferRange r[] = {params, x, w ? *w : x, h ? *h : x, q ? *q : x, s ? *s : x, x};  // (binding 6: SIGNAL only)
  struct {
    uint32_t k;
    float eps;
    uint32_t last_only, slot;
  } push{k, eps, last_only ? 1u : 0u, 0};
  cs.dispatch(*p, da.make(*p, r), &push, sizeof push, last_only ? 1 : max_tokens);
}

void Kernels::ternary(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, TernaryMode mode,
                      const BufferRange& w, float scale, const BufferRange* w2, float scale2, const BufferRange& xq,
                      const BufferRange& s, const BufferRange& y, uint32_t rows, uint32_t k, uint32_t max_tokens,
                      const BufferRange* d, const BufferRange* d2, bool gemm) {
  require(k % 128 == 0 && k > 0, "ternary: K " + std::to_string(k) + " is not a positive multiple of 128");
  const bool gate = mode == TernaryMode::Gate || mode == TernaryMode::SiluGate;
  require(gate == (w2 != nullptr), "ternary: the gate modes and only they take a second matrix");
  const bool scaled = d != nullptr;
  require(!scaled || (k % 256 == 0 && gate == (d2 != nullptr)),
          "ternary: block scales need K a multiple of 256 and, in a gate, scales for both matrices");
  const bool block = max_tokens > 1;
  if (block && gemm && gemm_)
    return gemm_->record(cs, da, params, mode, w, scale, w2, scale2, xq, s, y, rows, k, max_tokens, d, d2);
  const Pipeline& p = ternary_pipeline(static_cast<uint32_t>(mode), block ? 1 : 0, scaled);
  const BufferRange r[] = {params, w, w2 ? *w2 : w, xq, s, y, d ? *d : w, d2 ? *d2 : (d ? *d : w)};
  const uint32_t push[] = {rows, k, f32_bits(scale), f32_bits(scale2)};
  const uint32_t rows_per_wg = mat_wg_ / tpr_;
  cs.dispatch(p, da.make(p, r), push, sizeof push, ceil_div(rows, rows_per_wg),
              block ? ceil_div(max_tokens, kTokenTile) : 1);
}

// The int8 head's bounds on the tensor cores (lm_head_batch.glsl TRIT_COOP): an int8 16x16x32 shape
// (16 rows, 8 tokens' two planes, 32 of K), the NVIDIA extension first, and 32-lane subgroups (the
// kernel's lanes take 16 rows by two tokens).
uint32_t Kernels::head_coop() const {
  const DeviceInfo& d = ctx_.info();
  if (cooperative_subgroup_size(d) != 32) return 0;
  for (const bool khr : {false, true}) {
    if (!(khr ? d.cooperative_matrix_khr : d.cooperative_matrix_nv)) continue;
    for (const auto& sh : khr ? d.coop_int8_shapes_khr : d.coop_int8_shapes)
      if (sh.m == 16 && sh.n == 2 * kTokenTile && sh.k == 32) return khr ? 2 : 1;
  }
  return 0;
}

// Shared memory of lm_head_batch.glsl: the planes of its tokens (the portable variant; the tensor-core
// one reads them from memory and keeps each subgroup's 16 x 16 sums), a word and a bit per (token, row),
// the candidates' sums, a few words per token, and common.glsl's and argmax.glsl's arrays.
uint32_t Kernels::batch_head_rows(uint32_t tokens, uint32_t dim, bool coop) const {
  // (The tensor-core variant's chunks of 256 of K: 16 rows a subgroup and 16 columns, 16 uvec4s each,
  // 17 apart.)
  const uint64_t staged = coop ? (uint64_t{mat_wg_} / 32 + 1) * 16 * 17 * 16 : head_planes_bytes(tokens, dim);
  const uint64_t fixed = staged + uint64_t{kBatchHeadCandidates} * mat_wg_ * real_bytes() + 16ull * tokens + 16 +
                         64 * (real_bytes() + 4) + 64 * 8;
  const uint64_t limit = ctx_.info().max_shared_memory;
  if (fixed >= limit) return 0;
  // The tensor-core variant: a tile of 16 rows for each subgroup.
  if (coop) {
    const uint32_t rows = mat_wg_ / 32 * 16;
    return fixed + uint64_t{rows} * tokens * (4 + 1) <= limit ? rows : 0;
  }
  // A word and a bit per (token, row); rows in multiples of 32, at most 512.
  const uint64_t rows = (limit - fixed) * 32 / (uint64_t{tokens} * (32 * 4 + 4 + 4));
  return static_cast<uint32_t>(std::min<uint64_t>(512, rows / 32 * 32));
}

uint32_t Kernels::batch_head_tokens(uint32_t dim, bool portable) const {
  if (dim % 16 != 0) return 0;
  if (!portable) return head_coop() && dim % 256 == 0 && batch_head_rows(kTokenTile, dim, true) > 0 ? kTokenTile : 0;
  for (uint32_t t = kTokenTile; t > 0; t /= 2)
    if (batch_head_rows(t, dim, false) >= 64) return t;
  return 0;
}

void Kernels::lm_head_batch(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                            const BufferRange& table_chunk, const BufferRange& h, const HeadBound& bound,
                            const BufferRange& planes, const BufferRange& consts, const BufferRange& penalised,
                            const BufferRange& thr, const BufferRange& logits, uint32_t rows, uint32_t dim,
                            uint32_t row0, uint32_t vocab, uint32_t max_tokens, bool portable,
                            const BatchHeadTop* top) {
  const uint32_t tokens = batch_head_tokens(dim, portable);
  require(tokens > 0, "lm_head_batch: no int8 head for batched steps of a hidden size of " + std::to_string(dim));
  require(portable || rows >= 16, "lm_head_batch: a chunk of " + std::to_string(rows) + " rows (16 at least)");
  require(bound.q8.bytes() >= head_q8_bytes(rows, dim) && bound.consts.bytes() >= head_q8_consts_bytes(rows),
          "lm_head_batch: the int8 table chunk is smaller than its " + std::to_string(rows) + " rows");
  // (The tensor-core variant reads the planes of whole tiles of tokens.)
  const uint32_t tiled = ceil_div(max_tokens, tokens) * tokens;
  require(planes.bytes() >= head_planes_bytes(portable ? max_tokens : tiled, dim) &&
              consts.bytes() >= head_plane_consts_bytes(max_tokens) && thr.bytes() >= 4ull * max_tokens &&
              penalised.bytes() >= 4ull * max_tokens * (kArgmaxPenalisedMax + 1),
          "lm_head_batch: the planes, their constants, the thresholds or the penalised lists hold fewer than " +
              std::to_string(max_tokens) + " tokens");
  const uint32_t per_group = batch_head_rows(tokens, dim, !portable);
  if (top) {
    require(max_tokens <= top->tokens && top->group0 + batch_head_groups(rows, dim, portable) <= top->groups &&
                thr.bytes() >= 4 * batch_head_top_words(top->tokens, top->groups) &&
                top->upper_keys.bytes() >= batch_head_upper_bytes(top->tokens, vocab),
            "lm_head_batch: the sampled step's thresholds, posts or upper keys do not fit their buffers");
  }
  const Pipeline& p = head_batch(dim, portable, top ? static_cast<uint32_t>(top->pass) : 0);
  // (A greedy step binds thr again where the sampled passes bind their upper keys.)
  const BufferRange r[] = {params,
                           table_chunk,
                           h,
                           logits,
                           bound.q8,
                           bound.consts,
                           planes,
                           consts,
                           penalised,
                           thr,
                           top ? top->upper_keys : thr};
  const uint32_t push[] = {rows, row0, vocab, top ? top->group0 : 0, top ? top->groups : 0, top ? top->tokens : 0};
  if (top && top->pass == BatchHeadTop::Pass::Select)
    cs.dispatch(p, da.make(p, r), push, sizeof push, max_tokens);  // (a workgroup a token)
  else
    cs.dispatch(p, da.make(p, r), push, sizeof push, ceil_div(rows, per_group), ceil_div(max_tokens, tokens));
}

uint32_t Kernels::batch_head_groups(uint32_t rows, uint32_t dim, bool portable) const {
  const uint32_t tokens = batch_head_tokens(dim, portable);
  return tokens ? ceil_div(rows, batch_head_rows(tokens, dim, !portable)) : 0;
}

std::vector<std::string> Kernels::statistics() const {
  std::vector<std::string> out;
  for (const LmHeadDecode& h : lm_head_decode_)
    h.pipe->statistics_to(out, h.pipe->name() + (h.argmax ? " argmax" : "") + (h.bounded ? " bounded" : "") +
                                   (h.topk ? " topk " + std::to_string(h.topk) : std::string()));
  for (const auto& variants : head_batch_)
    for (size_t m = 0; m < 4; ++m)
      if (variants[m].pipe)
        variants[m].pipe->statistics_to(out, variants[m].pipe->name() + (m == 1   ? " top bounds"
                                                                         : m == 2 ? " top rows"
                                                                         : m == 3 ? " top select"
                                                                                  : ""));
  return out;
}

const Pipeline& Kernels::head_batch(uint32_t dim, bool portable, uint32_t topk) {
  HeadBatch& hb = head_batch_[portable ? 1 : 0][topk];
  if (!hb.pipe || hb.dim != dim) {
    const uint32_t tokens = batch_head_tokens(dim, portable);
    const std::string stem =
        portable ? std::string("lm_head_batch") + (dot_ ? "_dot" : "") + (f64_ ? "_f64" : "")
                 : std::string("lm_head_batch_coop") + (f64_ ? "_f64" : "") + (head_coop() == 2 ? "_khr" : "");
    const uint32_t sg = cooperative_subgroup_size(ctx_.info());  // (TRIT_COOP's SG)
    hb.pipe = std::make_unique<Pipeline>(
        ctx_, stem, 11, 24,
        std::vector<uint32_t>{mat_wg_, tpr_, tokens, dim, batch_head_rows(tokens, dim, !portable), kBatchHeadCandidates,
                              kArgmaxPenalisedMax, kBatchHeadBoundRows, sg, topk, kTopRowsMax},
        portable ? 0 : required_subgroup_size(ctx_.info(), sg));
    hb.dim = dim;
  }
  return *hb.pipe;
}

void Kernels::rope_kv(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& q,
                      const BufferRange& k, const BufferRange& v, const BufferRange& rope_table,
                      const BufferRange& k_cache, const BufferRange& v_cache, uint32_t heads, uint32_t kv_heads,
                      uint32_t head_dim, uint32_t max_tokens, bool normal) {
  require(head_dim % 4 == 0, "rope_kv: head_dim " + std::to_string(head_dim) + " is not a multiple of 4");
  require(kv_heads > 0 && heads % kv_heads == 0, "rope_kv: heads are not a multiple of KV heads");
  const BufferRange r[] = {params, q, k, v, rope_table, k_cache, v_cache};
  const uint32_t push[] = {heads, kv_heads, head_dim};
  const uint32_t b = max_tokens > 1 ? 1 : 0;
  if (normal && !rope_normal_[b])
    rope_normal_[b] =
        std::make_unique<Pipeline>(ctx_, std::string("rope_kv") + (f64_ ? "_f64" : ""), 7, 12,
                                   std::vector<uint32_t>{b ? block_token_wg_ : token_wg_, kv_f16_ ? 1u : 0u, 1u});
  const Pipeline& p = normal ? *rope_normal_[b] : *rope_[b];
  cs.dispatch(p, da.make(p, r), push, sizeof push, max_tokens);
}

void Kernels::attention(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& q,
                        const BufferRange& k_cache, const BufferRange& v_cache, const BufferRange& out, uint32_t heads,
                        uint32_t kv_heads, uint32_t head_dim, uint32_t max_tokens, uint32_t max_context,
                        const BufferRange* scratch, bool batch) {
  require(head_dim % 2 == 0 && head_dim <= max_head_dim() && head_dim <= 512,
          "attention: head_dim " + std::to_string(head_dim) + " is not supported (even, at most " +
              std::to_string(max_head_dim()) + ")");
  require(kv_heads > 0 && heads % kv_heads == 0, "attention: heads are not a multiple of KV heads");
  if (!batch && max_tokens > 1 && head_dim <= kBlockAttentionMaxHeadDim && head_dim % 8 == 0) {
    if (const BlockAttention* b = attention_block(heads / kv_heads)) {
      const BufferRange r[] = {params, q, k_cache, v_cache, out};
      const uint32_t push[] = {heads, kv_heads, head_dim};
      cs.dispatch(*b->pipe, da.make(*b->pipe, r), push, sizeof push, kv_heads, ceil_div(max_tokens, b->tile));
      return;
    }
  }
  // Split-K only for one token or a batched step (a few tokens, each of another sequence): a block
  // already has heads x tokens workgroups, and splitting it too launched up to heads x tokens x splits of
  // them (mostly empty) plus a combine pass.
  const uint32_t splits =
      scratch && (max_tokens == 1 || batch) && max_context > split_keys() ? attention_splits(max_context) : 1;
  if (splits > 1) {
    const uint64_t need = attention_scratch_bytes(heads, head_dim, max_tokens, max_context);
    const uint64_t have = scratch->bytes();
    require(have >= need, "attention: the split-K scratch holds " + std::to_string(have) + " bytes, " +
                              std::to_string(need) + " needed");
  }
  const BufferRange r[] = {params, q, k_cache, v_cache, out, splits > 1 ? *scratch : out};
  const uint32_t push[] = {heads, kv_heads, head_dim, splits};
  cs.dispatch(*attn_, da.make(*attn_, r), push, sizeof push, heads, max_tokens, splits);
  if (splits == 1) return;
  cs.barrier();
  const BufferRange rc[] = {params, *scratch, out};
  const uint32_t pc[] = {heads, head_dim, splits};
  cs.dispatch(*attn_combine_, da.make(*attn_combine_, rc), pc, sizeof pc, heads, max_tokens);
}

void Kernels::lm_head(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                      const BufferRange& table_chunk, const BufferRange& x, const BufferRange& logits, uint32_t rows,
                      uint32_t dim, uint32_t row0, uint32_t vocab, uint32_t max_tokens) {
  require(dim % 8 == 0, "lm_head: dim " + std::to_string(dim) + " is not a multiple of 8");
  const bool block = max_tokens > 1;
  const Pipeline& p = *lm_head_[block ? 1 : 0];
  const BufferRange r[] = {params, table_chunk, x, logits, x, x, x, x, x, x, x, x, x, x};  // (bindings 4.. unused here)
  const uint32_t push[] = {rows, dim, row0, vocab, 0, 0, 0, 0};
  const uint32_t rows_per_wg = mat_wg_ / tpr_ * kLmHeadRowsInFlight;
  cs.dispatch(p, da.make(p, r), push, sizeof push, ceil_div(rows, rows_per_wg),
              block ? ceil_div(max_tokens, kTokenTile) : 1);
}

void Kernels::lm_head_normed(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                             const BufferRange& table_chunk, const BufferRange& x, const BufferRange& norm_w, float eps,
                             const BufferRange& logits, uint32_t rows, uint32_t dim, uint32_t row0, uint32_t vocab,
                             uint32_t rows_per_group, const HeadArgmax* argmax, const HeadBound* bound) {
  require(lm_head_norms(dim),
          "lm_head_normed: no staged one-token LM head for a hidden size of " + std::to_string(dim));
  const uint32_t rpw = lm_head_rpw(vocab, rows_per_group);
  require(rpw > 0 && rpw % kLmHeadRowsInFlight == 0, "lm_head_normed: " + std::to_string(rpw) +
                                                         " rows per workgroup is not a multiple of " +
                                                         std::to_string(kLmHeadRowsInFlight));
  const uint32_t groups = ceil_div(rows, rpw);
  if (argmax) {
    require(argmax->ring_size > 0, "lm_head_normed: an empty ring");
    require(uint64_t{argmax->group0} + groups <= argmax->groups,
            "lm_head_normed: workgroups " + std::to_string(argmax->group0) + " + " + std::to_string(groups) +
                " of this chunk pass the head's " + std::to_string(argmax->groups));
    require(argmax->scratch.bytes() >= head_argmax_scratch_bytes(argmax->groups),
            "lm_head_normed: the argmax scratch holds " + std::to_string(argmax->scratch.bytes()) + " bytes, " +
                std::to_string(head_argmax_scratch_bytes(argmax->groups)) + " needed");
  }
  if (bound) {
    require(argmax != nullptr, "lm_head_normed: the bounded head ends a greedy step only");
    require(lm_head_bounds(dim, vocab), "lm_head_normed: no bounded head for a hidden size of " + std::to_string(dim));
    require(bound->q8.bytes() >= head_q8_bytes(rows, dim) && bound->consts.bytes() >= head_q8_consts_bytes(rows),
            "lm_head_normed: the int8 table chunk is smaller than its " + std::to_string(rows) + " rows");
  }
  const Pipeline& p = lm_head_decode(dim, rpw, argmax != nullptr, bound != nullptr);
  const HeadArgmax plain{x, x, x};  // placeholders: the plain head has no tail
  const HeadArgmax& am = argmax ? *argmax : plain;
  const HeadBound none{x, x};
  const HeadBound& hb = bound ? *bound : none;
  const BufferRange r[] = {params,    table_chunk, x, logits, norm_w, am.next_token, am.ring, am.scratch, hb.q8,
                           hb.consts, x,           x, x,      x};
  const uint32_t push[] = {rows, dim, row0, vocab, f32_bits(eps), am.groups, am.group0, am.ring_size};
  cs.dispatch(p, da.make(p, r), push, sizeof push, groups);
}

uint32_t Kernels::lm_head_rpw(uint32_t vocab, uint32_t rows_per_group) const {
  return rows_per_group ? rows_per_group : lm_head_rows_per_group(vocab, ctx_.multiprocessors(), lm_wg_);
}

uint32_t Kernels::lm_head_groups(uint32_t rows, uint32_t vocab, uint32_t rows_per_group) const {
  const uint32_t rpw = lm_head_rpw(vocab, rows_per_group);
  return rpw ? ceil_div(rows, rpw) : 0;
}

// False where x does not fit shared memory beside the reduction arrays and the argmax's per-subgroup
// bests (then the generic kernel runs).
bool Kernels::lm_head_norms(uint32_t dim) const {
  return staged_lm_head_ && dim % 8 == 0 && lm_head_shared_bytes(dim) <= ctx_.info().max_shared_memory;
}

// The staged head's shared memory: x, the reduction arrays and the argmax's per-subgroup bests.
uint64_t Kernels::lm_head_shared_bytes(uint32_t dim) const {
  return uint64_t{dim} * real_bytes() + 64 * (8 + 4) + 64 * real_bytes() + 64 * (4 + 4) + 64;
}

// The table streams at the copy rate only while every multiprocessor has its share: 251 workgroups of
// 512 rows (the 2B4T vocabulary) gave 119 of the H100's 132 multiprocessors two and 13 one, and the
// head took 0.232 ms; 263 of 488 rows, 0.227 ms. At least 64 rows (a pass of every subgroup).
uint32_t Kernels::lm_head_rows_per_group(uint32_t vocab, uint32_t multiprocessors, uint32_t workgroup) {
  if (multiprocessors == 0) return workgroup;
  const uint32_t per = ceil_div(vocab, 2 * multiprocessors);
  return std::max(64u, ceil_div(per, kLmHeadRowsInFlight) * kLmHeadRowsInFlight);
}

// Shared memory beside the staged head's. The greedy head: h's two int8 planes, (a_i, B_i) per row, two
// reduction arrays, the threshold. The sampled step's bounds pass adds two 256-bin histograms, their
// group sums, the chosen digit and the posts' place; its rows pass takes two words per row and a
// candidate index; both passes a bit per row.
bool Kernels::lm_head_bounds(uint32_t dim, uint32_t vocab) const {
  if (!lm_head_norms(dim) || dim % 16 != 0) return false;
  const uint64_t rpw = lm_head_rpw(vocab, 0);
  return lm_head_shared_bytes(dim) + 2ull * dim + 8 * rpw + 2 * 64 * real_bytes() + 4 <= ctx_.info().max_shared_memory;
}

bool Kernels::lm_head_topk_fits(uint32_t dim, uint32_t vocab) const {
  if (!lm_head_bounds(dim, vocab)) return false;
  const uint64_t rpw = lm_head_rpw(vocab, 0);
  const uint64_t bounds = 2ull * dim + 8 * rpw + 2 * 64 * real_bytes() + 4 + (2 * 256 + 16 + 5) * 4;
  const uint64_t rows = 12 * rpw + 4;
  const uint64_t need = lm_head_shared_bytes(dim) + std::max(bounds, rows) + 4 * ((rpw + 31) / 32);
  return need <= ctx_.info().max_shared_memory;
}

void Kernels::lm_head_topk(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                           const BufferRange& table_chunk, const BufferRange& x, const BufferRange& norm_w, float eps,
                           const BufferRange& logits, uint32_t rows, uint32_t dim, uint32_t row0, uint32_t vocab,
                           TopKPass pass, const HeadBound& bound, const HeadTopK& topk, uint32_t rows_per_group) {
  require(lm_head_topk_fits(dim, vocab),
          "lm_head_topk: no sampled int8 head for a hidden size of " + std::to_string(dim));
  const uint32_t rpw = lm_head_rpw(vocab, rows_per_group);
  require(rpw > 0 && rpw % kLmHeadRowsInFlight == 0, "lm_head_topk: " + std::to_string(rpw) +
                                                         " rows per workgroup is not a multiple of " +
                                                         std::to_string(kLmHeadRowsInFlight));
  const uint32_t groups = ceil_div(rows, rpw);
  require(uint64_t{topk.group0} + groups <= topk.groups,
          "lm_head_topk: workgroups " + std::to_string(topk.group0) + " + " + std::to_string(groups) +
              " of this chunk pass the head's " + std::to_string(topk.groups));
  require(uint64_t{row0} + rows <= vocab, "lm_head_topk: the chunk's rows pass the vocabulary");
  auto need = [](const BufferRange& r, uint64_t bytes, const char* what) {
    require(r.buffer && r.bytes() >= bytes, std::string("lm_head_topk: the ") + what + " range holds " +
                                                std::to_string(r.buffer ? r.bytes() : 0) + " bytes, " +
                                                std::to_string(bytes) + " needed");
  };
  need(topk.state, GpuSampler::kStateBytes, "sampler state");
  need(topk.bounds, head_topk_bounds_bytes(vocab), "bounds");
  need(topk.scratch, head_topk_scratch_bytes(vocab), "scratch");
  need(topk.list, GpuSampler::list_bytes(vocab), "candidate list");
  if (pass == TopKPass::Bounds) {
    need(bound.q8, head_q8_bytes(rows, dim), "int8 table chunk");
    need(bound.consts, head_q8_consts_bytes(rows), "int8 row constants");
  }
  const bool b = pass == TopKPass::Bounds;
  const Pipeline& p = lm_head_decode(dim, rpw, false, b, b ? 1u : 2u);
  const BufferRange r[] = {
      params,           table_chunk,          x,          logits,      norm_w,       x,        x, x,
      b ? bound.q8 : x, b ? bound.consts : x, topk.state, topk.bounds, topk.scratch, topk.list};
  const uint32_t push[] = {rows, dim, row0, vocab, f32_bits(eps), topk.groups, topk.group0, 0};
  cs.dispatch(p, da.make(p, r), push, sizeof push, groups);
}

void Kernels::build_head_q8(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& table_chunk,
                            const BufferRange& q8_chunk, const BufferRange& consts_chunk, uint32_t rows, uint32_t dim) {
  require(dim % 16 == 0, "build_head_q8: dim " + std::to_string(dim) + " is not a multiple of 16");
  if (!head_q8_) head_q8_ = std::make_unique<Pipeline>(ctx_, "lm_head_q8", 3, 8, std::vector<uint32_t>{});
  const BufferRange r[] = {table_chunk, q8_chunk, consts_chunk};
  const uint32_t push[] = {rows, dim};
  cs.dispatch(*head_q8_, da.make(*head_q8_, r), push, sizeof push, std::min(rows, 8192u));
}

const Pipeline& Kernels::lm_head_decode(uint32_t dim, uint32_t rows_per_group, bool argmax, bool bounded,
                                        uint32_t topk) {
  for (const auto& h : lm_head_decode_)
    if (h.dim == dim && h.rows_per_group == rows_per_group && h.argmax == argmax && h.bounded == bounded &&
        h.topk == topk)
      return *h.pipe;
  LmHeadDecode h{dim, rows_per_group, argmax, bounded, topk, nullptr};
  // The bounded pass's int8 dot products use the packed instruction where the tuned kernels do.
  const std::string stem = std::string("lm_head") + (bounded && dot_ ? "_dot" : "") + (f64_ ? "_f64" : "");
  h.pipe = std::make_unique<Pipeline>(
      ctx_, stem, kLmHeadBindings, kLmHeadPush,
      std::vector<uint32_t>{lm_wg_, tpr_, 1, dim, rows_per_group, kLmHeadRowsInFlight, argmax ? 1u : 0u,
                            bounded ? 1u : 0u, topk, GpuSamplerState::kMaxPenalised, GpuSampler::kMaxTopK});
  lm_head_decode_.push_back(std::move(h));
  return *lm_head_decode_.back().pipe;
}

void Kernels::prepare(uint32_t group, uint32_t dim, uint32_t vocab, bool bounded_head) {
  attention_block(group);
  if (!lm_head_norms(dim)) return;
  // Decode with logits (and the GPU sampler's steps), and device-side greedy steps.
  lm_head_decode(dim, lm_head_rpw(vocab, 0), false);
  lm_head_decode(dim, lm_head_rpw(vocab, 0), true);
  if (bounded_head && lm_head_bounds(dim, vocab)) lm_head_decode(dim, lm_head_rpw(vocab, 0), true, true);
  if (bounded_head && batch_head_tokens(dim) > 0) head_batch(dim, false, 0);  // batched greedy steps
  if (bounded_head && lm_head_topk_fits(dim, vocab)) {
    lm_head_decode(dim, lm_head_rpw(vocab, 0), false, true, 1);  // a sampled step's two passes
    lm_head_decode(dim, lm_head_rpw(vocab, 0), false, false, 2);
  }
}

const Kernels::BlockAttention* Kernels::attention_block(uint32_t group) {
  for (const auto& b : attn_block_)
    if (b.group == group) return &b;
  // The tile: up to 32 queries (tokens x group), as many as shared memory holds. Per query the shader
  // keeps a row of kBlockAttentionMaxHeadDim values, a score per key of a chunk and three softmax
  // values; common.glsl adds its reduction slots.
  const DeviceInfo& d = ctx_.info();
  // A staged key row: its uvec4s (8 F16, 4 F32 or 2 double values each), plus one of padding.
  const uint32_t key_row = kBlockAttentionMaxHeadDim * kv_bytes() / 16 + 1;
  // Keys per chunk: 32, halved (down to 8) while the chunk's staged key and value rows leave no room
  // for a query of each head of the group. Only wide cache rows need less: rows of doubles, or F32 rows
  // where shared memory is 32 KiB (lavapipe).
  uint32_t chunk = kBlockAttentionChunk, tile = 0;
  for (; chunk >= 8; chunk /= 2) {
    const uint64_t per_query = (kBlockAttentionMaxHeadDim + chunk + 3) * real_bytes();
    const uint64_t fixed = 64 * (8 + 4) + 64 + uint64_t{chunk} * (2 * key_row - 1) * 16;
    const uint64_t fit = d.max_shared_memory > fixed ? (d.max_shared_memory - fixed) / per_query : 0;
    tile = static_cast<uint32_t>(std::min<uint64_t>(32 / std::max(group, 1u), fit / std::max(group, 1u)));
    if (tile > 0) break;
  }
  if (group == 0 || tile == 0 || d.max_workgroup_invocations < kBlockAttentionWorkgroup || !d.subgroup_shuffle ||
      std::max(1u, d.min_subgroup_size) < 8)
    return nullptr;
  BlockAttention b;
  b.group = group;
  b.tile = tile;
  b.pipe = std::make_unique<Pipeline>(
      ctx_, std::string("attention_block") + (f64_ ? "_f64" : ""), 5, 12,
      std::vector<uint32_t>{kBlockAttentionWorkgroup, kv_f16_ ? 1u : 0u, chunk, group, tile, key_row});
  attn_block_.push_back(std::move(b));
  return &attn_block_.back();
}

uint64_t Kernels::greedy_scratch_bytes(uint32_t vocab) const {
  return 8 + 8 * uint64_t{ceil_div(vocab, wg_ * 4 * kGreedyWordsPerInvocation)};
}

void Kernels::greedy_step(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& step,
                          const BufferRange& logits, const BufferRange& next_token, const BufferRange& ring,
                          const BufferRange& scratch, uint32_t vocab, uint32_t ring_size) {
  require(vocab > 0 && ring_size > 0, "greedy_step: an empty vocabulary or ring");
  const uint64_t scratch_bytes = scratch.bytes();
  require(scratch_bytes >= greedy_scratch_bytes(vocab), "greedy_step: the scratch range holds " +
                                                            std::to_string(scratch_bytes) + " bytes, " +
                                                            std::to_string(greedy_scratch_bytes(vocab)) + " needed");
  const BufferRange r[] = {step, logits, next_token, ring, scratch};
  const uint32_t push[] = {vocab, ring_size};
  cs.dispatch(*greedy_, da.make(*greedy_, r), push, sizeof push, ceil_div(vocab, wg_ * 4 * kGreedyWordsPerInvocation));
}

uint32_t Kernels::argmax_slices(uint32_t vocab) const {
  return ceil_div(vocab, wg_ * kArgmaxRowsPerInvocation);
}

void Kernels::argmax_rows(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                          const BufferRange& logits, const BufferRange& best, const BufferRange& penalised,
                          const BufferRange& gathered, uint32_t vocab, uint32_t max_rows) {
  row_bests(cs, da, *argmax_rows_, 1, params, logits, best, penalised, gathered, best, vocab, max_rows, "argmax_rows");
}

void Kernels::top_rows(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                       const BufferRange& logits, const BufferRange& top, const BufferRange& penalised,
                       const BufferRange& gathered, const BufferRange& nan, uint32_t vocab, uint32_t max_rows) {
  require(nan.bytes() >= uint64_t{max_rows} * argmax_slices(vocab) * 4, "top_rows: the NaN range holds too few slices");
  row_bests(cs, da, *top_rows_, kTopRowsMax, params, logits, top, penalised, gathered, nan, vocab, max_rows,
            "top_rows");
}

void Kernels::row_bests(CommandSequence& cs, DescriptorAllocator& da, const Pipeline& p, uint32_t per_slice,
                        const BufferRange& params, const BufferRange& logits, const BufferRange& best,
                        const BufferRange& penalised, const BufferRange& gathered, const BufferRange& nan,
                        uint32_t vocab, uint32_t max_rows, const std::string& what) {
  require(vocab > 0 && max_rows > 0, what + ": an empty vocabulary or no rows");
  const uint32_t slices = argmax_slices(vocab);
  require(best.bytes() >= uint64_t{max_rows} * slices * per_slice * 8, what + ": the best range holds too few slices");
  require(penalised.bytes() >= uint64_t{max_rows} * (kArgmaxPenalisedMax + 1) * 4 &&
              gathered.bytes() >= uint64_t{max_rows} * kArgmaxPenalisedMax * 4,
          what + ": the penalised tokens' ranges are too small");
  const BufferRange r[] = {params, logits, best, penalised, gathered, nan};
  const uint32_t push[] = {vocab, slices};
  cs.dispatch(p, da.make(p, r), push, sizeof push, slices, max_rows);
}

bool Kernels::top_of_slices(std::span<const uint32_t> pairs, std::span<const uint32_t> nan,
                            std::span<const int32_t> penalised, std::span<const float> gathered, float penalty,
                            size_t k, std::vector<TopLogit>& out) {
  out.clear();
  for (uint32_t f : nan)
    if (f != 0) return false;
  std::vector<TopLogit> pen;
  for (size_t j = 0; j < penalised.size(); ++j) {
    const float l = repeat_penalised(gathered[j], penalty);
    if (l != l) return false;
    pen.push_back({l, penalised[j]});
  }
  std::sort(pen.begin(), pen.end(), TopLogit::before);
  // Each slice's list is in TopLogit::before order already (argmax_rows' order on numbers), and so is
  // `pen`: the first k of their merge are the row's. No list is needed past k entries (k <= its length).
  const size_t per = 2 * size_t{kTopRowsMax}, lists = (pairs.size() + per - 1) / per;
  auto at = [&](size_t list, size_t pos, TopLogit& v) {
    if (list == lists) {
      if (pos >= pen.size()) return false;
      v = pen[pos];
      return true;
    }
    const size_t e = list * per + 2 * pos;
    if (pos >= kTopRowsMax || e + 1 >= pairs.size() || pairs[e + 1] == kNoIndex) return false;
    v = {std::bit_cast<float>(pairs[e]), static_cast<int32_t>(pairs[e + 1])};
    return true;
  };
  struct Head {
    TopLogit v;
    size_t list, pos;
  };
  auto later = [](const Head& a, const Head& b) { return TopLogit::before(b.v, a.v); };  // (a max-heap)
  std::vector<Head> heap;
  TopLogit v;
  for (size_t list = 0; list <= lists; ++list)
    if (at(list, 0, v)) heap.push_back({v, list, 0});
  std::make_heap(heap.begin(), heap.end(), later);
  while (out.size() < k && !heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), later);
    const Head h = heap.back();
    heap.pop_back();
    out.push_back(h.v);
    if (at(h.list, h.pos + 1, v)) {
      heap.push_back({v, h.list, h.pos + 1});
      std::push_heap(heap.begin(), heap.end(), later);
    }
  }
  return true;
}

int32_t Kernels::argmax_of_slices(std::span<const uint32_t> pairs, std::span<const int32_t> penalised,
                                  std::span<const float> gathered, float penalty) {
  std::vector<std::pair<uint32_t, float>> candidates;  // (index, value)
  for (size_t s = 0; s + 1 < pairs.size(); s += 2)
    if (pairs[s + 1] != kNoIndex) candidates.emplace_back(pairs[s + 1], std::bit_cast<float>(pairs[s]));
  for (size_t j = 0; j < penalised.size(); ++j)
    candidates.emplace_back(static_cast<uint32_t>(penalised[j]), repeat_penalised(gathered[j], penalty));
  if (candidates.empty()) return 0;  // (not reached: some logit of the row is a candidate)
  // In index order, the first largest value is the row's first largest.
  std::sort(candidates.begin(), candidates.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<float> values(candidates.size());
  for (size_t c = 0; c < candidates.size(); ++c) values[c] = candidates[c].second;
  return static_cast<int32_t>(candidates[static_cast<size_t>(trit::argmax(values))].first);
}

std::vector<RowChunk> split_rows(uint32_t rows, uint64_t row_bytes, uint64_t max_range) {
  if (row_bytes == 0 || row_bytes > max_range)
    throw VulkanError("a row of " + std::to_string(row_bytes) + " bytes does not fit one storage binding of " +
                      std::to_string(max_range) + " bytes");
  const auto per = static_cast<uint32_t>(std::min<uint64_t>(max_range / row_bytes, rows));
  std::vector<RowChunk> out;
  for (uint32_t r = 0; r < rows; r += per) out.push_back({r, std::min(per, rows - r)});
  return out;
}

std::vector<float> make_rope_table(uint32_t positions, uint32_t head_dim, float base) {
  const auto d = make_rope_table_f64(positions, head_dim, base);
  return std::vector<float>(d.begin(), d.end());
}

std::vector<double> make_rope_table_f64(uint32_t positions, uint32_t head_dim, float base) {
  const uint32_t half = head_dim / 2;
  std::vector<double> t(std::size_t{positions} * half * 2);
  for (uint32_t p = 0; p < positions; ++p)
    for (uint32_t i = 0; i < half; ++i) {
      // Same expression as ref::rope_neox, so the angles agree to the last bit.
      const double theta = static_cast<double>(p) * std::pow(static_cast<double>(base), -2.0 * i / head_dim);
      t[(std::size_t{p} * half + i) * 2] = std::cos(theta);
      t[(std::size_t{p} * half + i) * 2 + 1] = std::sin(theta);
    }
  return t;
}

}  // namespace trit::vk
