// Device enumeration and feature queries (trit/devices.h), and the instance every Context starts from.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "vulkan/context.h"
#include "vulkan/instance.h"
#include "vulkan/khr_cooperative_matrix.h"

namespace trit {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string type_name(VkPhysicalDeviceType t) {
  switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

int type_rank(const std::string& t) {
  if (t == "discrete") return 0;
  if (t == "integrated") return 1;
  if (t == "virtual") return 2;
  if (t == "cpu") return 3;
  return 4;
}

std::string gib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
  return buf;
}

std::string mib(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  return buf;
}

// The int8 x int8 + int32 -> int32 subgroup shapes of VK_NV_cooperative_matrix (an instance-level
// function of a device extension: fetched through the instance).
std::vector<DeviceInfo::MatrixShape> int8_shapes_nv(VkInstance instance, VkPhysicalDevice pd) {
  std::vector<DeviceInfo::MatrixShape> out;
  auto props_fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesNV>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesNV"));
  uint32_t n = 0;
  if (!props_fn || props_fn(pd, &n, nullptr) != VK_SUCCESS || n == 0) return out;
  std::vector<VkCooperativeMatrixPropertiesNV> cms(n);
  for (auto& c : cms) c.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_NV;
  if (props_fn(pd, &n, cms.data()) != VK_SUCCESS) return out;
  for (uint32_t i = 0; i < n; ++i) {
    const auto& c = cms[i];
    if (c.AType == VK_COMPONENT_TYPE_SINT8_NV && c.BType == VK_COMPONENT_TYPE_SINT8_NV &&
        c.CType == VK_COMPONENT_TYPE_SINT32_NV && c.DType == VK_COMPONENT_TYPE_SINT32_NV &&
        c.scope == VK_SCOPE_SUBGROUP_NV)
      out.push_back({c.MSize, c.NSize, c.KSize});
  }
  return out;
}

// The same for VK_KHR_cooperative_matrix, non-saturating only: the GEMM's sums are exact, and its
// multiply-adds (rewritten from NV, whose integer sums are exact) never ask for saturation.
std::vector<DeviceInfo::MatrixShape> int8_shapes_khr(VkInstance instance, VkPhysicalDevice pd) {
  std::vector<DeviceInfo::MatrixShape> out;
  auto props_fn = reinterpret_cast<PFN_vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR>(
      vkGetInstanceProcAddr(instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR"));
  uint32_t n = 0;
  if (!props_fn || props_fn(pd, &n, nullptr) != VK_SUCCESS || n == 0) return out;
  std::vector<VkCooperativeMatrixPropertiesKHR> cms(n);
  for (auto& c : cms) c.sType = VK_STRUCTURE_TYPE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
  if (props_fn(pd, &n, cms.data()) != VK_SUCCESS) return out;
  for (uint32_t i = 0; i < n; ++i) {
    const auto& c = cms[i];
    if (c.AType == VK_COMPONENT_TYPE_SINT8_KHR && c.BType == VK_COMPONENT_TYPE_SINT8_KHR &&
        c.CType == VK_COMPONENT_TYPE_SINT32_KHR && c.ResultType == VK_COMPONENT_TYPE_SINT32_KHR &&
        !c.saturatingAccumulation && c.scope == VK_SCOPE_SUBGROUP_KHR)
      out.push_back({c.MSize, c.NSize, c.KSize});
  }
  return out;
}

}  // namespace

uint64_t DeviceInfo::device_local_bytes() const {
  uint64_t best = 0;
  for (const auto& h : heaps)
    if (h.device_local) best = std::max(best, h.size);
  return best;
}

uint64_t DeviceInfo::device_local_free() const {
  uint64_t best = 0, best_size = 0;
  for (const auto& h : heaps) {
    if (!h.device_local || h.size < best_size) continue;
    best_size = h.size;
    best = h.budget > h.usage ? h.budget - h.usage : 0;
  }
  return best;
}

std::string vulkan_version_string(uint32_t v) {
  return std::to_string(VK_API_VERSION_MAJOR(v)) + "." + std::to_string(VK_API_VERSION_MINOR(v)) + "." +
         std::to_string(VK_API_VERSION_PATCH(v));
}

namespace vk {

DeviceInfo query_device(VkPhysicalDevice pd, uint32_t index, VkInstance instance) {
  DeviceInfo d;
  d.index = index;

  uint32_t n_ext = 0;
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n_ext, nullptr);
  std::vector<VkExtensionProperties> exts(n_ext);
  vkEnumerateDeviceExtensionProperties(pd, nullptr, &n_ext, exts.data());
  auto has_ext = [&](const char* name) {
    return std::any_of(exts.begin(), exts.end(),
                       [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
  };

  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(pd, &base);
  const uint32_t api = base.apiVersion;
  const bool v12 = api >= VK_API_VERSION_1_2, v13 = api >= VK_API_VERSION_1_3;

  // Properties: chain only structures the device's version or extensions define.
  VkPhysicalDeviceSubgroupProperties sg{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES, nullptr, 0, 0, 0, 0};
  VkPhysicalDeviceSubgroupSizeControlProperties sgc{};
  sgc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES;
  VkPhysicalDeviceVulkan12Properties p12{};
  p12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES;
  VkPhysicalDeviceMaintenance3Properties m3{};
  m3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  VkPhysicalDeviceShaderIntegerDotProductProperties dotp{};
  dotp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_PROPERTIES;
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV smp{};
  smp.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV;
  VkPhysicalDeviceShaderCorePropertiesAMD amd{};
  amd.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD;
  VkPhysicalDeviceShaderCoreProperties2AMD amd2{};
  amd2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD;
  VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm{};
  arm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM;
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &sg, {}};
  sg.pNext = &m3;
  void** tail = &m3.pNext;
  const bool has_sgc = v13 || has_ext(VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
  const bool has_dot = v13 || has_ext(VK_KHR_SHADER_INTEGER_DOT_PRODUCT_EXTENSION_NAME);
  if (has_sgc) {
    *tail = &sgc;
    tail = &sgc.pNext;
  }
  if (v12) {
    *tail = &p12;
    tail = &p12.pNext;
  }
  if (has_dot) {
    *tail = &dotp;
    tail = &dotp.pNext;
  }
  const bool has_sm = has_ext(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (has_sm) {
    *tail = &smp;
    tail = &smp.pNext;
  }
  const bool has_amd = has_ext(VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  if (has_amd) {
    *tail = &amd;
    tail = &amd.pNext;
  }
  const bool has_amd2 = has_ext(VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME);
  if (has_amd2) {
    *tail = &amd2;
    tail = &amd2.pNext;
  }
  const bool has_arm = has_ext(VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);
  if (has_arm) {
    *tail = &arm;
    tail = &arm.pNext;
  }
  VkPhysicalDeviceCooperativeMatrixPropertiesKHR cmk{};
  cmk.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR;
  const bool has_cm_khr = has_ext(VK_KHR_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (has_cm_khr) {
    *tail = &cmk;
    tail = &cmk.pNext;
  }
  vkGetPhysicalDeviceProperties2(pd, &props);
  // The multiprocessor count, from whichever vendor extension reports it (the most specific first).
  auto take = [&](uint32_t n, const char* from) {
    if (d.multiprocessors == 0 && n > 0) {
      d.multiprocessors = n;
      d.multiprocessors_from = from;
    }
  };
  if (has_sm) take(smp.shaderSMCount, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (has_amd2) take(amd2.activeComputeUnitCount, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME);
  if (has_amd)
    take(amd.shaderEngineCount * amd.shaderArraysPerEngineCount * amd.computeUnitsPerShaderArray,
         VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME);
  if (has_arm) take(arm.shaderCoreCount, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME);

  // Features.
  VkPhysicalDeviceVulkan11Features f11{};
  f11.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES;
  VkPhysicalDeviceVulkan12Features f12{};
  f12.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  VkPhysicalDeviceShaderIntegerDotProductFeatures fdot{};
  fdot.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_INTEGER_DOT_PRODUCT_FEATURES;
  VkPhysicalDeviceSubgroupSizeControlFeatures fsgc{};
  fsgc.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES;
  VkPhysicalDeviceFeatures2 feats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, nullptr, {}};
  tail = &feats.pNext;
  if (v12) {
    *tail = &f11;
    tail = &f11.pNext;
    *tail = &f12;
    tail = &f12.pNext;
  }
  if (has_dot) {
    *tail = &fdot;
    tail = &fdot.pNext;
  }
  if (has_sgc) {
    *tail = &fsgc;
    tail = &fsgc.pNext;
  }
  VkPhysicalDeviceCooperativeMatrixFeaturesNV fcm{};
  fcm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV;
  const bool has_cm_nv = has_ext(VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
  if (has_cm_nv) {
    *tail = &fcm;
    tail = &fcm.pNext;
  }
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR fpe{};
  fpe.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  const bool has_pe = has_ext(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  if (has_pe) {
    *tail = &fpe;
    tail = &fpe.pNext;
  }
  VkPhysicalDeviceCooperativeMatrixFeaturesKHR fcmk{};
  fcmk.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR;
  if (has_cm_khr) {
    *tail = &fcmk;
    tail = &fcmk.pNext;
  }
  vkGetPhysicalDeviceFeatures2(pd, &feats);

  d.name = base.deviceName;
  d.type = type_name(base.deviceType);
  d.api_version = api;
  d.vendor_id = base.vendorID;
  d.device_id = base.deviceID;
  if (v12) {
    d.driver = p12.driverName;
    if (p12.driverInfo[0]) d.driver += std::string(" (") + p12.driverInfo + ")";
  } else {
    d.driver = "driver version " + std::to_string(base.driverVersion);
  }

  d.subgroup_size = sg.subgroupSize;
  d.min_subgroup_size = has_sgc ? sgc.minSubgroupSize : sg.subgroupSize;
  d.max_subgroup_size = has_sgc ? sgc.maxSubgroupSize : sg.subgroupSize;
  const bool sg_compute = (sg.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) != 0;
  d.subgroup_arithmetic = sg_compute && (sg.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT);
  d.subgroup_shuffle = sg_compute && (sg.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT);
  d.subgroup_ballot = sg_compute && (sg.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
  d.subgroup_clustered = sg_compute && (sg.supportedOperations & VK_SUBGROUP_FEATURE_CLUSTERED_BIT);
  // (Usable: the context enables the two features through Vulkan 1.3's structure, and a compute
  // pipeline may then require a size, with full subgroups.)
  d.subgroup_size_control = v13 && fsgc.subgroupSizeControl && fsgc.computeFullSubgroups &&
                            (sgc.requiredSubgroupSizeStages & VK_SHADER_STAGE_COMPUTE_BIT);

  d.integer_dot_product = has_dot && fdot.shaderIntegerDotProduct;
  d.integer_dot_4x8_accelerated = d.integer_dot_product && dotp.integerDotProduct4x8BitPackedSignedAccelerated;
  d.storage_16bit = v12 && f11.storageBuffer16BitAccess;
  d.storage_8bit = v12 && f12.storageBuffer8BitAccess;
  d.shader_int8 = v12 && f12.shaderInt8;
  d.shader_float16 = v12 && f12.shaderFloat16;
  d.shader_int16 = feats.features.shaderInt16;
  d.shader_int64 = feats.features.shaderInt64;
  d.shader_float64 = feats.features.shaderFloat64;
  d.cooperative_matrix = has_cm_khr;
  d.cooperative_matrix2_nv = has_ext("VK_NV_cooperative_matrix2");
  d.memory_budget = has_ext(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
  d.pipeline_statistics = has_pe && fpe.pipelineExecutableInfo;
  d.vulkan_memory_model = v12 && f12.vulkanMemoryModel;
  d.cooperative_matrix_nv = has_cm_nv && fcm.cooperativeMatrix && d.vulkan_memory_model && d.shader_int8;
  if (d.cooperative_matrix_nv && instance != VK_NULL_HANDLE) d.coop_int8_shapes = int8_shapes_nv(instance, pd);
  // The KHR twin keeps the NV module's Vulkan memory model (SPV_KHR_cooperative_matrix requires it too).
  d.cooperative_matrix_khr = has_cm_khr && fcmk.cooperativeMatrix &&
                             (cmk.cooperativeMatrixSupportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                             d.vulkan_memory_model && d.shader_int8;
  if (d.cooperative_matrix_khr && instance != VK_NULL_HANDLE) d.coop_int8_shapes_khr = int8_shapes_khr(instance, pd);

  d.max_storage_buffer_range = base.limits.maxStorageBufferRange;
  d.max_allocation_size = m3.maxMemoryAllocationSize;
  d.min_storage_offset_alignment = base.limits.minStorageBufferOffsetAlignment;
  d.max_workgroup_invocations = base.limits.maxComputeWorkGroupInvocations;
  d.max_workgroup_count_x = base.limits.maxComputeWorkGroupCount[0];
  d.max_shared_memory = base.limits.maxComputeSharedMemorySize;
  d.max_push_constants = base.limits.maxPushConstantsSize;
  d.timestamp_period_ns = base.limits.timestampPeriod;

  uint32_t n_q = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n_q, nullptr);
  std::vector<VkQueueFamilyProperties> qs(n_q);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &n_q, qs.data());
  for (const auto& q : qs) {
    if (!(q.queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    d.has_compute_queue = true;
    d.timestamps = q.timestampValidBits > 0 && base.limits.timestampPeriod > 0;
    break;
  }

  // Memory heaps, with the budget where the extension reports it.
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
  budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
  VkPhysicalDeviceMemoryProperties2 mem{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2, nullptr, {}};
  if (d.memory_budget) mem.pNext = &budget;
  vkGetPhysicalDeviceMemoryProperties2(pd, &mem);
  const auto& mp = mem.memoryProperties;
  for (uint32_t h = 0; h < mp.memoryHeapCount; ++h) {
    MemoryHeapInfo hi;
    hi.size = mp.memoryHeaps[h].size;
    hi.device_local = (mp.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0;
    hi.budget = d.memory_budget ? budget.heapBudget[h] : hi.size;
    hi.usage = d.memory_budget ? budget.heapUsage[h] : 0;
    for (uint32_t t = 0; t < mp.memoryTypeCount; ++t)
      if (mp.memoryTypes[t].heapIndex == h && (mp.memoryTypes[t].propertyFlags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT))
        hi.host_visible = true;
    d.heaps.push_back(hi);
  }
  // A CPU device (lavapipe) has no heap flagged device-local on some drivers; its memory is the device's.
  if (std::none_of(d.heaps.begin(), d.heaps.end(), [](const MemoryHeapInfo& h) { return h.device_local; }))
    for (auto& h : d.heaps) h.device_local = true;
  return d;
}

}  // namespace vk

DeviceInfo vendor_neutral(DeviceInfo d) {
  // AMD's RDNA GPUs run subgroups of 32 or 64 and Intel's of 8 to 32: where a pipeline can require a
  // size, the range is widened as RDNA's, so what depends on a fixed size (the cooperative-matrix
  // kernels) takes the path of those GPUs (a required size) on an NVIDIA GPU too.
  if (d.subgroup_size_control) d.max_subgroup_size = std::max(d.max_subgroup_size, 64u);
  d.cooperative_matrix_nv = false;
  d.cooperative_matrix2_nv = false;
  d.coop_int8_shapes.clear();
  if (d.multiprocessors_from == VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME) {
    d.multiprocessors = 0;
    d.multiprocessors_from.clear();
  }
  return d;
}

uint32_t cooperative_subgroup_size(const DeviceInfo& d) {
  if (d.subgroup_size == 0) return 0;
  if (d.min_subgroup_size == d.max_subgroup_size) return d.subgroup_size;
  return d.subgroup_size_control ? std::clamp(32u, d.min_subgroup_size, d.max_subgroup_size) : 0;
}

uint32_t required_subgroup_size(const DeviceInfo& d, uint32_t size) {
  return d.min_subgroup_size == d.max_subgroup_size ? 0 : size;
}

std::vector<DeviceInfo> list_vulkan_devices() {
  const vk::Instance& inst = vk::process_instance(false);
  std::vector<DeviceInfo> out;
  const auto pds = inst.physical_devices();
  for (uint32_t i = 0; i < pds.size(); ++i) out.push_back(vk::query_device(pds[i], i, inst.handle()));
  return out;
}

const DeviceInfo& choose_device(const std::vector<DeviceInfo>& devices, const DeviceChoice& choice) {
  if (devices.empty()) throw VulkanError(vk::kNoDeviceMessage);
  auto listing = [&] {
    std::string s;
    for (const auto& d : devices) s += "\n  " + std::to_string(d.index) + ": " + d.name + " (" + d.type + ")";
    return s;
  };
  if (choice.index >= 0) {
    for (const auto& d : devices)
      if (static_cast<int>(d.index) == choice.index) return d;
    throw VulkanError("there is no Vulkan device " + std::to_string(choice.index) + "; the devices are:" + listing());
  }
  if (!choice.name.empty()) {
    const std::string want = lower(choice.name);
    for (const auto& d : devices)
      if (lower(d.name).find(want) != std::string::npos) return d;
    throw VulkanError("no Vulkan device's name contains '" + choice.name + "'; the devices are:" + listing());
  }
  const DeviceInfo* best = nullptr;
  for (const auto& d : devices) {
    if (!d.has_compute_queue) continue;
    if (!best || type_rank(d.type) < type_rank(best->type)) best = &d;
  }
  if (!best) throw VulkanError("no Vulkan device has a compute queue; the devices are:" + listing());
  return *best;
}

std::string describe_device(const DeviceInfo& d) {
  std::ostringstream o;
  auto yn = [](bool b) { return b ? "yes" : "no"; };
  o << d.index << ": " << d.name << " (" << d.type << ")\n";
  o << "    Vulkan " << vulkan_version_string(d.api_version) << ", driver " << d.driver << "\n";
  for (size_t h = 0; h < d.heaps.size(); ++h) {
    const auto& hp = d.heaps[h];
    o << "    heap " << h << ": " << gib(hp.size) << (hp.device_local ? " device-local" : "")
      << (hp.host_visible ? " host-visible" : "");
    if (d.memory_budget) o << ", " << gib(hp.budget > hp.usage ? hp.budget - hp.usage : 0) << " free";
    o << "\n";
  }
  o << "    subgroup size " << d.subgroup_size;
  if (d.min_subgroup_size != d.max_subgroup_size) o << " (" << d.min_subgroup_size << "-" << d.max_subgroup_size << ")";
  o << ", arithmetic " << yn(d.subgroup_arithmetic) << ", shuffle " << yn(d.subgroup_shuffle) << ", clustered "
    << yn(d.subgroup_clustered) << ", size control " << yn(d.subgroup_size_control) << "\n";
  o << "    int8 dot product " << yn(d.integer_dot_product)
    << (d.integer_dot_4x8_accelerated ? " (accelerated)"
        : d.integer_dot_product       ? " (not accelerated)"
                                      : "")
    << ", cooperative matrix " << yn(d.cooperative_matrix) << (d.cooperative_matrix2_nv ? " (+NV matrix2)" : "")
    << "\n";
  auto shapes = [&](const char* which, const std::vector<DeviceInfo::MatrixShape>& v) {
    o << "    " << which << " cooperative matrix, int8 x int8 + int32 (MxNxK):";
    for (const auto& c : v) o << " " << c.m << "x" << c.n << "x" << c.k;
    if (v.empty()) o << " none";
    o << "\n";
  };
  if (d.cooperative_matrix_nv) shapes("NV", d.coop_int8_shapes);
  if (d.cooperative_matrix_khr) shapes("KHR", d.coop_int8_shapes_khr);
  o << "    storage 8-bit " << yn(d.storage_8bit) << ", 16-bit " << yn(d.storage_16bit) << "; shader int8 "
    << yn(d.shader_int8) << ", float16 " << yn(d.shader_float16) << ", int16 " << yn(d.shader_int16) << ", int64 "
    << yn(d.shader_int64) << ", float64 " << yn(d.shader_float64) << "\n";
  o << "    max storage binding " << mib(d.max_storage_buffer_range) << ", max allocation "
    << mib(d.max_allocation_size) << ", shared memory " << d.max_shared_memory / 1024 << " KiB, workgroup "
    << d.max_workgroup_invocations << " invocations\n";
  o << "    precision fp32 activations (the default on every device); f64 verification build "
    << (d.shader_float64 ? "available (--precision f64)" : "not available (no shaderFloat64)") << "\n";
  o << "    timestamps " << yn(d.timestamps);
  if (d.timestamps) o << " (period " << d.timestamp_period_ns << " ns)";
  o << ", memory budget " << yn(d.memory_budget);
  if (d.multiprocessors) o << ", " << d.multiprocessors << " multiprocessors (" << d.multiprocessors_from << ")";
  o << "\n";
  return o.str();
}

}  // namespace trit
