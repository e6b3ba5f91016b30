// The fixed cost of one dependent kernel step (dispatch + barrier) on the device: decode runs a few
// hundred such steps per token, so this floor, not bandwidth, bounds a short-context decode step.
#include <memory>
#include <vector>

#include "bench/bench.h"
#include "bench/gpu_timing.h"
#include "vulkan/context.h"

namespace trit::bench {

namespace {
constexpr uint32_t kSteps = 330;  // about one decode token's steps for 2B4T (30 layers x 11)

// GPU microseconds per step of a chain of kSteps dependent dispatches of `groups` workgroups, reading
// their parameters from a buffer of the given memory use. Median of five runs after a warm-up.
double chain_us(vk::Context& ctx, vk::MemoryUse params_use, uint32_t groups, uint32_t pipelines = 1,
                uint32_t local = 256) {
  vk::Buffer params(ctx, 16, params_use), chain(ctx, 256, vk::MemoryUse::Device);
  const uint32_t p[4] = {0, 1, 0, 0};
  params.upload(p, sizeof p);
  // Distinct pipelines (different workgroup sizes) alternate when pipelines > 1, as the engine's
  // kernels do from step to step.
  std::vector<std::unique_ptr<vk::Pipeline>> pipes;
  for (uint32_t i = 0; i < pipelines; ++i)
    pipes.push_back(std::make_unique<vk::Pipeline>(ctx, "dispatch_probe", 2, 0, std::vector<uint32_t>{local - 32 * i}));
  vk::DescriptorAllocator descriptors(ctx);
  const vk::BufferRange ranges[2] = {{&params, 0, 16}, {&chain, 0, 256}};
  std::vector<VkDescriptorSet> sets;
  for (auto& pipe : pipes) sets.push_back(descriptors.make(*pipe, ranges));
  vk::TimestampPool pool(ctx, 2);
  vk::CommandSequence seq(ctx);
  seq.begin();
  pool.reset(seq.handle());
  seq.timestamp(pool.handle(), 0);
  for (uint32_t i = 0; i < kSteps; ++i) {
    seq.dispatch(*pipes[i % pipelines], sets[i % pipelines], nullptr, 0, groups);
    seq.barrier();
  }
  seq.timestamp(pool.handle(), 1);
  seq.end();
  return median_seconds(seq, pool, true) * 1e6 / kSteps;
}
}  // namespace

DispatchLatency measure_dispatch_latency(int device) {
  vk::ContextOptions opt;
  opt.device.index = device;
  vk::Context ctx(opt);
  DispatchLatency d;
  if (!ctx.info().timestamps) return d;
  d.device_params_us = chain_us(ctx, vk::MemoryUse::Device, 1);
  d.host_params_us = chain_us(ctx, vk::MemoryUse::Upload, 1);
  d.wide_us = chain_us(ctx, vk::MemoryUse::Device, 512);
  d.switching_us = chain_us(ctx, vk::MemoryUse::Device, 1, 4);
  d.big_group_us = chain_us(ctx, vk::MemoryUse::Device, 1, 1, 1024);
  return d;
}

}  // namespace trit::bench
