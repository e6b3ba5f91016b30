#include "storage/app_folders.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

namespace trit::storage {
namespace {

// lupdate files the tr() calls of this namespace under the context "trit::storage" (translations/).
QString tr(const char* text) {
  return QCoreApplication::translate("trit::storage", text);
}

// What this run uses instead of the current places, when moving from the legacy ones failed.
QString& dataFallback() {
  static QString folder;
  return folder;
}
QString& settingsFallback() {
  static QString file;
  return file;
}

QString parentOf(const QString& path) {
  return QFileInfo(path).absolutePath();
}

// `to` exists as something other than the legacy folder's own parent (on a case-insensitive file system
// <root>/trit and <root>/Trit are one folder).
bool occupied(const QString& to, const QString& legacyParent) {
  const QFileInfo target(to);
  if (!target.exists()) return false;
  return target.canonicalFilePath() != QFileInfo(legacyParent).canonicalFilePath();
}

bool copyTree(const QString& from, const QString& to, const FolderOps& ops, QString* error) {
  if (!QDir().mkpath(to)) {
    *error = tr("cannot create %1").arg(to);
    return false;
  }
  const QFileInfoList entries =
      QDir(from).entryInfoList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System);
  for (const QFileInfo& entry : entries) {
    const QString target = QDir(to).filePath(entry.fileName());
    if (entry.isSymLink()) {
      if (!QFile::link(entry.symLinkTarget(), target)) {
        *error = tr("cannot recreate the link %1").arg(entry.filePath());
        return false;
      }
    } else if (entry.isDir()) {
      if (!copyTree(entry.filePath(), target, ops, error)) return false;
    } else if (!ops.copyFile(entry.filePath(), target) || QFileInfo(target).size() != entry.size()) {
      *error = tr("cannot copy %1").arg(entry.filePath());
      return false;
    }
  }
  return true;
}

// Moves the folder `from` to `to` (which does not exist). First by renaming, through a temporary name
// beside `to` (so `to` may be the legacy folder's parent on a case-insensitive file system); else by
// copying into the temporary folder, renaming it into place and only then removing `from`. On failure
// `from` is as it was and no partial copy is left.
bool moveFolder(const QString& from, const QString& to, const FolderOps& ops, QString* error) {
  const QString moving = to + QStringLiteral(".moving");
  const QString legacyParent = parentOf(from);
  if (!QDir().mkpath(parentOf(to))) {
    *error = tr("cannot create %1").arg(parentOf(to));
    return false;
  }
  if (QFileInfo::exists(moving)) QDir(moving).removeRecursively();  // a copy an interrupted run left
  if (ops.rename(from, moving)) {
    QDir().rmdir(legacyParent);  // now empty unless it holds more than Trit's folder
    if (ops.rename(moving, to)) return true;
    QDir().mkpath(legacyParent);
    ops.rename(moving, from);
    *error = tr("cannot rename %1 to %2").arg(moving, to);
    return false;
  }
  if (!copyTree(from, moving, ops, error)) {
    QDir(moving).removeRecursively();
    return false;
  }
  if (!ops.rename(moving, to)) {
    QDir(moving).removeRecursively();
    *error = tr("cannot rename %1 to %2").arg(moving, to);
    return false;
  }
  QDir(from).removeRecursively();
  QDir().rmdir(legacyParent);
  return true;
}

// The settings file moves as one file: renamed, else copied beside its new name and renamed into place.
bool moveFile(const QString& from, const QString& to, const FolderOps& ops, QString* error) {
  if (!QDir().mkpath(parentOf(to))) {
    *error = tr("cannot create %1").arg(parentOf(to));
    return false;
  }
  if (ops.rename(from, to)) return true;
  const QString moving = to + QStringLiteral(".moving");
  QFile::remove(moving);
  if (ops.copyFile(from, moving) && QFileInfo(moving).size() == QFileInfo(from).size() && ops.rename(moving, to)) {
    QFile::remove(from);
    return true;
  }
  QFile::remove(moving);
  *error = tr("cannot move %1 to %2").arg(from, to);
  return false;
}

// Settings that name files inside the old data folder (the last model, the models folder) now name them
// in the new one.
void rewritePaths(const QString& settingsFile, const QString& oldFolder, const QString& newFolder) {
  QSettings settings(settingsFile, QSettings::NativeFormat);
  for (const QString& key : settings.allKeys()) {
    const QVariant value = settings.value(key);
    if (value.typeId() != QMetaType::QString) continue;
    const QString text = value.toString();
    if (text == oldFolder || text.startsWith(oldFolder + QLatin1Char('/')))
      settings.setValue(key, newFolder + text.mid(oldFolder.size()));
  }
  settings.sync();
}

}  // namespace

