// Download throughput from the loopback server: how fast the download manager streams, hashes and writes
// when the network is not the limit. Not a test (no pass/fail): prints MB/s. Usage: bench_download [MiB]
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QTimer>
#include <cstdio>
#include <sys/resource.h>

#include "http_test_server.h"
#include "models/download_manager.h"
#include "models/sha256.h"

using namespace trit::models;

// CPU seconds used by this process so far (all threads: downloader, server, hashing).
static double cpuSeconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
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
  server.setRoute(QStringLiteral("/bench"), route);
  QString dir = qEnvironmentVariable("TRIT_TEST_TMP", QDir::tempPath()) + QStringLiteral("/bench-download");
  QDir(dir).removeRecursively();
  QDir().mkpath(dir);

  DownloadManager manager;
  qint64 transferNs = 0, totalNs = 0;
  double cpuStart = 0, cpuTransfer = 0;
  bool ok = false;
  QString result;
  QObject::connect(&manager, &DownloadManager::stateChanged, [&](const QString&, DownloadTask::State s, const QString&) {
    if (s == DownloadTask::State::Verifying && transferNs == 0) {
      transferNs = t.nsecsElapsed();
      cpuTransfer = cpuSeconds() - cpuStart;
    }
  });
  QObject::connect(&manager, &DownloadManager::finished, [&](const QString&, bool good, const QString& r, const QString&) {
    totalNs = t.nsecsElapsed();
    ok = good;
    result = r;
    QCoreApplication::quit();
  });
  t.restart();
  cpuStart = cpuSeconds();
  manager.start({QStringLiteral("bench"), server.url(QStringLiteral("/bench")), QString::fromLatin1(sha), body.size(), dir,
                 QStringLiteral("bench.gguf")});
  QCoreApplication::exec();
  if (!ok) {
    std::fprintf(stderr, "bench_download: failed: %s\n", qPrintable(result));
    return 1;
  }
  const double mb = static_cast<double>(body.size()) / 1e6;
  std::printf("bench_download: %lld MiB over loopback http\n", static_cast<long long>(mib));
  std::printf("  transfer (receive + SHA-256 + write): %.0f MB/s (%.2f s)\n", mb / (static_cast<double>(transferNs) / 1e9), static_cast<double>(transferNs) / 1e9);
  std::printf("  end to end (plus re-hash from disk and rename): %.0f MB/s (%.2f s)\n", mb / (static_cast<double>(totalNs) / 1e9), static_cast<double>(totalNs) / 1e9);
  std::printf("  CPU time during the transfer (downloader and server threads together): %.2f s, so at most %.0f MB/s "
              "when the CPU is the limit\n", cpuTransfer, mb / cpuTransfer);
  std::printf("  SHA-256 alone: libcrypto %.0f MB/s, QCryptographicHash %.0f MB/s\n", hashMBs, qtHashMBs);
  QDir(dir).removeRecursively();
  return 0;
}
