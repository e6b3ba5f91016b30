#pragma once
// The folder Trit keeps models in: found at start, imported into, removed from.
// Location, first that is set: the --models-dir option, $TRIT_MODELS_DIR, the "models/folder"
// setting, else <the application data folder>/models (storage/app_folders.h: ~/.local/share/trit/models).
#include <QList>
#include <QString>
#include <functional>
#include <optional>

#include "catalog.h"
#include "model_inspector.h"

namespace trit::models {

class ModelsFolder {
 public:
  static QString resolve(const QString& option);
  static QString defaultPath();
  static QString settingKey() { return QStringLiteral("models/folder"); }
  static void saveSetting(const QString& folder);  // the settings page's "change folder"

  explicit ModelsFolder(QString path, ModelInspector inspector = inspectModel);
  const QString& path() const { return path_; }

  // Every *.gguf in the folder (partial downloads excluded), inspected; unusable files carry an error.
  QList<ModelInfo> scan() const;

  QString filePath(const CatalogEntry& entry) const;
  bool isInstalled(const CatalogEntry& entry) const;
  qint64 partialBytes(const CatalogEntry& entry) const;  // bytes of a .part left by an earlier run, 0 if none

  // Validates `source` with the engine, then copies it in (through a .part, renamed when complete).
  // Refuses files the engine cannot load, names already taken and copies that would not fit.
  std::optional<ModelInfo> importFile(const QString& source, QString* error,
                                      const std::function<qint64(const QString&)>& freeSpace = {}) const;

  // Deletes the model and its side files. Refuses unless `confirmed` (the caller asked the user).
  bool remove(const QString& fileName, bool confirmed, QString* error) const;

 private:
  QString path_;
  ModelInspector inspector_;
};

}  // namespace trit::models
