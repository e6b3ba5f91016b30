// Pipelines and recording for the fused one-token BitLinear kernels (vulkan/fused_decode.h).
#include "vulkan/fused_decode.h"

#include <algorithm>
#include <bit>

#include "vulkan/ceil_div.h"

namespace trit::vk {
namespace {

struct Push {
  uint32_t rows, rows_kv, hd;
  float eps, scale0, scale1, scale2;
};

}  // namespace

std::optional<FusedDecode::Layout> FusedDecode::plan(const DeviceInfo& d, uint32_t dim, uint32_t ffn, uint32_t qdim,
                                                     uint32_t kvdim, uint32_t head_dim, bool f64, std::string* why) {
  auto no = [&](const std::string& reason) -> std::optional<Layout> {
    if (why) *why = reason;
    return std::nullopt;
  };
  // A row's lanes meet through subgroup shuffles, so they must sit in one subgroup of the smallest size
  // the device may choose; 16 lanes per row keep a 2560-wide row at 2-3 uvec4 loads per lane.
  const uint32_t sg = std::max(1u, d.min_subgroup_size);
  if (!d.subgroup_shuffle) return no("no subgroup shuffles");
  if (!std::has_single_bit(sg)) return no("the subgroup size is not a power of two");
  Layout l;
  l.tpr = std::min(16u, sg);
  // 32 rows per workgroup where subgroups are wide (each workgroup re-reads the input row from L2, so
  // fewer, wider workgroups read less: on the H100 512 invocations beat 128, 256 and 1024); 8 rows on
  // lavapipe's 8-wide subgroups.
  l.wg = std::min(d.max_workgroup_invocations, l.tpr * (sg >= 16 ? 32u : 8u));
  const uint32_t rpw = l.rows_per_wg();
  if (rpw % 4 || head_dim % rpw || qdim % rpw || kvdim % rpw)
    return no("head_dim " + std::to_string(head_dim) + " and the projection widths must be multiples of " +
              std::to_string(rpw) + " rows per workgroup");
  if (l.wg / sg > 64) return no("too many subgroups per workgroup");
  // Shared memory: the quantized input row, one value per row, the reduction partials.
  const uint32_t widest = std::max({dim, ffn, qdim});
  const uint64_t shared = widest + uint64_t{rpw} * (f64 ? 8 : 4) + 64 * 12;
  if (shared > d.max_shared_memory) return no("the input row does not fit shared memory");
  return l;
}

FusedDecode::FusedDecode(const Context& ctx, const Layout& layout, bool kv_f16, bool f64, bool dot,
                         const DecodeGraph& graph)
    : ctx_(ctx),
      layout_(layout),
      kv_f16_(kv_f16),
      f64_(f64),
      dot_(dot),
      graph_(graph),
      min_subgroup_(std::max(1u, ctx.info().min_subgroup_size)) {}

FusedDecode::~FusedDecode() = default;

uint32_t FusedDecode::lanes_per_row(uint32_t mode, uint32_t k) const {
  // Long rows (Falcon3-10B's down projection: 23,040 inputs) take a whole subgroup of 32 lanes where
  // the device's subgroups are that wide: twice the workgroups over the same rows, and half the
  // uvec4s a lane holds in registers. QKV keeps the layout's lanes (its RoPE pairs need its rows per
  // workgroup). Not with block scales: measured 2% slower there (falcon3-10b in TQ1_0, H100), 11% faster
  // without (I2_S).
  if (mode != kQkv && !graph_.block_scales && k / 64 > 8 * layout_.tpr && layout_.tpr * 2 <= min_subgroup_ &&
      layout_.wg % (layout_.tpr * 2) == 0)
    return layout_.tpr * 2;
  return layout_.tpr;
}

// Long rows take one wave: measured on the H100 with falcon3-10b's down step (3,072 rows of 23,040
// inputs, 32 lanes a row, 132 multiprocessors; tokens/s at context 128): 512 invocations (192
// workgroups, 1.45 waves) 340, 768 (128 workgroups, one wave) 359, 1,024 (96: 36 multiprocessors
// idle) 329, 384 (256 workgroups) 347.
uint32_t FusedDecode::workgroup(const Layout& layout, uint32_t lanes, uint32_t rows, uint32_t multiprocessors,
                                uint32_t max_invocations, uint32_t min_subgroup) {
  if (lanes <= layout.tpr || multiprocessors == 0) return layout.wg;
  const uint32_t wg = ceil_div(rows, multiprocessors) * lanes;
  if (wg <= layout.wg || wg > max_invocations || wg / std::max(1u, min_subgroup) > 64) return layout.wg;
  return wg;
}

uint32_t FusedDecode::workgroup_for(uint32_t mode, uint32_t k, uint32_t rows) const {
  return workgroup(layout_, lanes_per_row(mode, k), rows, ctx_.multiprocessors(), ctx_.info().max_workgroup_invocations,
                   min_subgroup_);
}

uint32_t FusedDecode::tokens_per_pass(uint32_t mode, uint32_t k, uint32_t rows, uint32_t batch) const {
  if (batch == 0) return 0;
  const uint32_t rpw = workgroup_for(mode, k, rows) / lanes_per_row(mode, k);
  // As the shader: the quantized rows, a result per row and token, the reductions' partials.
  const uint64_t per_token = k + uint64_t{rpw} * (f64_ ? 8 : 4), fixed = 64 * 12;
  const uint64_t room = ctx_.info().max_shared_memory > fixed ? ctx_.info().max_shared_memory - fixed : 0;
  return static_cast<uint32_t>(std::clamp<uint64_t>(room / per_token, 1, std::min(batch, 8u)));
}

const Pipeline& FusedDecode::pipeline(uint32_t mode, uint32_t k, uint32_t rows, bool has_norm, uint32_t tokens) {
  const uint32_t wg = workgroup_for(mode, k, rows);
  for (const auto& e : pipes_)
    if (e.mode == mode && e.k == k && e.has_norm == has_norm && e.wg == wg && e.tokens == tokens) return *e.pipe;
  if (k % 128 || k == 0)
    throw VulkanError("fused decode: input width " + std::to_string(k) + " is not a multiple of 128");
  if (graph_.block_scales && k % 256)
    throw VulkanError("fused decode: input width " + std::to_string(k) +
                      " is not a multiple of the 256-element blocks");
  const uint32_t tpr = lanes_per_row(mode, k);
  const uint32_t vpl = ceil_div(k / 64, tpr);
  const uint32_t xpt = ceil_div(k / 4, wg);
  const std::string stem = std::string("bitlinear_decode") + (dot_ ? "_dot" : "") + (f64_ ? "_f64" : "");
  pipes_.push_back(
      {mode, k, has_norm, tpr, wg, tokens,
       std::make_unique<Pipeline>(
           ctx_, stem, 13, static_cast<uint32_t>(sizeof(Push)),
           std::vector<uint32_t>{wg, tpr, mode, k, vpl, xpt, kv_f16_ ? 1u : 0u, has_norm ? 1u : 0u,
                                 graph_.silu ? 1u : 0u, graph_.normal_rope ? 1u : 0u, graph_.block_scales ? 1u : 0u,
                                 std::max(tokens, 1u), tokens > 0 ? 1u : 0u})});
  return *pipes_.back().pipe;
}

void FusedDecode::qkv(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& wq,
                      const MatrixRef& wk, const MatrixRef& wv, const BufferRange& x, const BufferRange& nw, float eps,
                      const BufferRange& q, const BufferRange& rope, const BufferRange& k_cache,
                      const BufferRange& v_cache, uint32_t dim, uint32_t qdim, uint32_t kvdim, uint32_t head_dim,
                      uint32_t batch) {
  const Pipeline& p = pipeline(kQkv, dim, qdim + 2 * kvdim, true, tokens_per_pass(kQkv, dim, qdim + 2 * kvdim, batch));
  const BufferRange r[] = {params,
                           wq.codes,
                           wk.codes,
                           wv.codes,
                           x,
                           nw,
                           q,
                           rope,
                           k_cache,
                           v_cache,
                           wq.scales_binding(),
                           wk.scales_binding(),
                           wv.scales_binding()};
  const Push push{qdim, kvdim, head_dim, eps, wq.scale, wk.scale, wv.scale};
  const uint32_t rpw = layout_.rows_per_wg();
  cs.dispatch(p, da.make(p, r), &push, sizeof push, (qdim + 2 * kvdim) / rpw);
}

void FusedDecode::residual(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& w,
                           const BufferRange& x, const BufferRange* nw, float eps, const BufferRange& y, uint32_t rows,
                           uint32_t k, uint32_t batch) {
  const Pipeline& p = pipeline(kResidual, k, rows, nw != nullptr, tokens_per_pass(kResidual, k, rows, batch));
  const uint32_t rpw = workgroup_for(kResidual, k, rows) / lanes_per_row(kResidual, k);
  const BufferRange r[] = {params,
                           w.codes,
                           w.codes,
                           w.codes,
                           x,
                           nw ? *nw : x,
                           y,
                           y,
                           y,
                           y,
                           w.scales_binding(),
                           w.scales_binding(),
                           w.scales_binding()};
  const Push push{rows, 0, 0, eps, w.scale, 1.f, 1.f};
  cs.dispatch(p, da.make(p, r), &push, sizeof push, ceil_div(rows, rpw));
}

const Pipeline& FusedDecode::attention_pipeline(uint32_t wg, uint32_t split_keys, bool batched) {
  // attention.glsl's TOKENS_FROM: common.glsl's FROM_BATCH (1) for a batched step, FROM_POS0 (2) for one
  // token, so the one-token kernel's chain of reads has no other load in it.
  const uint32_t from = batched ? 1u : 2u;
  if (attention_split_ == 0) attention_split_ = split_keys;
  if (split_keys != attention_split_)
    throw VulkanError("fused decode: attention asked for splits of " + std::to_string(split_keys) +
                      " keys, its kernels were made for " + std::to_string(attention_split_));
  for (const auto& a : attention_)
    if (a.wg == wg && a.from == from) return *a.pipe;
  attention_.push_back({wg, from,
                        std::make_unique<Pipeline>(ctx_, std::string("attention_decode") + (f64_ ? "_f64" : ""), 7, 16,
                                                   std::vector<uint32_t>{wg, kv_f16_ ? 1u : 0u, split_keys, from})});
  return *attention_.back().pipe;
}

void FusedDecode::prepare(uint32_t dim, uint32_t qdim, uint32_t ffn, uint32_t attention_wg, uint32_t split_keys) {
  pipeline(kQkv, dim, 0);  // (QKV keeps the layout's lanes and workgroup)
  pipeline(kResidual, qdim, dim, graph_.sub_norms);
  pipeline(kResidual, ffn, dim, graph_.sub_norms);
  pipeline(kGate, dim, ffn);
  attention_pipeline(attention_wg, split_keys);
}

std::vector<std::string> FusedDecode::statistics() const {
  std::vector<std::string> out;
  for (const auto& e : pipes_)
    e.pipe->statistics_to(out, "bitlinear_decode mode " + std::to_string(e.mode) + " k " + std::to_string(e.k) +
                                   " tokens " + std::to_string(e.tokens));
  return out;
}

void FusedDecode::attention(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                            const BufferRange& q, const BufferRange& k_cache, const BufferRange& v_cache,
                            const BufferRange& out, const BufferRange& scratch, const BufferRange& arrived,
                            uint32_t heads, uint32_t kv_heads, uint32_t head_dim, uint32_t max_context, uint32_t wg,
                            uint32_t split_keys, uint32_t tokens) {
  const Pipeline& p = attention_pipeline(wg, split_keys, tokens > 0);
  const uint32_t splits = ceil_div(max_context, split_keys);
  const BufferRange r[] = {params, q, k_cache, v_cache, out, scratch, arrived};
  const uint32_t push[] = {heads, kv_heads, head_dim, splits};
  cs.dispatch(p, da.make(p, r), push, sizeof push, heads, std::max(tokens, 1u), splits);
}

void FusedDecode::gate(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& wg,
                       const MatrixRef& wu, const BufferRange& x, const BufferRange& nw, float eps,
                       const BufferRange& y, uint32_t rows, uint32_t k, uint32_t batch) {
  const Pipeline& p = pipeline(kGate, k, rows, true, tokens_per_pass(kGate, k, rows, batch));
  const uint32_t rpw = workgroup_for(kGate, k, rows) / lanes_per_row(kGate, k);
  const BufferRange r[] = {params,
                           wg.codes,
                           wu.codes,
                           wg.codes,
                           x,
                           nw,
                           y,
                           y,
                           y,
                           y,
                           wg.scales_binding(),
                           wu.scales_binding(),
                           wg.scales_binding()};
  const Push push{rows, 0, 0, eps, wg.scale, wu.scale, 1.f};
  cs.dispatch(p, da.make(p, r), &push, sizeof push, ceil_div(rows, rpw));
}

}  // namespace trit::vk
