// Opening the Vulkan loader at run time and filling the global function pointers (vulkan/loader.h).
#include "vulkan/loader.h"

#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#if defined(_WIN32)
#include <windows.h>
#else
#include <dlfcn.h>
#endif

#include "trit/devices.h"

#define TRIT_VK_DEFINE(name) PFN_##name name = nullptr;
TRIT_VK_DEFINE(vkGetInstanceProcAddr)
TRIT_VK_DEFINE(vkEnumerateInstanceVersion)
TRIT_VK_GLOBAL_FUNCTIONS(TRIT_VK_DEFINE)
TRIT_VK_INSTANCE_FUNCTIONS(TRIT_VK_DEFINE)
#undef TRIT_VK_DEFINE

namespace trit::vk {
namespace {

#if defined(_WIN32)
const std::vector<std::string> kLoaderNames = {"vulkan-1.dll"};
void* open_library(const std::string& name) {
  return reinterpret_cast<void*>(LoadLibraryA(name.c_str()));
}
void* find_symbol(void* lib, const char* name) {
  return reinterpret_cast<void*>(GetProcAddress(static_cast<HMODULE>(lib), name));
}
#else
#if defined(__APPLE__)
const std::vector<std::string> kLoaderNames = {"libvulkan.1.dylib", "libvulkan.dylib"};
#else
// libvulkan.so.1 is what the libvulkan1 package installs; libvulkan.so (the -dev symlink) covers
// loaders installed by hand under the unversioned name.
const std::vector<std::string> kLoaderNames = {"libvulkan.so.1", "libvulkan.so"};
#endif
// RTLD_LOCAL: the loader's symbols stay out of the global namespace, where they would meet our pointers.
void* open_library(const std::string& name) {
  return dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
}
void* find_symbol(void* lib, const char* name) {
  return dlsym(lib, name);
}
#endif

// PFN_vkVoidFunction to the specific PFN type: function pointer to function pointer, which is what
// vkGetInstanceProcAddr's contract is.
template <typename Pfn>
Pfn as(PFN_vkVoidFunction f) {
  return reinterpret_cast<Pfn>(f);
}

struct LoadResult {
  std::string error;  // empty on success
};

LoadResult open_loader() {
  std::vector<std::string> names = kLoaderNames;
  if (const char* forced = std::getenv("TRIT_VULKAN_LOADER"); forced && *forced) names = {forced};
  void* lib = nullptr;
  std::string opened;
  for (const auto& n : names)
    if ((lib = open_library(n))) {
      opened = n;
      break;
    }
  if (!lib) return {loader_missing_message(names.front())};
  // Never closed: the pointers must stay valid for the life of the process.
  void* gipa = find_symbol(lib, "vkGetInstanceProcAddr");
  if (!gipa)
    return {"the Vulkan loader " + opened +
            " has no vkGetInstanceProcAddr: it is not a Vulkan loader or it is "
            "damaged; reinstall the libvulkan1 package"};
  // dlsym hands back an object pointer; POSIX guarantees it converts to a function pointer.
  vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(gipa);
  vkEnumerateInstanceVersion =
      as<PFN_vkEnumerateInstanceVersion>(vkGetInstanceProcAddr(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
#define TRIT_VK_LOAD_GLOBAL(name)                                      \
  name = as<PFN_##name>(vkGetInstanceProcAddr(VK_NULL_HANDLE, #name)); \
  if (!name) return {"the Vulkan loader " + opened + " does not provide " #name ": update libvulkan1"};
  TRIT_VK_GLOBAL_FUNCTIONS(TRIT_VK_LOAD_GLOBAL)
#undef TRIT_VK_LOAD_GLOBAL
  return {};
}

}  // namespace

std::string loader_missing_message(const std::string& library) {
  return "the Vulkan loader (" + library +
         ") is not installed: install the libvulkan1 package (Debian/Ubuntu) and a Vulkan driver "
         "(mesa-vulkan-drivers for a CPU fallback)";
}

void load_vulkan() {
  // Tried once: a missing loader stays missing for the life of the process, and every later attempt
  // reports the same message.
  static const LoadResult result = open_loader();
  if (!result.error.empty()) throw VulkanError(result.error);
}

void load_vulkan_instance(VkInstance instance) {
  load_vulkan();
  static std::once_flag once;
  static std::string error;
  std::call_once(once, [instance] {
#define TRIT_VK_LOAD_INSTANCE(name)                              \
  name = as<PFN_##name>(vkGetInstanceProcAddr(instance, #name)); \
  if (!name && error.empty())                                    \
    error = "the Vulkan loader does not provide " #name ": update libvulkan1 (Trit needs Vulkan 1.2)";
    TRIT_VK_INSTANCE_FUNCTIONS(TRIT_VK_LOAD_INSTANCE)
#undef TRIT_VK_LOAD_INSTANCE
  });
  if (!error.empty()) throw VulkanError(error);
}

}  // namespace trit::vk
