#pragma once
// What Trit knows about a model file, read with the engine's own loader (trit::Model::open: the same
// validation of hyper-parameters, tensors, finite weights and tokenizer that loading for a chat runs),
// so a file the dialog accepts is a file the engine can run.
#include <QString>
#include <functional>

namespace trit::models {

struct ModelInfo {
  QString path;
  QString fileName;
  qint64 fileSize = 0;
  QString name;           // general.name, else the file name without .gguf
  QString architecture;   // general.architecture: "bitnet-25", "llama", ...
  QString quantization;   // the ternary weights' format, e.g. "I2_S" ("TQ2_0+TQ1_0" if mixed)
  qint64 parameters = 0;  // every tensor's elements (a tied head counted once)
  int contextLength = 0;
  qint64 memoryNeeded = 0;  // bytes of GPU memory to run it at its trained context (memoryNeededAt(info, 0))
  // The parts of that figure (docs/downloads.md, "GPU memory needed"), so it can be recomputed for the
  // context length chosen in the settings without opening the file again.
  qint64 weightBytes = 0;      // every tensor as stored: I2_S codes, F16 embedding (tied LM head), norms
  qint64 kvBytesPerToken = 0;  // K and V in F16 for every layer: 2 * layers * kv_heads * head_dim * 2
  qint64 activationBytes = 0;  // intermediate buffers, logits of one prefill block, staging
  QString error;               // non-empty: the file cannot be used, and why
  bool ok() const { return error.isEmpty(); }
};

// Opens and validates `path` with the engine. Never throws: problems land in ModelInfo::error as a
// sentence naming the file.
ModelInfo inspectModel(const QString& path);

using ModelInspector = std::function<ModelInfo(const QString& path)>;

// GPU memory to run `info` with a context of `context` tokens (0, or more than the model was trained for:
// its trained length, as the engine clamps it): weights + KV cache at that context + activations.
qint64 memoryNeededAt(const ModelInfo& info, int context);

// Whether a model needing `memoryNeeded` bytes fits into `gpuFreeBytes` (< 0: unknown, reported as fitting
// "unknown" by the caller).
bool fitsGpu(qint64 memoryNeeded, qint64 gpuFreeBytes);

}  // namespace trit::models
