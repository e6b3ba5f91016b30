#include "storage/reply_writer.h"

namespace trit::storage {

ReplyWriter::ReplyWriter(ConversationStore& store, QObject* parent) : QObject(parent), store_(store) {
  timer_.setSingleShot(true);
  connect(&timer_, &QTimer::timeout, this, [this] {
    try {
      flush();
    } catch (const StorageError& e) {
      // Keep the text in memory; the next append, flush or finish tries again and reports it.
      qWarning("trit: cannot save the reply yet: %s", e.what());
    }
  });
}

ReplyWriter::~ReplyWriter() {
  if (!active()) return;
  try {
    flush();
  } catch (const StorageError& e) {
    qWarning("trit: the end of a reply could not be saved: %s", e.what());
  }
}

std::int64_t ReplyWriter::begin(std::int64_t conversationId, std::int64_t parentId) {
  if (active()) {
    throw StorageError(StorageError::Kind::Other, 0,
                       QStringLiteral("cannot begin a reply: reply %1 is still being written").arg(messageId_));
  }
  messageId_ = store_.beginReply(conversationId, parentId);
  pending_.clear();
  flushes_ = 0;
  sinceFlush_.start();
  return messageId_;
}

void ReplyWriter::append(const QString& text) {
  if (!active()) {
    throw StorageError(StorageError::Kind::Other, 0, QStringLiteral("cannot add reply text: no reply was begun"));
  }
  pending_ += text;
  if (sinceFlush_.elapsed() >= kFlushIntervalMs) {
    flush();
  } else if (!timer_.isActive()) {
    timer_.start(static_cast<int>(kFlushIntervalMs - sinceFlush_.elapsed()));
  }
}

void ReplyWriter::flush() {
  timer_.stop();
  if (!active() || pending_.isEmpty()) return;
  store_.appendReplyText(messageId_, pending_);  // on failure the text stays pending
  pending_.clear();
  sinceFlush_.restart();
  ++flushes_;
}

void ReplyWriter::finish(const std::optional<ReplyStats>& stats, FinishReason reason) {
  flush();
  store_.finishReply(messageId_, stats, reason);
  messageId_ = 0;
}

}  // namespace trit::storage
