// Instance creation (vulkan/instance.h).
#include "vulkan/instance.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>

#include "trit/devices.h"
#include "vulkan/context.h"

namespace trit::vk {

Instance::Instance(bool validation) {
  load_vulkan();  // the loader is opened at run time: a clear VulkanError when it is missing
  uint32_t loader_version = VK_API_VERSION_1_0;
  // vkEnumerateInstanceVersion exists from loader 1.1 on; a 1.0 loader cannot run our 1.2 SPIR-V.
  if (!vkEnumerateInstanceVersion || vkEnumerateInstanceVersion(&loader_version) != VK_SUCCESS ||
      loader_version < VK_API_VERSION_1_2)
    throw VulkanError("the Vulkan loader is version " + vulkan_version_string(loader_version) +
                      "; Trit needs Vulkan 1.2 or later (update libvulkan1 and your driver)");

  std::vector<const char*> layers;
  if (validation) {
    uint32_t n = 0;
    vkEnumerateInstanceLayerProperties(&n, nullptr);
    std::vector<VkLayerProperties> props(n);
    vkEnumerateInstanceLayerProperties(&n, props.data());
    const bool present = std::any_of(props.begin(), props.end(), [](const VkLayerProperties& p) {
      return std::strcmp(p.layerName, "VK_LAYER_KHRONOS_validation") == 0;
    });
    if (present) layers.push_back("VK_LAYER_KHRONOS_validation");
  }
  validation_ = !layers.empty();

  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "Trit";
  app.pEngineName = "trit_engine";
  app.apiVersion = VK_API_VERSION_1_3;
  VkInstanceCreateInfo ci{};
  ci.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  ci.pApplicationInfo = &app;
  ci.enabledLayerCount = static_cast<uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  const VkResult r = vkCreateInstance(&ci, nullptr, &instance_);
  if (r == VK_ERROR_INCOMPATIBLE_DRIVER || r == VK_ERROR_INITIALIZATION_FAILED)
    throw VulkanError(std::string(kNoDeviceMessage) + " (vkCreateInstance: " + result_name(r) + ")");
  check(r, "vkCreateInstance");
  try {
    load_vulkan_instance(instance_);
  } catch (...) {
    if (vkDestroyInstance) vkDestroyInstance(instance_, nullptr);
    throw;
  }
}

Instance::~Instance() {
  if (instance_) vkDestroyInstance(instance_, nullptr);
}

const Instance& process_instance(bool validation) {
  static std::mutex mu;
  static Instance* made[2] = {nullptr, nullptr};  // deliberately never destroyed (instance.h)
  const std::lock_guard<std::mutex> lock(mu);
  Instance*& slot = made[validation ? 1 : 0];
  if (!slot) slot = new Instance(validation);
  return *slot;
}

std::vector<VkPhysicalDevice> Instance::physical_devices() const {
  uint32_t n = 0;
  check(vkEnumeratePhysicalDevices(instance_, &n, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> out(n);
  check(vkEnumeratePhysicalDevices(instance_, &n, out.data()), "vkEnumeratePhysicalDevices");
  out.resize(n);
  if (out.empty()) throw VulkanError(kNoDeviceMessage);
  return out;
}

}  // namespace trit::vk
