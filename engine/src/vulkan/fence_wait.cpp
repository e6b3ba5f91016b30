#include "vulkan/fence_wait.h"

#include <cstdint>
#include <thread>

#include "vulkan/context.h"

namespace trit::vk {

namespace {

using Clock = std::chrono::steady_clock;

// A hint to the core that this thread spins (x86 PAUSE, Arm YIELD): it spares the sibling hyperthread
// and the memory system; elsewhere the thread offers its core to others.
void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield");
#else
  std::this_thread::yield();
#endif
}

// Blocks until the fence signals or `until` passes; whether it signalled.
bool block_until(VkDevice device, VkFence fence, Clock::time_point until) {
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(until - Clock::now()).count();
  if (left <= 0) return false;
  const VkResult r = vkWaitForFences(device, 1, &fence, VK_TRUE, static_cast<uint64_t>(left));
  if (r == VK_TIMEOUT) return false;
  check(r, "vkWaitForFences");
  return true;
}

}  // namespace

std::chrono::nanoseconds wait_for_fence(VkDevice device, VkFence fence, Clock::time_point submitted,
                                        std::chrono::nanoseconds expected, const FenceWaitPolicy& policy) {
  if (policy.poll && expected.count() > 0 && expected <= policy.longest_polled) {
    if (block_until(device, fence, submitted + expected * 3 / 4)) return Clock::now() - submitted;
    const Clock::time_point stop = submitted + expected * 3 / 2;
    do {
      const VkResult r = vkGetFenceStatus(device, fence);
      if (r == VK_SUCCESS) return Clock::now() - submitted;
      if (r != VK_NOT_READY) check(r, "vkGetFenceStatus");
      relax();
    } while (Clock::now() < stop);
  }
  check(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  return Clock::now() - submitted;
}

}  // namespace trit::vk
