#pragma once
// A small model for the chat tests: the golden model from the shared folder (a real 2B4T-format file
// with a tiny byte-level vocabulary), copied into the test scratch folder so no test writes to shared/.
#include <QDir>
#include <QFile>
#include <QString>
#include <QtTest>

namespace trit::test {

inline QString scratchDir(const QString& name) {
  const QString root = qEnvironmentVariable("TRIT_TEST_TMP", QDir::tempPath());
  const QString dir = root + QStringLiteral("/") + name;
  QDir(dir).removeRecursively();
  QDir().mkpath(dir);
  return dir;
}

// Copies golden-a.gguf into `dir`; an empty string (and a failed QVERIFY in the caller) if missing.
inline QString smallChatModel(const QString& dir) {
  const QString shared = qEnvironmentVariable("TRIT_SHARED_DIR");
  const QString source = shared + QStringLiteral("/golden/golden-a.gguf");
  const QString target = dir + QStringLiteral("/small.gguf");
  if (!QFile::exists(source)) return {};
  QFile::remove(target);
  return QFile::copy(source, target) ? target : QString();
}

}  // namespace trit::test
