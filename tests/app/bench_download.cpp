// Download throughput from the loopback server: how fast the download manager streams, hashes and writes
// when the network is not the limit. Not a test (no pass/fail): prints MB/s.
// Usage: bench_download [MiB [server write KiB]]  (defaults 512 and 1024: a fast server, few large writes)
#include <sys/resource.h>
#include <unistd.h>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QMap>
#include <QTimer>
#include <cstdio>

#include "http_test_server.h"
#include "models/download_manager.h"
#include "models/sha256.h"

using namespace trit::models;

// CPU seconds used by this process so far (all threads: downloader, server, hashing).
static double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// CPU seconds per thread of this process, by thread name (/proc/self/task/*/stat: utime + stime), so the
// downloader's own cost can be told apart from the in-process server's and Qt's network thread's.
static QMap<QString, double> threadCpuSeconds() {
  QMap<QString, double> out;
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  for (const QString& tid : QDir(QStringLiteral("/proc/self/task")).entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
    QFile f(QStringLiteral("/proc/self/task/%1/stat").arg(tid));
    if (!f.open(QIODevice::ReadOnly)) continue;
    const QByteArray line = f.readAll();
    const qsizetype open = line.indexOf('('), close = line.lastIndexOf(')');
    if (open < 0 || close < open) continue;
    const QString name = QString::fromLatin1(line.mid(open + 1, close - open - 1));
    const QList<QByteArray> rest = line.mid(close + 2).split(' ');  // field 3 (state) onwards
    if (rest.size() < 13) continue;
    out[name] += (rest[11].toDouble() + rest[12].toDouble()) / tick;  // fields 14 and 15
  }
  return out;
}

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const qint64 mib = argc > 1 ? QByteArray(argv[1]).toLongLong() : 512;
  QByteArray body(mib << 20, Qt::Uninitialized);
  quint64 x = 0x9E3779B97F4A7C15ull;  // xorshift: incompressible, cheap to make
  for (qsizetype i = 0; i + 8 <= body.size(); i += 8) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::memcpy(body.data() + i, &x, 8);
  }
  QElapsedTimer t;
  t.start();
  const QByteArray qtSha = QCryptographicHash::hash(body, QCryptographicHash::Sha256).toHex();
  const double qtHashMBs = static_cast<double>(body.size()) / 1e6 / (static_cast<double>(t.nsecsElapsed()) / 1e9);
  t.restart();
  Sha256 fast;
  fast.addData(body);
  const QByteArray sha = fast.result().toHex();
  const double hashMBs = static_cast<double>(body.size()) / 1e6 / (static_cast<double>(t.nsecsElapsed()) / 1e9);
  if (sha != qtSha) return 1;

  trit::test::HttpTestServer server;
  if (!server.listen()) return 1;
  trit::test::HttpTestServer::Route route;
  route.body = body;
  route.chunkBytes = (argc > 2 ? QByteArray(argv[2]).toLongLong() : 1024) << 10;
  server.setRoute(QStringLiteral("/bench"), route);
  QString dir = qEnvironmentVariable("TRIT_TEST_TMP", QDir::tempPath()) + QStringLiteral("/bench-download");
  QDir(dir).removeRecursively();
  QDir().mkpath(dir);

  DownloadManager manager;
  qint64 transferNs = 0, totalNs = 0;
  double cpuStart = 0, cpuTransfer = 0, cpuTotal = 0;
  QMap<QString, double> threadsStart, threadsTransfer;
  bool ok = false;
  QString result;
  QObject::connect(&manager, &DownloadManager::stateChanged,
                   [&](const QString&, DownloadTask::State s, const QString&) {
                     if (s == DownloadTask::State::Verifying && transferNs == 0) {
                       transferNs = t.nsecsElapsed();
                       cpuTransfer = cpuSeconds() - cpuStart;
                       threadsTransfer = threadCpuSeconds();
                     }
                   });
  QObject::connect(&manager, &DownloadManager::finished,
                   [&](const QString&, bool good, const QString& r, const QString&) {
                     totalNs = t.nsecsElapsed();
                     cpuTotal = cpuSeconds() - cpuStart;
                     ok = good;
                     result = r;
                     QCoreApplication::quit();
                   });
  t.restart();
  cpuStart = cpuSeconds();
  threadsStart = threadCpuSeconds();
  manager.start({QStringLiteral("bench"), server.url(QStringLiteral("/bench")), QString::fromLatin1(sha), body.size(),
                 dir, QStringLiteral("bench.gguf")});
  QCoreApplication::exec();
  if (!ok) {
    std::fprintf(stderr, "bench_download: failed: %s\n", qPrintable(result));
    return 1;
  }
  const double mb = static_cast<double>(body.size()) / 1e6;
  std::printf("bench_download: %lld MiB over loopback http, server writes of %lld KiB\n", static_cast<long long>(mib),
              static_cast<long long>(route.chunkBytes >> 10));
  std::printf("  transfer (receive + write): %.0f MB/s (%.2f s)\n", mb / (static_cast<double>(transferNs) / 1e9),
              static_cast<double>(transferNs) / 1e9);
  std::printf("  end to end (plus SHA-256 from disk and rename): %.0f MB/s (%.2f s)\n",
              mb / (static_cast<double>(totalNs) / 1e9), static_cast<double>(totalNs) / 1e9);
  std::printf(
      "  CPU time during the transfer (downloader and server threads together): %.2f s, so at most %.0f MB/s "
      "when the CPU is the limit\n",
      cpuTransfer, mb / cpuTransfer);
  std::printf("  CPU time end to end: %.2f s, so at most %.0f MB/s when the CPU is the limit\n", cpuTotal,
              mb / cpuTotal);
  for (auto it = threadsTransfer.cbegin(); it != threadsTransfer.cend(); ++it) {
    const double used = it.value() - threadsStart.value(it.key());
    if (used >= 0.01)
      std::printf("    thread %-16s %.2f s CPU (%.0f MB/s if it alone were the limit)\n", qPrintable(it.key()), used,
                  mb / used);
  }
  std::printf("  SHA-256 alone: libcrypto %.0f MB/s, QCryptographicHash %.0f MB/s\n", hashMBs, qtHashMBs);
  QDir(dir).removeRecursively();
  return 0;
}
