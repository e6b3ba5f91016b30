#pragma once
// How much GPU memory the selected Vulkan device offers, for the model manager's "fits" column. Asking
// means creating a Vulkan instance and enumerating devices (hundreds of milliseconds on some drivers):
// never call queryGpuMemory() on the GUI thread; ModelManagerBridge runs it on a pool thread.
#include <QString>
#include <functional>

namespace trit::models {

struct GpuMemory {
  QString deviceName;      // empty when no device could be asked
  qint64 freeBytes = -1;   // the largest device-local heap's budget minus usage (VK_EXT_memory_budget), else its size
  qint64 totalBytes = -1;  // that heap's size
  bool budget = false;     // freeBytes is a live budget, not just the heap size
  QString error;           // why there is no figure (no Vulkan, no such device), a sentence
  bool ok() const { return error.isEmpty() && freeBytes >= 0; }
};

// Device `deviceIndex` (-1: the one the engine picks automatically, as trit::choose_device does).
GpuMemory queryGpuMemory(int deviceIndex);

using GpuMemoryProbe = std::function<GpuMemory(int deviceIndex)>;

}  // namespace trit::models
