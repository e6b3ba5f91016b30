#pragma once
// The Vulkan instance: created once per Context (and briefly to list devices), with a clear message
// when there is no loader, no driver or no device.
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

}  // namespace trit::vk
