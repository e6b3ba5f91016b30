#pragma once
// The engine's thin RAII layer over Vulkan: one instance + device + compute queue (Context), buffers
// allocated once at load, compute pipelines built from the embedded SPIR-V with specialization
// constants, descriptor sets made once, command buffers recorded once and replayed, timestamps.
// Nothing here knows about the model; vulkan_forward.cpp builds the forward pass from these parts.
#include <vulkan/vulkan.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "trit/devices.h"
#include "vulkan/fence_wait.h"
#include "vulkan/instance.h"

namespace trit::vk {

// Throws VulkanError("<what> failed: <VkResult name>") when r is not VK_SUCCESS.
void check(VkResult r, const char* what);
const char* result_name(VkResult r);

struct ContextOptions {
  DeviceChoice device;
  // Debug/testing: pretend a storage-buffer binding may cover at most this many bytes (0 = the
  // device's limit). Lets tests exercise the splitting of large tensors on tiny models.
  uint64_t max_binding_range = 0;
  bool validation = false;  // enable VK_LAYER_KHRONOS_validation if present (also TRIT_VK_VALIDATION=1)
  // The device's vendor-specific features treated as absent (vendor_neutral() in trit/devices.h).
  bool vendor_neutral = false;
  // Tests: false leaves device-local memory unmapped even where the host could see it (as on a discrete
  // GPU without a host-visible BAR), so what the engine does for such a GPU runs on lavapipe too.
  bool map_device_memory = true;
  // Whether a wait for a short submission polls its fence near the submission's end (vulkan/fence_wait.h).
  // Unset: on every device but a CPU one.
  std::optional<bool> poll_fences;
  // Diagnostics: pipelines keep the driver's statistics (Pipeline::statistics) where the device has
  // VK_KHR_pipeline_executable_properties. Off by default: it may slow compilation or bypass caches.
  bool pipeline_statistics = false;
};

class Context {
 public:
  explicit Context(const ContextOptions& options = {});
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  VkDevice device() const { return device_; }
  VkInstance instance() const { return instance_->handle(); }
  VkPhysicalDevice physical() const { return physical_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  VkCommandPool command_pool() const { return pool_; }
  const DeviceInfo& info() const { return info_; }
  // Whether pipelines capture the driver's statistics (ContextOptions::pipeline_statistics, where the
  // device offers them).
  bool pipeline_statistics() const { return pipeline_statistics_; }
  // Multiprocessors: as the device reports them (DeviceInfo::multiprocessors), else as measured
  // (set_measured_multiprocessors: resident workgroups of the persistent kernel's size), else 0.
  uint32_t multiprocessors() const { return info_.multiprocessors ? info_.multiprocessors : measured_multiprocessors_; }
  void set_measured_multiprocessors(uint32_t n) { measured_multiprocessors_ = n; }

  // The largest range one storage binding may cover here (the option, else the device limit),
  // rounded down to a multiple of 256 so split points stay aligned.
  uint64_t max_binding_range() const { return max_binding_range_; }

  // Throws VulkanError "needs X GiB of device memory, <device> has Y GiB free" when bytes exceed the
  // free device-local memory (VK_EXT_memory_budget where present, else the heap size).
  void check_memory(uint64_t bytes, const std::string& what) const;

  // Memory type index for the properties; `required` must all be present, `preferred` are tried first.
  uint32_t memory_type(uint32_t type_bits, VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred) const;

  // Submits one command buffer and waits for it (fence; the fence is reused). `expected`: how long the
  // same command buffer took last time (zero: unknown), which lets the wait poll near its end
  // (vulkan/fence_wait.h). Returns how long this one took, from its submit to its end seen by the host.
  std::chrono::nanoseconds submit_and_wait(VkCommandBuffer cb,
                                           std::chrono::nanoseconds expected = std::chrono::nanoseconds(0)) const;
  const FenceWaitPolicy& fence_wait() const { return fence_wait_; }
  bool map_device_memory() const { return map_device_memory_; }

  // Records a one-off command buffer with `record`, submits it and waits.
  template <typename F>
  void one_shot(F&& record) const {
    VkCommandBuffer cb = begin_one_shot();
    record(cb);
    end_one_shot(cb);
  }

 private:
  VkCommandBuffer begin_one_shot() const;
  void end_one_shot(VkCommandBuffer cb) const;

  const Instance* instance_ = nullptr;  // the process's (process_instance)
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  DeviceInfo info_;
  bool pipeline_statistics_ = false;
  uint32_t measured_multiprocessors_ = 0;
  FenceWaitPolicy fence_wait_;
  bool map_device_memory_ = true;
  VkPhysicalDeviceMemoryProperties mem_props_{};
  uint64_t max_binding_range_ = 0;
};

enum class MemoryUse {
  Device,    // device-local; host-visible too when the device offers it (lavapipe, resizable BAR)
  Upload,    // host-visible, coherent: staging and small per-token parameters
  Readback,  // host-visible, cached where possible: results read by the host
};

class Buffer {
 public:
  Buffer() = default;
  Buffer(const Context& ctx, uint64_t size, MemoryUse use);
  ~Buffer();
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  uint64_t size() const { return size_; }
  // Mapped pointer, or nullptr if the memory is not host-visible.
  void* mapped() const { return mapped_; }

