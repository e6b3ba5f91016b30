#pragma once
// One model download, run on the download worker thread (DownloadManager moves it there).
// Streams into NAME.gguf.part while hashing, resumes with HTTP Range (appending only after a 206 whose
// Content-Range starts where the part ends), follows redirects itself so it can read Hugging Face's
// X-Linked-ETag on every response of the chain and apply url_policy.h to every hop, refuses a file no
// SHA-256 can verify before its bytes are fetched, detects stalls, retries
// transient failures with exponential back-off, verifies the SHA-256 twice (the bytes as they streamed
// in, then the complete file on disk) and renames atomically.
#include <QElapsedTimer>
#include <QFile>
#include <QObject>
#include <QPointer>
#include <QSet>
#include <deque>
#include <memory>

#include "download_types.h"
#include "part_state.h"
#include "sha256.h"

class QNetworkAccessManager;
class QNetworkReply;
class QTimer;

namespace trit::models {

class DownloadTask : public QObject {
  Q_OBJECT
 public:
  // Conflict: a different file has the download's name and request().existing is Keep; it was left as it
  // is, and finished(false, ...) follows. The user decides: replace it, or keep both.
  enum class State {
    Idle,
    Connecting,
    Downloading,
    Stalled,
    Waiting,
    Paused,
    Verifying,
    Done,
    Failed,
    Cancelled,
    Conflict
  };
  Q_ENUM(State)

  DownloadTask(DownloadRequest request, DownloadOptions options, QObject* parent = nullptr);
  ~DownloadTask() override;

  const DownloadRequest& request() const { return request_; }
  State state() const { return state_; }
  QString finalPath() const;

 public slots:
  void start();
  void pause();  // keeps the .part and its sidecar; resume() or a later start() continues
  void resume();
  void cancel();  // deletes the .part and its sidecar

 signals:
  void progress(const trit::models::DownloadProgress& progress);
  void stateChanged(trit::models::DownloadTask::State state, const QString& message);
  // ok: `result` is the accepted file and `verifiedBy` "catalogue" or "x-linked-etag";
  // otherwise `result` is the reason, and `verifiedBy` is empty.
  void finished(bool ok, const QString& result, const QString& verifiedBy);

 private:
  enum class Stop { None, Pause, Cancel, Stall };

  void setState(State s, const QString& message = {});
  bool prepare();
  // A file already at the final name: true when it ends the task (it is the expected file: Done; or it
  // is another file the request does not allow to replace: Conflict).
  bool settledByExistingFile();
  void conflict(const QString& why);
  bool makeRoomForInstall();  // the final name is free, or the user's choice made it so
  void resetPart();
  void sendRequest(const QUrl& url);
  void onMetaData();
  void onReadyRead();
  bool consume(QByteArrayView data);  // writes received bytes; false: the transfer was stopped
  void onFinished();
  void onStallCheck();
  bool acceptBody(int status);
  void handleRedirect(const QUrl& from, const QUrl& location);
  void retryOrFail(const QString& why);
  void verifyAndInstall();
  void fail(const QString& why, bool removePart);
  void emitProgress(bool force);
  void closePart();
  void savePartState();

  DownloadRequest request_;
  DownloadOptions options_;
  State state_ = State::Idle;
  PartState part_;
  QFile file_;
  // Received bytes are read into this one block (allocated once) and written from it: a fresh QByteArray
  // per readyRead (readAll()) cost an allocation, page faults and a copy for every chunk.
  QByteArray block_;
  Sha256 hash_;              // of the bytes in the .part, as they were received (and, resumed, read back)
  qint64 offset_ = 0;        // bytes in the .part (== hashed bytes)
  qint64 attemptStart_ = 0;  // offset when the current request began
  QNetworkAccessManager* nam_ = nullptr;
  QNetworkReply* reply_ = nullptr;  // the request in flight; cleared in onFinished()
  QTimer* stallTimer_ = nullptr;
  QTimer* retryTimer_ = nullptr;
  QElapsedTimer sinceData_;
  QElapsedTimer sinceProgress_;
  QElapsedTimer clock_;
  std::deque<std::pair<qint64, qint64>> samples_;  // (ms, bytes) for the speed estimate
  QList<QUrl> chain_;                              // redirect chain of the current attempt
  bool firstHop_ = true;
  bool headersSeen_ = false;
  bool writing_ = false;
  Stop stop_ = Stop::None;
  int retries_ = 0;
  int restarts_ = 0;        // restarts from zero (server ignored Range, 416): bounded
  QString refused_;         // reason the current reply was aborted by us
  QString chainLinked_;     // the SHA-256 an X-Linked-ETag of the current redirect chain named
  QString unusableLinked_;  // an X-Linked-ETag of the chain that was not a SHA-256, for the message
};

}  // namespace trit::models
