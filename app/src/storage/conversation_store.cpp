#include "storage/conversation_store.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QRegularExpression>
#include <string>

#include "storage/schema.h"

namespace trit::storage {
namespace {

const std::string kMessageColumns =
    "id, conversation_id, parent_id, position, variant_index, selected, role, text, created_ms, prompt_tokens, "
    "generated_tokens, prompt_tokens_per_s, generation_tokens_per_s, time_to_first_token_ms, finish_reason";
const std::string kConversationColumns =
    "id, title, created_ms, updated_ms, pinned, system_prompt, model, sampling_json";

Message readMessage(const Statement& st) {
  Message m;
  m.id = st.columnInt64(0);
  m.conversationId = st.columnInt64(1);
  m.parentId = st.columnOptionalInt64(2).value_or(0);
  m.position = st.columnInt(3);
  m.variantIndex = st.columnInt(4);
  m.selected = st.columnBool(5);
  m.role = roleFromName(st.columnText(6)).value_or(Role::User);  // the CHECK constraint allows no other
  m.text = st.columnText(7);
  m.createdMs = st.columnInt64(8);
  if (!st.isNull(9)) {
    m.stats = ReplyStats{st.columnInt64(9), st.columnInt64(10), st.columnDouble(11), st.columnDouble(12),
                         st.columnDouble(13)};
  }
  if (m.role == Role::Assistant) {
    m.finish =
        st.isNull(14) ? FinishReason::Streaming : finishReasonFromName(st.columnText(14)).value_or(FinishReason::Error);
  }
  return m;
}

Conversation readConversation(const Statement& st) {
  Conversation c;
  c.id = st.columnInt64(0);
  c.title = st.columnText(1);
  c.createdMs = st.columnInt64(2);
  c.updatedMs = st.columnInt64(3);
  c.pinned = st.columnBool(4);
  c.systemPrompt = st.columnText(5);
  c.model = st.columnText(6);
  c.sampling = QJsonDocument::fromJson(st.columnText(7).toUtf8()).object();
  return c;
}

QString samplingJson(const QJsonObject& sampling) {
  return QString::fromUtf8(QJsonDocument(sampling).toJson(QJsonDocument::Compact));
}

StorageError notFound(const char* what, std::int64_t id, const char* action) {
  return StorageError(StorageError::Kind::Other, 0,
                      QStringLiteral("cannot %1: %2 %3 does not exist")
                          .arg(QString::fromUtf8(action), QString::fromUtf8(what))
                          .arg(id));
}

}  // namespace

std::int64_t ConversationStore::nowMs() {
  return QDateTime::currentMSecsSinceEpoch();
}

ConversationStore::ConversationStore(const QString& path, const OpenOptions& options, QObject* parent)
    : QObject(parent) {
  // SQLite takes an empty file for a new database, and so does Trit (a version-0 database is one): an
  // empty file holds no conversation, so nothing can be lost by starting in it. But a file that should
  // hold conversations and was emptied by something else must not vanish silently: the callers say it.
  if (const QFileInfo info(path); info.exists() && info.isFile() && info.size() == 0) emptyAtOpen_ = true;
  db_ = std::make_unique<Database>(path);
  int busy = options.busyTimeoutMs;
  bool ok = false;
  const int fromEnv = qEnvironmentVariableIntValue("TRIT_DB_BUSY_TIMEOUT_MS", &ok);
  if (ok && fromEnv >= 0) busy = fromEnv;
  db_->setBusyTimeout(busy);
  // journal_mode is the first statement that reads the file header, so a file that is not a database
  // fails here with Kind::Corrupt before anything is written.
  db_->exec("PRAGMA journal_mode = WAL");
  db_->exec("PRAGMA foreign_keys = ON");
  // In WAL mode NORMAL loses no committed transaction when the process dies (only on power loss).
  db_->exec("PRAGMA synchronous = NORMAL");
  migrate(*db_);
  if (options.recoverInterruptedReplies) interruptedAtOpen_ = markInterruptedReplies();
  if (options.purgeDeletedOlderThanMs >= 0) purgeDeleted(nowMs() - options.purgeDeletedOlderThanMs);
}

ConversationStore::~ConversationStore() = default;

QString ConversationStore::moveCorruptFileAside(const QString& path) {
  const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss"));
  QString target = path + QStringLiteral(".corrupt-") + stamp;
  for (int n = 2; QFileInfo::exists(target); ++n)
    target = path + QStringLiteral(".corrupt-") + stamp + QLatin1Char('-') + QString::number(n);
  if (!QFile::rename(path, target)) {
    throw StorageError(
        StorageError::Kind::CannotOpen, 0,
        QStringLiteral("cannot move the damaged database %1 aside to %2; move or delete it by hand").arg(path, target));
  }
  // The write-ahead log and shared-memory index belong to the damaged file: keep them with it.
  for (const char* suffix : {"-wal", "-shm"}) {
    const QString side = path + QLatin1String(suffix);
    if (QFileInfo::exists(side)) QFile::rename(side, target + QLatin1String(suffix));
  }
  return target;
}

void ConversationStore::touch(std::int64_t conversationId, std::int64_t whenMs) {
  db_->prepare("UPDATE conversations SET updated_ms = max(updated_ms, ?2) WHERE id = ?1")
      .bind(1, conversationId)
      .bind(2, whenMs)
      .run();
}

void ConversationStore::requireConversation(std::int64_t id, const char* action) {
  auto st = db_->prepare("SELECT 1 FROM conversations WHERE id = ?1 AND deleted_ms IS NULL");
  st.bind(1, id);
  if (!st.step()) throw notFound("conversation", id, action);
}

std::int64_t ConversationStore::createConversation(const QString& title, const QString& systemPrompt,
                                                   const QString& model, const QJsonObject& sampling) {
  const std::int64_t now = nowMs();
  db_->prepare(
         "INSERT INTO conversations (title, created_ms, updated_ms, system_prompt, model, sampling_json) "
         "VALUES (?1, ?2, ?2, ?3, ?4, ?5)")
      .bind(1, title.trimmed())
      .bind(2, now)
      .bind(3, systemPrompt)
      .bind(4, model)
      .bind(5, samplingJson(sampling))
      .run();
  const std::int64_t id = db_->lastInsertRowId();
  emit conversationAdded(id);
  return id;
}

std::optional<Conversation> ConversationStore::conversation(std::int64_t id) {
  static const std::string sql =
      "SELECT " + kConversationColumns + " FROM conversations WHERE id = ?1 AND deleted_ms IS NULL";
  auto st = db_->prepare(sql.c_str());
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return readConversation(st);
}

QList<Conversation> ConversationStore::listConversations(int limit, int offset) {
  static const std::string sql = "SELECT " + kConversationColumns +
                                 " FROM conversations WHERE deleted_ms IS NULL "
                                 "ORDER BY pinned DESC, updated_ms DESC, id DESC LIMIT ?1 OFFSET ?2";
  auto st = db_->prepare(sql.c_str());
  st.bind(1, limit).bind(2, offset);
  QList<Conversation> out;
  while (st.step()) out.append(readConversation(st));
  return out;
}

QList<Conversation> ConversationStore::listConversationsAfter(const Conversation& last, int limit) {
  static const std::string sql =
      "SELECT " + kConversationColumns +
      " FROM conversations WHERE deleted_ms IS NULL AND (pinned, updated_ms, id) < (?1, ?2, ?3) "
      "ORDER BY pinned DESC, updated_ms DESC, id DESC LIMIT ?4";
  auto st = db_->prepare(sql.c_str());
  st.bind(1, last.pinned).bind(2, last.updatedMs).bind(3, last.id).bind(4, limit);
  QList<Conversation> out;
  while (st.step()) out.append(readConversation(st));
  return out;
}

bool ConversationStore::listsBefore(const Conversation& a, const Conversation& b) {
  if (a.pinned != b.pinned) return a.pinned;
  if (a.updatedMs != b.updatedMs) return a.updatedMs > b.updatedMs;
  return a.id > b.id;
}

int ConversationStore::conversationCount() {
  auto st = db_->prepare("SELECT count(*) FROM conversations WHERE deleted_ms IS NULL");
  st.step();
  return st.columnInt(0);
}

void ConversationStore::renameConversation(std::int64_t id, const QString& title) {
  requireConversation(id, "rename the conversation");
  db_->prepare("UPDATE conversations SET title = ?2 WHERE id = ?1").bind(1, id).bind(2, title.trimmed()).run();
  emit conversationChanged(id);
}

void ConversationStore::setPinned(std::int64_t id, bool pinned) {
  requireConversation(id, "pin the conversation");
  db_->prepare("UPDATE conversations SET pinned = ?2 WHERE id = ?1").bind(1, id).bind(2, pinned).run();
  emit conversationChanged(id);
}

void ConversationStore::setSystemPrompt(std::int64_t id, const QString& systemPrompt) {
  requireConversation(id, "set the system prompt");
  db_->prepare("UPDATE conversations SET system_prompt = ?2 WHERE id = ?1").bind(1, id).bind(2, systemPrompt).run();
  emit conversationChanged(id);
}

void ConversationStore::setModel(std::int64_t id, const QString& model) {
  requireConversation(id, "set the model");
  db_->prepare("UPDATE conversations SET model = ?2 WHERE id = ?1").bind(1, id).bind(2, model).run();
  emit conversationChanged(id);
}

void ConversationStore::setSampling(std::int64_t id, const QJsonObject& sampling) {
  requireConversation(id, "set the sampling settings");
  db_->prepare("UPDATE conversations SET sampling_json = ?2 WHERE id = ?1")
      .bind(1, id)
      .bind(2, samplingJson(sampling))
      .run();
  emit conversationChanged(id);
}

void ConversationStore::deleteConversation(std::int64_t id) {
  requireConversation(id, "delete the conversation");
  db_->prepare("UPDATE conversations SET deleted_ms = ?2 WHERE id = ?1").bind(1, id).bind(2, nowMs()).run();
  emit conversationDeleted(id);
}

void ConversationStore::restoreConversation(std::int64_t id) {
  db_->prepare("UPDATE conversations SET deleted_ms = NULL WHERE id = ?1 AND deleted_ms IS NOT NULL").bind(1, id).run();
  if (db_->changes() == 0) {
    throw StorageError(StorageError::Kind::Other, 0,
                       QStringLiteral("cannot undo the delete: conversation %1 is not deleted, or it was already "
                                      "removed for good")
                           .arg(id));
  }
  emit conversationRestored(id);
}

void ConversationStore::purgeConversation(std::int64_t id) {
  // Messages go with it (ON DELETE CASCADE), and the FTS triggers drop them from the index.
  db_->prepare("DELETE FROM conversations WHERE id = ?1").bind(1, id).run();
}

int ConversationStore::purgeDeleted(std::int64_t deletedBeforeMs) {
  // Look before writing: a write statement takes the write lock even when it changes nothing, and the
  // common case (nothing to purge) must not wait for another process's lock.
  auto any = db_->prepare("SELECT 1 FROM conversations WHERE deleted_ms IS NOT NULL AND deleted_ms < ?1 LIMIT 1");
  any.bind(1, deletedBeforeMs);
  if (!any.step()) return 0;
  Transaction tx(*db_);
  db_->prepare("DELETE FROM conversations WHERE deleted_ms IS NOT NULL AND deleted_ms < ?1")
      .bind(1, deletedBeforeMs)
      .run();
  const int n = db_->changes();
  tx.commit();
  return n;
}

QString ConversationStore::automaticTitle(const QString& firstMessage) {
  constexpr int kMax = 60;  // what fits a sidebar row at the default width
  QString t = firstMessage.simplified();
  if (t.size() <= kMax) return t;
  int cut = t.lastIndexOf(QLatin1Char(' '), kMax);
  if (cut < kMax / 2) cut = kMax;              // one very long word: cut inside it
  if (t.at(cut - 1).isHighSurrogate()) --cut;  // never split a character in two
  return t.left(cut).trimmed() + QChar(0x2026);
}

std::int64_t ConversationStore::insertMessage(const Message& m) {
  db_->prepare(
         "INSERT INTO messages (conversation_id, parent_id, position, variant_index, selected, role, text, "
         "created_ms, prompt_tokens, generated_tokens, prompt_tokens_per_s, generation_tokens_per_s, "
         "time_to_first_token_ms, finish_reason) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)")
      .bind(1, m.conversationId)
      .bindIdOrNull(2, m.parentId)
      .bind(3, m.position)
      .bind(4, m.variantIndex)
      .bind(5, m.selected)
      .bind(6, roleName(m.role))
      .bind(7, m.text)
      .bind(8, m.createdMs)
      .bind(9, m.stats ? std::optional<std::int64_t>(m.stats->promptTokens) : std::nullopt)
      .bind(10, m.stats ? std::optional<std::int64_t>(m.stats->generatedTokens) : std::nullopt)
      .bind(11, m.stats ? std::optional<double>(m.stats->promptTokensPerSecond) : std::nullopt)
      .bind(12, m.stats ? std::optional<double>(m.stats->generationTokensPerSecond) : std::nullopt)
      .bind(13, m.stats ? std::optional<double>(m.stats->timeToFirstTokenMs) : std::nullopt)
      .bind(14, m.finish && *m.finish != FinishReason::Streaming ? std::optional<QString>(finishReasonName(*m.finish))
                                                                 : std::nullopt)
      .run();
  return db_->lastInsertRowId();
}

std::int64_t ConversationStore::addMessage(std::int64_t conversationId, std::int64_t parentId, Role role,
                                           const QString& text, std::int64_t createdMs) {
  Transaction tx(*db_);
  const std::optional<FinishReason> finish =
      role == Role::Assistant ? std::optional<FinishReason>(FinishReason::Stop) : std::nullopt;
  const std::int64_t id = addMessageInTransaction(conversationId, parentId, role, text, createdMs, finish);
  tx.commit();
  emit threadChanged(conversationId);
  emit conversationChanged(conversationId);
  return id;
}

std::int64_t ConversationStore::addMessageInTransaction(std::int64_t conversationId, std::int64_t parentId, Role role,
                                                        const QString& text, std::int64_t createdMs,
                                                        std::optional<FinishReason> finish) {
  requireConversation(conversationId, "add a message");
  Message m;
  m.conversationId = conversationId;
  m.parentId = parentId;
  m.role = role;
  m.text = text;
  m.createdMs = createdMs ? createdMs : nowMs();
  m.finish = finish;
  if (parentId) {
    auto st = db_->prepare("SELECT position FROM messages WHERE id = ?1 AND conversation_id = ?2");
    st.bind(1, parentId).bind(2, conversationId);
    if (!st.step()) throw notFound("message", parentId, "add a reply to it (in this conversation)");
    m.position = st.columnInt(0) + 1;
  }
  {
    auto st = db_->prepare(
        "SELECT coalesce(max(variant_index) + 1, 0) FROM messages WHERE conversation_id = ?1 AND parent_id IS ?2");
    st.bind(1, conversationId).bindIdOrNull(2, parentId);
    st.step();
    m.variantIndex = st.columnInt(0);
  }
  db_->prepare("UPDATE messages SET selected = 0 WHERE conversation_id = ?1 AND parent_id IS ?2 AND selected")
      .bind(1, conversationId)
      .bindIdOrNull(2, parentId)
      .run();
  const std::int64_t id = insertMessage(m);
  touch(conversationId, m.createdMs);
  if (role == Role::User) {
    // Only an untitled conversation gets the automatic title: a name the user chose is never replaced.
    db_->prepare("UPDATE conversations SET title = ?2 WHERE id = ?1 AND title = '' AND ?2 <> ''")
        .bind(1, conversationId)
        .bind(2, automaticTitle(text))
        .run();
  }
  return id;
}

std::int64_t ConversationStore::addAlternative(std::int64_t messageId, const QString& text) {
  const auto original = message(messageId);
  if (!original) throw notFound("message", messageId, "edit it");
  if (original->role == Role::Assistant) {
    // An edited reply is a finished reply written by the user; keep no statistics for it.
    return addMessage(original->conversationId, original->parentId, Role::Assistant, text);
  }
  return addMessage(original->conversationId, original->parentId, original->role, text);
}

std::optional<Message> ConversationStore::message(std::int64_t id) {
  static const std::string sql = "SELECT " + kMessageColumns + " FROM messages WHERE id = ?1";
  auto st = db_->prepare(sql.c_str());
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  return readMessage(st);
}

QList<Message> ConversationStore::alternatives(std::int64_t messageId) {
  const auto m = message(messageId);
  if (!m) throw notFound("message", messageId, "list its alternatives");
  static const std::string sql = "SELECT " + kMessageColumns +
                                 " FROM messages WHERE conversation_id = ?1 AND parent_id IS ?2 ORDER BY variant_index";
  auto st = db_->prepare(sql.c_str());
  st.bind(1, m->conversationId).bindIdOrNull(2, m->parentId);
  QList<Message> out;
  while (st.step()) out.append(readMessage(st));
  return out;
}

void ConversationStore::selectAlternative(std::int64_t messageId) {
  Transaction tx(*db_);
  const auto m = message(messageId);
  if (!m) throw notFound("message", messageId, "show it");
  db_->prepare("UPDATE messages SET selected = (id = ?3) WHERE conversation_id = ?1 AND parent_id IS ?2")
      .bind(1, m->conversationId)
      .bindIdOrNull(2, m->parentId)
      .bind(3, messageId)
      .run();
  tx.commit();
  emit threadChanged(m->conversationId);
}

QList<Message> ConversationStore::allMessages(std::int64_t conversationId) {
  static const std::string sql =
      "SELECT " + kMessageColumns + " FROM messages WHERE conversation_id = ?1 ORDER BY variant_index, id";
  auto st = db_->prepare(sql.c_str());
  st.bind(1, conversationId);
  QList<Message> rows;
  while (st.step()) rows.append(readMessage(st));
  // Depth first from the top, alternatives in variant order: an order that depends only on the shape
  // of the conversation, not on database ids, so an exported and re-imported copy lists the same way.
  QHash<std::int64_t, QList<int>> children;
  for (int i = 0; i < rows.size(); ++i) children[rows[i].parentId].append(i);
  QList<Message> out;
  out.reserve(rows.size());
  QList<int> stack;
  const auto pushChildren = [&](std::int64_t parent) {
    const QList<int> kids = children.value(parent);
    for (auto it = kids.crbegin(); it != kids.crend(); ++it) stack.append(*it);
  };
  pushChildren(0);
  while (!stack.isEmpty()) {
    const int i = stack.takeLast();
    out.append(rows[i]);
    pushChildren(rows[i].id);
  }
  return out;
}

QList<ThreadMessage> ConversationStore::thread(std::int64_t conversationId) {
  const QList<Message> all = allMessages(conversationId);
  QHash<std::int64_t, QList<int>> children;  // parent id (0: root) -> indexes into `all`, in variant order
  for (int i = 0; i < all.size(); ++i) children[all[i].parentId].append(i);
  QList<ThreadMessage> out;
  std::int64_t parent = 0;
  for (;;) {
    const auto it = children.constFind(parent);
    if (it == children.cend() || it->isEmpty()) break;
    int chosen = it->back();  // if none is marked (never written so), show the newest
    for (int i : *it)
      if (all[i].selected) chosen = i;
    out.append(ThreadMessage{all[chosen], static_cast<int>(it->size())});
    parent = all[chosen].id;
  }
  return out;
}

std::int64_t ConversationStore::beginReply(std::int64_t conversationId, std::int64_t parentId) {
  Transaction tx(*db_);
  const std::int64_t id =
      addMessageInTransaction(conversationId, parentId, Role::Assistant, QString(), 0, FinishReason::Streaming);
  tx.commit();
  emit threadChanged(conversationId);
  emit conversationChanged(conversationId);
  return id;
}

void ConversationStore::appendReplyText(std::int64_t messageId, const QString& text) {
  Transaction tx(*db_);
  auto st = db_->prepare(
      "UPDATE messages SET text = text || ?2 WHERE id = ?1 AND role = 'assistant' AND finish_reason IS NULL "
      "RETURNING conversation_id");
  st.bind(1, messageId).bind(2, text);
  if (!st.step()) {
    throw StorageError(StorageError::Kind::Other, 0,
                       QStringLiteral("cannot add text to message %1: it is not a reply being written").arg(messageId));
  }
  const std::int64_t conversationId = st.columnInt64(0);
  st.reset();
  touch(conversationId, nowMs());
  tx.commit();
  emit messageTextChanged(conversationId, messageId);
}

void ConversationStore::finishReply(std::int64_t messageId, const std::optional<ReplyStats>& stats,
                                    FinishReason reason) {
  if (reason == FinishReason::Streaming) {
    throw StorageError(StorageError::Kind::Other, 0,
                       QStringLiteral("cannot finish reply %1 with no finish reason").arg(messageId));
  }
  auto st = db_->prepare(
      "UPDATE messages SET finish_reason = ?2, prompt_tokens = ?3, generated_tokens = ?4, prompt_tokens_per_s = ?5, "
      "generation_tokens_per_s = ?6, time_to_first_token_ms = ?7 "
      "WHERE id = ?1 AND role = 'assistant' AND finish_reason IS NULL RETURNING conversation_id");
  st.bind(1, messageId).bind(2, finishReasonName(reason));
  if (stats) {
    st.bind(3, stats->promptTokens)
        .bind(4, stats->generatedTokens)
        .bind(5, stats->promptTokensPerSecond)
        .bind(6, stats->generationTokensPerSecond)
        .bind(7, stats->timeToFirstTokenMs);
  }
  if (!st.step()) {
    throw StorageError(StorageError::Kind::Other, 0,
                       QStringLiteral("cannot finish message %1: it is not a reply being written").arg(messageId));
  }
  const std::int64_t conversationId = st.columnInt64(0);
  st.reset();
  emit messageTextChanged(conversationId, messageId);
}

int ConversationStore::markInterruptedReplies() {
  auto any = db_->prepare("SELECT 1 FROM messages WHERE role = 'assistant' AND finish_reason IS NULL LIMIT 1");
  if (!any.step()) return 0;  // as in purgeDeleted: no write lock when there is nothing to write
  db_->prepare("UPDATE messages SET finish_reason = 'interrupted' WHERE role = 'assistant' AND finish_reason IS NULL")
      .run();
  return db_->changes();
}

std::unique_ptr<ConversationStore> openStoreMovingCorruptAside(const QString& path, QString* notice,
                                                               const OpenOptions& options) {
  try {
    return std::make_unique<ConversationStore>(path, options);
  } catch (const StorageError& e) {
    if (e.kind() != StorageError::Kind::Corrupt) throw;
    const QString aside = ConversationStore::moveCorruptFileAside(path);
    if (notice) {
      *notice = QStringLiteral("%1; it was kept as %2 and a new, empty one was started").arg(e.message(), aside);
    }
    return std::make_unique<ConversationStore>(path, options);
  }
}

QString ftsQueryFromUserText(const QString& text) {
  // Split into "quoted phrases" and bare words; everything else FTS5 would parse as syntax is quoted away.
  static const QRegularExpression token(QStringLiteral(R"re("([^"]*)"|(\S+))re"));
  QStringList parts;
  auto it = token.globalMatch(text);
  while (it.hasNext()) {
    const auto match = it.next();
    const bool phrase = match.capturedStart(1) >= 0;  // a closed "..." pair; a lone quote is dropped below
    QString term = phrase ? match.captured(1) : match.captured(2);
    term.remove(QLatin1Char('"'));
    // A term made only of punctuation has no tokens for FTS5; leave it out rather than match nothing.
    bool hasWordChar = false;
    for (QChar c : term) hasWordChar = hasWordChar || c.isLetterOrNumber();
    if (!hasWordChar) continue;
    // Bare words match as prefixes (search as you type; "cafe" finds "cafés"); phrases match exactly.
    parts << QLatin1Char('"') + term + QLatin1Char('"') + (phrase ? QString() : QStringLiteral("*"));
  }
  return parts.join(QLatin1Char(' '));
}

QList<SearchHit> ConversationStore::search(const QString& query, int limit) {
  const QString fts = ftsQueryFromUserText(query);
  QList<SearchHit> out;
  if (fts.isEmpty()) return out;
  // Newest first: FTS5 walks its index by rowid (message ids grow with time) and stops at the limit,
  // so a word found in a million messages costs no more than a rare one.
  auto st = db_->prepare(
      "SELECT m.conversation_id, c.title, m.id, m.role, m.created_ms, "
      "snippet(messages_fts, 0, ?2, ?3, '\u2026', 12) "
      "FROM messages_fts JOIN messages AS m ON m.id = messages_fts.rowid "
      "JOIN conversations AS c ON c.id = m.conversation_id "
      "WHERE messages_fts MATCH ?1 AND c.deleted_ms IS NULL "
      "ORDER BY messages_fts.rowid DESC LIMIT ?4");
  st.bind(1, fts).bind(2, QString(kMatchStart)).bind(3, QString(kMatchEnd)).bind(4, limit);
  while (st.step()) {
    SearchHit hit;
    hit.conversationId = st.columnInt64(0);
    hit.conversationTitle = st.columnText(1);
    hit.messageId = st.columnInt64(2);
    hit.role = roleFromName(st.columnText(3)).value_or(Role::User);
    hit.createdMs = st.columnInt64(4);
    hit.snippet = st.columnText(5);
    out.append(hit);
  }
  return out;
}

std::int64_t ConversationStore::insertConversation(const Conversation& c, const QList<ImportedMessage>& messages) {
  Transaction tx(*db_);
  db_->prepare(
         "INSERT INTO conversations (title, created_ms, updated_ms, pinned, system_prompt, model, sampling_json) "
         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
      .bind(1, c.title)
      .bind(2, c.createdMs)
      .bind(3, c.updatedMs)
      .bind(4, c.pinned)
      .bind(5, c.systemPrompt)
      .bind(6, c.model)
      .bind(7, samplingJson(c.sampling))
      .run();
  const std::int64_t conversationId = db_->lastInsertRowId();
  QList<std::int64_t> newIds;
  newIds.reserve(messages.size());
  for (const ImportedMessage& im : messages) {
    Message m = im.message;
    m.conversationId = conversationId;
    m.parentId = im.parentIndex >= 0 ? newIds.at(im.parentIndex) : 0;
    newIds.append(insertMessage(m));
  }
  tx.commit();
  emit conversationAdded(conversationId);
  return conversationId;
}

QString ConversationStore::integrityCheck() {
  auto st = db_->prepare("PRAGMA integrity_check");
  QStringList lines;
  while (st.step()) lines << st.columnText(0);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace trit::storage
