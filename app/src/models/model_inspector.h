#pragma once
// What Trit knows about a model file, read with the engine's own loader (trit::Model::open), so a
// file the dialog accepts is a file the engine can run.
#include <QString>
#include <functional>

namespace trit::models {

struct ModelInfo {
  QString path;
  QString fileName;
  qint64 fileSize = 0;
  QString name;          // general.name, else the file name without .gguf
  QString architecture;  // "bitnet-25", ...
  QString quantization;  // type of the weight matrices, e.g. "I2_S"
  int contextLength = 0;
  qint64 memoryNeeded = 0;  // bytes of GPU memory to run it at full context (weights + F16 KV cache + scratch)
  QString error;         // non-empty: the file cannot be used, and why
  bool ok() const { return error.isEmpty(); }
};

// Opens and validates `path` with the engine. Never throws: problems land in ModelInfo::error as a
// sentence naming the file.
ModelInfo inspectModel(const QString& path);

using ModelInspector = std::function<ModelInfo(const QString& path)>;

// Whether a model needing `memoryNeeded` bytes fits into `gpuFreeBytes` (< 0: unknown, reported as fitting
// "unknown" by the caller).
bool fitsGpu(qint64 memoryNeeded, qint64 gpuFreeBytes);

}  // namespace trit::models