  // Copies host data into [offset, offset+bytes): directly when mapped, else through a staging buffer.
  void upload(const void* data, uint64_t bytes, uint64_t offset = 0);
  // Copies [offset, offset+bytes) to host memory: directly when mapped, else through a staging buffer.
  void download(void* data, uint64_t bytes, uint64_t offset = 0) const;
  // The contents as 32-bit words to read in place, once the device's writes are complete (invalidated
  // first where the memory is not coherent): for results of which the host reads a small part. Throws
  // where the memory is not host-visible.
  std::span<const uint32_t> words() const;

 private:
  void release();
  const Context* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  uint64_t size_ = 0;
  void* mapped_ = nullptr;
  bool coherent_ = true;
};

// A range of a buffer bound to one storage binding.
struct BufferRange {
  const Buffer* buffer = nullptr;
  uint64_t offset = 0;
  uint64_t size = 0;  // 0 = to the end of the buffer

  uint64_t bytes() const { return size ? size : buffer->size() - offset; }  // the range's length
};

// ", subgroups of N required" where the cooperative-matrix kernels require their subgroup size on d
// (cooperative_subgroup_size), for their descriptions; else empty.
std::string required_subgroup_note(const DeviceInfo& d);

// A compute pipeline from shaders/<stem>.comp: `bindings` storage buffers at bindings 0..n-1, a push
// constant block of `push_bytes`, and specialization constants 0..spec.size()-1 (32-bit each; constant 0
// is the workgroup size by convention, `layout(local_size_x_id = 0)`).
//
// The driver's compilation (seconds in all on a machine whose driver cache does not hold the kernels
// yet) runs on its own thread from construction, so an engine's pipelines compile side by side while
// it uploads weights; handle() waits for it and throws its VulkanError, if any.
class Pipeline {
 public:
  // required_subgroup: a subgroup size the pipeline must run at, in full subgroups (0: the driver's
  // choice); the device must be able to require it (DeviceInfo::subgroup_size_control, its range).
  Pipeline(const Context& ctx, const std::string& stem, uint32_t bindings, uint32_t push_bytes,
           std::vector<uint32_t> spec, uint32_t required_subgroup = 0);
  ~Pipeline();
  Pipeline(const Pipeline&) = delete;
  Pipeline& operator=(const Pipeline&) = delete;

  VkPipeline handle() const;
  // Whether the compilation has finished (handle() will not wait).
  bool ready() const;
  VkPipelineLayout layout() const { return layout_; }
  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  uint32_t bindings() const { return bindings_; }
  uint32_t push_bytes() const { return push_bytes_; }
  const std::string& name() const { return name_; }
  // "name: value" for each statistic the driver reports of the compiled kernel (register count,
  // spills...), where the context captures them (Context::pipeline_statistics); else empty. Waits
  // for the compilation.
  std::vector<std::string> statistics() const;
  // Appends statistics() to out, each line as "label: name: value".
  void statistics_to(std::vector<std::string>& out, const std::string& label) const;

 private:
  const Context& ctx_;
  std::string name_;
  uint32_t bindings_ = 0, push_bytes_ = 0;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  // Waits for the compilation, once, keeping its pipeline or its error.
  void collect() const;
  mutable std::future<VkPipeline> building_;
  mutable VkPipeline pipeline_ = VK_NULL_HANDLE;
  mutable std::exception_ptr error_;
};

// Owns descriptor pools; hands out sets written once (they live as long as the allocator).
class DescriptorAllocator {
 public:
  explicit DescriptorAllocator(const Context& ctx) : ctx_(ctx) {}
  ~DescriptorAllocator();
  DescriptorAllocator(const DescriptorAllocator&) = delete;
  DescriptorAllocator& operator=(const DescriptorAllocator&) = delete;

