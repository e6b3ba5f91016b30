// Context, buffers, pipelines, descriptor sets, command sequences and timestamps (vulkan/context.h).
#include "vulkan/context.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "trit/shaders.h"
#include "vulkan/khr_cooperative_matrix.h"

namespace trit::vk {

const char* result_name(VkResult r) {
  switch (r) {
    case VK_SUCCESS:
      return "VK_SUCCESS";
    case VK_NOT_READY:
      return "VK_NOT_READY";
    case VK_TIMEOUT:
      return "VK_TIMEOUT";
    case VK_INCOMPLETE:
      return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY:
      return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY:
      return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED:
      return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST:
      return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED:
      return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT:
      return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT:
      return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT:
      return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER:
      return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS:
      return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_OUT_OF_POOL_MEMORY:
      return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_FRAGMENTED_POOL:
      return "VK_ERROR_FRAGMENTED_POOL";
    default:
      return "VkResult (unnamed)";
  }
}

void check(VkResult r, const char* what) {
  if (r == VK_SUCCESS) return;
  std::string msg = std::string(what) + " failed: " + result_name(r) + " (" + std::to_string(static_cast<int>(r)) + ")";
  if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) msg += "; the device ran out of memory";
  if (r == VK_ERROR_DEVICE_LOST) msg += "; the GPU driver reset the device (a hang or a crash in a shader)";
  throw VulkanError(msg);
}

namespace {
std::string gib(uint64_t b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(b) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}
}  // namespace

// ---- Context ----------------------------------------------------------------------------------------

