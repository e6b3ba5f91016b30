#include "gpu_memory.h"

#include <trit/devices.h>

namespace trit::models {

GpuMemory queryGpuMemory(int deviceIndex) {
  GpuMemory m;
  try {
    const auto devices = trit::list_vulkan_devices();
    trit::DeviceChoice choice;
    choice.index = deviceIndex;
    const trit::DeviceInfo& d = trit::choose_device(devices, choice);
    m.deviceName = QString::fromStdString(d.name);
    m.budget = d.memory_budget;
    m.freeBytes = static_cast<qint64>(d.device_local_free());
    m.totalBytes = static_cast<qint64>(d.device_local_bytes());
  } catch (const std::exception& e) {
    m.error = QString::fromUtf8(e.what());
  }
  return m;
}

}  // namespace trit::models
