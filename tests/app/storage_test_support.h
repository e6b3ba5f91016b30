#pragma once
// Shared by the storage tests: a fresh scratch folder (under TRIT_TEST_TMP, removed afterwards) and a
// raw second connection for poking at the file the way another process would.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <memory>

namespace trit::storage::test {

inline std::unique_ptr<QTemporaryDir> scratchDir() {
  const QString base = qEnvironmentVariable("TRIT_TEST_TMP", QDir::tempPath());
  QDir().mkpath(base);
  auto dir = std::make_unique<QTemporaryDir>(base + QStringLiteral("/storage-XXXXXX"));
  if (!dir->isValid()) qFatal("cannot create a scratch folder under %s", qPrintable(base));
  return dir;
}

inline QString dbPathIn(const QTemporaryDir& dir) {
  return dir.filePath(QStringLiteral("conversations.sqlite3"));
}

}  // namespace trit::storage::test
