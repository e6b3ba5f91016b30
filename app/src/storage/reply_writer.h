#pragma once
// Writes a reply to the database while it streams: text is collected in memory and written at most
// every 250 ms (and at the end), so a crash loses at most the last quarter second while the disk sees
// a handful of small transactions per second instead of one per token.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include "storage/conversation_store.h"

namespace trit::storage {

class ReplyWriter : public QObject {
  Q_OBJECT

 public:
  static constexpr int kFlushIntervalMs = 250;

  explicit ReplyWriter(ConversationStore& store, QObject* parent = nullptr);
  // A reply still open when the writer goes away is flushed and left unfinished: the next open of the
  // database marks it interrupted, exactly as if the process had died.
  ~ReplyWriter() override;

  // Starts a reply under `parentId` (usually the user message it answers; a second reply to the same
  // message is a regeneration, kept as an alternative). Returns the new message id.
  std::int64_t begin(std::int64_t conversationId, std::int64_t parentId);
  // Adds streamed text; written at once if the last write is 250 ms old, otherwise by a timer (when an
  // event loop runs) or by the next append, flush() or finish().
  void append(const QString& text);
  void flush();
  void finish(const std::optional<ReplyStats>& stats, FinishReason reason);

  bool active() const { return messageId_ != 0; }
  std::int64_t messageId() const { return messageId_; }
  int flushCount() const { return flushes_; }  // writes so far, for tests and diagnostics

 private:
  ConversationStore& store_;
  std::int64_t messageId_ = 0;
  QString pending_;
  QElapsedTimer sinceFlush_;
  QTimer timer_;
  int flushes_ = 0;
};

}  // namespace trit::storage
