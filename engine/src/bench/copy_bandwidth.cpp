// The device's memory bandwidth as a Vulkan buffer copy sees it: the denominator of the roofline ratio.
#include <algorithm>
#include <chrono>
#include <vector>

#include "bench/bench.h"
#include "vulkan/context.h"

namespace trit::bench {

double measure_copy_bandwidth(int device) {
  vk::ContextOptions opt;
  opt.device.index = device;
  vk::Context ctx(opt);
  // Large enough to defeat caches (the H100 has 50 MB of L2), small enough for lavapipe's 2 GiB heap.
  const uint64_t free_bytes = ctx.info().device_local_free();
  uint64_t bytes = std::min<uint64_t>(1ull << 30, free_bytes / 4);
  bytes = std::max<uint64_t>(bytes & ~uint64_t{0xFFFF}, 1 << 20);
  vk::Buffer src(ctx, bytes, vk::MemoryUse::Device), dst(ctx, bytes, vk::MemoryUse::Device);

  const bool ts = ctx.info().timestamps;
  vk::TimestampPool pool(ctx, 2);
  vk::CommandSequence seq(ctx);
  seq.begin();
  if (ts) {
    pool.reset(seq.handle());
    seq.timestamp(pool.handle(), 0);
  }
  seq.copy(src, 0, dst, 0, bytes);
  if (ts) seq.timestamp(pool.handle(), 1);
  seq.end();

  std::vector<double> seconds;
  for (int i = 0; i < 6; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    seq.run();
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (i == 0) continue;  // warm-up
    seconds.push_back(ts ? pool.elapsed_ns(0, 1) * 1e-9 : wall);
  }
  std::sort(seconds.begin(), seconds.end());
  const double median = seconds[seconds.size() / 2];
  return median > 0 ? 2.0 * static_cast<double>(bytes) / median / 1e9 : 0.0;
}

}  // namespace trit::bench
