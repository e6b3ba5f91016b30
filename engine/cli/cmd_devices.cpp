// trit-cli devices: the Vulkan devices of this machine and the features the engine uses.
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"
#include "trit/devices.h"

namespace {

int run_devices(const std::vector<std::string>& args) {
  if (!args.empty()) {
    std::fprintf(stderr, "trit-cli devices: takes no arguments (got '%s')\n", args[0].c_str());
    return 2;
  }
  const auto devices = trit::list_vulkan_devices();
  const auto& best = trit::choose_device(devices, {});
  for (const auto& d : devices) {
    std::printf("%s", trit::describe_device(d).c_str());
    if (d.index == best.index) std::printf("    (default device)\n");
  }
  return 0;
}

trit::cli::Registration reg{
    {"devices", "devices", "list Vulkan devices and the features the engine uses", run_devices}};

}  // namespace
