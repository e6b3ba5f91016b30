#include "engine_thread/engine_bridge.h"

#include <QUrl>

#include "engine_thread/engine_worker.h"
#include "settings/app_settings.h"

namespace trit::chat {

EngineBridge::EngineBridge(AppSettings* settings, QObject* parent)
    : QObject(parent), settings_(settings), worker_(new EngineWorker(&stream_)) {
  qRegisterMetaType<LoadRequest>();
  qRegisterMetaType<ModelInfo>();
  qRegisterMetaType<GenerateRequest>();
  qRegisterMetaType<ReplyOutcome>();
  thread_.setObjectName(QStringLiteral("trit-engine"));
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);

  // Worker signals cross threads: Qt queues them onto this (the UI) thread.
  connect(worker_, &EngineWorker::modelLoaded, this, [this](const ModelInfo& info) {
    info_ = info;
    memoryText_ = info.memoryText;
    loadingPath_.clear();
    if (settings_) settings_->setLastModel(info.path);
    emit modelChanged();
    emit memoryTextChanged();
    setState(State::Ready);
  });
  connect(worker_, &EngineWorker::modelLoadFailed, this, [this](const QString& path, const QString& message) {
    info_ = {};
    loadingPath_.clear();
    emit modelChanged();
    setState(State::Error, message);
    emit modelLoadFailed(path, message);
  });
  connect(worker_, &EngineWorker::memoryUsage, this, [this](const QString& text) {
    memoryText_ = text;
    emit memoryTextChanged();
  });
  connect(worker_, &EngineWorker::devicesListed, this, [this](const QStringList& names, const QString& error) {
    devices_ = names;
    devicesError_ = error;
    emit devicesChanged();
  });
  connect(worker_, &EngineWorker::prefillProgress, this, &EngineBridge::prefillProgress);
  connect(worker_, &EngineWorker::replyStarted, this, &EngineBridge::replyStarted);
  connect(worker_, &EngineWorker::replyFinished, this, &EngineBridge::replyFinished);
  connect(worker_, &EngineWorker::replyFailed, this, &EngineBridge::replyFailed);
  thread_.start();
}

EngineBridge::~EngineBridge() {
  // Stop whatever is running, let the worker free the engine on its own thread, then join it.
  worker_->cancel(~std::uint64_t{0} >> 1);
  QMetaObject::invokeMethod(worker_, &EngineWorker::unload, Qt::QueuedConnection);
  thread_.quit();
  thread_.wait();
}

QString EngineBridge::stateName() const {
  switch (state_) {
    case State::NoModel:
      return QStringLiteral("noModel");
    case State::Loading:
      return QStringLiteral("loading");
    case State::Ready:
      return QStringLiteral("ready");
    case State::Error:
      return QStringLiteral("error");
  }
  return {};
}

void EngineBridge::setState(State s, const QString& error) {
  if (state_ == s && error_ == error) return;
  state_ = s;
  error_ = error;
  emit stateChanged();
}

void EngineBridge::loadModel(const QString& pathOrUrl) {
  LoadRequest r;
  const QUrl url(pathOrUrl);
  r.path = url.isLocalFile() ? url.toLocalFile() : pathOrUrl;
  if (settings_) {
    r.backend = settings_->backend();
    r.device = settings_->device();
    r.context = settings_->contextLength();
  }
  load(r);
}

void EngineBridge::load(const LoadRequest& request) {
  // A reply still running on the old model stops first; the load waits for it in the engine's queue.
  if (nextId_ > 1) worker_->cancel(nextId_ - 1);
  emit modelSwitching();
  lastRequest_ = request;
  loadingPath_ = request.path;
  setState(State::Loading);
  QMetaObject::invokeMethod(
      worker_, [w = worker_, request] { w->load(request); }, Qt::QueuedConnection);
}

void EngineBridge::reload() {
  const QString path = info_.path.isEmpty() ? lastRequest_.path : info_.path;
  if (!path.isEmpty()) loadModel(path);
}

void EngineBridge::unloadModel() {
  emit modelSwitching();
  QMetaObject::invokeMethod(worker_, &EngineWorker::unload, Qt::QueuedConnection);
  info_ = {};
  emit modelChanged();
  setState(State::NoModel);
}

void EngineBridge::refreshDevices() {
  QMetaObject::invokeMethod(worker_, &EngineWorker::listDevices, Qt::QueuedConnection);
}

std::uint64_t EngineBridge::generate(GenerateRequest request) {
  request.id = nextId_++;
  QMetaObject::invokeMethod(
      worker_, [w = worker_, request] { w->generate(request); }, Qt::QueuedConnection);
  return request.id;
}

void EngineBridge::cancel(std::uint64_t id) {
  worker_->cancel(id);
}

std::shared_ptr<const server::ServedModel> EngineBridge::servedModel() const {
  return worker_->servedModel();
}

int EngineBridge::servedContextLength() const {
  return worker_->servedContextLength();
}

void EngineBridge::runOnEngine(std::function<void(EngineWorker&)> work) {
  QMetaObject::invokeMethod(
      worker_, [w = worker_, work = std::move(work)] { work(*w); }, Qt::QueuedConnection);
}

}  // namespace trit::chat
