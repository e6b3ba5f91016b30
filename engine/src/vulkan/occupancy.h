#pragma once
// Resident workgroups of a persistent kernel's size, measured on the device: for GPUs that do not report
// their multiprocessors (Intel, and NVIDIA with its extensions ignored: VulkanForwardOptions::
// vendor_neutral), so the persistent decode kernel can size its grid there too. A probe kernel
// (shaders/occupancy_probe.comp) with the kernel's invocations, shared memory and about its registers
// is dispatched on grids of growing size: a grid passes when all its workgroups counted in while the
// others waited, bounded, so a grid too large costs one bounded wait per wave and nothing hangs. The
// count is an upper bound for the real kernel (it may need more registers); PersistentDecode checks
// the real kernel's residency before it is used (PersistentDecode::record's residency_check).
#include <cstdint>

#include "vulkan/context.h"

namespace trit::vk {

// The probe for workgroups of `invocations` invocations and `shared_bytes` of shared memory (which must
// fit the device's limits): compiled once, dispatched on any grid.
class OccupancyProbe {
 public:
  OccupancyProbe(const Context& ctx, uint32_t invocations, uint32_t shared_bytes);
  // Whether `groups` such workgroups were all resident at once.
  bool resident(uint32_t groups);

 private:
  const Context& ctx_;
  Pipeline pipe_;
  Buffer sync_, src_;
  DescriptorAllocator da_;
};

// The largest grid up to `limit` that OccupancyProbe::resident passes (0 if even one workgroup fails, e.g. shared
// memory beyond the device's).
uint32_t resident_workgroups(const Context& ctx, uint32_t invocations, uint32_t shared_bytes, uint32_t limit = 1024);

}  // namespace trit::vk
