#pragma once
// The Vulkan devices this machine offers and what each can do, as the engine queries them. The Vulkan
// engine picks shader variants from these features (never from the device name); `trit-cli devices`
// prints them. See ../shared/docs/gpu.md for the two devices we test on (lavapipe and an H100).
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace trit {

// Every Vulkan failure: no loader or driver, no suitable device, not enough memory, a failed call.
// what() is a complete sentence saying what to do where there is something to do.
class VulkanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct MemoryHeapInfo {
  uint64_t size = 0;    // bytes
  uint64_t budget = 0;  // bytes this process may use (VK_EXT_memory_budget), else size
  uint64_t usage = 0;   // bytes in use (VK_EXT_memory_budget), else 0
  bool device_local = false;
  bool host_visible = false;  // some memory type of this heap can be mapped
};

struct DeviceInfo {
  uint32_t index = 0;  // position in vkEnumeratePhysicalDevices order
  std::string name;
  std::string type;          // "discrete", "integrated", "virtual", "cpu", "other"
  std::string driver;        // driver name and info, e.g. "llvmpipe (Mesa 22.3.6)"
  uint32_t api_version = 0;  // VK_MAKE_API_VERSION encoded
  uint32_t vendor_id = 0, device_id = 0;
  std::vector<MemoryHeapInfo> heaps;
  bool memory_budget = false;  // VK_EXT_memory_budget

  uint32_t subgroup_size = 0, min_subgroup_size = 0, max_subgroup_size = 0;
  bool subgroup_arithmetic = false, subgroup_shuffle = false, subgroup_ballot = false, subgroup_clustered = false;
  bool subgroup_size_control = false;

  bool integer_dot_product = false;          // VK_KHR_shader_integer_dot_product (or core 1.3)
  bool integer_dot_4x8_accelerated = false;  // packed signed 4x8 dot product runs in hardware
  bool storage_8bit = false, storage_16bit = false;
  bool shader_int8 = false, shader_float16 = false, shader_int16 = false, shader_int64 = false;
  bool shader_float64 = false;          // double in shaders (the engine's precise activation path)
  bool cooperative_matrix = false;      // VK_KHR_cooperative_matrix is exposed
  bool cooperative_matrix2_nv = false;  // VK_NV_cooperative_matrix2
  // VK_NV_cooperative_matrix with its feature on: the SPIR-V our toolchain (glslang 12) can emit for
  // subgroup matrix products. The shapes are what vkGetPhysicalDeviceCooperativeMatrixPropertiesNV
  // reports for int8 A and B with int32 C and result at subgroup scope (the prefill GEMM picks one).
  bool cooperative_matrix_nv = false;
  struct MatrixShape {
    uint32_t m = 0, n = 0, k = 0;
  };
  std::vector<MatrixShape> coop_int8_shapes;
  // VK_KHR_cooperative_matrix with its feature on for compute shaders, with the Vulkan memory model and
  // shaderInt8 (what the KHR twin of the prefill GEMM, rewritten from the NV module at build time,
  // needs): the form AMD, Intel and recent NVIDIA drivers offer. The shapes are what
  // vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR reports for int8 A and B with int32 C and result,
  // subgroup scope, non-saturating.
  bool cooperative_matrix_khr = false;
  std::vector<MatrixShape> coop_int8_shapes_khr;
  bool vulkan_memory_model = false;  // Vulkan 1.2 feature; SPV_NV_cooperative_matrix shaders need it

  uint64_t max_storage_buffer_range = 0;  // bytes one storage-buffer binding may cover
  uint64_t max_allocation_size = 0;       // VkPhysicalDeviceMaintenance3Properties
  uint64_t min_storage_offset_alignment = 0;
  uint32_t max_workgroup_invocations = 0;
  uint32_t max_workgroup_count_x = 0;
  uint32_t max_shared_memory = 0;
  uint32_t max_push_constants = 0;
  bool timestamps = false;  // the compute queue can write timestamps
  // VK_KHR_pipeline_executable_properties: the driver reports what it compiled (register counts, spills)
  // for diagnostics (trit-cli bench --pipeline-stats).
  bool pipeline_statistics = false;
  // Multiprocessors (NVIDIA SMs, AMD compute units, Arm shader cores) where a vendor extension reports
  // them, and which one (VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties2 or _properties,
  // VK_ARM_shader_core_builtins); 0 and "" elsewhere (Intel, lavapipe). The persistent decode kernel
  // sizes its grid from them, or from a measurement of resident workgroups where they are 0: all its
  // workgroups must be resident at once.
  uint32_t multiprocessors = 0;
  std::string multiprocessors_from;
  float timestamp_period_ns = 0.f;

  bool has_compute_queue = false;

  uint64_t device_local_bytes() const;  // largest device-local heap
  uint64_t device_local_free() const;   // its budget minus usage (or its size without the extension)
};

// d as a device without NVIDIA's extensions (VK_NV_*: the NVIDIA cooperative matrix and SM count) would
// report it: what the engine then runs on an NVIDIA GPU is the path AMD and Intel GPUs get. The
// cross-vendor VK_KHR_cooperative_matrix stays, so an NVIDIA GPU runs the KHR prefill GEMM. Where
// pipelines can require a subgroup size, the size range reaches 64 as on AMD's RDNA GPUs.
DeviceInfo vendor_neutral(DeviceInfo d);

// The subgroup size the cooperative-matrix kernels are built for (their fragments are spread over one
// subgroup, and their workgroups are whole subgroups): the device's only size, or, where the size
// varies (AMD RDNA: 32 or 64; Intel: 8 to 32), 32 (the size they are tuned for) or the nearest in
// the range, required of their pipelines; 0 where the size varies and cannot be required.
uint32_t cooperative_subgroup_size(const DeviceInfo& d);
// What a pipeline built for subgroups of `size` must require of d: the size where d's varies, else
// nothing (0).
uint32_t required_subgroup_size(const DeviceInfo& d, uint32_t size);

// Enumerates the devices. Throws VulkanError with an actionable message when the loader cannot create
// an instance or when no device exists.
std::vector<DeviceInfo> list_vulkan_devices();

// "1.3.230"
std::string vulkan_version_string(uint32_t api_version);

// A multi-line human description of one device (the `trit-cli devices` listing).
std::string describe_device(const DeviceInfo& d);

// Which device to use: by index (>= 0), else by a case-insensitive substring of the name, else the
// best one (discrete, then integrated, virtual, cpu). Throws VulkanError naming the choices on a miss.
struct DeviceChoice {
  int index = -1;
  std::string name;
};
const DeviceInfo& choose_device(const std::vector<DeviceInfo>& devices, const DeviceChoice& choice);

}  // namespace trit
