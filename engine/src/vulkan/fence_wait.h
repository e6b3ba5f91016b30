#pragma once
// Waiting for a submission so that the host learns of its end soon after it. A thread blocked in
// vkWaitForFences is woken some time after the fence signals, and a batched decode step, which the host
// waits for before it builds the next one, pays that delay every step (docs/benchmarks.md has the
// figures). Polling the whole time would keep a core busy for as long as the GPU works, so a submission
// whose duration is known from its previous run sleeps through most of it and polls only near its end
// (llama.cpp's Vulkan backend does the same with a second fence at 80% of its graph:
// ggml-org/llama.cpp#12630).
#include <vulkan/vulkan.h>

#include <chrono>

namespace trit::vk {

struct FenceWaitPolicy {
  // Whether to poll at all. Not on a CPU device (lavapipe): its workers need the cores a poll takes.
  bool poll = false;
  // Submissions expected to take longer than this only block: their wake-up delay is a small share.
  std::chrono::nanoseconds longest_polled = std::chrono::milliseconds(20);
};

// Waits until `fence`, signalled by a submission made at `submitted`, has signalled, and returns how long
// after `submitted` that was seen. `expected`: how long the same work took last time (zero: unknown).
// With policy.poll and 0 < expected <= policy.longest_polled it blocks until 3/4 of `expected` has
// passed, then polls the fence until 3/2 of it has, then blocks again (a submission that runs long costs
// at most expected * 3/4 of polling).
std::chrono::nanoseconds wait_for_fence(VkDevice device, VkFence fence, std::chrono::steady_clock::time_point submitted,
                                        std::chrono::nanoseconds expected, const FenceWaitPolicy& policy);

}  // namespace trit::vk
