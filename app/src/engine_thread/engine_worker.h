#pragma once
// Lives on the engine thread and owns every engine object (model, session, KV cache). The UI talks to
// it only by queued calls and hears back by queued signals; the exceptions are thread-safe by design:
// cancel() (the engine checks a flag between tokens), the StreamBuffer the reply text goes through, and
// servedModel() for the API server's HTTP threads. The API server's jobs come by queued calls too
// (app/src/server/app_scheduler.h) and run on the same session as the chat, one after the other.
#include <trit/chat.h>
#include <QObject>
#include <QStringList>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>

#include "job.h"
#include "served_model.h"

#include "chat/stream_buffer.h"
#include "engine_thread/engine_types.h"

namespace trit {
class Session;
}

namespace trit::chat {

class EngineWorker : public QObject {
  Q_OBJECT

 public:
  explicit EngineWorker(StreamBuffer* stream, QObject* parent = nullptr);
  ~EngineWorker() override;

  // Any thread: stops reply `id` within one token (or one prefill block) if it is running, or before
  // it starts if it is still queued.
  void cancel(std::uint64_t id);

  // Any thread: the model the API server answers for (null while none is loaded), and the context
  // length its session has. Published together when a model is loaded and withdrawn before it goes.
  std::shared_ptr<const server::ServedModel> servedModel() const;
  int servedContextLength() const;

  // Engine thread: runs an API job on the chat's session. A job made for another model than the one
  // loaded now (it waited while the user switched) does not run and says why (a 503 for its client).
  server::JobResult runApiJob(server::Job& job);

 public slots:  // engine thread (queued)
  void load(const trit::chat::LoadRequest& request);
  void unload();
  void generate(const trit::chat::GenerateRequest& request);
  void listDevices();

 signals:
  void modelLoaded(const trit::chat::ModelInfo& info);
  void modelLoadFailed(const QString& path, const QString& message);
  void modelUnloaded();
  void prefillProgress(quint64 id, int done, int total);
  void replyStarted(quint64 id);  // the first token is out (prefill done)
  void replyFinished(const trit::chat::ReplyOutcome& outcome);
  void replyFailed(quint64 id, const QString& message);
  void devicesListed(const QStringList& names, const QString& error);
  void memoryUsage(const QString& text);

 private:
  QString describeMemory() const;
  void publish(std::shared_ptr<const server::ServedModel> model, int context);
  bool cancelled(std::uint64_t id) const { return cancelledId_.load() >= id; }

  StreamBuffer* stream_;
  std::unique_ptr<Session> session_;
  // The model's chat format (it refers to the session's tokenizer); nullopt for a base model.
  std::optional<ChatFormat> format_;
  LoadRequest loaded_;
  qint64 fileBytes_ = 0;
  std::atomic<std::uint64_t> cancelledId_{0};  // replies with an id up to this one are cancelled
  std::mutex activeMutex_;                     // guards active_/activeId_ against cancel() from the UI
  Session* active_ = nullptr;
  std::uint64_t activeId_ = 0;
  mutable std::mutex servedMutex_;  // guards served_ and servedContext_ against the HTTP threads
  std::shared_ptr<const server::ServedModel> served_;
  int servedContext_ = 0;
};

}  // namespace trit::chat
