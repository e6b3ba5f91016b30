#include "storage/data_location.h"

#include <QDir>

#include "storage/app_folders.h"

namespace trit::storage {
namespace {
QString& overrideDir() {
  static QString dir;
  return dir;
}
}  // namespace

void setDataDirOverride(const QString& dir) {
  overrideDir() = dir;
}

QString dataDirectory() {
  if (!overrideDir().isEmpty()) return QDir(overrideDir()).absolutePath();
  const QString fromEnv = qEnvironmentVariable("TRIT_DATA_DIR");
  if (!fromEnv.isEmpty()) return QDir(fromEnv).absolutePath();
  return applicationDataFolder();
}

QString conversationDatabasePath(QString* error) {
  const QString dir = dataDirectory();
  if (dir.isEmpty()) {
    if (error) *error = QStringLiteral("this platform reports no folder for application data; use --data-dir");
    return {};
  }
  if (!QDir().mkpath(dir)) {
    if (error) *error = QStringLiteral("cannot create the data folder %1").arg(dir);
    return {};
  }
  return QDir(dir).filePath(QString::fromLatin1(kDatabaseFileName));
}

}  // namespace trit::storage
