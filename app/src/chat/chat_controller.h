#pragma once
// The conversation on screen as QML drives it: send, stop, regenerate, edit and continue, with the
// live readouts (prompt progress and speed, smoothed tokens/s with its history) and the context state.
// Reply text arrives through the engine's StreamBuffer and is taken once per frame (kFrameMs), so a
// reply streaming at thousands of tokens per second costs the UI one model update per frame.
// With a conversation store (setStore) every message is saved as it happens: the user message when
// sent, the reply while it streams (ReplyWriter, batched) and its statistics at the end; edits and
// regenerations become alternatives the bubble pages through. Without one the chat lives in memory.
#include <QElapsedTimer>
#include <QHash>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QVariantList>
#include <memory>
#include <optional>

#include "chat/message_list_model.h"
#include "chat/speed_meter.h"
#include "engine_thread/engine_types.h"

namespace trit::storage {
class ConversationStore;
class ReplyWriter;
struct ReplyStats;
enum class FinishReason;
}  // namespace trit::storage

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
  // The conversation shown (0: a new one, not saved until its first message).
  Q_PROPERTY(qint64 conversationId READ conversationId NOTIFY conversationChanged)
  // True when conversations are saved (a store is set); false: this chat is kept in memory only.
  Q_PROPERTY(bool persistent READ persistent NOTIFY persistentChanged)
  // Why the last write to the database failed ("" when all is saved).
  Q_PROPERTY(QString storageError READ storageError NOTIFY storageErrorChanged)

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

  // Where conversations are saved; null keeps them in memory. The store must outlive the controller
  // or be replaced first. A conversation on screen that was never saved is saved now.
  void setStore(storage::ConversationStore* store);
  storage::ConversationStore* store() const;
  qint64 conversationId() const { return conversationId_; }
  bool persistent() const;
  QString storageError() const { return storageError_; }

  // Sends a user message and starts the reply. False (with lastError) when it cannot: no model, a reply
  // already running, or nothing to send.
  Q_INVOKABLE bool send(const QString& text);
  // Stops the running reply within one token; the text so far is kept.
  Q_INVOKABLE void stop();
  // Writes the last reply again (the prompt is cached, so it starts at once). The earlier reply is kept
  // as another version of it when conversations are saved.
  Q_INVOKABLE bool regenerate();
  // Changes user message `row`, drops everything after it from the screen and answers again. The messages
  // before it are unchanged, so the engine reuses their cached prefix. Saved, the original and what
  // followed it stay as the other version (showAlternative).
  Q_INVOKABLE bool editMessage(int row, const QString& text);
  // Starts an empty conversation (saved with its first message). While a reply is written it is
  // stopped first and the switch happens when it has ended (its text kept, marked cancelled).
  Q_INVOKABLE void newConversation();
  // Shows a saved conversation exactly as it was left (every message, statistics, alternatives); the
  // next message continues it. Stops a running reply first, as newConversation() does. False if it
  // cannot be read (lastError says why).
  Q_INVOKABLE bool loadConversation(qint64 id);
  // Shows version `variantIndex` (0-based) of the message in `row` and the thread below it; the next
  // message continues that branch. False while a reply is written or without such a version.
  Q_INVOKABLE bool showAlternative(int row, int variantIndex);
  Q_INVOKABLE void clearStorageError();
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
  void conversationChanged();
  void persistentChanged();
  void storageErrorChanged();

 private:
  bool startReply();
  // Rows of the oldest turn (its user message and the replies up to the next user message), 0 when it
  // is the only turn; canDropOldestTurn(): dropOldestTurns() has something to drop.
  int oldestTurnRows() const;
  bool canDropOldestTurn() const;
  void drain();
  void onPrefill(quint64 id, int done, int total);
  void onStarted(quint64 id);
  void onFinished(const ReplyOutcome& outcome);
  void onFailed(quint64 id, const QString& message);
  void endReply();
  void setError(const QString& message);
  void setContext(int used, bool full);
  void setStorageError(const QString& message);
  // Runs a write to the store; a StorageError becomes storageError and false.
  template <typename F>
  bool saving(F&& write);
  qint64 ensureConversation();  // the saved conversation for the messages shown (creating it); 0 if none
  qint64 lastSavedId() const;   // id of the last row, 0 when there is none or it is not saved
  bool threadSaved() const;     // every row shown is saved, so a new message has its parent
  void saveUserMessage(int row, qint64 parentId);
  void saveReplyText(const QString& text);
  void saveReplyEnd(const std::optional<storage::ReplyStats>& stats, storage::FinishReason reason);
  void saveShownConversation();
  void updateConversationSettings(const QString& model, const QJsonObject& sampling);
  void switchTo(qint64 id);  // 0: a new conversation
  QList<ChatMessage> storedRows(qint64 conversationId, int fromRow, int dropped);
  void onConversationDeleted(qint64 id);
  void onConversationRestored(qint64 id);

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

  QPointer<storage::ConversationStore> store_;
  std::unique_ptr<storage::ReplyWriter> writer_;  // the running reply's, once its first text arrived
  qint64 conversationId_ = 0;
  QString savedModel_;  // the model and sampling stored with the conversation
  QJsonObject savedSampling_;
  int droppedRows_ = 0;             // rows of the saved thread left off the screen (dropOldestTurns)
  qint64 replyConversationId_ = 0;  // where the running reply is saved (0: it is not)
  qint64 replyParentId_ = 0;
  QString replySaved_;                               // its text as written to the store
  std::optional<qint64> pendingSwitch_;              // a conversation to show once the running reply has stopped
  qint64 deletedShown_ = 0;                          // the conversation on screen when it was deleted (undo reopens it)
  QHash<qint64, std::vector<int32_t>> replyTokens_;  // sampled ids of replies made in this run, by id
  QString storageError_;
};

}  // namespace trit::chat
