// Resident-workgroup measurement (vulkan/occupancy.h).
#include "vulkan/occupancy.h"

#include <algorithm>
#include <vector>

namespace trit::vk {
namespace {
// Polls of the arrival count before a workgroup gives up: far longer than all of a resident grid takes
// to start (microseconds), short enough that a grid too large costs milliseconds per wave.
constexpr uint32_t kSpinLimit = 8192;
constexpr uint32_t kSrcVec4s = 4096;
}  // namespace

OccupancyProbe::OccupancyProbe(const Context& ctx, uint32_t invocations, uint32_t shared_bytes)
    : ctx_(ctx),
      pipe_(ctx, "occupancy_probe", 2, 8, {invocations, std::max(1u, shared_bytes / 4), kSpinLimit}),
      sync_(ctx, 16, MemoryUse::Readback),
      src_(ctx, uint64_t{kSrcVec4s} * 16, MemoryUse::Device),
      da_(ctx) {
  const std::vector<uint32_t> zeros(kSrcVec4s * 4, 0u);
  src_.upload(zeros.data(), uint64_t{kSrcVec4s} * 16);
}

bool OccupancyProbe::resident(uint32_t groups) {
  if (groups == 0) return true;
  const uint32_t zeros[4] = {};
  sync_.upload(zeros, sizeof zeros);
  const BufferRange r[] = {{&sync_, 0, 0}, {&src_, 0, 0}};
  const uint32_t push[] = {groups, kSrcVec4s};
  CommandSequence cs(ctx_);
  cs.begin();
  cs.dispatch(pipe_, da_.make(pipe_, r), push, sizeof push, groups);
  cs.end();
  cs.run();
  uint32_t out[2] = {};
  sync_.download(out, sizeof out);
  return out[0] == groups && out[1] == 0;
}

uint32_t resident_workgroups(const Context& ctx, uint32_t invocations, uint32_t shared_bytes, uint32_t limit) {
  limit = std::min(limit, ctx.info().max_workgroup_count_x);
  if (limit == 0 || shared_bytes > ctx.info().max_shared_memory || invocations > ctx.info().max_workgroup_invocations)
    return 0;
  OccupancyProbe probe(ctx, invocations, shared_bytes);
  if (!probe.resident(1)) return 0;
  // Doubling to the first grid that fails, then bisection between the last that passed and it.
  uint32_t good = 1, bad = 0;
  while (bad == 0) {
    const uint32_t next = std::min(limit, good * 2);
    if (next == good) return good;  // the limit passed
    if (probe.resident(next))
      good = next;
    else
      bad = next;
  }
  while (bad - good > 1) {
    const uint32_t mid = good + (bad - good) / 2;
    (probe.resident(mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace trit::vk
