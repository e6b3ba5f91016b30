#pragma once
// Lives on the engine thread and owns every engine object (model, session, KV cache). The UI talks to
// it only by queued calls and hears back by queued signals; the two exceptions are thread-safe by
// design: cancel() (the engine checks a flag between tokens) and the StreamBuffer the reply text goes
// through.
#include <QObject>
#include <QStringList>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <trit/chat.h>

#include "chat/engine_types.h"
#include "chat/stream_buffer.h"

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
};

}  // namespace trit::chat
