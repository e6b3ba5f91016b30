// The device's memory bandwidth as a Vulkan buffer copy sees it: the denominator of the roofline ratio.
#include <algorithm>
#include <chrono>
#include <vector>

#include "bench/bench.h"
#include "bench/gpu_timing.h"
#include "vulkan/context.h"

namespace trit::bench {

double median_seconds(vk::CommandSequence& seq, const vk::TimestampPool& pool, bool timestamps) {
  std::vector<double> seconds;
  for (int i = 0; i < 6; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    seq.run();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i == 0) continue;  // warm-up
    seconds.push_back(timestamps ? pool.elapsed_ns(0, 1) * 1e-9 : wall);
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[seconds.size() / 2];
}

double measure_copy_bandwidth(int device) {
  vk::ContextOptions opt;
  opt.device.index = device;
  vk::Context ctx(opt);
  // Large enough to defeat caches (the H100 has 50 MB of L2), small enough for lavapipe's 2 GiB heap,
  // and within one storage binding for the shader copy.
  const uint64_t free_bytes = ctx.info().device_local_free();
  uint64_t bytes = std::min<uint64_t>({1ull << 30, free_bytes / 4, ctx.max_binding_range()});
  bytes = std::max<uint64_t>(bytes & ~uint64_t{0xFFFF}, 1 << 20);
  vk::Buffer src(ctx, bytes, vk::MemoryUse::Device), dst(ctx, bytes, vk::MemoryUse::Device);
  const bool ts = ctx.info().timestamps;
  vk::TimestampPool pool(ctx, 2);

  // Two ways to copy; the faster one is the device's bandwidth as the engine's kernels can use it.
  vk::CommandSequence transfer(ctx);
  transfer.begin();
  if (ts) {
    pool.reset(transfer.handle());
    transfer.timestamp(pool.handle(), 0);
  }
  transfer.copy(src, 0, dst, 0, bytes);
  if (ts) transfer.timestamp(pool.handle(), 1);
  transfer.end();
  const double t_transfer = median_seconds(transfer, pool, ts);

  constexpr uint32_t kGroup = 256;
  vk::Pipeline pipe(ctx, "bandwidth_copy", 2, 4, {kGroup});
  vk::DescriptorAllocator descriptors(ctx);
  const vk::BufferRange ranges[2] = {{&src, 0, bytes}, {&dst, 0, bytes}};
  VkDescriptorSet set = descriptors.make(pipe, ranges);
  const uint32_t n = static_cast<uint32_t>(bytes / 16);
  const uint32_t groups =
      std::min<uint32_t>((n + kGroup - 1) / kGroup, std::min<uint32_t>(ctx.info().max_workgroup_count_x, 65535));
  vk::CommandSequence shader(ctx);
  shader.begin();
  if (ts) {
    pool.reset(shader.handle());
    shader.timestamp(pool.handle(), 0);
  }
  shader.dispatch(pipe, set, &n, 4, groups);
  if (ts) shader.timestamp(pool.handle(), 1);
  shader.end();
  const double t_shader = median_seconds(shader, pool, ts);

  const double best = std::min(t_transfer, t_shader);
  // Read + write traffic, the convention of ../shared/docs/gpu.md (about 3.0 TB/s on an H100).
  return best > 0 ? 2.0 * static_cast<double>(bytes) / best / 1e9 : 0.0;
}

}  // namespace trit::bench
