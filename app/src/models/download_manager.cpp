#include "download_manager.h"

namespace trit::models {

DownloadManager::DownloadManager(DownloadOptions options, QObject* parent)
    : QObject(parent), options_(std::move(options)) {
  qRegisterMetaType<trit::models::DownloadProgress>();
  qRegisterMetaType<trit::models::DownloadTask::State>();
  thread_.setObjectName(QStringLiteral("trit-downloads"));
  thread_.start();
}

DownloadManager::~DownloadManager() {
  for (DownloadTask* task : std::as_const(tasks_)) {
    // Blocking: the task saves its resume state and is destroyed on its own thread.
    QMetaObject::invokeMethod(
        task,
        [task] {
          task->pause();
          delete task;
        },
        Qt::BlockingQueuedConnection);
  }
  tasks_.clear();
  thread_.quit();
  thread_.wait();
}

bool DownloadManager::start(const DownloadRequest& request, QString* error) {
  if (tasks_.contains(request.id)) {
    if (error) *error = QStringLiteral("%1 is already being downloaded.").arg(request.id);
    return false;
  }
  auto* task = new DownloadTask(request, options_);
  task->moveToThread(&thread_);
  tasks_.insert(request.id, task);
  const QString id = request.id;
  connect(task, &DownloadTask::progress, this, [this, id](const DownloadProgress& p) { emit progress(id, p); });
  connect(task, &DownloadTask::stateChanged, this,
          [this, id](DownloadTask::State s, const QString& message) { emit stateChanged(id, s, message); });
  connect(task, &DownloadTask::finished, this, [this, id, task](bool ok, const QString& result, const QString& by) {
    // Only a task still registered under this id reports; a finished task is deleted on its thread.
    if (tasks_.value(id) == task) {
      tasks_.remove(id);
      task->deleteLater();
    }
    emit finished(id, ok, result, by);
  });
  QMetaObject::invokeMethod(task, &DownloadTask::start, Qt::QueuedConnection);
  return true;
}

void DownloadManager::pause(const QString& id) {
  if (auto* task = tasks_.value(id)) QMetaObject::invokeMethod(task, &DownloadTask::pause, Qt::QueuedConnection);
}

void DownloadManager::resume(const QString& id) {
  if (auto* task = tasks_.value(id)) QMetaObject::invokeMethod(task, &DownloadTask::resume, Qt::QueuedConnection);
}

void DownloadManager::cancel(const QString& id) {
  if (auto* task = tasks_.value(id)) QMetaObject::invokeMethod(task, &DownloadTask::cancel, Qt::QueuedConnection);
}

}  // namespace trit::models
