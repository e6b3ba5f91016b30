#include "models_folder.h"

#include <QDir>
#include <QFileInfo>
#include <QStorageInfo>
#include <filesystem>

#include "download_types.h"
#include "file_hash.h"
#include "part_state.h"
#include "storage/app_folders.h"

namespace trit::models {

QString ModelsFolder::defaultPath() {
  return QDir(storage::applicationDataFolder()).filePath(QStringLiteral("models"));
}

QString ModelsFolder::resolve(const QString& option) {
  if (!option.isEmpty()) return QDir(option).absolutePath();
  const QString env = qEnvironmentVariable("TRIT_MODELS_DIR");
  if (!env.isEmpty()) return QDir(env).absolutePath();
  const QString setting = storage::openSettings()->value(settingKey()).toString();
  if (!setting.isEmpty()) return QDir(setting).absolutePath();
  return defaultPath();
}

void ModelsFolder::saveSetting(const QString& folder) {
  storage::openSettings()->setValue(settingKey(), folder);
}

ModelsFolder::ModelsFolder(QString path, ModelInspector inspector)
    : path_(std::move(path)), inspector_(std::move(inspector)) {}

QList<ModelInfo> ModelsFolder::scan() const {
  QList<ModelInfo> out;
  const QDir dir(path_);
  const QStringList names = dir.entryList({QStringLiteral("*.gguf")}, QDir::Files | QDir::Readable, QDir::Name);
  for (const QString& name : names) out.append(inspector_(dir.filePath(name)));
  return out;
}

QString ModelsFolder::filePath(const CatalogEntry& entry) const {
  return QDir(path_).filePath(entry.fileName);
}

bool ModelsFolder::isInstalled(const CatalogEntry& entry) const {
  return QFileInfo(filePath(entry)).isFile();
}

qint64 ModelsFolder::partialBytes(const CatalogEntry& entry) const {
  const QFileInfo part(partPath(filePath(entry)));
  return part.isFile() ? part.size() : 0;
}

std::optional<ModelInfo> ModelsFolder::importFile(const QString& source, QString* error,
                                                  const std::function<qint64(const QString&)>& freeSpace) const {
  const QFileInfo src(source);
  if (!src.isFile()) {
    *error = QStringLiteral("Cannot import %1: there is no such file.").arg(source);
    return std::nullopt;
  }
  if (src.suffix().compare(QLatin1String("gguf"), Qt::CaseInsensitive) != 0) {
    *error = QStringLiteral("Cannot import %1: Trit reads GGUF model files (*.gguf).").arg(src.fileName());
    return std::nullopt;
  }
  const ModelInfo checked = inspector_(src.absoluteFilePath());
  if (!checked.ok()) {
    *error = QStringLiteral("Cannot import %1: %2").arg(src.fileName(), checked.error);
    return std::nullopt;
  }
  if (!QDir().mkpath(path_)) {
    *error = QStringLiteral("Cannot create the models folder %1.").arg(path_);
    return std::nullopt;
  }
  const QString dest = QDir(path_).filePath(src.fileName());
  if (QFileInfo(dest).absoluteFilePath() == src.absoluteFilePath()) return checked;  // already in the folder
  if (QFileInfo::exists(dest)) {
    *error =
        QStringLiteral("Cannot import %1: a model with that file name is already in %2.").arg(src.fileName(), path_);
    return std::nullopt;
  }
  const qint64 free = freeSpace ? freeSpace(path_) : QStorageInfo(path_).bytesAvailable();
  if (free >= 0 && free < src.size()) {
    *error = QStringLiteral("Cannot import %1: it needs %2, but only %3 are free in %4.")
                 .arg(src.fileName(), formatBytes(src.size()), formatBytes(free), path_);
    return std::nullopt;
  }
  const QString part = partPath(dest);
  QFile::remove(part);
  if (!QFile::copy(src.absoluteFilePath(), part)) {
    QFile::remove(part);
    *error = QStringLiteral("Cannot copy %1 into %2 (is the disk full?).").arg(src.fileName(), path_);
    return std::nullopt;
  }
  QString hashError;
  const QString sha = sha256OfFile(part, &hashError);
  std::error_code ec;
  std::filesystem::rename(part.toStdString(), dest.toStdString(), ec);
  if (sha.isEmpty() || ec) {
    QFile::remove(part);
    *error = QStringLiteral("Cannot import %1: %2")
                 .arg(src.fileName(), sha.isEmpty() ? hashError : QString::fromStdString(ec.message()));
    return std::nullopt;
  }
  writeVerifiedRecord(recordPath(dest),
                      {src.completeBaseName(), QUrl::fromLocalFile(src.absoluteFilePath()).toString(), sha,
                       QStringLiteral("imported"), src.size()},
                      &hashError);
  return inspector_(dest);
}

bool ModelsFolder::remove(const QString& fileName, bool confirmed, QString* error) const {
  if (fileName.isEmpty() || fileName.contains(QLatin1Char('/')) || fileName.contains(QLatin1Char('\\')) ||
      !fileName.endsWith(QLatin1String(".gguf"))) {
    *error = QStringLiteral("\"%1\" is not the file name of a model in the models folder.").arg(fileName);
    return false;
  }
  const QString path = QDir(path_).filePath(fileName);
  if (!QFileInfo(path).isFile()) {
    *error = QStringLiteral("%1 is not in the models folder %2.").arg(fileName, path_);
    return false;
  }
  if (!confirmed) {
    *error = QStringLiteral("Removing %1 deletes it from disk; it needs the user's confirmation.").arg(fileName);
    return false;
  }
  if (!QFile::remove(path)) {
    *error = QStringLiteral("Cannot delete %1.").arg(path);
    return false;
  }
  QFile::remove(recordPath(path));
  QFile::remove(partPath(path));
  QFile::remove(partStatePath(path));
  return true;
}

}  // namespace trit::models
