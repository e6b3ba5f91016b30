#pragma once
// Every conversation and message, kept in one SQLite file (see docs/storage.md). The store is the only
// code that writes SQL for conversations; the list/search/message models and the headless commands
// go through it. Methods throw StorageError; signals tell models what changed so they can update
// only the affected rows.
#include <QObject>
#include <QString>
#include <memory>

#include "storage/conversation_types.h"
#include "storage/sqlite.h"

namespace trit::storage {

struct OpenOptions {
  // The app marks replies left unfinished by a process that died as interrupted. Headless commands
  // leave them alone: the app may be streaming into one right now.
  bool recoverInterruptedReplies = true;
  // Conversations deleted before this many ms ago are purged at open (their undo window is long over).
  std::int64_t purgeDeletedOlderThanMs = 60'000;
  int busyTimeoutMs = 5000;  // TRIT_DB_BUSY_TIMEOUT_MS overrides it (tests use a short one)
};

class ConversationStore : public QObject {
  Q_OBJECT

 public:
  // Opens or creates the database at `path`, brings its schema up to date and recovers unfinished
  // replies. Throws StorageError: Kind::Locked when another process holds the write lock past the
  // busy timeout, Kind::Corrupt when the file is damaged (see moveCorruptFileAside()).
  explicit ConversationStore(const QString& path, const OpenOptions& options = {}, QObject* parent = nullptr);
  ~ConversationStore() override;

  // Renames a damaged database (and its -wal/-shm files) to "<name>.corrupt-<UTC timestamp>" beside
  // it, so a fresh one can be started without losing the old bytes. Returns the new path; throws
  // StorageError if the rename fails (the file is then left exactly where it was).
  static QString moveCorruptFileAside(const QString& path);

  Database& database() { return *db_; }
  const QString& path() const { return db_->path(); }
  // Replies found unfinished and marked interrupted when this store opened.
  int interruptedAtOpen() const { return interruptedAtOpen_; }
  // The file existed but was empty (0 bytes) when opened: a new database was started in it.
  bool emptyAtOpen() const { return emptyAtOpen_; }

  // Conversations.
  std::int64_t createConversation(const QString& title = {}, const QString& systemPrompt = {},
                                  const QString& model = {}, const QJsonObject& sampling = {});
  std::optional<Conversation> conversation(std::int64_t id);  // nullopt if missing or deleted
  // Pinned first, then most recently used first; deleted ones left out.
  QList<Conversation> listConversations(int limit = -1, int offset = 0);
  // The next page after `last` in the same order (keyset paging: stays correct while rows move).
  QList<Conversation> listConversationsAfter(const Conversation& last, int limit);
  // True if `a` comes before `b` in the list order.
  static bool listsBefore(const Conversation& a, const Conversation& b);
  int conversationCount();
  void renameConversation(std::int64_t id, const QString& title);
  void setPinned(std::int64_t id, bool pinned);
  void setSystemPrompt(std::int64_t id, const QString& systemPrompt);
  void setModel(std::int64_t id, const QString& model);
  void setSampling(std::int64_t id, const QJsonObject& sampling);
  // Delete with undo: the conversation disappears from lists and search at once; restore brings it
  // back unchanged; purge removes the data for good.
  void deleteConversation(std::int64_t id);
  void restoreConversation(std::int64_t id);
  void purgeConversation(std::int64_t id);
  int purgeDeleted(std::int64_t deletedBeforeMs);

  // Messages. A new message becomes the selected child of `parentId` (0: start of the conversation);
  // if the parent already has children, the new one is an alternative to them (an edit or a
  // regeneration) and the earlier ones stay. The first user message gives an untitled conversation
  // its automatic title.
  std::int64_t addMessage(std::int64_t conversationId, std::int64_t parentId, Role role, const QString& text,
                          std::int64_t createdMs = 0);
  // An edit: a new alternative of `messageId` (same parent, same role) with `text`, selected.
  std::int64_t addAlternative(std::int64_t messageId, const QString& text);
  std::optional<Message> message(std::int64_t id);
  QList<Message> alternatives(std::int64_t messageId);       // siblings, in variant order, itself included
  void selectAlternative(std::int64_t messageId);            // shows it (and the thread below it)
  QList<ThreadMessage> thread(std::int64_t conversationId);  // the shown path, first message first
  QList<Message> allMessages(std::int64_t conversationId);   // every version, depth first, parents first

  // Streaming replies (ReplyWriter batches these calls).
  std::int64_t beginReply(std::int64_t conversationId, std::int64_t parentId);
  void appendReplyText(std::int64_t messageId, const QString& text);
  void finishReply(std::int64_t messageId, const std::optional<ReplyStats>& stats, FinishReason reason);
  int markInterruptedReplies();

  // Full-text search over every message of every conversation not deleted, newest matches first.
  // `query` is what the user typed: words match as prefixes, all required; "quoted phrases" kept.
  QList<SearchHit> search(const QString& query, int limit = 50);

  // Writes a whole conversation as given (used by import): ids are new, parents follow `messages`
  // order (parentIndex, -1 for none). Returns the new conversation id.
  struct ImportedMessage {
    Message message;
    int parentIndex = -1;
  };
  std::int64_t insertConversation(const Conversation& conversation, const QList<ImportedMessage>& messages);

  QString integrityCheck();  // "ok" or SQLite's list of problems

  static QString automaticTitle(const QString& firstMessage);
  static std::int64_t nowMs();

 signals:
  void conversationAdded(qint64 id);
  void conversationChanged(qint64 id);  // title, pin, settings or last-use time changed
  void conversationDeleted(qint64 id);
  void conversationRestored(qint64 id);
  void threadChanged(qint64 conversationId);                         // messages added or another alternative selected
  void messageTextChanged(qint64 conversationId, qint64 messageId);  // a streaming reply grew or finished

 private:
  void touch(std::int64_t conversationId, std::int64_t whenMs);
  void requireConversation(std::int64_t id, const char* action);
  std::int64_t insertMessage(const Message& m);
  std::int64_t addMessageInTransaction(std::int64_t conversationId, std::int64_t parentId, Role role,
                                       const QString& text, std::int64_t createdMs, std::optional<FinishReason> finish);

  std::unique_ptr<Database> db_;
  int interruptedAtOpen_ = 0;
  bool emptyAtOpen_ = false;
};

// For the app: opens the database at `path`; if the file is damaged it is moved aside (never
// overwritten) and a new database started, and `notice` says where the old one went so the user can be
// told. Other failures (locked, unreadable folder) throw StorageError.
std::unique_ptr<ConversationStore> openStoreMovingCorruptAside(const QString& path, QString* notice,
                                                               const OpenOptions& options = {});

// Converts a query typed by a person into an FTS5 query that cannot be a syntax error: each word
// becomes a quoted prefix match ("word"*), "quoted phrases" stay exact phrases, stray quotes and
// punctuation-only words are dropped. Empty when nothing searchable is left.
QString ftsQueryFromUserText(const QString& text);

}  // namespace trit::storage
