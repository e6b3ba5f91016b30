#include "gpu_probe.h"

namespace trit::models {

GpuProbe::GpuProbe(QObject* parent) : QObject(parent) {
  pool_.setMaxThreadCount(1);
}

GpuProbe::~GpuProbe() {
  pool_.waitForDone();
}

bool GpuProbe::select(int device) {
  device = std::max(device, -1);
  if (device == device_ && asked_) return false;
  device_ = device;
  ask();
  return true;
}

void GpuProbe::refresh() {
  ask();
}

void GpuProbe::setFreeBytes(qint64 bytes) {
  ++generation_;  // a probe still running must not overwrite the given figure
  GpuMemory m;
  m.freeBytes = bytes;
  m.budget = true;
  memory_ = m;
  emit changed();
}

void GpuProbe::ask() {
  asked_ = true;
  const quint64 generation = ++generation_;
  pool_.start([this, generation, device = device_, probe = probe_] {
    const GpuMemory m = probe(device);
    QMetaObject::invokeMethod(
        this,
        [this, generation, m] {
          if (generation != generation_) return;  // the device was changed meanwhile
          memory_ = m;
          emit changed();
        },
        Qt::QueuedConnection);
  });
}

}  // namespace trit::models
