#pragma once
// Shared by the download, catalogue and models-folder tests: scratch folders, synthetic models made by
// the project's generator (trit::generate_model), and a blocking "run this download" helper.
#include <QByteArray>
#include <QCryptographicHash>
#include <QDir>
#include <QEventLoop>
#include <QFile>
#include <QList>
#include <QStringList>
#include <QTimer>
#include <QUuid>

#include "models/download_manager.h"
#include "trit/model_generator.h"

namespace trit::test {

// Removes the scratch folders when the test program ends (keep them with TRIT_KEEP_SCRATCH=1).
struct ScratchRegistry {
  QStringList dirs;
  ~ScratchRegistry() {
    if (qEnvironmentVariableIntValue("TRIT_KEEP_SCRATCH") == 1) return;
    for (const QString& d : dirs) QDir(d).removeRecursively();
  }
};
inline ScratchRegistry& scratchRegistry() {
  static ScratchRegistry registry;
  return registry;
}

// A fresh empty folder under $TRIT_TEST_TMP (the build tree), unique per call.
inline QString scratchDir(const QString& label) {
  QString root = qEnvironmentVariable("TRIT_TEST_TMP");
  if (root.isEmpty()) root = QDir::tempPath();
  const QString path = QDir(root).filePath(
      QStringLiteral("downloads/%1-%2").arg(label, QUuid::createUuid().toString(QUuid::Id128).left(12)));
  QDir(path).removeRecursively();
  QDir().mkpath(path);
  scratchRegistry().dirs << path;
  return path;
}

// Bytes of a small synthetic BitNet GGUF (tiny shape) written by the project's generator.
inline QByteArray syntheticModel(uint64_t seed = 1, const QString& shape = QStringLiteral("tiny")) {
  const QString dir = scratchDir(QStringLiteral("gen"));
  trit::GeneratorOptions o;
  o.out = QDir(dir).filePath(QStringLiteral("m.gguf")).toStdString();
  o.shape = trit::parse_generator_shape(shape.toStdString());
  o.seed = seed;
  o.vocab = "bytes:512";
  trit::generate_model(o);
  QFile f(QString::fromStdString(o.out.string()));
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray bytes = f.readAll();
  QDir(dir).removeRecursively();
  return bytes;
}

inline QString sha256Hex(const QByteArray& bytes) {
  return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

inline QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Fast settings so retries, back-off and stall detection take milliseconds, not minutes.
inline trit::models::DownloadOptions fastOptions() {
  trit::models::DownloadOptions o;
  o.stallTimeoutMs = 1000;
  o.maxRetries = 2;
  o.initialBackoffMs = 50;
  o.maxBackoffMs = 200;
  o.progressIntervalMs = 10;
  return o;
}

struct Outcome {
  bool finished = false;
  bool ok = false;
  QString result;  // the file, or the reason
  QString verifiedBy;
  QStringList messages;  // every state message, in order
  QList<trit::models::DownloadTask::State> states;
  QList<trit::models::DownloadProgress> progress;
};

// Starts `request` on `manager` and runs the event loop (which also drives an in-process
// HttpTestServer) until it finishes, pauses or `timeoutMs` passes; a running download is not restarted. `onState` may
// pause/cancel mid-way.
inline Outcome runDownload(trit::models::DownloadManager& manager, const trit::models::DownloadRequest& request,
                           int timeoutMs = 20000,
                           std::function<void(trit::models::DownloadTask::State, const Outcome&)> onState = {}) {
  using trit::models::DownloadManager;
  Outcome out;
  QEventLoop loop;
  QList<QMetaObject::Connection> links;
  links << QObject::connect(&manager, &DownloadManager::progress, &loop,
                            [&](const QString&, const trit::models::DownloadProgress& p) { out.progress << p; });
  links << QObject::connect(&manager, &DownloadManager::stateChanged, &loop,
                            [&](const QString&, trit::models::DownloadTask::State s, const QString& m) {
                              out.states << s;
                              if (!m.isEmpty()) out.messages << m;
                              if (onState) onState(s, out);
                              if (s == trit::models::DownloadTask::State::Paused) loop.quit();
                            });
  links << QObject::connect(&manager, &DownloadManager::finished, &loop,
                            [&](const QString&, bool ok, const QString& result, const QString& by) {
                              out.finished = true;
                              out.ok = ok;
                              out.result = result;
                              out.verifiedBy = by;
                              loop.quit();
                            });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  if (!manager.isRunning(request.id)) {
    QString error;
    if (!manager.start(request, &error)) {
      out.result = error;
      return out;
    }
  }
  loop.exec();
  for (const auto& l : links) QObject::disconnect(l);
  return out;
}

}  // namespace trit::test
