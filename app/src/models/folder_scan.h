#pragma once
// One look at the models folder: every *.gguf read by the engine's header reader, and the partial
// downloads. Blocking (the headers are opened): ModelManagerBridge runs it on its worker thread.
#include <QHash>
#include <QList>
#include <QString>

#include "model_inspector.h"
#include "models_folder.h"

namespace trit::models {

// What one scan of the models folder found: every *.gguf inspected, and the sizes of partial downloads
// (by final file name). Made on the worker thread.
struct FolderScan {
  QString folder;
  QList<ModelInfo> models;
  QHash<QString, qint64> partials;  // "x.gguf" -> bytes of "x.gguf.part"
};

// Scans `folder` (blocking: the caller is the worker thread).
FolderScan scanModelsFolder(const ModelsFolder& folder);

}  // namespace trit::models
