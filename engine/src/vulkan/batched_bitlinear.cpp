// Pipelines and recording for a batched decode step's BitLinear kernels (vulkan/batched_bitlinear.h).
#include "vulkan/batched_bitlinear.h"

#include <algorithm>
#include <bit>
#include <numeric>
#include <string>

#include "vulkan/ceil_div.h"

namespace trit::vk {
namespace {

constexpr uint32_t kQkv = FusedDecode::kQkv, kResidual = FusedDecode::kResidual, kGate = FusedDecode::kGate;
constexpr uint32_t kProductBindings = 15;

// Tokens whose input rows a workgroup stages in shared memory and whose sums a lane holds at a time
// (bitlinear_batch.glsl TOKENS): 4, or as many k-wide rows as fit beside the rest. Measured on the H100
// (2B4T shape, tokens/s at 1 / 4 / 8 / 16 streams): 4 tokens 336 / 952 / 1,341 / 1,532, 8 tokens
// 285 / 858 / 1,246 / 1,428.
uint32_t tokens_per_pass(const DeviceInfo& d, uint32_t k) {
  const uint32_t rest = 4096;  // the reductions' partials and MODE 0's sums
  return std::clamp<uint32_t>(d.max_shared_memory > rest ? (d.max_shared_memory - rest) / k : 1, 1, 4);
}

// Passes of a step's tokens that run side by side, each in its own workgroups (bitlinear_batch.glsl's
// y): all of them where a workgroup holds few weights, else one after another in the same workgroups.
// Side by side, a step of more tokens than a pass takes waits out one pass's chain (stage the rows, sum,
// reduce, store) instead of several, but every pass reads the workgroup's weights again (from L2 after
// the first). Measured on the H100 (2B4T shape, 8 sequences, ms a token by product): QKV and wo, whose
// workgroups hold 5 KB of weights, 0.067 -> 0.060 and 0.067 -> 0.053; gate/up (20 KB) 0.086 -> 0.085;
// down (14 KB) 0.088 -> 0.101.
constexpr uint32_t kSideBySideWeightBytes = 8192;

// The cooperative-matrix kernel's subgroups a workgroup (each takes a share of K's chunks: its lanes
// fetch a code uvec4 of each before the rows arrive, then each chunk is a short chain of shared-memory
// stores, fragment loads and products). A subgroup's chain is the kernel's time, so more subgroups
// (shorter chains, more loads in flight) win until the subgroups' start and their sums' reduction cost
// more: the best split of each product came where the dispatch had about 10 subgroups a multiprocessor
// (down: 8 rather than 9 or 11; wo: 7 to 10 alike). Measured on the H100 (2B4T shape, ms a token by
// product at 8 / 16 tokens, subgroups a workgroup): QKV (240 workgroups) 10: 0.050 / 0.031, 7: 0.052 /
// 0.030, 4: 0.055 / 0.034, 2: 0.063 / 0.036; wo (160) 10: 0.045 / 0.026, 7: 0.044 / 0.027, 3: 0.050 /
// 0.029, 2: 0.057 / 0.033; gate/up (432) 7: 0.080 / 0.049, 4: 0.082 / 0.052, 3: 0.076 / 0.048, 2: 0.077
// / 0.051; down (160) 11: 0.080 / 0.043, 8: 0.070 / 0.040, 6: 0.070 / 0.040, 4: 0.075 / 0.045. Again
// on an H200 once the workgroups' walks over K were shifted (bitlinear_batch_coop.glsl chunk_of), the
// whole step at 8 / 16 tokens: 10 a multiprocessor 3,332-3,341 / 5,608-5,737 tokens/s, 14 / 20 / 30
// 3,095-3,175 / 5,397-5,442. Where
// the multiprocessors are not known, a subgroup takes 8 chunks. At most 16 subgroups, fewer where their
// shared memory would not fit.
constexpr uint32_t kCoopSubgroupsPerMultiprocessor = 10, kCoopChunksPerSubgroup = 8, kCoopMaxSplit = 16;
// common.glsl's reduction slots, which every shader including it declares.
constexpr uint32_t kCommonSharedBytes = 64 * (8 + 4);

}  // namespace

uint32_t BatchedBitLinear::side_by_side(const Shape& s, uint32_t k, uint32_t tokens) const {
  const uint32_t weight_bytes = s.wg / s.tpr * s.slots * (k / 4);  // 2-bit codes of each slot's row
  return weight_bytes <= kSideBySideWeightBytes ? ceil_div(std::max(tokens, 1u), tokens_per_pass(ctx_.info(), k)) : 1;
}

struct BatchedBitLinear::ProductPush {
  uint32_t rows, rows_kv, hd;
  float scale0, scale1, scale2;
  uint32_t slot = 0;
};

bool BatchedBitLinear::fits(uint32_t dim, uint32_t ffn, uint32_t qdim, uint32_t kvdim, uint32_t head_dim,
                            bool block_scales) {
  const uint32_t block = block_scales ? 256 : 128;
  for (uint32_t k : {dim, ffn, qdim})
    if (k == 0 || k % block) return false;
  return qdim % 4 == 0 && kvdim % 4 == 0 && head_dim % 4 == 0 && head_dim > 0;
}

BatchedBitLinear::BatchedBitLinear(const Context& ctx, const FusedDecode& one_token, bool kv_f16, bool f64, bool dot,
                                   const DecodeGraph& graph)
    : ctx_(ctx),
      one_token_(one_token),
      kv_f16_(kv_f16),
      f64_(f64),
      dot_(dot),
      graph_(graph),
      min_subgroup_(std::max(1u, ctx.info().min_subgroup_size)),
      coop_(choose_coop(ctx.info(), graph.block_scales)) {}

// A shape whose K is a chunk of whole code uvec4s of a row's group (16, 32 or 64 int8), whose M is
// whole quads of RoPE pairs, preferring 16 rows (more workgroups), 16 tokens (a server's default step
// in one tile) and K 32; the NVIDIA extension first where both are offered, as the prefill GEMM.
BatchedBitLinear::Coop BatchedBitLinear::choose_coop(const DeviceInfo& d, bool block_scales) {
  if (block_scales || cooperative_subgroup_size(d) == 0) return {};
  for (const bool khr : {false, true}) {
    if (!(khr ? d.cooperative_matrix_khr : d.cooperative_matrix_nv)) continue;
    Coop best;
    auto score = [](const Coop& c) { return (c.cm == 16 ? 4 : 0) + (c.cn == 16 ? 2 : 0) + (c.ck == 32 ? 1 : 0); };
    for (const auto& sh : khr ? d.coop_int8_shapes_khr : d.coop_int8_shapes) {
      if ((sh.k != 16 && sh.k != 32 && sh.k != 64) || sh.m == 0 || sh.m % 4 || sh.n == 0) continue;
      const Coop c{sh.m, sh.n, sh.k, khr};
      if (best.cm == 0 || score(c) > score(best)) best = c;
    }
    if (best.cm) return best;
  }
  return {};
}

uint32_t BatchedBitLinear::coop_shared_bytes(uint32_t mode, uint32_t split, uint32_t tiles) const {
  // As the shader: each subgroup's decoded codes and tokens' columns, or after K its sums.
  const uint32_t nmat = mode == kGate ? 2 : 1, cc = coop_.ck / 16;
  const uint32_t ab = split * (nmat * 4 * coop_.cm * cc + tiles * 4 * coop_.cn * cc) * 16;
  const uint32_t c = split * nmat * tiles * coop_.cm * coop_.cn * 4;
  return std::max(ab, c) + kCommonSharedBytes;
}

uint32_t BatchedBitLinear::coop_split(uint32_t mode, uint32_t k, uint32_t rows, uint32_t tiles) const {
  const DeviceInfo& d = ctx_.info();
  const uint32_t chunks = k / 64 / (coop_.ck / 16), workgroups = ceil_div(rows, coop_.cm);
  const uint32_t mp = ctx_.multiprocessors();
  uint32_t split = mp ? (kCoopSubgroupsPerMultiprocessor * mp + workgroups / 2) / workgroups
                      : ceil_div(chunks, kCoopChunksPerSubgroup);
  split = std::clamp(
      split, 1u,
      std::max(1u, std::min({chunks, kCoopMaxSplit, d.max_workgroup_invocations / cooperative_subgroup_size(d)})));
  while (split > 1 && coop_shared_bytes(mode, split, tiles) > d.max_shared_memory) --split;
  return split;
}

uint32_t BatchedBitLinear::coop_min_tokens() const {
  return coop_.cm ? kCoopMinTokens : 0;
}

bool BatchedBitLinear::coop_serves(uint32_t mode, uint32_t k, uint32_t unit, uint32_t tokens) const {
  if (!coop_.cm || tokens < kCoopMinTokens || k % (64 * (coop_.ck / 16))) return false;
  if (mode == kQkv && (!unit || unit % coop_.cm)) return false;
  return coop_shared_bytes(mode, 1, ceil_div(std::max(tokens, 1u), coop_.cn)) <= ctx_.info().max_shared_memory;
}

std::string BatchedBitLinear::describe() const {
  if (!coop_.cm) return "small-matrix kernel";
  return std::string("cooperative-matrix (") + (coop_.khr ? "VK_KHR" : "VK_NV") + "_cooperative_matrix), int8 " +
         std::to_string(coop_.cm) + "x" + std::to_string(coop_.cn) + "x" + std::to_string(coop_.ck) +
         required_subgroup_note(ctx_.info());
}

BatchedBitLinear::~BatchedBitLinear() = default;

// TPR lanes per group of SLOTS = 2 rows: with block scales the one-token kernel's lanes (its order of
// float sums); else enough that a lane holds at most four code uvec4s of each row, within one subgroup
// of the smallest size. Workgroups of 256, halved while the step would not give every multiprocessor
// two of them, and (QKV: `unit`, the projections' common divisor) until their rows divide the
// projections.
BatchedBitLinear::Shape BatchedBitLinear::shape(uint32_t mode, uint32_t k, uint32_t rows, uint32_t unit) const {
  const uint32_t cols = k / 64, slots = 2;
  const uint32_t tpr = graph_.block_scales ? one_token_.lanes_per_row(mode, k)
                                           : std::min({std::bit_ceil(ceil_div(cols, 4)), 32u, min_subgroup_});
  const DeviceInfo& d = ctx_.info();
  uint32_t wg = std::min({256u, d.max_workgroup_invocations, 64 * min_subgroup_});
  wg = std::max(wg / tpr, 1u) * tpr;
  const uint32_t groups = ceil_div(rows, mode == kGate ? slots / 2 : slots);
  const uint32_t mp = ctx_.multiprocessors();
  while (mp > 0 && wg / 2 >= std::max(64u, tpr) && ceil_div(groups * tpr, wg) < 2 * mp) wg /= 2;
  if (unit)
    while (wg > tpr && (wg / tpr * slots % 4 || unit % (wg / tpr * slots))) wg /= 2;
  return {tpr, ceil_div(cols, tpr), wg, slots};
}

uint32_t BatchedBitLinear::coop_tiles(uint32_t mode, uint32_t k, uint32_t unit, uint32_t tokens) const {
  return coop_serves(mode, k, unit, tokens) ? ceil_div(std::max(tokens, 1u), coop_.cn) : 0;
}

const Pipeline& BatchedBitLinear::product(uint32_t mode, uint32_t k, uint32_t rows, uint32_t unit, bool wait,
                                          uint32_t tiles) {
  const bool coop = tiles > 0;
  const std::array<uint32_t, 5> key{mode, k, rows, wait ? 1u : 0u, tiles};
  for (const auto& e : products_)
    if (e.key == key) return *e.pipe;
  const uint32_t block = graph_.block_scales ? 256 : 128;
  if (k == 0 || k % block)
    throw VulkanError("batched decode: input width " + std::to_string(k) + " is not a multiple of " +
                      std::to_string(block));
  const std::string sfx = f64_ ? "_f64" : "";
  if (coop) {
    const uint32_t sg = cooperative_subgroup_size(ctx_.info()), split = coop_split(mode, k, rows, tiles);
    products_.push_back(
        {key, std::make_unique<Pipeline>(ctx_, "bitlinear_batch_coop" + sfx + (coop_.khr ? "_khr" : ""),
                                         kProductBindings, static_cast<uint32_t>(sizeof(ProductPush)),
                                         std::vector<uint32_t>{split * sg, mode, k, coop_.cm, coop_.cn, coop_.ck, split,
                                                               sg, tiles, kv_f16_ ? 1u : 0u, graph_.silu ? 1u : 0u,
                                                               graph_.normal_rope ? 1u : 0u, wait ? 1u : 0u},
                                         required_subgroup_size(ctx_.info(), sg))});
    return *products_.back().pipe;
  }
  const Shape s = shape(mode, k, rows, unit);
  const std::string stem = std::string("bitlinear_batch") + (dot_ ? "_dot" : "") + sfx;
  products_.push_back(
      {key, std::make_unique<Pipeline>(
                ctx_, stem, kProductBindings, static_cast<uint32_t>(sizeof(ProductPush)),
                std::vector<uint32_t>{s.wg, s.tpr, mode, k, s.vpl, kv_f16_ ? 1u : 0u, graph_.silu ? 1u : 0u,
                                      graph_.normal_rope ? 1u : 0u, graph_.block_scales ? 1u : 0u,
                                      tokens_per_pass(ctx_.info(), k), s.slots, wait ? 1u : 0u})});
  return *products_.back().pipe;
}

// rmsnorm_quant.glsl (HAS_NORM as asked, WRITE_F32 off, WRITE_Q8 on, PERMUTED, the row held in
// registers) with the one-token kernel's workgroup size for the step: the same sum of squares in the
// same order as that kernel's.
const Pipeline& BatchedBitLinear::quantizer(uint32_t mode, uint32_t k, uint32_t rows, bool has_norm, bool signal) {
  const uint32_t wg = one_token_.workgroup_for(mode, k, rows), xpt = ceil_div(k / 4, wg);  // (the row in registers)
  const std::array<uint32_t, 5> key{wg, has_norm ? 1u : 0u, signal ? 1u : 0u, xpt, 0};
  for (const auto& e : quantizers_)
    if (e.key == key) return *e.pipe;
  quantizers_.push_back(
      {key, std::make_unique<Pipeline>(ctx_, std::string("rmsnorm_quant") + (f64_ ? "_f64" : ""), 7, 16,
                                       std::vector<uint32_t>{wg, has_norm ? 1u : 0u, 0, 1, 1, signal ? 1u : 0u, xpt})});
  return *quantizers_.back().pipe;
}

std::vector<std::string> BatchedBitLinear::statistics() const {
  std::vector<std::string> out;
  for (const auto& e : products_)
    e.pipe->statistics_to(out, std::string(e.key[4] ? "bitlinear_batch_coop" : "bitlinear_batch") + " mode " +
                                   std::to_string(e.key[0]) + " k " + std::to_string(e.key[1]));
  return out;
}

void BatchedBitLinear::prepare(uint32_t dim, uint32_t qdim, uint32_t kvdim, uint32_t ffn, uint32_t tokens,
                               bool overlap) {
  // Steps of `tokens`, and the smaller steps recorded apart (coop_min_tokens), which never take the
  // cooperative-matrix kernel (0 tokens: coop_tiles is 0). Where both run the same kernel, the second
  // asks for pipelines made already.
  const uint32_t unit = std::gcd(qdim, kvdim);
  for (const uint32_t t : {0u, tokens}) {
    product(kQkv, dim, qdim + 2 * kvdim, unit, overlap, coop_tiles(kQkv, dim, unit, t));
    product(kResidual, qdim, dim, 0, overlap, coop_tiles(kResidual, qdim, 0, t));
    product(kResidual, ffn, dim, 0, overlap, coop_tiles(kResidual, ffn, 0, t));
    product(kGate, dim, ffn, 0, overlap, coop_tiles(kGate, dim, 0, t));
  }
  quantizer(kQkv, dim, qdim + 2 * kvdim, true, overlap);
  quantizer(kResidual, qdim, dim, graph_.sub_norms, overlap);
  quantizer(kResidual, ffn, dim, graph_.sub_norms, overlap);
  quantizer(kGate, dim, ffn, true, overlap);
}

void BatchedBitLinear::run(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                           BufferRange (&b)[15], const BatchInput& in, ProductPush push, uint32_t mode, uint32_t k,
                           uint32_t rows, uint32_t unit) {
  const bool overlap = in.overlap.has_value();
  const Pipeline& qp = quantizer(mode, k, rows, in.norm.has_value(), overlap);
  const BufferRange qr[] = {params,    in.x,      in.norm ? *in.norm : in.x,         in.x,
                            in.rows.q, in.rows.s, overlap ? in.overlap->ready : in.x};
  struct {
    uint32_t k;
    float eps;
    uint32_t last_only, slot;
  } qpush{k, in.eps, 0, overlap ? in.overlap->slot : 0};
  cs.dispatch(qp, da.make(qp, qr), &qpush, sizeof qpush, in.rows.tokens);
  // With an overlap the product starts beside the quantization and waits for its rows' count: on the
  // H100 it could otherwise begin only after the last quantizing workgroup drained (3-4 us a boundary).
  if (!overlap) cs.barrier();

  const uint32_t tiles = coop_tiles(mode, k, unit, in.rows.tokens);
  const bool coop = tiles > 0;
  const Pipeline& p = product(mode, k, rows, unit, overlap, tiles);
  b[0] = params;
  b[4] = in.rows.q;
  b[5] = in.rows.s;
  b[13] = overlap ? in.overlap->ready : params;
  b[14] = overlap ? in.overlap->failed : params;
  push.slot = overlap ? in.overlap->slot : 0;
  if (coop) {
    cs.dispatch(p, da.make(p, b), &push, sizeof push, ceil_div(rows, coop_.cm));
    return;
  }
  const Shape s = shape(mode, k, rows, unit);
  const uint32_t per_wg = s.wg / s.tpr * (mode == kGate ? s.slots / 2 : s.slots);
  cs.dispatch(p, da.make(p, b), &push, sizeof push, ceil_div(rows, per_wg), side_by_side(s, k, in.rows.tokens));
}

void BatchedBitLinear::qkv(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const MatrixRef& wq,
                           const MatrixRef& wk, const MatrixRef& wv, const BatchInput& in, const BufferRange& q,
                           const BufferRange& rope, const BufferRange& k_cache, const BufferRange& v_cache,
                           uint32_t dim, uint32_t qdim, uint32_t kvdim, uint32_t head_dim) {
  const uint32_t rows = qdim + 2 * kvdim, unit = std::gcd(qdim, kvdim);
  const Shape sh = shape(kQkv, dim, rows, unit);
  const uint32_t rpw = sh.wg / sh.tpr * sh.slots;
  if (qdim % 4 || kvdim % 4 || head_dim % 4 || rpw % 4 || unit % rpw)
    throw VulkanError("batched decode: projection widths " + std::to_string(qdim) + " / " + std::to_string(kvdim) +
                      " and head dimension " + std::to_string(head_dim) + " do not suit " + std::to_string(rpw) +
                      " rows per workgroup");
  BufferRange b[15] = {params,
                       wq.codes,
                       wk.codes,
                       wv.codes,
                       params,
                       params,
                       q,
                       rope,
                       k_cache,
                       v_cache,
                       wq.scales_binding(),
                       wk.scales_binding(),
                       wv.scales_binding(),
                       params,
                       params};
  run(cs, da, params, b, in, ProductPush{qdim, kvdim, head_dim, wq.scale, wk.scale, wv.scale}, kQkv, dim, rows, unit);
}

void BatchedBitLinear::residual(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                                const MatrixRef& w, const BatchInput& in, const BufferRange& y, uint32_t rows,
                                uint32_t k) {
  BufferRange b[15] = {params,
                       w.codes,
                       w.codes,
                       w.codes,
                       params,
                       params,
                       y,
                       y,
                       y,
                       y,
                       w.scales_binding(),
                       w.scales_binding(),
                       w.scales_binding(),
                       params,
                       params};
  run(cs, da, params, b, in, ProductPush{rows, 0, 0, w.scale, 1.f, 1.f}, kResidual, k, rows, 0);
}

void BatchedBitLinear::gate(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                            const MatrixRef& wg, const MatrixRef& wu, const BatchInput& in, const BufferRange& y,
                            uint32_t rows, uint32_t k) {
  BufferRange b[15] = {params,
                       wg.codes,
                       wu.codes,
                       wg.codes,
                       params,
                       params,
                       y,
                       y,
                       y,
                       y,
                       wg.scales_binding(),
                       wu.scales_binding(),
                       wg.scales_binding(),
                       params,
                       params};
  run(cs, da, params, b, in, ProductPush{rows, 0, 0, wg.scale, wu.scale, 1.f}, kGate, k, rows, 0);
}

}  // namespace trit::vk
