// Plan, pipeline and recording of the persistent one-layer decode kernel (vulkan/persistent_decode.h).
#include "vulkan/persistent_decode.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "vulkan/ceil_div.h"
#include "vulkan/grouped_attention.h"

namespace trit::vk {
namespace {

// The attention step's workgroup (decode_layer.glsl's WG; its CH and TPK with it).
constexpr uint32_t kWorkgroup = GroupedAttention::kWorkgroup;
// Polls of the barrier generation before a workgroup gives up: seconds on a GPU, where a normal wait
// is a few microseconds.
constexpr uint32_t kBarrierSpins = 1u << 24;
// Polls of the residency check (decode_layer.glsl check_residency): far more than a resident grid needs
// to start, milliseconds where it is not resident.
constexpr uint32_t kProbeSpins = 8192;

struct LayersPush {  // decode_layer.glsl's push constants
  uint32_t wq, wk, wv, wo, wgate, wup, wdown;
  uint32_t n_attn, n_sub, n_ffn, n_fsub;
  float eps;
  uint32_t layer0, n_layers, lstride, cstride, counter, embed, ready;
  uint32_t probe;
  uint32_t dq, dk, dv, dwo, dgate, dup, ddown;
};
constexpr uint32_t kScalesPerLayer = 7;  // decode_layer.glsl SCALES: wq, wk, wv, wo, gate, up, down

struct Derived {
  uint32_t rpw, qdim, kvdim, gq, kmax, xpt, prefetch;
  uint32_t res_rows, res_lanes;  // wo and down: rows per workgroup, lanes per row (decode_layer.glsl RR, LPR)
};

Derived derive(const PersistentDecode::Shape& s, uint32_t wg, uint32_t tpr, uint32_t groups) {
  Derived d;
  d.rpw = wg / tpr;
  d.qdim = s.heads * s.head_dim;
  d.kvdim = s.kv_heads * s.head_dim;
  d.gq = s.kv_heads ? s.heads / s.kv_heads : 0;
  d.kmax = std::max({s.dim, d.qdim, s.ffn});
  d.xpt = ceil_div(d.kmax / 4, wg);
  auto vpl = [&](uint32_t k) { return ceil_div(k / 64, tpr); };
  auto its = [&](uint32_t rows) { return ceil_div(rows / d.rpw, groups); };
  // The gate step: half the lanes per row, twice the rows per chunk (decode_layer.glsl's TPRG, RPWG).
  const uint32_t tprg = tpr > 4 ? tpr / 2 : tpr;
  const uint32_t rpw_gate = wg / tprg;
  const uint32_t gate = 2 * ceil_div(s.ffn / rpw_gate, groups) * ceil_div(s.dim / 64, tprg);
  // wo and down spread their DIM rows over as many workgroups as possible: RR rows each, as many lanes a
  // row as fit (a multiple of 8: a row's lanes reduce in aligned clusters of 8, then in shared memory).
  d.res_rows = ceil_div(s.dim, groups);
  const uint32_t fit = wg / d.res_rows;
  d.res_lanes = fit >= 8 ? fit / 8 * 8 : std::bit_floor(std::max(fit, 1u));
  auto res = [&](uint32_t k) { return ceil_div(k / 64, d.res_lanes); };
  d.prefetch = std::max({its(d.qdim + 2 * d.kvdim) * vpl(s.dim), res(d.qdim), gate, res(s.ffn)});
  return d;
}

}  // namespace

std::optional<PersistentDecode::Layout> PersistentDecode::plan(const DeviceInfo& d, const Shape& s, bool f64,
                                                               uint32_t groups, std::string* why) {
  auto no = [&](const std::string& reason) -> std::optional<Layout> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const uint32_t min_sg = std::max(1u, d.min_subgroup_size);
  // (Ballot: the grid barrier's subgroup polls as one, subgroupBroadcastFirst.)
  if (!d.subgroup_shuffle || !d.subgroup_arithmetic || !d.subgroup_ballot)
    return no("no subgroup shuffles, arithmetic or ballot");
  if (std::string r = GroupedAttention::unsuited_device(d); !r.empty()) return no(r);
  Layout l;
  l.wg = kWorkgroup;
  l.tpr = std::min(16u, min_sg);
  l.groups = groups;
  // (groups 0, the grid not known yet: the rows per workgroup and registers of one are not checked.)
  const Derived x = derive(s, l.wg, l.tpr, std::max(groups, 1u));
  const uint32_t rpw = x.rpw;
  if (s.kv_heads == 0 || s.heads % s.kv_heads) return no("the query heads are not a multiple of the KV heads");
  if (s.graph.block_scales && (s.dim % 256 || (s.heads * s.head_dim) % 256 || s.ffn % 256))
    return no("input widths must be multiples of the 256-element scale blocks");
  // (The gate step's chunks of up to 128 rows divide ffn too: ffn is a multiple of 128 below.)
  if (rpw % 4 || s.head_dim % rpw || x.qdim % rpw || x.kvdim % rpw || s.dim % rpw || s.ffn % rpw)
    return no("the head size and projection widths must be multiples of " + std::to_string(rpw) + " rows");
  if (groups && x.res_rows > l.wg) return no("more than " + std::to_string(l.wg) + " rows of wo per workgroup");
  if (s.dim % 128 || x.qdim % 128 || s.ffn % 128) return no("input widths must be multiples of 128");
  if (std::string r = GroupedAttention::unsuited_shape(d, s.heads, s.kv_heads, s.head_dim); !r.empty()) return no(r);
  l.max_splits = GroupedAttention::max_splits(d, groups, s.kv_heads);
  l.prefetch = x.prefetch;
  // A step's weights for one lane sit in registers: 48 uvec4s at most.
  if (groups && l.prefetch > 48)
    return no("a step's weights take more than 48 registers per lane at " + std::to_string(groups) + " workgroups");
  // Shared memory: the quantized row, reductions, the attention step's arrays.
  const uint64_t rb = f64 ? 8 : 4;
  const uint64_t other = x.kmax + rpw * rb + 64 * (rb + 4) + rb * 64 + 16;
  l.value_parts = GroupedAttention::value_parts(d, x.gq, s.head_dim, f64, other);
  if (l.value_parts == 0) return no("the kernel's shared memory exceeds the device's");
  l.shared_bytes = static_cast<uint32_t>(other + GroupedAttention::shared_bytes(x.gq, s.head_dim, l.value_parts, f64));
  return l;
}

// Measured on the H100 (132 workgroups, fp32, decode_layer_dot_clustered): 2B4T's steps at 10 uvec4s a
// lane and Falcon3-1B's (heads of 256) at 8 take 127 registers and spill nothing; Falcon3-3B's 24
// spilled 4.5 KB an invocation and decoded 34 tokens/s instead of the fused kernels' 787.
constexpr uint32_t kMaxRegisterPrefetch = 10;

bool PersistentDecode::fits_registers(const Layout& layout, std::string* why) {
  if (layout.prefetch <= kMaxRegisterPrefetch) return true;
  if (why)
    *why = "a step's weights take " + std::to_string(layout.prefetch) + " uvec4s a lane at " +
           std::to_string(layout.groups) + " workgroups, more than the " + std::to_string(kMaxRegisterPrefetch) +
           " that fit its registers";
  return false;
}

PersistentDecode::PersistentDecode(const Context& ctx, const Layout& layout, const Shape& shape, bool kv_f16, bool f64,
                                   bool dot, const std::vector<float>& scales)
    : layout_(layout), shape_(shape), f64_(f64) {
  if (scales.size() != size_t{shape.layers} * kScalesPerLayer)
    throw VulkanError("persistent decode: " + std::to_string(kScalesPerLayer) + " scales per layer expected");
  const Derived x = derive(shape, layout.wg, layout.tpr, layout.groups);
  // Clustered subgroup adds for the row and key reductions where the device has them (the variant
  // hard-codes 16 lanes per row: a cluster size must be a literal).
  const bool clustered = dot && ctx.info().subgroup_clustered && layout.tpr == 16;
  const std::string stem =
      std::string("decode_layer") + (dot ? "_dot" : "") + (clustered ? "_clustered" : "") + (f64 ? "_f64" : "");
  std::vector<uint32_t> spec{layout.wg,
                             layout.tpr,
                             layout.groups,
                             shape.dim,
                             shape.ffn,
                             shape.heads,
                             shape.kv_heads,
                             shape.head_dim,
                             kv_f16 ? 1u : 0u,
                             layout.max_splits,
                             layout.prefetch,
                             x.kmax,
                             x.xpt,
                             kBarrierSpins,
                             layout.value_parts,
                             x.res_rows,
                             x.res_lanes,
                             shape.graph.silu ? 1u : 0u,
                             shape.graph.normal_rope ? 1u : 0u,
                             shape.graph.sub_norms ? 1u : 0u,
                             shape.graph.block_scales ? 1u : 0u,
                             0u,
                             layout.step_wg ? layout.step_wg : layout.wg};
  // The pipelines compile on their own threads (Pipeline); decode keeps the fused kernels until ready.
  if (layout.step_wg) {
    if (shape.graph.block_scales || layout.step_wg > layout.wg)
      throw VulkanError("persistent decode: no step-bits pipeline with block scales or a wider workgroup");
    std::vector<uint32_t> step_spec = spec;
    step_spec[21] = 1u;
    step_pipe_ =
        std::make_unique<Pipeline>(ctx, stem, 14, static_cast<uint32_t>(sizeof(LayersPush)), std::move(step_spec));
  }
  pipe_ = std::make_unique<Pipeline>(ctx, stem, 14, static_cast<uint32_t>(sizeof(LayersPush)), std::move(spec));
  // The split counts of the KV heads, one arrival count per layer group (at most one per layer), then
  // per layer group its KV heads' QKV-ready counts.
  const uint32_t words = shape.kv_heads + shape.layers + shape.layers * shape.kv_heads;
  sync_ = Buffer(ctx, uint64_t{words} * 4, MemoryUse::Device);
  failed_ = Buffer(ctx, 16, MemoryUse::Upload);
  sync_zeros_.assign(words, 0u);
  scales_ = Buffer(ctx, scales.size() * 4, MemoryUse::Device);
  scales_.upload(scales.data(), scales.size() * 4);
  sync_.upload(sync_zeros_.data(), sync_zeros_.size() * 4);
  failed_.upload(sync_zeros_.data(), 4);
}

PersistentDecode::~PersistentDecode() = default;

bool PersistentDecode::ready() {
  if (!pipe_->ready() || (step_pipe_ && !step_pipe_->ready())) return false;
  wait();  // throws if a compilation failed
  return true;
}

void PersistentDecode::wait() {
  pipe_->handle();
  if (step_pipe_) step_pipe_->handle();
}

uint64_t PersistentDecode::act_bytes() const {
  const Derived x = derive(shape_, layout_.wg, layout_.tpr, layout_.groups);
  return (2ull * x.qdim + shape_.ffn) * (f64_ ? 8 : 4);
}

uint64_t PersistentDecode::partial_bytes() const {
  return uint64_t{shape_.heads} * layout_.max_splits * (shape_.head_dim + 2) * (f64_ ? 8 : 4);
}

void PersistentDecode::record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                              const LayerGroup& layers, uint32_t group, const LayerOffsets& off, float eps,
                              const BufferRange& x, const BufferRange& act, const BufferRange& rope,
                              const BufferRange& partials, const Embedding& embedding, uint32_t residency_check,
                              bool step_bits) {
  if (step_bits && !step_pipe_) throw VulkanError("persistent decode: no step-bits pipeline");
  auto vec4s = [&](uint64_t bytes) {
    if (bytes % 16) throw VulkanError("persistent decode: a weight offset or stride is not 16-byte aligned");
    return static_cast<uint32_t>(bytes / 16);
  };
  auto floats = [&](uint64_t bytes) {
    if (bytes % 4) throw VulkanError("persistent decode: a block-scale offset is not 4-byte aligned");
    return static_cast<uint32_t>(bytes / 4);
  };
  // (Indices into the group's buffers are 32-bit: the host keeps a group within one storage binding,
  // whose range is below 2^32 bytes.)
  if (layers.count == 0 || layers.first + layers.count > shape_.layers || group >= shape_.layers)
    throw VulkanError("persistent decode: layer group out of range");
  if (layers.cache_stride % 4) throw VulkanError("persistent decode: the cache stride is not word-aligned");
  if (embedding.rows && layers.first != 0) throw VulkanError("persistent decode: only layer 0 reads the embedding");
  const LayersPush push{vec4s(off.wq),
                        vec4s(off.wk),
                        vec4s(off.wv),
                        vec4s(off.wo),
                        vec4s(off.gate),
                        vec4s(off.up),
                        vec4s(off.down),
                        vec4s(off.attn_norm),
                        vec4s(off.attn_sub_norm),
                        vec4s(off.ffn_norm),
                        vec4s(off.ffn_sub_norm),
                        eps,
                        layers.first,
                        layers.count,
                        vec4s(layers.stride),
                        static_cast<uint32_t>(layers.cache_stride / 4),
                        shape_.kv_heads + group,
                        embedding.rows,
                        shape_.kv_heads + shape_.layers + group * shape_.kv_heads,
                        residency_check ? kProbeSpins : 0u,
                        floats(off.wq_d),
                        floats(off.wk_d),
                        floats(off.wv_d),
                        floats(off.wo_d),
                        floats(off.gate_d),
                        floats(off.up_d),
                        floats(off.down_d)};
  wait();
  const BufferRange r[] = {params,
                           layers.weights,
                           layers.weights,
                           x,
                           act,
                           rope,
                           layers.k_cache,
                           layers.v_cache,
                           partials,
                           {&sync_, 0, 0},
                           {&failed_, 0, 0},
                           {&scales_, 0, 0},
                           embedding.table,
                           embedding.tokens};
  const Pipeline& p = step_bits ? *step_pipe_ : *pipe_;
  cs.dispatch(p, da.make(p, r), &push, sizeof push, residency_check ? residency_check : layout_.groups);
}

std::vector<std::string> PersistentDecode::statistics() const {
  std::vector<std::string> out;
  pipe_->statistics_to(out, pipe_->name());
  if (step_pipe_) step_pipe_->statistics_to(out, pipe_->name() + " step bits");
  return out;
}

bool PersistentDecode::failed() const {
  uint32_t f = 0;
  failed_.download(&f, 4);
  return f != 0;
}

void PersistentDecode::clear_failure() {
  const uint32_t zero = 0;
  failed_.upload(&zero, 4);
}

void PersistentDecode::raise_failure_for_test() {
  const uint32_t one = 1;
  failed_.upload(&one, 4);
}

void PersistentDecode::begin_call() {
  // The barrier and QKV-ready counts, and the split counts a merger zeroes after each layer (zeroed
  // here too, so a call after a workgroup gave up starts clean).
  sync_.upload(sync_zeros_.data(), sync_zeros_.size() * 4);
}

}  // namespace trit::vk
