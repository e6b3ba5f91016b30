#pragma once
// The conversation on screen as QML drives it: send, stop, regenerate, edit and continue, with the
// live readouts (prompt progress and speed, smoothed tokens/s with its history) and the context state.
// Reply text arrives through the engine's StreamBuffer and is taken once per frame (kFrameMs), so a
// reply streaming at thousands of tokens per second costs the UI one model update per frame.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <QVariantList>

#include "chat/engine_types.h"
#include "chat/message_list_model.h"
#include "chat/speed_meter.h"

namespace trit::chat {

class AppSettings;
class EngineBridge;

class ChatController : public QObject {
  Q_OBJECT
  Q_PROPERTY(trit::chat::MessageListModel* messages READ messages CONSTANT)
  Q_PROPERTY(bool generating READ generating NOTIFY generatingChanged)
  Q_PROPERTY(QString phase READ phase NOTIFY progressChanged)  // "idle", "prompt", "reply"
  Q_PROPERTY(int promptDone READ promptDone NOTIFY progressChanged)
  Q_PROPERTY(int promptTotal READ promptTotal NOTIFY progressChanged)
  Q_PROPERTY(double promptTokensPerSecond READ promptTokensPerSecond NOTIFY progressChanged)
  Q_PROPERTY(double tokensPerSecond READ tokensPerSecond NOTIFY progressChanged)
  Q_PROPERTY(int replyTokens READ replyTokens NOTIFY progressChanged)
  Q_PROPERTY(QVariantList speedHistory READ speedHistory NOTIFY progressChanged)
  Q_PROPERTY(int contextUsed READ contextUsed NOTIFY contextChanged)
  Q_PROPERTY(bool contextFull READ contextFull NOTIFY contextChanged)
  Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)
  Q_PROPERTY(QString systemPrompt READ systemPrompt WRITE setSystemPrompt NOTIFY systemPromptChanged)
  Q_PROPERTY(bool canRegenerate READ canRegenerate NOTIFY generatingChanged)

 public:
  static constexpr int kFrameMs = 16;

  ChatController(EngineBridge* engine, AppSettings* settings, QObject* parent = nullptr);
  ~ChatController() override;

  MessageListModel* messages() { return &messages_; }
  bool generating() const { return replyId_ != 0; }
  QString phase() const { return phase_; }
  int promptDone() const { return promptDone_; }
  int promptTotal() const { return promptTotal_; }
  double promptTokensPerSecond() const { return promptRate_; }
  double tokensPerSecond() const { return speed_.smoothed(); }
  int replyTokens() const { return replyPieces_; }
  QVariantList speedHistory() const { return speed_.history(); }
  int contextUsed() const { return contextUsed_; }
  bool contextFull() const { return contextFull_; }
  QString lastError() const { return lastError_; }
  QString systemPrompt() const { return systemPrompt_; }
  void setSystemPrompt(const QString& prompt);
  bool canRegenerate() const;
  // A reply length for this run only (command line, tests); 0: the settings decide.
  void setMaxTokensOverride(int n) { maxTokensOverride_ = n; }

  // Sends a user message and starts the reply. False (with lastError) when it cannot: no model, a reply
  // already running, or nothing to send.
  Q_INVOKABLE bool send(const QString& text);
  // Stops the running reply within one token; the text so far is kept.
  Q_INVOKABLE void stop();
  // Replaces the last reply with a new one (the prompt is cached, so it starts at once).
  Q_INVOKABLE bool regenerate();
  // Changes user message `row`, drops everything after it and answers again. The messages before it
  // are unchanged, so the engine reuses their cached prefix.
  Q_INVOKABLE bool editMessage(int row, const QString& text);
  Q_INVOKABLE void newConversation();
  // Context full: removes the oldest user message and its reply (visibly), then answers the last
  // message again if it is still waiting for a reply.
  Q_INVOKABLE bool dropOldestTurns();
  Q_INVOKABLE void copyText(const QString& text);

 signals:
  void generatingChanged();
  void progressChanged();
  void contextChanged();
  void lastErrorChanged();
  void systemPromptChanged();
  void replyFinished(int row);  // a reply ended (stop, length, cancel, context full or error)

 private:
  bool startReply();
  void drain();
  void onPrefill(quint64 id, int done, int total);
  void onStarted(quint64 id);
  void onFinished(const ReplyOutcome& outcome);
  void onFailed(quint64 id, const QString& message);
  void endReply();
  void setError(const QString& message);
  void setContext(int used, bool full);

  EngineBridge* engine_;
  AppSettings* settings_;
  MessageListModel messages_;
  QTimer frameTimer_;
  QElapsedTimer frameClock_;
  QElapsedTimer promptClock_;
  SpeedMeter speed_;

  std::uint64_t replyId_ = 0;  // 0: idle
  int replyRow_ = -1;
  QString phase_ = QStringLiteral("idle");
  int promptDone_ = 0, promptTotal_ = 0, promptStart_ = 0;
  double promptRate_ = 0;
  int replyPieces_ = 0;
  int contextUsed_ = 0;
  bool contextFull_ = false;
  QString lastError_;
  QString systemPrompt_;
  int maxTokensOverride_ = 0;
};

}  // namespace trit::chat
