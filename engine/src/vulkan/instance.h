#pragma once
// The Vulkan instance: one per process (with validation and without), shared by every Context and by
// device listing, with a clear message when there is no loader, no driver or no device.
#include "vulkan/loader.h"

#include <vector>

namespace trit::vk {

inline constexpr const char* kNoDeviceMessage =
    "no Vulkan device found: install a Vulkan driver (mesa-vulkan-drivers for lavapipe, or your GPU vendor's "
    "driver), or point VK_DRIVER_FILES at its ICD JSON file";

class Instance {
 public:
  // validation: enable VK_LAYER_KHRONOS_validation if it is installed (ignored otherwise).
  explicit Instance(bool validation);
  ~Instance();
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;

  VkInstance handle() const { return instance_; }
  std::vector<VkPhysicalDevice> physical_devices() const;
  bool validation_enabled() const { return validation_; }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  bool validation_ = false;
};

// The process's instance, created at first use and kept until exit (never destroyed): the NVIDIA
// driver fails repeated instance lifecycles in one process (on the H100, vkCreateInstance returned
// VK_ERROR_INCOMPATIBLE_DRIVER after some two dozen Contexts had come and gone; others report wrong subgroup
// invocation ids after ~11), and a user who switches models or GPUs creates a Context each time.
// Thread-safe; a failed creation is not kept, so a later call tries again.
const Instance& process_instance(bool validation);

}  // namespace trit::vk