void setApplicationNames(const QString& version) {
  QCoreApplication::setOrganizationName(QString());  // no organisation: one folder, not "trit/trit"
  QCoreApplication::setApplicationName(QString::fromLatin1(kApplicationName));
  QCoreApplication::setApplicationVersion(version);
}

QString applicationDataFolder() {
  if (!dataFallback().isEmpty()) return dataFallback();
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
}

std::unique_ptr<QSettings> openSettings() {
  if (!settingsFallback().isEmpty()) return std::make_unique<QSettings>(settingsFallback(), QSettings::NativeFormat);
  const QString name = QString::fromLatin1(kApplicationName);
  return std::make_unique<QSettings>(QSettings::NativeFormat, QSettings::UserScope, name, name);
}

CurrentFolders currentFolders() {
  const QString name = QString::fromLatin1(kApplicationName);
  return {QStandardPaths::writableLocation(QStandardPaths::AppDataLocation),
          QSettings(QSettings::NativeFormat, QSettings::UserScope, name, name).fileName()};
}

LegacyFolders legacyFolders() {
  // The application data root (the current folder's parent) with "Trit" as organisation and name.
  const QString root = parentOf(currentFolders().dataFolder);
  return {QDir(root).filePath(QStringLiteral("Trit/Trit")),
          QSettings(QSettings::NativeFormat, QSettings::UserScope, QStringLiteral("Trit"), QStringLiteral("Trit"))
              .fileName()};
}

FolderOps defaultFolderOps() {
  return {[](const QString& from, const QString& to) { return QDir().rename(from, to); },
          [](const QString& from, const QString& to) { return QFile::copy(from, to); }};
}

QString MigrationResult::message() const {
  QString text;
  // Explicit context: lupdate would file a bare tr() here under MigrationResult.
  if (!moved.isEmpty())
    text = QCoreApplication::translate("trit::storage", "Trit moved %1.")
               .arg(moved.join(QCoreApplication::translate("trit::storage", " and ")));
  if (!error.isEmpty()) text += (text.isEmpty() ? QString() : QStringLiteral(" ")) + error;
  return text;
}

MigrationResult migrateLegacyFolders(const LegacyFolders& from, const CurrentFolders& to, const FolderOps& ops) {
  MigrationResult result;
  dataFallback().clear();
  settingsFallback().clear();

  bool dataMoved = false;
  if (QFileInfo(from.dataFolder).isDir() && !occupied(to.dataFolder, parentOf(from.dataFolder))) {
    QString why;
    if (moveFolder(from.dataFolder, to.dataFolder, ops, &why)) {
      dataMoved = true;
      result.moved << tr("its data (models, conversations) from %1 to %2").arg(from.dataFolder, to.dataFolder);
    } else {
      result.error =
          tr("Trit could not move its data from %1 to %2 (%3): it keeps using %1, where nothing was changed.")
              .arg(from.dataFolder, to.dataFolder, why);
      result.dataFallback = true;
      dataFallback() = from.dataFolder;
    }
  } else if (!QFileInfo::exists(from.dataFolder) && QFileInfo(to.dataFolder + QStringLiteral(".moving")).isDir() &&
             !QFileInfo::exists(to.dataFolder)) {
    // An earlier run renamed the old folder aside and stopped before the last rename: finish it.
    dataMoved = ops.rename(to.dataFolder + QStringLiteral(".moving"), to.dataFolder);
    if (dataMoved) result.moved << tr("its data (models, conversations) to %1").arg(to.dataFolder);
  }

  QString settingsInUse = to.settingsFile;
  if (QFileInfo(from.settingsFile).isFile() && !QFileInfo::exists(to.settingsFile)) {
    QString why;
    if (moveFile(from.settingsFile, to.settingsFile, ops, &why)) {
      result.moved << tr("its settings from %1 to %2").arg(from.settingsFile, to.settingsFile);
      QDir().rmdir(parentOf(from.settingsFile));
    } else {
      const QString error = tr("Trit could not move its settings from %1 to %2 (%3): it keeps using %1.")
                                .arg(from.settingsFile, to.settingsFile, why);
      result.error += (result.error.isEmpty() ? QString() : QStringLiteral(" ")) + error;
      result.settingsFallback = true;
      settingsFallback() = from.settingsFile;
      settingsInUse = from.settingsFile;
    }
  }
  if (dataMoved && QFileInfo::exists(settingsInUse)) rewritePaths(settingsInUse, from.dataFolder, to.dataFolder);
  return result;
}

QString moveLegacyFoldersOnce() {
  return migrateLegacyFolders(legacyFolders(), currentFolders()).message();
}

}  // namespace trit::storage
