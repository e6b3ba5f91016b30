#pragma once
// The Vulkan loader, opened at run time (the volk approach, in a few lines of our own): the engine is
// compiled with VK_NO_PROTOTYPES and calls Vulkan through global function pointers that carry the
// standard names (vkCreateInstance, vkCmdDispatch...), so call sites read like plain Vulkan. Why: linking
// libvulkan.so.1 made every binary that contains the engine (trit-cli, the app) fail at process start
// with the dynamic linker's "error while loading shared libraries: libvulkan.so.1" on a machine without
// the loader; opened at run time, its absence is one VulkanError with an actionable message, raised only
// when something actually needs Vulkan (the CPU backend, tokenizer and file tools keep working).
//
// The loader is looked for as libvulkan.so.1, then libvulkan.so (libvulkan.1.dylib on macOS,
// vulkan-1.dll on Windows). TRIT_VULKAN_LOADER=<path> names the library to open instead, with no
// fallback: tests point it at a missing file to check the message a machine without the loader gets.
#ifndef VK_NO_PROTOTYPES
#error "the engine is compiled with VK_NO_PROTOTYPES (engine/CMakeLists.txt): Vulkan is called through vulkan/loader.h"
#endif
#include <vulkan/vulkan.h>

#include <string>

// Entry points that need no instance.
#define TRIT_VK_GLOBAL_FUNCTIONS(X)         \
  X(vkCreateInstance)                       \
  X(vkEnumerateInstanceExtensionProperties) \
  X(vkEnumerateInstanceLayerProperties)

// Every other entry point the engine calls (instance and device level), resolved through
// vkGetInstanceProcAddr once an instance exists. Add a function here when the engine starts calling it.
#define TRIT_VK_INSTANCE_FUNCTIONS(X)         \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkEnumerateDeviceExtensionProperties)     \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceProperties2)           \
  X(vkGetPhysicalDeviceFeatures2)             \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceMemoryProperties2)     \
  X(vkCreateDevice)                           \
  X(vkDestroyDevice)                          \
  X(vkGetDeviceQueue)                         \
  X(vkDeviceWaitIdle)                         \
  X(vkQueueSubmit)                            \
  X(vkCreateFence)                            \
  X(vkDestroyFence)                           \
  X(vkWaitForFences)                          \
  X(vkGetFenceStatus)                         \
  X(vkResetFences)                            \
  X(vkCreateCommandPool)                      \
  X(vkDestroyCommandPool)                     \
  X(vkAllocateCommandBuffers)                 \
  X(vkFreeCommandBuffers)                     \
  X(vkBeginCommandBuffer)                     \
  X(vkEndCommandBuffer)                       \
  X(vkResetCommandBuffer)                     \
  X(vkCreateBuffer)                           \
  X(vkDestroyBuffer)                          \
  X(vkGetBufferMemoryRequirements)            \
  X(vkAllocateMemory)                         \
  X(vkFreeMemory)                             \
  X(vkBindBufferMemory)                       \
  X(vkMapMemory)                              \
  X(vkFlushMappedMemoryRanges)                \
  X(vkInvalidateMappedMemoryRanges)           \
  X(vkCreateShaderModule)                     \
  X(vkDestroyShaderModule)                    \
  X(vkCreateDescriptorSetLayout)              \
  X(vkDestroyDescriptorSetLayout)             \
  X(vkCreatePipelineLayout)                   \
  X(vkDestroyPipelineLayout)                  \
  X(vkCreateComputePipelines)                 \
  X(vkDestroyPipeline)                        \
  X(vkCreateDescriptorPool)                   \
  X(vkDestroyDescriptorPool)                  \
  X(vkAllocateDescriptorSets)                 \
  X(vkUpdateDescriptorSets)                   \
  X(vkCreateQueryPool)                        \
  X(vkDestroyQueryPool)                       \
  X(vkGetQueryPoolResults)                    \
  X(vkCmdBindPipeline)                        \
  X(vkCmdBindDescriptorSets)                  \
  X(vkCmdPushConstants)                       \
  X(vkCmdDispatch)                            \
  X(vkCmdDispatchIndirect)                    \
  X(vkCmdPipelineBarrier)                     \
  X(vkCmdCopyBuffer)                          \
  X(vkCmdFillBuffer)                          \
  X(vkCmdResetQueryPool)                      \
  X(vkCmdWriteTimestamp)

// The pointers, global and named as the prototypes VK_NO_PROTOTYPES removed. Hidden, so that a shared
// library or executable containing the engine never exports a data symbol named like a loader function
// (which could interpose the real loader's functions for another library in the same process).
#if defined(_WIN32)
#define TRIT_VK_HIDDEN
#else
#define TRIT_VK_HIDDEN __attribute__((visibility("hidden")))
#endif
#define TRIT_VK_DECLARE(name) extern TRIT_VK_HIDDEN PFN_##name name;
TRIT_VK_DECLARE(vkGetInstanceProcAddr)
// Null with a loader older than Vulkan 1.1 (Instance then reports the version as 1.0).
TRIT_VK_DECLARE(vkEnumerateInstanceVersion)
TRIT_VK_GLOBAL_FUNCTIONS(TRIT_VK_DECLARE)
TRIT_VK_INSTANCE_FUNCTIONS(TRIT_VK_DECLARE)
#undef TRIT_VK_DECLARE

namespace trit::vk {

// Opens the loader once per process and fills vkGetInstanceProcAddr and the global functions. Throws
// VulkanError(loader_missing_message(name)) when the library cannot be opened, and a VulkanError naming
// the function when it lacks one. Cheap after the first call; safe from several threads.
void load_vulkan();

// Fills every instance- and device-level pointer through vkGetInstanceProcAddr(instance, ...). These are
// the loader's trampolines, which dispatch on the handle passed in, so one set of global pointers serves
// every instance and every device of every driver (per-device pointers from vkGetDeviceProcAddr would
// be wrong for a second device on another driver). Done once per process; throws VulkanError naming a
// function the loader does not provide.
void load_vulkan_instance(VkInstance instance);

// "the Vulkan loader (<library>) is not installed: install the libvulkan1 package (Debian/Ubuntu) and a
// Vulkan driver (mesa-vulkan-drivers for a CPU fallback)"
std::string loader_missing_message(const std::string& library);

}  // namespace trit::vk
