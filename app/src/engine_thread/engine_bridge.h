#pragma once
// The engine as QML sees it: which model is loaded, on which device, in what state. Owns the engine
// thread and its worker; every call into the engine is queued to that thread, so loading a model never
// blocks the UI. The chat controller sends its replies through here.
#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <QThread>
#include <functional>
#include <memory>

#include "chat/stream_buffer.h"
#include "engine_thread/engine_types.h"
#include "served_model.h"

namespace trit::chat {

class AppSettings;
class EngineWorker;

class EngineBridge : public QObject {
  Q_OBJECT
  // "noModel", "loading", "ready" or "error" (a string so QML and test doubles need no registered enum)
  Q_PROPERTY(QString state READ stateName NOTIFY stateChanged)
  Q_PROPERTY(QString errorMessage READ errorMessage NOTIFY stateChanged)
  Q_PROPERTY(QString modelPath READ modelPath NOTIFY modelChanged)
  Q_PROPERTY(QString modelName READ modelName NOTIFY modelChanged)
  Q_PROPERTY(QString backend READ backend NOTIFY modelChanged)
  Q_PROPERTY(QString deviceName READ deviceName NOTIFY modelChanged)
  Q_PROPERTY(QString memoryText READ memoryText NOTIFY memoryTextChanged)
  Q_PROPERTY(int contextLength READ contextLength NOTIFY modelChanged)
  // The loaded model's chat format ("2B4T", "Llama 3 Instruct", ...); a loaded model without one is a
  // base model: the window continues the user's text instead of chatting.
  Q_PROPERTY(QString chatFormat READ chatFormat NOTIFY modelChanged)
  Q_PROPERTY(bool baseModel READ baseModel NOTIFY modelChanged)
  Q_PROPERTY(QString loadingPath READ loadingPath NOTIFY stateChanged)
  Q_PROPERTY(QStringList devices READ devices NOTIFY devicesChanged)
  Q_PROPERTY(QString devicesError READ devicesError NOTIFY devicesChanged)

 public:
  enum class State { NoModel, Loading, Ready, Error };
  Q_ENUM(State)

  explicit EngineBridge(AppSettings* settings = nullptr, QObject* parent = nullptr);
  ~EngineBridge() override;

  State state() const { return state_; }
  QString stateName() const;
  QString errorMessage() const { return error_; }
  QString modelPath() const { return info_.path; }
  QString modelName() const { return info_.name; }
  QString backend() const { return info_.backend; }
  QString deviceName() const { return info_.deviceName; }
  QString memoryText() const { return memoryText_; }
  int contextLength() const { return info_.contextLength; }
  QString chatFormat() const { return info_.chatFormat; }
  bool baseModel() const { return !info_.path.isEmpty() && info_.chatFormat.isEmpty(); }
  QString loadingPath() const { return loadingPath_; }
  QStringList devices() const { return devices_; }
  QString devicesError() const { return devicesError_; }
  const ModelInfo& modelInfo() const { return info_; }

  // Loads a model with the backend, device and context length from the settings (or the defaults).
  Q_INVOKABLE void loadModel(const QString& pathOrUrl);
  Q_INVOKABLE void load(const trit::chat::LoadRequest& request);
  // Loads the current model again (after the device, backend or context length changed).
  Q_INVOKABLE void reload();
  Q_INVOKABLE void unloadModel();
  Q_INVOKABLE void refreshDevices();

  // For the chat controller.
  std::uint64_t generate(GenerateRequest request);  // returns the reply's id
  void cancel(std::uint64_t id);
  StreamBuffer& stream() { return stream_; }

  // For the API server (app/src/server), from any thread: the model it answers for (null while none
  // is loaded) and its session's context length; and work for the engine thread, queued behind
  // everything already asked of it (chat replies, loads), so chat and API requests take turns in the
  // order they came. Work still queued when the engine thread ends is dropped (destroyed, not run).
  std::shared_ptr<const server::ServedModel> servedModel() const;
  int servedContextLength() const;
  void runOnEngine(std::function<void(EngineWorker&)> work);

 signals:
  void stateChanged();
  void modelChanged();
  void memoryTextChanged();
  void devicesChanged();
  void modelLoadFailed(const QString& path, const QString& message);
  // A load or unload was asked for (emitted before it is queued): API jobs still waiting or running on
  // the old model end now rather than hold up the switch.
  void modelSwitching();

  // Forwarded from the engine thread (already on the UI thread when they arrive).
  void prefillProgress(quint64 id, int done, int total);
  void replyStarted(quint64 id);
  void replyFinished(const trit::chat::ReplyOutcome& outcome);
  void replyFailed(quint64 id, const QString& message);

 private:
  void setState(State s, const QString& error = {});

  AppSettings* settings_;
  StreamBuffer stream_;
  QThread thread_;
  EngineWorker* worker_;  // lives on thread_, deleted when it finishes
  State state_ = State::NoModel;
  QString error_;
  QString loadingPath_;
  LoadRequest lastRequest_;
  ModelInfo info_;
  QString memoryText_;
  QStringList devices_;
  QString devicesError_;
  std::uint64_t nextId_ = 1;
};

}  // namespace trit::chat
