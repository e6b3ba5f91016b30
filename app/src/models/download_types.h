#pragma once
// Plain data shared by the download task, the manager, the headless command and the dialog.
#include <QMetaType>
#include <QString>
#include <QUrl>
#include <functional>

namespace trit::models {

// A different file already at the download's name is never replaced unasked (issue 30): the download
// stops before it starts unless the user chose to replace that file, or to keep both (the other file
// is then renamed "NAME (2).gguf" just before the verified download takes its name).
enum class ExistingFile { Keep, Replace, KeepBoth };

struct DownloadRequest {
  QString id;                                  // catalogue id, for messages and the provenance record
  QUrl url;                                    // the catalogue's URL (redirects are followed from here)
  QString expectedSha256;                      // lower-case hex, or empty: then the server's X-Linked-ETag is required
  qint64 expectedSize = 0;                     // 0 when unknown
  QString directory;                           // the models folder
  QString fileName;                            // final name inside `directory`
  ExistingFile existing = ExistingFile::Keep;  // what to do with a different file of that name
};

struct DownloadOptions {
  int stallTimeoutMs = 30000;   // no byte for this long: the transfer is stalled, aborted and retried
  int maxRetries = 5;           // retries after transient failures (stalls, drops, 5xx, refused)
  int initialBackoffMs = 1000;  // first retry delay, doubled each time...
  int maxBackoffMs = 60000;     // ...up to this
  int maxRedirects = 10;
  int progressIntervalMs = 250;            // at most this often a progress signal
  qint64 freeSpaceMarginBytes = 16 << 20;  // keep this much free beyond the file
  // Bytes free on the volume holding `directory`; default QStorageInfo. Injected by tests.
  std::function<qint64(const QString& directory)> freeSpace;
  // Checks a verified file before it is accepted (the engine's GGUF reader); returns an error or "".
  std::function<QString(const QString& path)> validate;
};

struct DownloadProgress {
  qint64 received = 0;        // bytes in the .part file
  qint64 total = -1;          // -1 while unknown
  double percent = -1;        // -1 while unknown
  double bytesPerSecond = 0;  // over the last few seconds
  qint64 secondsLeft = -1;    // -1 while unknown
};

// Human-readable sizes and durations for progress lines ("1.11 GiB", "3 min 20 s").
QString formatBytes(qint64 bytes);
// Parameter counts as model names give them ("125 M", "2.4 B", "10.3 B"); "" for 0 (unknown).
QString formatParameters(qint64 count);
QString formatDuration(qint64 seconds);

}  // namespace trit::models

Q_DECLARE_METATYPE(trit::models::DownloadProgress)
