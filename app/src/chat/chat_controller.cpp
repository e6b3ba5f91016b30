#include "chat/chat_controller.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QRandomGenerator>

#include "conversations/conversation_records.h"
#include "engine_thread/engine_bridge.h"
#include "settings/app_settings.h"
#include "storage/conversation_store.h"
#include "storage/reply_writer.h"

namespace trit::chat {
namespace {

QString reasonName(FinishReason r) {
  return QString::fromLatin1(to_string(r));
}

}  // namespace

ChatController::ChatController(EngineBridge* engine, AppSettings* settings, QObject* parent)
    : QObject(parent), engine_(engine), settings_(settings) {
  frameTimer_.setInterval(kFrameMs);
  frameTimer_.setTimerType(Qt::PreciseTimer);
  connect(&frameTimer_, &QTimer::timeout, this, &ChatController::drain);
  connect(engine_, &EngineBridge::prefillProgress, this, &ChatController::onPrefill);
  connect(engine_, &EngineBridge::replyStarted, this, &ChatController::onStarted);
  connect(engine_, &EngineBridge::replyFinished, this, &ChatController::onFinished);
  connect(engine_, &EngineBridge::replyFailed, this, &ChatController::onFailed);
  // A new model starts with an empty cache.
  connect(engine_, &EngineBridge::modelChanged, this, [this] { setContext(0, false); });
  if (settings_) systemPrompt_ = settings_->systemPrompt();
}

ChatController::~ChatController() {
  if (replyId_) engine_->cancel(replyId_);
  // A reply still streaming is flushed by the writer and left unfinished: the next start marks it
  // interrupted, as after a crash.
  writer_.reset();
}

void ChatController::setSystemPrompt(const QString& prompt) {
  if (prompt == systemPrompt_) return;
  systemPrompt_ = prompt;
  if (store_ && conversationId_) saving([&] { store_->setSystemPrompt(conversationId_, prompt); });
  emit systemPromptChanged();
}

bool ChatController::canRegenerate() const {
  return !generating() && engine_->state() == EngineBridge::State::Ready && messages_.count() > 0;
}

void ChatController::setError(const QString& message) {
  if (lastError_ == message) return;
  lastError_ = message;
  emit lastErrorChanged();
}

void ChatController::setStorageError(const QString& message) {
  if (storageError_ == message) return;
  storageError_ = message;
  emit storageErrorChanged();
}

void ChatController::clearStorageError() {
  setStorageError({});
}

template <typename F>
bool ChatController::saving(F&& write) {
  if (!store_) return false;
  try {
    write();
    return true;
  } catch (const storage::StorageError& e) {
    setStorageError(tr("This conversation could not be saved: %1. It stays on screen; saving resumes with the "
                       "next conversation.")
                        .arg(e.message()));
    return false;
  }
}

void ChatController::setStore(storage::ConversationStore* store) {
  if (store == store_) return;
  if (store_) disconnect(store_, nullptr, this, nullptr);
  writer_.reset();
  replyConversationId_ = 0;
  store_ = store;
  conversationId_ = 0;
  deletedShown_ = 0;
  if (store_) {
    connect(store_, &storage::ConversationStore::conversationDeleted, this, &ChatController::onConversationDeleted);
    connect(store_, &storage::ConversationStore::conversationRestored, this, &ChatController::onConversationRestored);
    // Memory-only messages from before the database could be opened are kept, not lost.
    if (!generating()) saveShownConversation();
  }
  setStorageError({});
  emit persistentChanged();
  emit conversationChanged();
}

storage::ConversationStore* ChatController::store() const {
  return store_.data();
}

bool ChatController::persistent() const {
  return !store_.isNull();
}

qint64 ChatController::lastSavedId() const {
  return messages_.count() > 0 ? messages_.at(messages_.count() - 1).messageId : 0;
}

bool ChatController::threadSaved() const {
  for (int i = 0; i < messages_.count(); ++i)
    if (!messages_.at(i).messageId) return false;
  return true;
}

qint64 ChatController::ensureConversation() {
  if (!store_) return 0;
  if (conversationId_) return conversationId_;
  const QString model = engine_->modelName();
  SamplingParams sampling = settings_ ? settings_->sampling() : SamplingParams{};
  const QJsonObject samplingObject =
      samplingJson(sampling, maxTokensOverride_ > 0 ? maxTokensOverride_ : (settings_ ? settings_->maxTokens() : 0));
  qint64 id = 0;
  if (!saving([&] { id = store_->createConversation({}, systemPrompt_, model, samplingObject); })) return 0;
  conversationId_ = id;
  savedModel_ = model;
  savedSampling_ = samplingObject;
  droppedRows_ = 0;
  emit conversationChanged();
  return id;
}

void ChatController::saveUserMessage(int row, qint64 parentId) {
  if (!store_) return;
  const QString text = messages_.at(row).text;
  saving([&] {
    const qint64 conversation = ensureConversation();
    if (!conversation) return;
    const qint64 id = store_->addMessage(conversation, parentId, storage::Role::User, text);
    // A new message is the newest version under its parent: variant index = count - 1.
    const int variant = store_->message(id)->variantIndex;
    messages_.setIdentity(row, id, variant, variant + 1);
  });
}

void ChatController::updateConversationSettings(const QString& model, const QJsonObject& sampling) {
  if (!store_ || !conversationId_) return;
  saving([&] {
    if (model != savedModel_) store_->setModel(conversationId_, model);
    savedModel_ = model;
    if (sampling != savedSampling_) store_->setSampling(conversationId_, sampling);
    savedSampling_ = sampling;
  });
}

// The reply row is created with its first text (a prompt that does not fit leaves no empty reply behind).
void ChatController::saveReplyText(const QString& text) {
  if (!replyConversationId_ || text.isEmpty()) return;
  const bool ok = saving([&] {
    if (!writer_) {
      writer_ = std::make_unique<storage::ReplyWriter>(*store_);
      const qint64 id = writer_->begin(replyConversationId_, replyParentId_);
      const int variant = store_->message(id)->variantIndex;
      messages_.setIdentity(replyRow_, id, variant, variant + 1);
    }
    writer_->append(text);
    replySaved_ += text;
  });
  if (!ok) {
    writer_.reset();  // what was written stays, unfinished: marked interrupted at the next start
    replyConversationId_ = 0;
  }
}

void ChatController::saveReplyEnd(const std::optional<storage::ReplyStats>& stats, storage::FinishReason reason) {
  if (!replyConversationId_) return;
  const QString shown = messages_.at(replyRow_).text;
  // The engine's final text is the reference: add what the stream did not deliver.
  if (shown.startsWith(replySaved_) && shown.size() > replySaved_.size()) saveReplyText(shown.mid(replySaved_.size()));
  if (!replyConversationId_) return;
  if (!writer_ && reason == storage::FinishReason::Error) {
    // Failed before the first token: no empty reply is saved; the error shows on screen (issue 30).
    replyConversationId_ = 0;
    return;
  }
  const bool ok = saving([&] {
    if (!writer_) {  // nothing streamed (stopped before the first token): keep the outcome
      writer_ = std::make_unique<storage::ReplyWriter>(*store_);
      const qint64 id = writer_->begin(replyConversationId_, replyParentId_);
      const int variant = store_->message(id)->variantIndex;
      messages_.setIdentity(replyRow_, id, variant, variant + 1);
    }
    writer_->finish(stats, reason);
  });
  if (ok) {
    const qint64 id = messages_.at(replyRow_).messageId;
    if (id && !messages_.at(replyRow_).tokens.empty()) replyTokens_.insert(id, messages_.at(replyRow_).tokens);
  }
  writer_.reset();
  replyConversationId_ = 0;
}

// After the database becomes available (opened late, or a retry): what is on screen is saved as a new
// conversation, so nothing typed while it was missing is lost.
void ChatController::saveShownConversation() {
  if (!store_ || messages_.count() == 0) return;
  // Only a chat that was never saved (rows from another store, after a reopen, are left alone).
  for (int row = 0; row < messages_.count(); ++row)
    if (messages_.at(row).messageId) return;
  saving([&] {
    const qint64 conversation = ensureConversation();
    if (!conversation) return;
    qint64 parent = 0;
    for (int row = 0; row < messages_.count(); ++row) {
      const ChatMessage& m = messages_.at(row);
      qint64 id = 0;
      if (m.role == QLatin1String("assistant")) {
        id = store_->beginReply(conversation, parent);
        if (!m.text.isEmpty()) store_->appendReplyText(id, m.text);
        std::optional<storage::ReplyStats> stats;
        if (!m.stats.isEmpty()) {
          storage::ReplyStats s;
          s.promptTokens = m.stats.value(QStringLiteral("promptTokens")).toLongLong();
          s.generatedTokens = m.stats.value(QStringLiteral("generatedTokens")).toLongLong();
          s.promptTokensPerSecond = m.stats.value(QStringLiteral("promptTokensPerSecond")).toDouble();
          s.generationTokensPerSecond = m.stats.value(QStringLiteral("generationTokensPerSecond")).toDouble();
          s.timeToFirstTokenMs = m.stats.value(QStringLiteral("ttftMs")).toDouble();
          stats = s;
        }
        const auto reason = m.finishReason == QLatin1String("context_full")
                                ? storage::FinishReason::Length
                                : storage::finishReasonFromName(m.finishReason).value_or(storage::FinishReason::Stop);
        store_->finishReply(id, stats,
                            reason == storage::FinishReason::Streaming ? storage::FinishReason::Stop : reason);
        if (!m.tokens.empty()) replyTokens_.insert(id, m.tokens);
      } else {
        id = store_->addMessage(conversation, parent, storage::Role::User, m.text);
      }
      messages_.setIdentity(row, id, 0, 1);
      parent = id;
    }
  });
}

QList<ChatMessage> ChatController::storedRows(qint64 conversationId, int fromRow, int dropped) {
  QList<ChatMessage> rows;
  const auto thread = store_->thread(conversationId);
  for (qsizetype i = fromRow + dropped; i < thread.size(); ++i) {
    ChatMessage m = chatMessage(thread[i]);
    m.tokens = replyTokens_.value(m.messageId);
    rows.append(std::move(m));
  }
  return rows;
}

void ChatController::switchTo(qint64 id) {
  pendingSwitch_.reset();
  std::optional<storage::Conversation> conversation;
  QList<ChatMessage> rows;
  if (id) {
    if (!store_) return;
    const bool ok = saving([&] {
      conversation = store_->conversation(id);
      if (conversation) rows = storedRows(id, 0, 0);
    });
    if (!ok) return;
    if (!conversation) {
      setError(tr("That conversation no longer exists."));
      return;
    }
  }
  conversationId_ = id;
  droppedRows_ = 0;
  messages_.replaceFrom(0, std::move(rows));
  setError({});
  setStorageError({});  // it was about the conversation left
  savedModel_ = conversation ? conversation->model : QString();
  savedSampling_ = conversation ? conversation->sampling : QJsonObject();
  // The prompt cache keeps the last conversation's tokens; the next prompt reuses whatever prefix it
  // shares with them (the session compares token by token), so nothing needs clearing here.
  // The conversation's own system prompt (not written back: opening a conversation changes nothing).
  const QString prompt =
      conversation ? conversation->systemPrompt : (settings_ ? settings_->systemPrompt() : QString());
  if (prompt != systemPrompt_) {
    systemPrompt_ = prompt;
    emit systemPromptChanged();
  }
  setContext(contextUsed_, false);
  emit conversationChanged();
}

bool ChatController::loadConversation(qint64 id) {
  if (!store_) {
    setError(tr("Saved conversations are not available: the conversation database could not be opened."));
    return false;
  }
  if (id <= 0) return false;
  if (id == conversationId_) {
    pendingSwitch_.reset();  // choosing the one on screen again cancels a switch away from it
    return true;
  }
  if (generating()) {
    pendingSwitch_ = id;
    stop();
    return true;
  }
  switchTo(id);
  return conversationId_ == id;
}

bool ChatController::showAlternative(int row, int variantIndex) {
  if (generating() || !store_ || !conversationId_ || row < 0 || row >= messages_.count()) return false;
  const qint64 id = messages_.at(row).messageId;
  if (!id) return false;
  bool shown = false;
  saving([&] {
    const auto versions = store_->alternatives(id);
    if (variantIndex < 0 || variantIndex >= versions.size()) return;
    store_->selectAlternative(versions[variantIndex].id);
    messages_.replaceFrom(row, storedRows(conversationId_, row, droppedRows_));
    shown = true;
  });
  if (shown) setContext(contextUsed_, false);
  return shown;
}

void ChatController::onConversationDeleted(qint64 id) {
  if (id != conversationId_) return;
  deletedShown_ = id;
  if (generating()) {
    pendingSwitch_ = 0;
    stop();
  } else {
    switchTo(0);
  }
}

void ChatController::onConversationRestored(qint64 id) {
  // Undo of deleting the conversation on screen: show it again if nothing else was started meanwhile.
  if (id == deletedShown_ && conversationId_ == 0 && messages_.count() == 0 && !generating()) switchTo(id);
}

void ChatController::setContext(int used, bool full) {
  if (used == contextUsed_ && full == contextFull_) return;
  contextUsed_ = used;
  contextFull_ = full;
  emit contextChanged();
}

bool ChatController::send(const QString& text) {
  const QString trimmed = text.trimmed();
  if (trimmed.isEmpty()) return false;
  if (generating()) {
    setError(tr("A reply is still being written. Stop it first."));
    return false;
  }
  if (engine_->state() != EngineBridge::State::Ready) {
    setError(tr("No model is loaded. Open a model in the model manager first."));
    return false;
  }
  const qint64 parent = lastSavedId();
  const bool saveable = threadSaved();
  const int row = messages_.append(QStringLiteral("user"), trimmed);
  if (saveable) saveUserMessage(row, parent);
  return startReply();
}

bool ChatController::regenerate() {
  if (!canRegenerate()) return false;
  const int last = messages_.count() - 1;
  if (messages_.at(last).role == QLatin1String("assistant")) messages_.removeFrom(last);
  if (messages_.count() == 0) return false;
  return startReply();
}

bool ChatController::editMessage(int row, const QString& text) {
  if (generating() || engine_->state() != EngineBridge::State::Ready) return false;
  if (row < 0 || row >= messages_.count() || messages_.at(row).role != QLatin1String("user")) return false;
  const QString trimmed = text.trimmed();
  if (trimmed.isEmpty()) return false;
  const qint64 original = messages_.at(row).messageId;
  messages_.removeFrom(row + 1);
  messages_.setText(row, trimmed);
  // The edit is a new version beside the original (kept, reachable through the bubble's pager).
  if (original) {
    saving([&] {
      const qint64 id = store_->addAlternative(original, trimmed);
      const int variant = store_->message(id)->variantIndex;
      messages_.setIdentity(row, id, variant, variant + 1);
    });
  }
  return startReply();
}

void ChatController::newConversation() {
  if (generating()) {
    pendingSwitch_ = 0;
    stop();
    return;
  }
  switchTo(0);
}

int ChatController::oldestTurnRows() const {
  // The oldest user message and everything up to the next user message (its reply).
  int n = 1;
  while (n < messages_.count() && messages_.at(n).role != QLatin1String("user")) ++n;
  return n < messages_.count() ? n : 0;  // only one turn left: nothing can be dropped
}

bool ChatController::canDropOldestTurn() const {
  return messages_.count() > 0 && oldestTurnRows() > 0;
}

bool ChatController::dropOldestTurns() {
  if (generating() || !canDropOldestTurn()) return false;
  const int n = oldestTurnRows();
  messages_.removeFirst(n);
  droppedRows_ += n;  // only the prompt loses them: the saved conversation keeps every message
  setContext(contextUsed_, false);
  if (messages_.at(messages_.count() - 1).role == QLatin1String("user")) return startReply();
  return true;
}

void ChatController::copyText(const QString& text) {
  if (auto* clipboard = QGuiApplication::clipboard()) clipboard->setText(text);
}

void ChatController::stop() {
  if (replyId_) engine_->cancel(replyId_);
}

bool ChatController::startReply() {
  GenerateRequest request;
  request.systemPrompt = systemPrompt_;
  for (int i = 0; i < messages_.count(); ++i) {
    const auto& m = messages_.at(i);
    // A reply that failed before writing anything is left out of the prompt.
    if (m.role == QLatin1String("assistant") && m.text.isEmpty() && m.tokens.empty()) continue;
    request.turns.append(ChatTurn{m.role, m.text, m.tokens});
  }
  if (settings_) {
    request.sampling = settings_->sampling();
    request.maxTokens = settings_->maxTokens();
  }
  if (maxTokensOverride_ > 0) request.maxTokens = maxTokensOverride_;
  const QJsonObject sampling = samplingJson(request.sampling, request.maxTokens);
  request.sampling.seed = QRandomGenerator::global()->generate64();

  setError({});
  // The reply is saved under the message it answers, if that message is saved.
  replyParentId_ = lastSavedId();
  replyConversationId_ = store_ && conversationId_ && replyParentId_ && threadSaved() ? conversationId_ : 0;
  replySaved_.clear();
  writer_.reset();
  if (replyConversationId_) updateConversationSettings(engine_->modelName(), sampling);
  replyRow_ = messages_.append(QStringLiteral("assistant"), QString(), true);
  replyId_ = engine_->generate(std::move(request));
  phase_ = QStringLiteral("prompt");
  promptDone_ = promptTotal_ = promptStart_ = 0;
  promptRate_ = 0;
  replyPieces_ = 0;
  speed_.reset();
  promptClock_.start();
  emit progressChanged();
  emit generatingChanged();
  return true;
}

void ChatController::onPrefill(quint64 id, int done, int total) {
  if (id != replyId_) return;
  if (promptTotal_ == 0) {  // the first report says how much of the prompt was already cached
    promptStart_ = done;
    promptClock_.start();
  }
  promptDone_ = done;
  promptTotal_ = total;
  const double s = promptClock_.nsecsElapsed() / 1e9;
  promptRate_ = s > 0 && done > promptStart_ ? (done - promptStart_) / s : 0;
  emit progressChanged();
}

void ChatController::onStarted(quint64 id) {
  if (id != replyId_) return;
  phase_ = QStringLiteral("reply");
  frameClock_.start();
  frameTimer_.start();
  emit progressChanged();
}

// Once per frame: everything the engine wrote since the last frame goes into the model in one append.
void ChatController::drain() {
  if (!replyId_) return;
  const double dt = frameClock_.nsecsElapsed() / 1e9;
  frameClock_.restart();
  const auto chunk = engine_->stream().take(replyId_);
  speed_.add(chunk.pieces, dt);
  replyPieces_ += chunk.pieces;
  if (!chunk.text.isEmpty()) {
    messages_.appendText(replyRow_, chunk.text);
    saveReplyText(chunk.text);
  }
  emit progressChanged();
}

void ChatController::onFinished(const ReplyOutcome& outcome) {
  if (outcome.id != replyId_) return;
  drain();
  // The engine's text is the reference; the streamed text already equals it unless pieces were dropped.
  if (messages_.at(replyRow_).text != outcome.text) messages_.setText(replyRow_, outcome.text);
  messages_.setSpeedHistory(replyRow_, speed_.history());
  messages_.finish(replyRow_, reasonName(outcome.reason), statsMap(outcome.stats), outcome.tokens);
  int row = replyRow_;
  bool full = outcome.reason == FinishReason::ContextFull;
  if (outcome.promptTooLong) {
    // The prompt itself did not fit: no reply bubble; the user message waits (for dropOldestTurns(),
    // or for an edit that shortens it).
    writer_.reset();
    replyConversationId_ = 0;
    messages_.removeFrom(replyRow_);
    row = messages_.count() - 1;
  } else {
    saveReplyEnd(replyStats(outcome.stats), storedFinishReason(outcome.reason));
  }
  // Dropping older messages helps only where there are some: a first message that is too long on its
  // own is not a full conversation, and the advice is to shorten it.
  const bool aloneTooLong = outcome.promptTooLong && !canDropOldestTurn();
  if (aloneTooLong) full = false;
  setContext(outcome.cachedTokens, full);
  if (aloneTooLong) {
    const int prompt = outcome.stats.prompt_tokens;
    setError(tr("This message is %n tokens too long: with it the prompt takes %1 tokens, and the model's "
                "context holds %2. Edit the message to shorten it, or raise the context length in Settings.",
                nullptr, prompt - outcome.contextLength)
                 .arg(prompt)
                 .arg(outcome.contextLength));
  } else if (full) {
    setError(
        tr("The conversation no longer fits in the model's context of %n tokens. Start a new "
           "conversation, or drop the oldest messages to continue.",
           nullptr, outcome.contextLength));
  }
  endReply();
  emit replyFinished(row);
}

void ChatController::onFailed(quint64 id, const QString& message) {
  if (id != replyId_) return;
  drain();
  messages_.finish(replyRow_, QStringLiteral("error"), {}, {}, message);
  saveReplyEnd(std::nullopt, storage::FinishReason::Error);
  const int row = replyRow_;
  setError(message);
  endReply();
  emit replyFinished(row);
}

void ChatController::endReply() {
  frameTimer_.stop();
  replyId_ = 0;
  replyRow_ = -1;
  phase_ = QStringLiteral("idle");
  emit progressChanged();
  emit generatingChanged();
  // A switch asked for while the reply was written happens now that it has ended (and is saved).
  if (pendingSwitch_)
    QTimer::singleShot(0, this, [this] {
      if (pendingSwitch_ && !generating()) switchTo(*pendingSwitch_);
    });
}

}  // namespace trit::chat
