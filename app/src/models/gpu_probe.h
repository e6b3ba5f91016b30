#pragma once
// The selected GPU's memory for the model manager's fit badges, asked off the GUI thread: creating a
// Vulkan instance and enumerating devices takes hundreds of milliseconds on some drivers. Only the
// newest question's answer counts (the device may change while one is being asked).
#include <QObject>
#include <QThreadPool>

#include "gpu_memory.h"

namespace trit::models {

class GpuProbe : public QObject {
  Q_OBJECT
 public:
  explicit GpuProbe(QObject* parent = nullptr);
  ~GpuProbe() override;  // waits for a question still running

  // Tests: how the device is asked (default queryGpuMemory).
  void setProbe(GpuMemoryProbe probe) { probe_ = std::move(probe); }
  // Makes `device` (-1: automatic) the selected one and asks it when it changed or was never asked;
  // true when a question was started (changed follows with the answer).
  bool select(int device);
  void refresh();  // asks the selected device again (its free memory changes over time)
  // A figure given directly (tests, or a caller that already knows it): no device is asked, and the
  // answer of a question still running is dropped. changed follows at once.
  void setFreeBytes(qint64 bytes);

  int device() const { return device_; }
  const GpuMemory& memory() const { return memory_; }

 signals:
  void changed();

 private:
  void ask();

  GpuMemoryProbe probe_ = queryGpuMemory;
  QThreadPool pool_;  // runs the probe; the destructor waits for it
  GpuMemory memory_;
  int device_ = -1;
  bool asked_ = false;      // the probe ran (or is running) for device_
  quint64 generation_ = 0;  // an answer counts only if no newer question or figure came since
};

}  // namespace trit::models