Context::Context(const ContextOptions& options) {
  const char* env = std::getenv("TRIT_VK_VALIDATION");
  bool validation = options.validation || (env && std::strcmp(env, "1") == 0);
#ifndef NDEBUG
  validation = validation || (env == nullptr);  // debug builds validate when the layer is installed
#endif
  instance_ = &process_instance(validation);
  const auto pds = instance_->physical_devices();
  std::vector<DeviceInfo> infos;
  for (uint32_t i = 0; i < pds.size(); ++i) infos.push_back(query_device(pds[i], i, instance_->handle()));
  info_ = choose_device(infos, options.device);
  if (options.vendor_neutral) info_ = vendor_neutral(info_);
  physical_ = pds[info_.index];

  if (info_.api_version < VK_API_VERSION_1_2)
    throw VulkanError(info_.name + " supports Vulkan " + vulkan_version_string(info_.api_version) +
                      "; Trit needs Vulkan 1.2 or later (update the driver)");
  if (!info_.has_compute_queue) throw VulkanError(info_.name + " has no compute queue");

  uint32_t n_q = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n_q, nullptr);
  std::vector<VkQueueFamilyProperties> qs(n_q);
  vkGetPhysicalDeviceQueueFamilyProperties(physical_, &n_q, qs.data());
  // Prefer a compute-only family (async compute on discrete GPUs), else the first with compute.
  uint32_t family = UINT32_MAX;
  for (uint32_t i = 0; i < n_q; ++i)
    if ((qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) && !(qs[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) &&
        qs[i].timestampValidBits) {
      family = i;
      break;
    }
  if (family == UINT32_MAX)
    for (uint32_t i = 0; i < n_q; ++i)
      if (qs[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
        family = i;
        break;
      }
  queue_family_ = family;

  // Enable every optional feature the device has that a shader variant may use.
  VkPhysicalDeviceVulkan11Features f11{};
  f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  f11.storageBuffer16BitAccess = info_.storage_16bit;
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  f12.storageBuffer8BitAccess = info_.storage_8bit;
  f12.shaderInt8 = info_.shader_int8;
  f12.shaderFloat16 = info_.shader_float16;
  f11.pNext = &f12;
  VkPhysicalDeviceVulkan13Features f13{};
  f13.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES;
  if (info_.api_version >= VK_API_VERSION_1_3) {
    f13.subgroupSizeControl = info_.subgroup_size_control;
    f13.computeFullSubgroups = info_.subgroup_size_control;
    f13.shaderIntegerDotProduct = info_.integer_dot_product;
    f12.pNext = &f13;
  }
  // The int8 cooperative-matrix GEMM (ternary_gemm_coop, and its KHR twin ternary_gemm_coop_khr) needs
  // its extension and, for its SPIR-V, the Vulkan memory model; each only where the device has them
  // (never on lavapipe). Where a device offers both (NVIDIA), both are on and TernaryGemm picks.
  VkPhysicalDeviceCooperativeMatrixFeaturesNV fcm{};
  fcm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  if (info_.cooperative_matrix_nv) {
    fcm.cooperativeMatrix = VK_TRUE;
    f12.vulkanMemoryModel = VK_TRUE;
    fcm.pNext = f11.pNext;
    f11.pNext = &fcm;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpe{};
  fpe.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  pipeline_statistics_ = options.pipeline_statistics && info_.pipeline_statistics;
  fence_wait_.poll = options.poll_fences.value_or(info_.type != "cpu");
  map_device_memory_ = options.map_device_memory;
  if (pipeline_statistics_) {
    fpe.pipelineExecutableInfo = VK_TRUE;
    fpe.pNext = f11.pNext;
    f11.pNext = &fpe;
  }
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR fcmk{};
  fcmk.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
  if (info_.cooperative_matrix_khr) {
    fcmk.cooperativeMatrix = VK_TRUE;
    f12.vulkanMemoryModel = VK_TRUE;
    fcmk.pNext = f11.pNext;
    f11.pNext = &fcmk;
  }
  VkPhysicalDeviceFeatures2 feats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &f11, {}};
  feats.features.shaderInt16 = info_.shader_int16;
  feats.features.shaderInt64 = info_.shader_int64;
  feats.features.shaderFloat64 = info_.shader_float64;

  std::vector<const char*> exts;
  if (info_.memory_budget) exts.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  if (info_.cooperative_matrix_nv) exts.push_back(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (pipeline_statistics_) exts.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (info_.cooperative_matrix_khr) exts.push_back(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);

  const float prio = 1.f;
  VkDeviceQueueCreateInfo qci{};
  qci.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  qci.queueFamilyIndex = queue_family_;
  qci.queueCount = 1;
  qci.pQueuePriorities = &prio;
  VkDeviceCreateInfo dci{};
  dci.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  dci.pNext = &feats;
  dci.queueCreateInfoCount = 1;
  dci.pQueueCreateInfos = &qci;
  dci.enabledExtensionCount = static_cast<uint32_t>(exts.size());
  dci.ppEnabledExtensionNames = exts.data();
  check(vkCreateDevice(physical_, &dci, nullptr, &device_), "vkCreateDevice");
  vkGetDeviceQueue(device_, queue_family_, 0, &queue_);

  VkCommandPoolCreateInfo pci{};
  pci.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = queue_family_;
  check(vkCreateCommandPool(device_, &pci, nullptr, &pool_), "vkCreateCommandPool");
  VkFenceCreateInfo fci{};
  fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  check(vkCreateFence(device_, &fci, nullptr, &fence_), "vkCreateFence");

  vkGetPhysicalDeviceMemoryProperties(physical_, &mem_props_);
  uint64_t range = info_.max_storage_buffer_range;
  if (options.max_binding_range) range = std::min(range, options.max_binding_range);
  range = range / 256 * 256;
  if (range == 0) throw VulkanError("the storage binding limit must be at least 256 bytes");
  max_binding_range_ = range;
}

Context::~Context() {
  if (device_) {
    vkDeviceWaitIdle(device_);
    if (fence_) vkDestroyFence(device_, fence_, nullptr);
    if (pool_) vkDestroyCommandPool(device_, pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
}

void Context::check_memory(uint64_t bytes, const std::string& what) const {
  // Re-query: the budget changes as this and other processes allocate.
  DeviceInfo now = query_device(physical_, info_.index);
  const uint64_t free = now.device_local_free();
  if (bytes > free)
    throw VulkanError(what + " needs " + gib(bytes) + " GiB of device memory, " + info_.name + " has " + gib(free) +
                      " GiB free");
}

uint32_t Context::memory_type(uint32_t type_bits, VkMemoryPropertyFlags required,
                              VkMemoryPropertyFlags preferred) const {
  for (int pass = 0; pass < 2; ++pass) {
    const VkMemoryPropertyFlags want = pass == 0 ? (required | preferred) : required;
    for (uint32_t i = 0; i < mem_props_.memoryTypeCount; ++i)
      if ((type_bits & (1u << i)) && (mem_props_.memoryTypes[i].propertyFlags & want) == want) return i;
  }
  return UINT32_MAX;
}

std::chrono::nanoseconds Context::submit_and_wait(VkCommandBuffer cb, std::chrono::nanoseconds expected) const {
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  const auto submitted = std::chrono::steady_clock::now();
  check(vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
  const std::chrono::nanoseconds took = wait_for_fence(device_, fence_, submitted, expected, fence_wait_);
  check(vkResetFences(device_, 1, &fence_), "vkResetFences");
  return took;
}

VkCommandBuffer Context::begin_one_shot() const {
  VkCommandBufferAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  ai.commandPool = pool_;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  check(vkAllocateCommandBuffers(device_, &ai, &cb), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  vkBeginCommandBuffer(cb, &bi);
  return cb;
}

void Context::end_one_shot(VkCommandBuffer cb) const {
  vkEndCommandBuffer(cb);
  try {
    submit_and_wait(cb);
  } catch (...) {
    vkFreeCommandBuffers(device_, pool_, 1, &cb);
    throw;
  }
  vkFreeCommandBuffers(device_, pool_, 1, &cb);
}

// ---- Buffer -----------------------------------------------------------------------------------------

Buffer::Buffer(const Context& ctx, uint64_t size, MemoryUse use) : ctx_(&ctx), size_(size) {
  if (size == 0) size = 4;  // Vulkan forbids empty buffers; keep size_ as asked
  VkBufferCreateInfo bci{};
  bci.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  bci.size = size;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT |
              VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(ctx.device(), &bci, nullptr, &buffer_), "vkCreateBuffer");
  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(ctx.device(), buffer_, &req);

  VkMemoryPropertyFlags required = 0, preferred = 0;
  switch (use) {
    case MemoryUse::Device:
      required = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      break;
    case MemoryUse::Upload:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      break;
    case MemoryUse::Readback:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
      break;
  }
  VkMemoryAllocateInfo mai{};
  mai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = ctx.memory_type(req.memoryTypeBits, required, preferred);
  if (mai.memoryTypeIndex == UINT32_MAX && use == MemoryUse::Device)
    mai.memoryTypeIndex = ctx.memory_type(req.memoryTypeBits, 0, 0);  // e.g. a CPU device without device-local types
  if (mai.memoryTypeIndex == UINT32_MAX) {
    release();
    throw VulkanError("no suitable Vulkan memory type for a buffer of " + std::to_string(size) + " bytes");
  }
  VkResult r = vkAllocateMemory(ctx.device(), &mai, nullptr, &memory_);
  if (r != VK_SUCCESS && use == MemoryUse::Device) {
    // The host-visible device-local heap (BAR) may be small: retry in plain device-local memory.
    mai.memoryTypeIndex = ctx.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
    if (mai.memoryTypeIndex != UINT32_MAX) r = vkAllocateMemory(ctx.device(), &mai, nullptr, &memory_);
  }
  if (r != VK_SUCCESS) {
    release();
    check(r, ("vkAllocateMemory (" + std::to_string(size) + " bytes)").c_str());
  }
  check(vkBindBufferMemory(ctx.device(), buffer_, memory_, 0), "vkBindBufferMemory");
  VkPhysicalDeviceMemoryProperties mp{};
  vkGetPhysicalDeviceMemoryProperties(ctx.physical(), &mp);
  const VkMemoryPropertyFlags flags = mp.memoryTypes[mai.memoryTypeIndex].propertyFlags;
  if ((flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && (use != MemoryUse::Device || ctx.map_device_memory())) {
    check(vkMapMemory(ctx.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
    coherent_ = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) != 0;
  }
}

Buffer::~Buffer() {
  release();
}

void Buffer::release() {
  if (!ctx_) return;
  if (buffer_) vkDestroyBuffer(ctx_->device(), buffer_, nullptr);
  if (memory_) vkFreeMemory(ctx_->device(), memory_, nullptr);  // unmaps implicitly
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

Buffer::Buffer(Buffer&& o) noexcept {
  *this = std::move(o);
}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release();
    ctx_ = std::exchange(o.ctx_, nullptr);
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(o.size_, 0);
    mapped_ = std::exchange(o.mapped_, nullptr);
    coherent_ = o.coherent_;
  }
  return *this;
}

void Buffer::upload(const void* data, uint64_t bytes, uint64_t offset) {
  if (offset + bytes > size_)
    throw VulkanError("upload of " + std::to_string(bytes) + " bytes at " + std::to_string(offset) +
                      " overruns a buffer of " + std::to_string(size_));
  if (bytes == 0) return;
  if (mapped_) {
    std::memcpy(static_cast<char*>(mapped_) + offset, data, bytes);
    if (!coherent_) {
      VkMappedMemoryRange mr{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
      check(vkFlushMappedMemoryRanges(ctx_->device(), 1, &mr), "vkFlushMappedMemoryRanges");
    }
    return;
  }
  const uint64_t chunk = std::min<uint64_t>(bytes, 64ull << 20);
  Buffer staging(*ctx_, chunk, MemoryUse::Upload);
  for (uint64_t done = 0; done < bytes; done += chunk) {
    const uint64_t n = std::min(chunk, bytes - done);
    std::memcpy(staging.mapped(), static_cast<const char*>(data) + done, n);
    ctx_->one_shot([&](VkCommandBuffer cb) {
      VkBufferCopy c{0, offset + done, n};
      vkCmdCopyBuffer(cb, staging.handle(), buffer_, 1, &c);
    });
  }
}

std::span<const uint32_t> Buffer::words() const {
  if (!mapped_) throw VulkanError("words(): the buffer's memory is not host-visible");
  if (!coherent_) {
    VkMappedMemoryRange mr{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
    check(vkInvalidateMappedMemoryRanges(ctx_->device(), 1, &mr), "vkInvalidateMappedMemoryRanges");
  }
  return {static_cast<const uint32_t*>(mapped_), size_ / 4};
}

void Buffer::download(void* data, uint64_t bytes, uint64_t offset) const {
  if (offset + bytes > size_)
    throw VulkanError("download of " + std::to_string(bytes) + " bytes at " + std::to_string(offset) +
                      " overruns a buffer of " + std::to_string(size_));
  if (bytes == 0) return;
  if (mapped_) {
    if (!coherent_) {
      VkMappedMemoryRange mr{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE, nullptr, memory_, 0, VK_WHOLE_SIZE};
      check(vkInvalidateMappedMemoryRanges(ctx_->device(), 1, &mr), "vkInvalidateMappedMemoryRanges");
    }
    std::memcpy(data, static_cast<const char*>(mapped_) + offset, bytes);
    return;
  }
  const uint64_t chunk = std::min<uint64_t>(bytes, 64ull << 20);
  Buffer staging(*ctx_, chunk, MemoryUse::Readback);
  for (uint64_t done = 0; done < bytes; done += chunk) {
    const uint64_t n = std::min(chunk, bytes - done);
    ctx_->one_shot([&](VkCommandBuffer cb) {
      VkBufferCopy c{offset + done, 0, n};
      vkCmdCopyBuffer(cb, buffer_, staging.handle(), 1, &c);
    });
    staging.download(static_cast<char*>(data) + done, n, 0);
  }
}

// ---- Pipeline ---------------------------------------------------------------------------------------

std::string required_subgroup_note(const DeviceInfo& d) {
  const uint32_t sg = cooperative_subgroup_size(d);
  return required_subgroup_size(d, sg) ? ", subgroups of " + std::to_string(sg) + " required" : std::string();
}

Pipeline::Pipeline(const Context& ctx, const std::string& stem, uint32_t bindings, uint32_t push_bytes,
                   std::vector<uint32_t> spec, uint32_t required_subgroup)
    : ctx_(ctx), name_(stem), bindings_(bindings), push_bytes_(push_bytes) {
  const DeviceInfo& d = ctx.info();
  if (required_subgroup && (!d.subgroup_size_control || !std::has_single_bit(required_subgroup) ||
                            required_subgroup < d.min_subgroup_size || required_subgroup > d.max_subgroup_size))
    throw VulkanError("shader " + stem + " needs subgroups of " + std::to_string(required_subgroup) + ", which " +
                      d.name + " cannot be asked for (" +
                      (d.subgroup_size_control ? "sizes " + std::to_string(d.min_subgroup_size) + " to " +
                                                     std::to_string(d.max_subgroup_size)
                                               : std::string("no subgroup size control")) +
                      ")");
  const auto code = shader_spirv(stem);
  if (code.empty())
    throw VulkanError("no embedded shader named '" + stem + "' (is shaders/" + stem + ".comp missing?)");
  if (push_bytes > ctx.info().max_push_constants)
    throw VulkanError("shader " + stem + " needs " + std::to_string(push_bytes) +
                      " bytes of push constants, the device allows " + std::to_string(ctx.info().max_push_constants));
  VkShaderModuleCreateInfo smi{};
  smi.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  smi.codeSize = code.size() * sizeof(uint32_t);
  smi.pCode = code.data();
  check(vkCreateShaderModule(ctx.device(), &smi, nullptr, &module_), ("vkCreateShaderModule " + stem).c_str());

  std::vector<VkDescriptorSetLayoutBinding> lb(bindings);
  for (uint32_t i = 0; i < bindings; ++i)
    lb[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  VkDescriptorSetLayoutCreateInfo dli{};
  dli.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  dli.bindingCount = bindings;
  dli.pBindings = lb.data();
  check(vkCreateDescriptorSetLayout(ctx.device(), &dli, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");

  VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
  VkPipelineLayoutCreateInfo pli{};
  pli.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  pli.setLayoutCount = 1;
  pli.pSetLayouts = &set_layout_;
  pli.pushConstantRangeCount = push_bytes ? 1 : 0;
  pli.pPushConstantRanges = &pr;
  check(vkCreatePipelineLayout(ctx.device(), &pli, nullptr, &layout_), "vkCreatePipelineLayout");

  // vkCreateComputePipelines may run on several threads at once; the module and layout it reads live
  // until the destructor, which waits for it.
  building_ =
      std::async(std::launch::async, [device = ctx.device(), module = module_, layout = layout_, stem,
                                      stats = ctx.pipeline_statistics(), spec = std::move(spec), required_subgroup] {
        std::vector<VkSpecializationMapEntry> entries(spec.size());
        for (uint32_t i = 0; i < spec.size(); ++i) entries[i] = {i, i * 4u, 4u};
        VkSpecializationInfo si{static_cast<uint32_t>(entries.size()), entries.data(), spec.size() * 4u, spec.data()};
        VkComputePipelineCreateInfo cpi{};
        cpi.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
        cpi.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        cpi.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        cpi.stage.module = module;
        cpi.stage.pName = "main";
        cpi.stage.pSpecializationInfo = spec.empty() ? nullptr : &si;
        VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rsi{};
        rsi.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO;
        rsi.requiredSubgroupSize = required_subgroup;
        if (required_subgroup) {
          cpi.stage.pNext = &rsi;
          cpi.stage.flags |= VK_PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT;
        }
        cpi.layout = layout;
        if (stats) cpi.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
        VkPipeline p = VK_NULL_HANDLE;
        check(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpi, nullptr, &p),
              ("vkCreateComputePipelines " + stem).c_str());
        return p;
      });
}

void Pipeline::statistics_to(std::vector<std::string>& out, const std::string& label) const {
  for (const std::string& line : statistics()) out.push_back(label + ": " + line);
}

std::vector<std::string> Pipeline::statistics() const {
  std::vector<std::string> out;
  if (!ctx_.pipeline_statistics()) return out;
  const VkPipeline p = handle();
  // Entry points of the extension, fetched where they are used (only this diagnostic calls them).
  auto props_fn = reinterpret_cast<PFN_vkGetPipelineExecutablePropertiesKHR>(
      vkGetInstanceProcAddr(ctx_.instance(), "vkGetPipelineExecutablePropertiesKHR"));
  auto stats_fn = reinterpret_cast<PFN_vkGetPipelineExecutableStatisticsKHR>(
      vkGetInstanceProcAddr(ctx_.instance(), "vkGetPipelineExecutableStatisticsKHR"));
  if (!props_fn || !stats_fn) return out;
  VkPipelineInfoKHR pi{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, nullptr, p};
  uint32_t n_exec = 0;
  if (props_fn(ctx_.device(), &pi, &n_exec, nullptr) != VK_SUCCESS) return out;
  for (uint32_t e = 0; e < n_exec; ++e) {
    VkPipelineExecutableInfoKHR ei{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR, nullptr, p, e};
    uint32_t n = 0;
    if (stats_fn(ctx_.device(), &ei, &n, nullptr) != VK_SUCCESS) continue;
    std::vector<VkPipelineExecutableStatisticKHR> st(n);
    for (auto& x : st) x.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
    if (stats_fn(ctx_.device(), &ei, &n, st.data()) != VK_SUCCESS) continue;
    for (uint32_t i = 0; i < n; ++i) {
      std::string v;
      switch (st[i].format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
          v = st[i].value.b32 ? "yes" : "no";
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
          v = std::to_string(st[i].value.i64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
          v = std::to_string(st[i].value.u64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
          v = std::to_string(st[i].value.f64);
          break;
        default:
          v = "?";
      }
      out.push_back(std::string(st[i].name) + ": " + v);
    }
  }
  return out;
}

void Pipeline::collect() const {
  if (!building_.valid()) return;
  try {
    pipeline_ = building_.get();
  } catch (...) {
    error_ = std::current_exception();
  }
}

VkPipeline Pipeline::handle() const {
  collect();
  if (error_) std::rethrow_exception(error_);
  return pipeline_;
}

bool Pipeline::ready() const {
  return !building_.valid() || building_.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
}

Pipeline::~Pipeline() {
  collect();  // the compilation reads module_ and layout_, destroyed below
  if (pipeline_) vkDestroyPipeline(ctx_.device(), pipeline_, nullptr);
  if (layout_) vkDestroyPipelineLayout(ctx_.device(), layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(ctx_.device(), set_layout_, nullptr);
  if (module_) vkDestroyShaderModule(ctx_.device(), module_, nullptr);
}

// ---- DescriptorAllocator ----------------------------------------------------------------------------

namespace {
constexpr uint32_t kSetsPerPool = 256;
constexpr uint32_t kMaxBindingsPerSet = 16;
}  // namespace

DescriptorAllocator::~DescriptorAllocator() {
  for (VkDescriptorPool p : pools_) vkDestroyDescriptorPool(ctx_.device(), p, nullptr);
}

VkDescriptorSet DescriptorAllocator::make(const Pipeline& p, std::span<const BufferRange> ranges) {
  if (ranges.size() != p.bindings())
    throw VulkanError("shader " + p.name() + " has " + std::to_string(p.bindings()) + " bindings, " +
                      std::to_string(ranges.size()) + " buffers given");
  if (p.bindings() > kMaxBindingsPerSet) throw VulkanError("shader " + p.name() + " has too many bindings");
  std::vector<VkDescriptorBufferInfo> infos(ranges.size());
  for (size_t i = 0; i < ranges.size(); ++i) {
    const BufferRange& r = ranges[i];
    if (!r.buffer) throw VulkanError("shader " + p.name() + ": binding " + std::to_string(i) + " has no buffer");
    const uint64_t size = r.bytes();
    if (r.offset + size > r.buffer->size())
      throw VulkanError("shader " + p.name() + ": binding " + std::to_string(i) + " range overruns its buffer");
    if (size > ctx_.max_binding_range())
      throw VulkanError("shader " + p.name() + ": binding " + std::to_string(i) + " covers " + std::to_string(size) +
                        " bytes, more than one binding may (" + std::to_string(ctx_.max_binding_range()) +
                        "); the tensor must be split");
    if (r.offset % ctx_.info().min_storage_offset_alignment)
      throw VulkanError("shader " + p.name() + ": binding " + std::to_string(i) + " offset " +
                        std::to_string(r.offset) + " is not aligned to " +
                        std::to_string(ctx_.info().min_storage_offset_alignment));
    infos[i] = {r.buffer->handle(), r.offset, size ? size : VK_WHOLE_SIZE};
  }
  if (left_in_pool_ == 0) {
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * kMaxBindingsPerSet};
    VkDescriptorPoolCreateInfo pci{};
    pci.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pci.maxSets = kSetsPerPool;
    pci.poolSizeCount = 1;
    pci.pPoolSizes = &ps;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    check(vkCreateDescriptorPool(ctx_.device(), &pci, nullptr, &pool), "vkCreateDescriptorPool");
    pools_.push_back(pool);
    left_in_pool_ = kSetsPerPool;
  }
  VkDescriptorSetLayout layout = p.set_layout();
  VkDescriptorSetAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  ai.descriptorPool = pools_.back();
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &layout;
  VkDescriptorSet set = VK_NULL_HANDLE;
  check(vkAllocateDescriptorSets(ctx_.device(), &ai, &set), "vkAllocateDescriptorSets");
  --left_in_pool_;
  std::vector<VkWriteDescriptorSet> writes(ranges.size());
  for (uint32_t i = 0; i < ranges.size(); ++i) {
    writes[i] = {};
    writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
    writes[i].dstSet = set;
    writes[i].dstBinding = i;
    writes[i].descriptorCount = 1;
    writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[i].pBufferInfo = &infos[i];
  }
  vkUpdateDescriptorSets(ctx_.device(), static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  return set;
}

// ---- CommandSequence --------------------------------------------------------------------------------

CommandSequence::CommandSequence(const Context& ctx) : ctx_(ctx) {
  VkCommandBufferAllocateInfo ai{};
  ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  ai.commandPool = ctx.command_pool();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  check(vkAllocateCommandBuffers(ctx.device(), &ai, &cb_), "vkAllocateCommandBuffers");
}

CommandSequence::~CommandSequence() {
  if (pending_) vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, UINT64_MAX);
  if (fence_) vkDestroyFence(ctx_.device(), fence_, nullptr);
  if (cb_) vkFreeCommandBuffers(ctx_.device(), ctx_.command_pool(), 1, &cb_);
}

void CommandSequence::begin() {
  check(vkResetCommandBuffer(cb_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{};
  bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  check(vkBeginCommandBuffer(cb_, &bi), "vkBeginCommandBuffer");
  recording_ = true;
  recorded_ = false;
}

void CommandSequence::check_push(const Pipeline& p, uint32_t push_bytes) const {
  if (push_bytes != p.push_bytes())
    throw VulkanError("shader " + p.name() + " takes " + std::to_string(p.push_bytes()) + " bytes of push constants, " +
                      std::to_string(push_bytes) + " given");
}

void CommandSequence::bind(const Pipeline& p, VkDescriptorSet set, const void* push, uint32_t push_bytes) {
  vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, p.handle());
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout(), 0, 1, &set, 0, nullptr);
  if (push_bytes) vkCmdPushConstants(cb_, p.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes, push);
}

void CommandSequence::dispatch(const Pipeline& p, VkDescriptorSet set, const void* push, uint32_t push_bytes,
                               uint32_t gx, uint32_t gy, uint32_t gz) {
  check_push(p, push_bytes);
  if (gx == 0 || gy == 0 || gz == 0) return;
  if (gx > ctx_.info().max_workgroup_count_x || gy > 65535 || gz > 65535)
    throw VulkanError("shader " + p.name() + ": dispatch of " + std::to_string(gx) + "x" + std::to_string(gy) +
                      " workgroups exceeds the device limit");
  bind(p, set, push, push_bytes);
  vkCmdDispatch(cb_, gx, gy, gz);
}

void CommandSequence::dispatch_indirect(const Pipeline& p, VkDescriptorSet set, const void* push, uint32_t push_bytes,
                                        const BufferRange& grid) {
  check_push(p, push_bytes);
  if (!grid.buffer || grid.offset % 4 || grid.offset + 12 > grid.buffer->size())
    throw VulkanError("shader " + p.name() + ": its indirect grid is not 12 aligned bytes inside its buffer");
  bind(p, set, push, push_bytes);
  vkCmdDispatchIndirect(cb_, grid.buffer->handle(), grid.offset);
}

void CommandSequence::barrier(bool with_transfer) {
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  VkPipelineStageFlags st = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  if (with_transfer) {
    mb.srcAccessMask |= VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask |= VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    st |= VK_PIPELINE_STAGE_TRANSFER_BIT;
  }
  vkCmdPipelineBarrier(cb_, st, st, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

void CommandSequence::fill(const Buffer& dst, uint64_t offset, uint64_t bytes, uint32_t value) {
  vkCmdFillBuffer(cb_, dst.handle(), offset, bytes, value);
}

void CommandSequence::copy(const Buffer& src, uint64_t src_offset, const Buffer& dst, uint64_t dst_offset,
                           uint64_t bytes) {
  VkBufferCopy c{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(cb_, src.handle(), dst.handle(), 1, &c);
}

void CommandSequence::timestamp(VkQueryPool pool, uint32_t query) {
  vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, query);
}

void CommandSequence::end() {
  // Make the last writes visible to the host before the fence signals.
  VkMemoryBarrier mb{};
  mb.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  check(vkEndCommandBuffer(cb_), "vkEndCommandBuffer");
  recording_ = false;
  recorded_ = true;
}

void CommandSequence::run() const {
  if (!recorded_) throw VulkanError("command sequence run before it was recorded");
  if (pending_) throw VulkanError("command sequence run while its own submission is pending");
  last_run_ = ctx_.submit_and_wait(cb_, last_run_);
}

void CommandSequence::submit() {
  if (!recorded_) throw VulkanError("command sequence submitted before it was recorded");
  if (pending_) throw VulkanError("command sequence submitted again before wait()");
  if (!fence_) {
    VkFenceCreateInfo fci{};
    fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    check(vkCreateFence(ctx_.device(), &fci, nullptr, &fence_), "vkCreateFence");
  }
  VkSubmitInfo si{};
  si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb_;
  check(vkQueueSubmit(ctx_.queue(), 1, &si, fence_), "vkQueueSubmit");
  pending_ = true;
}

void CommandSequence::wait() {
  if (!pending_) return;
  pending_ = false;  // a failed wait leaves nothing to wait for again
  check(vkWaitForFences(ctx_.device(), 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  check(vkResetFences(ctx_.device(), 1, &fence_), "vkResetFences");
}

// ---- TimestampPool ----------------------------------------------------------------------------------

TimestampPool::TimestampPool(const Context& ctx, uint32_t count) : ctx_(ctx), count_(count) {
  if (!ctx.info().timestamps) throw VulkanError(ctx.info().name + " cannot write timestamps on its compute queue");
  VkQueryPoolCreateInfo qi{};
  qi.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
  qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qi.queryCount = count;
  check(vkCreateQueryPool(ctx.device(), &qi, nullptr, &pool_), "vkCreateQueryPool");
}

TimestampPool::~TimestampPool() {
  if (pool_) vkDestroyQueryPool(ctx_.device(), pool_, nullptr);
}

void TimestampPool::reset(VkCommandBuffer cb) const {
  vkCmdResetQueryPool(cb, pool_, 0, count_);
}

double TimestampPool::elapsed_ns(uint32_t from, uint32_t to) const {
  uint64_t t[2] = {0, 0};
  check(vkGetQueryPoolResults(ctx_.device(), pool_, from, 1, sizeof(uint64_t), &t[0], sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  check(vkGetQueryPoolResults(ctx_.device(), pool_, to, 1, sizeof(uint64_t), &t[1], sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  return static_cast<double>(t[1] - t[0]) * ctx_.info().timestamp_period_ns;
}

std::vector<double> TimestampPool::read_ns(uint32_t count) const {
  std::vector<uint64_t> t(count);
  if (count == 0) return {};
  check(vkGetQueryPoolResults(ctx_.device(), pool_, 0, count, count * sizeof(uint64_t), t.data(), sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  std::vector<double> out(count);
  for (uint32_t i = 0; i < count; ++i) out[i] = static_cast<double>(t[i] - t[0]) * ctx_.info().timestamp_period_ns;
  return out;
}

}  // namespace trit::vk
