#pragma once
// A batched step's attention on the persistent decode kernel's arithmetic (shaders/attention_gqa.glsl):
// one workgroup per (KV head, token, split) takes its split's keys for every query head of the KV head,
// so a key or value row is read once for all of them (the per-head kernel, attention.glsl, reads it
// once per query head), with its unshifted softmax. Splits: up to two 64-key chunks in one work item
// (as the persistent kernel), else at most max_splits of a multiple of 16 keys and at least a chunk
// (the persistent kernel's smaller splits, 16 keys just past 128, spread one token over its grid; a
// batched step has a work item per token and KV head already, and its merges cost more than they
// spread). The last split of a (token, KV head) to finish merges the partials.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vulkan/context.h"

namespace trit::vk {

class GroupedAttention {
 public:
  struct Layout {
    uint32_t wg = 0;           // invocations per workgroup: the persistent kernel's
    uint32_t value_parts = 0;  // the value pass's key groups
    uint32_t max_splits = 0;   // splits per (token, KV head) at most
  };
  // The rules of the step both kernels run (shaders/attention_group.glsl: this one and the persistent
  // decode kernel's step 2, whose plan follows them too): workgroups of 512, 64 keys a chunk, 8
  // invocations a key.
  static constexpr uint32_t kWorkgroup = 512, kChunkKeys = 64, kThreadsPerKey = 8;
  // Why the device cannot run the step's workgroups (empty: it can), given the subgroup operations the
  // caller checked.
  static std::string unsuited_device(const DeviceInfo& d);
  // Why the shape does not suit the step (empty: it does).
  static std::string unsuited_shape(const DeviceInfo& d, uint32_t heads, uint32_t kv_heads, uint32_t head_dim);
  // Splits per KV head at most for a grid of `grid` workgroups: the merge derives a head's split
  // weights one split a subgroup lane.
  static uint32_t max_splits(const DeviceInfo& d, uint32_t grid, uint32_t kv_heads);
  // The value pass's key groups: as many groups of head_dim / 2 invocations as the workgroup holds (up
  // to 8: every invocation then takes its share of a chunk's values, and holds fewer of them in
  // registers), fewer where the step's shared memory beside the kernel's other `other_shared` bytes
  // would exceed the device's (more than 4 groups need half as many slots); 0 where none fits.
  static uint32_t value_parts(const DeviceInfo& d, uint32_t gq, uint32_t head_dim, bool f64, uint64_t other_shared);
  // The step's shared memory with that many key groups: q of a head group, its scores and the score
  // lanes' sums of weights, the value pass's partial sums.
  static uint64_t shared_bytes(uint32_t gq, uint32_t head_dim, uint32_t value_parts, bool f64);

  // The layout for this shape on this device, or nullopt with the reason. grid: the workgroups the
  // persistent kernel runs on (or would: the device's multiprocessors), which its splits follow.
  static std::optional<Layout> plan(const DeviceInfo& d, uint32_t heads, uint32_t kv_heads, uint32_t head_dim, bool f64,
                                    uint32_t grid, std::string* why = nullptr);

  // Compiles the kernel on its own thread (Pipeline).
  GroupedAttention(const Context& ctx, const Layout& layout, uint32_t heads, uint32_t kv_heads, uint32_t head_dim,
                   bool kv_f16, bool f64);

  // Bytes of partials for steps of up to `tokens` tokens.
  uint64_t scratch_bytes(uint32_t tokens) const;
  // Bytes of arrival counters for steps of up to `tokens` tokens (zeroed once; each use leaves them zero).
  uint64_t counter_bytes(uint32_t tokens) const { return uint64_t{tokens} * kv_heads_ * 4; }
  const Layout& layout() const { return layout_; }
  // The driver's statistics of the kernel, "attention_gqa: name: value" lines (Pipeline::statistics).
  std::vector<std::string> statistics() const;

  // The workgroups (x KV heads, y tokens, z splits) of a step of `tokens` tokens whose longest context is
  // `longest` keys: a split holds a chunk at least, so no token has more splits than z (a token's own
  // splits follow from its context alone: its bits do not depend on the grid).
  std::array<uint32_t, 3> grid(uint32_t tokens, uint32_t longest) const;

  // out = attention of the step's q rows (common.glsl's batch mode: token t of its own sequence at
  // params.tok[t], at most max_context keys) over each token's keys, k_cache and v_cache being the
  // layer's caches. With `step_grid`, the dispatch reads its workgroup counts from there when it runs
  // (grid() of the step, which the host writes before each submit): a recording for steps of up to
  // `tokens` tokens and max_context keys then launches only the step's tokens and the splits its
  // longest context needs.
  void record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const BufferRange& q,
              const BufferRange& k_cache, const BufferRange& v_cache, const BufferRange& out,
              const BufferRange& scratch, const BufferRange& counters, uint32_t tokens, uint32_t max_context,
              const BufferRange* step_grid = nullptr) const;

 private:
  Layout layout_;
  uint32_t heads_, kv_heads_, head_dim_;
  bool f64_;
  std::unique_ptr<Pipeline> pipe_;
};

}  // namespace trit::vk
