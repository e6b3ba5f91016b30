#include "vulkan/grouped_attention.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace trit::vk {

std::string GroupedAttention::unsuited_device(const DeviceInfo& d) {
  const uint32_t min_sg = std::max(1u, d.min_subgroup_size);
  if (!std::has_single_bit(min_sg) || min_sg < kThreadsPerKey) return "subgroups narrower than 8 invocations";
  if (d.max_workgroup_invocations < kWorkgroup || kWorkgroup / min_sg > 64) return "workgroups of 512 not possible";
  return {};
}

std::string GroupedAttention::unsuited_shape(const DeviceInfo& d, uint32_t heads, uint32_t kv_heads,
                                             uint32_t head_dim) {
  const uint32_t max_sg = std::max({1u, d.min_subgroup_size, d.max_subgroup_size});
  if (kv_heads == 0 || heads % kv_heads) return "the query heads are not a multiple of the KV heads";
  const uint32_t gq = heads / kv_heads;
  if (head_dim % 16 || 2 * head_dim > kWorkgroup || gq * head_dim > 8 * kWorkgroup)
    return "head size " + std::to_string(head_dim) + " does not suit the attention step";
  if (gq > kWorkgroup / max_sg) return "more query heads per KV head than subgroups per workgroup";
  return {};
}

uint32_t GroupedAttention::max_splits(const DeviceInfo& d, uint32_t grid, uint32_t kv_heads) {
  return std::clamp(grid / kv_heads, 1u, std::max(1u, d.min_subgroup_size));
}

uint64_t GroupedAttention::shared_bytes(uint32_t gq, uint32_t head_dim, uint32_t value_parts, bool f64) {
  const uint64_t slots = value_parts > 4 ? value_parts / 2 : value_parts;
  return (f64 ? 8 : 4) * (uint64_t{gq} * head_dim * (1 + slots) + gq * (2 * kChunkKeys + 3));
}

uint32_t GroupedAttention::value_parts(const DeviceInfo& d, uint32_t gq, uint32_t head_dim, bool f64,
                                       uint64_t other_shared) {
  for (const uint32_t parts : {8u, 4u, 2u})
    if (parts * head_dim / 2 <= kWorkgroup &&
        other_shared + shared_bytes(gq, head_dim, parts, f64) <= d.max_shared_memory)
      return parts;
  return 0;
}

std::optional<GroupedAttention::Layout> GroupedAttention::plan(const DeviceInfo& d, uint32_t heads, uint32_t kv_heads,
                                                               uint32_t head_dim, bool f64, uint32_t grid,
                                                               std::string* why) {
  auto no = [&](const std::string& reason) -> std::optional<Layout> {
    if (why) *why = reason;
    return std::nullopt;
  };
  if (!d.subgroup_shuffle || !d.subgroup_arithmetic) return no("no subgroup shuffles or arithmetic");
  if (std::string r = unsuited_device(d); !r.empty()) return no(r);
  if (std::string r = unsuited_shape(d, heads, kv_heads, head_dim); !r.empty()) return no(r);
  Layout l;
  l.wg = kWorkgroup;
  l.max_splits = max_splits(d, grid, kv_heads);
  // Beside the step's arrays: the reductions' partials (common.glsl) and the arrival.
  l.value_parts = value_parts(d, heads / kv_heads, head_dim, f64, (f64 ? 8 : 4) * 64 + 64 * 4 + 16);
  if (l.value_parts == 0) return no("its shared memory exceeds the device's");
  return l;
}

GroupedAttention::GroupedAttention(const Context& ctx, const Layout& layout, uint32_t heads, uint32_t kv_heads,
                                   uint32_t head_dim, bool kv_f16, bool f64)
    : layout_(layout), heads_(heads), kv_heads_(kv_heads), head_dim_(head_dim), f64_(f64) {
  pipe_ = std::make_unique<Pipeline>(ctx, std::string("attention_gqa") + (f64 ? "_f64" : ""), 7, 4,
                                     std::vector<uint32_t>{layout.wg, kv_f16 ? 1u : 0u, head_dim, heads / kv_heads,
                                                           layout.max_splits, layout.value_parts});
}

uint64_t GroupedAttention::scratch_bytes(uint32_t tokens) const {
  return uint64_t{tokens} * heads_ * layout_.max_splits * (head_dim_ + 2) * (f64_ ? 8 : 4);
}

std::vector<std::string> GroupedAttention::statistics() const {
  std::vector<std::string> out;
  pipe_->statistics_to(out, "attention_gqa");
  return out;
}

std::array<uint32_t, 3> GroupedAttention::grid(uint32_t tokens, uint32_t longest) const {
  return {kv_heads_, tokens, std::min(layout_.max_splits, (longest + kChunkKeys - 1) / kChunkKeys)};
}

void GroupedAttention::record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                              const BufferRange& q, const BufferRange& k_cache, const BufferRange& v_cache,
                              const BufferRange& out, const BufferRange& scratch, const BufferRange& counters,
                              uint32_t tokens, uint32_t max_context, const BufferRange* step_grid) const {
  const BufferRange r[] = {params, q, k_cache, v_cache, out, scratch, counters};
  const uint32_t push[] = {kv_heads_};
  if (step_grid) {
    cs.dispatch_indirect(*pipe_, da.make(*pipe_, r), push, sizeof push, *step_grid);
    return;
  }
  const auto g = grid(tokens, max_context);
  cs.dispatch(*pipe_, da.make(*pipe_, r), push, sizeof push, g[0], g[1], g[2]);
}

}  // namespace trit::vk
