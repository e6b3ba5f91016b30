#pragma once
// Runs DownloadTasks on one worker thread and relays their signals to the thread that owns the
// manager (the GUI thread, or main() in headless use). One download per model id at a time.
#include <QHash>
#include <QObject>
#include <QThread>

#include "download_task.h"

namespace trit::models {

class DownloadManager : public QObject {
  Q_OBJECT
 public:
  explicit DownloadManager(DownloadOptions options = {}, QObject* parent = nullptr);
  ~DownloadManager() override;  // pauses running downloads (their .part files stay for a later resume)

  const DownloadOptions& options() const { return options_; }
  void setOptions(const DownloadOptions& options) { options_ = options; }

  // Starts (or resumes from a .part) the download. False with `error` when one runs for that id.
  bool start(const DownloadRequest& request, QString* error = nullptr);
  void pause(const QString& id);
  void resume(const QString& id);
  void cancel(const QString& id);
  bool isRunning(const QString& id) const { return tasks_.contains(id); }
  QStringList running() const { return tasks_.keys(); }
  QThread* workerThread() { return &thread_; }

 signals:
  void progress(const QString& id, const trit::models::DownloadProgress& progress);
  void stateChanged(const QString& id, trit::models::DownloadTask::State state, const QString& message);
  void finished(const QString& id, bool ok, const QString& result, const QString& verifiedBy);

 private:
  DownloadOptions options_;
  QThread thread_;
  QHash<QString, DownloadTask*> tasks_;
};

}  // namespace trit::models