  // A set for `p` with binding i covering ranges[i]. Checks every range against the binding limit.
  VkDescriptorSet make(const Pipeline& p, std::span<const BufferRange> ranges);

 private:
  const Context& ctx_;
  std::vector<VkDescriptorPool> pools_;
  uint32_t left_in_pool_ = 0;
};

// A primary command buffer recorded once and submitted any number of times.
class CommandSequence {
 public:
  explicit CommandSequence(const Context& ctx);
  ~CommandSequence();
  CommandSequence(const CommandSequence&) = delete;
  CommandSequence& operator=(const CommandSequence&) = delete;

  void begin();
  void dispatch(const Pipeline& p, VkDescriptorSet set, const void* push, uint32_t push_bytes, uint32_t gx,
                uint32_t gy = 1, uint32_t gz = 1);
  // A dispatch whose workgroup counts (x, y, z: three words) the device reads from `grid` when it runs
  // (vkCmdDispatchIndirect): a recorded sequence whose grid the host writes before each submit, into
  // device memory it sees (nothing in the sequence writes the grid, so no barrier orders its read).
  void dispatch_indirect(const Pipeline& p, VkDescriptorSet set, const void* push, uint32_t push_bytes,
                         const BufferRange& grid);
  // Makes every shader write before visible to every shader read/write after (compute to compute);
  // with_transfer also orders copies (transfer stage) on either side. Compute-only is the default: it
  // is all the forward pass needs between kernels and the narrowest dependency for the driver.
  void barrier(bool with_transfer = false);
  void copy(const Buffer& src, uint64_t src_offset, const Buffer& dst, uint64_t dst_offset, uint64_t bytes);
  // `bytes` (a multiple of 4) of dst from `offset` set to the word `value` (a transfer: barrier(true) orders it).
  void fill(const Buffer& dst, uint64_t offset, uint64_t bytes, uint32_t value);
  void timestamp(VkQueryPool pool, uint32_t query);
  void end();
  // Submits and waits, polling near the end of the submission where its previous run says when that is.
  void run() const;
  // How long the last run() took, from its submit to its end seen by the host (zero before the first).
  std::chrono::nanoseconds last_run() const { return last_run_; }
  // Submits without waiting (its own fence), so several sequences can be queued back to back; wait()
  // blocks until this submission has finished. Queue order plus a barrier at the start of the next
  // sequence orders one submission after the other on the device.
  void submit();
  void wait();
  bool pending() const { return pending_; }
  VkCommandBuffer handle() const { return cb_; }
  bool recorded() const { return recorded_; }

 private:
  // Both dispatches: the push constants' size against the pipeline's, then the pipeline, its set and
  // its push constants bound.
  void check_push(const Pipeline& p, uint32_t push_bytes) const;
  void bind(const Pipeline& p, VkDescriptorSet set, const void* push, uint32_t push_bytes);
  const Context& ctx_;
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;  // made on the first submit()
  bool recording_ = false, recorded_ = false, pending_ = false;
  mutable std::chrono::nanoseconds last_run_{0};
};

// Timestamp queries: write with CommandSequence::timestamp, read after the submit finished.
class TimestampPool {
 public:
  TimestampPool(const Context& ctx, uint32_t count);
  ~TimestampPool();
  TimestampPool(const TimestampPool&) = delete;
  TimestampPool& operator=(const TimestampPool&) = delete;
  VkQueryPool handle() const { return pool_; }
  void reset(VkCommandBuffer cb) const;
  // Nanoseconds between two written queries.
  double elapsed_ns(uint32_t from, uint32_t to) const;
  // Queries 0..count-1 as nanoseconds since query 0 (waits for them).
  std::vector<double> read_ns(uint32_t count) const;
  uint32_t count() const { return count_; }

 private:
  const Context& ctx_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
  uint32_t count_ = 0;
};

// Devices as seen through an instance (used by list_vulkan_devices and Context). With the instance,
// also the cooperative-matrix shapes (an instance-level query).
DeviceInfo query_device(VkPhysicalDevice pd, uint32_t index, VkInstance instance = VK_NULL_HANDLE);

}  // namespace trit::vk
