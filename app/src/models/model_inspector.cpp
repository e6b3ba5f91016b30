#include "model_inspector.h"

#include <QFileInfo>

#include "trit/gguf.h"
#include "trit/model.h"

namespace trit::models {

namespace {
// Activation margin: intermediate buffers, descriptor pools and staging are budgeted at 64 MiB, plus the
// logits of one prefill block (the engine's default of 64 tokens, F32). tst_model_manager_bridge checks
// the sum against what the Vulkan engine really allocates (VulkanForward::device_bytes()).
constexpr qint64 kActivationBaseBytes = 64LL * 1024 * 1024;
constexpr qint64 kPrefillBlock = 64;
}  // namespace

ModelInfo inspectModel(const QString& path) {
  ModelInfo info;
  const QFileInfo fi(path);
  info.path = fi.absoluteFilePath();
  info.fileName = fi.fileName();
  info.fileSize = fi.size();
  info.name = fi.completeBaseName();
  if (!fi.isFile()) {
    info.error = QStringLiteral("%1 is not a file.").arg(path);
    return info;
  }
  try {
    const auto model = trit::Model::open(path.toStdString());
    const auto& c = model->config();
    if (!c.name.empty()) info.name = QString::fromStdString(c.name);
    info.architecture = QString::fromStdString(c.architecture);
    info.quantization = QString::fromStdString(c.weight_format);
    info.parameters = static_cast<qint64>(c.parameters);
    info.contextLength = static_cast<int>(c.context);
    // Weights are uploaded as stored (the Vulkan engine keeps the I2_S codes and the F16 embedding, which
    // doubles as the LM head); the KV cache holds K and V in F16 for every layer and position; the
    // activations of one prefill block (64 tokens), its logits and the staging buffers take the rest.
    qint64 weights = 0;
    for (const auto& t : model->file().tensors()) weights += static_cast<qint64>(t.size_bytes);
    info.weightBytes = weights;
    info.kvBytesPerToken = 2LL * c.layers * c.kv_heads * c.head_dim * 2;
    info.activationBytes = kActivationBaseBytes + kPrefillBlock * 4LL * c.vocab;
    info.memoryNeeded = memoryNeededAt(info, 0);
  } catch (const trit::ModelError& e) {
    info.error = QString::fromUtf8(e.what());
  } catch (const std::exception& e) {
    info.error = QStringLiteral("%1 cannot be read: %2").arg(path, QString::fromUtf8(e.what()));
  }
  return info;
}

qint64 memoryNeededAt(const ModelInfo& info, int context) {
  if (info.weightBytes <= 0) return 0;
  const qint64 tokens = context > 0 && context < info.contextLength ? context : info.contextLength;
  return info.weightBytes + info.kvBytesPerToken * tokens + info.activationBytes;
}

bool fitsGpu(qint64 memoryNeeded, qint64 gpuFreeBytes) {
  return gpuFreeBytes >= 0 && memoryNeeded > 0 && memoryNeeded <= gpuFreeBytes;
}

}  // namespace trit::models
