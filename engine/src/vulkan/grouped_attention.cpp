#include "vulkan/grouped_attention.h"

#include <algorithm>
#include <bit>
#include <vector>

namespace trit::vk {

namespace {
// The persistent kernel's workgroup, keys a chunk and invocations a key (decode_layer.glsl's WG, CH,
// TPK): its arithmetic depends on all three.
constexpr uint32_t kWorkgroup = 512, kChunkKeys = 64, kThreadsPerKey = 8;
}  // namespace

std::optional<GroupedAttention::Layout> GroupedAttention::plan(const DeviceInfo& d, uint32_t heads, uint32_t kv_heads,
                                                               uint32_t head_dim, bool f64, uint32_t grid,
                                                               std::string* why) {
  auto no = [&](const std::string& reason) -> std::optional<Layout> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const uint32_t min_sg = std::max(1u, d.min_subgroup_size), max_sg = std::max(min_sg, d.max_subgroup_size);
  if (!d.subgroup_shuffle || !d.subgroup_arithmetic) return no("no subgroup shuffles or arithmetic");
  if (!std::has_single_bit(min_sg) || min_sg < kThreadsPerKey) return no("subgroups narrower than 8 invocations");
  if (d.max_workgroup_invocations < kWorkgroup || kWorkgroup / min_sg > 64) return no("workgroups of 512 not possible");
  if (kv_heads == 0 || heads % kv_heads) return no("the query heads are not a multiple of the KV heads");
  const uint32_t gq = heads / kv_heads;
  if (head_dim % 16 || 2 * head_dim > kWorkgroup || gq * head_dim > 8 * kWorkgroup)
    return no("head size " + std::to_string(head_dim) + " does not suit it");
  if (gq > kWorkgroup / max_sg) return no("more query heads per KV head than subgroups per workgroup");
  Layout l;
  l.wg = kWorkgroup;
  // The merge derives a head's split weights one split per subgroup lane.
  l.max_splits = std::clamp(grid / kv_heads, 1u, min_sg);
  // Shared memory: q of a head group, its scores and the score lanes' sums of weights, the value pass's
  // partial sums (value_slots rows of them), the reductions' partials.
  const uint64_t rb = f64 ? 8 : 4;
  auto shared = [&](uint64_t value_slots) {
    return rb * (uint64_t{gq} * head_dim * (1 + value_slots) + gq * (2 * kChunkKeys + 3) + 64) + 64 * 4 + 16;
  };
  for (const uint32_t parts : {8u, 4u, 2u})
    if (parts * head_dim / 2 <= l.wg && shared(parts > 4 ? parts / 2 : parts) <= d.max_shared_memory) {
      l.value_parts = parts;
      break;
    }
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

void GroupedAttention::record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params,
                              const BufferRange& q, const BufferRange& k_cache, const BufferRange& v_cache,
                              const BufferRange& out, const BufferRange& scratch, const BufferRange& counters,
                              uint32_t tokens, uint32_t max_context) const {
  const BufferRange r[] = {params, q, k_cache, v_cache, out, scratch, counters};
  const uint32_t push[] = {kv_heads_};
  // A split holds a chunk at least: no token of this context has more splits than that allows.
  const uint32_t splits = std::min(layout_.max_splits, (max_context + kChunkKeys - 1) / kChunkKeys);
  cs.dispatch(*pipe_, da.make(*pipe_, r), push, sizeof push, kv_heads_, tokens, std::max(splits, 1u));
}

}  // namespace trit::vk
