#include "chat/chat_controller.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QRandomGenerator>

#include "chat/app_settings.h"
#include "chat/engine_bridge.h"

namespace trit::chat {
namespace {

QString reasonName(FinishReason r) { return QString::fromLatin1(to_string(r)); }

QVariantMap statsMap(const GenerationStats& s) {
  return {{QStringLiteral("promptTokens"), s.prompt_tokens},
          {QStringLiteral("reusedTokens"), s.reused_tokens},
          {QStringLiteral("generatedTokens"), s.generated_tokens},
          {QStringLiteral("ttftMs"), s.ttft_ms},
          {QStringLiteral("prefillMs"), s.prefill_ms},
          {QStringLiteral("decodeMs"), s.decode_ms},
          {QStringLiteral("promptTokensPerSecond"), s.prompt_tokens_per_s()},
          {QStringLiteral("generationTokensPerSecond"), s.generation_tokens_per_s()}};
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
}

void ChatController::setSystemPrompt(const QString& prompt) {
  if (prompt == systemPrompt_) return;
  systemPrompt_ = prompt;
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
  messages_.append(QStringLiteral("user"), trimmed);
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
  messages_.removeFrom(row + 1);
  messages_.setText(row, trimmed);
  return startReply();
}

void ChatController::newConversation() {
  stop();
  messages_.clear();
  setError({});
  if (settings_) setSystemPrompt(settings_->systemPrompt());
  // The cache keeps the old tokens until the next prompt overwrites them: nothing else to do.
  setContext(contextUsed_, false);
}

bool ChatController::dropOldestTurns() {
  if (generating() || messages_.count() == 0) return false;
  // The oldest user message and everything up to the next user message (its reply).
  int n = 1;
  while (n < messages_.count() && messages_.at(n).role != QLatin1String("user")) ++n;
  if (n >= messages_.count()) return false;  // only one turn left: nothing can be dropped
  messages_.removeFirst(n);
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
  request.sampling.seed = QRandomGenerator::global()->generate64();

  setError({});
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
  if (!chunk.text.isEmpty()) messages_.appendText(replyRow_, chunk.text);
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
  const bool full = outcome.reason == FinishReason::ContextFull;
  if (full && outcome.text.isEmpty()) {
    // The prompt itself did not fit: no reply bubble; the user message waits for dropOldestTurns().
    messages_.removeFrom(replyRow_);
    row = messages_.count() - 1;
  }
  setContext(outcome.cachedTokens, full);
  if (full)
    setError(tr("The conversation no longer fits in the model's context of %n tokens. Start a new "
                "conversation, or drop the oldest messages to continue.", nullptr, outcome.contextLength));
  endReply();
  emit replyFinished(row);
}

void ChatController::onFailed(quint64 id, const QString& message) {
  if (id != replyId_) return;
  drain();
  messages_.finish(replyRow_, QStringLiteral("error"), {}, {}, message);
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
}

}  // namespace trit::chat
