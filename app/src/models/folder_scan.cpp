#include "folder_scan.h"

#include <QDir>
#include <QFileInfo>

namespace trit::models {

FolderScan scanModelsFolder(const ModelsFolder& folder) {
  FolderScan s;
  s.folder = folder.path();
  s.models = folder.scan();
  const QDir dir(folder.path());
  const QString suffix = QStringLiteral(".part");
  for (const QFileInfo& part : dir.entryInfoList({QStringLiteral("*.gguf.part")}, QDir::Files, QDir::Name))
    s.partials.insert(part.fileName().chopped(suffix.size()), part.size());
  return s;
}

}  // namespace trit::models
