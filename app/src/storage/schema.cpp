#include "storage/schema.h"

#include <QString>
#include <array>
#include <string>

#include "storage/sqlite.h"

namespace trit::storage {
namespace {

// The triggers that keep the external-content FTS index in step with `messages` (versions 3 and 4).
constexpr const char* kFtsInsertTrigger =
    R"(CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
         INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
       END)";
constexpr const char* kFtsDeleteTrigger =
    R"(CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
         INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
       END)";
constexpr const char* kFtsUpdateTrigger =
    R"(CREATE TRIGGER messages_fts_update AFTER UPDATE OF text ON messages BEGIN
         INSERT INTO messages_fts(messages_fts, rowid, text) VALUES ('delete', old.id, old.text);
         INSERT INTO messages_fts(rowid, text) VALUES (new.id, new.text);
       END)";

// Version 1: conversations and a flat list of messages.
constexpr std::array<const char*, 3> kV1 = {
    R"(CREATE TABLE conversations (
         id INTEGER PRIMARY KEY,
         title TEXT NOT NULL DEFAULT '',
         created_ms INTEGER NOT NULL,
         updated_ms INTEGER NOT NULL,
         system_prompt TEXT NOT NULL DEFAULT '',
         model TEXT NOT NULL DEFAULT ''))",
    R"(CREATE TABLE messages (
         id INTEGER PRIMARY KEY,
         conversation_id INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
         position INTEGER NOT NULL,
         role TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant')),
         text TEXT NOT NULL DEFAULT '',
         created_ms INTEGER NOT NULL))",
    "CREATE INDEX messages_by_conversation ON messages(conversation_id, position)",
};

// Version 2: pinning, sampling settings, soft delete (for undo) and reply statistics.
constexpr std::array<const char*, 12> kV2 = {
    "ALTER TABLE conversations ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE conversations ADD COLUMN sampling_json TEXT NOT NULL DEFAULT '{}'",
    "ALTER TABLE conversations ADD COLUMN deleted_ms INTEGER",
    "ALTER TABLE messages ADD COLUMN prompt_tokens INTEGER",
    "ALTER TABLE messages ADD COLUMN generated_tokens INTEGER",
    "ALTER TABLE messages ADD COLUMN prompt_tokens_per_s REAL",
    "ALTER TABLE messages ADD COLUMN generation_tokens_per_s REAL",
    "ALTER TABLE messages ADD COLUMN time_to_first_token_ms REAL",
    R"(ALTER TABLE messages ADD COLUMN finish_reason TEXT
         CHECK (finish_reason IN ('stop', 'length', 'cancelled', 'error', 'interrupted')))",
    // Replies saved by version 1 were only ever written once complete.
    "UPDATE messages SET finish_reason = 'stop' WHERE role = 'assistant'",
    // The sidebar order: pinned first, then by last use; deleted rows never appear in it.
    R"(CREATE INDEX conversations_by_use ON conversations(pinned DESC, updated_ms DESC, id DESC)
         WHERE deleted_ms IS NULL)",
    "CREATE INDEX conversations_deleted ON conversations(deleted_ms) WHERE deleted_ms IS NOT NULL",
};

// Version 3: alternatives (edits and regenerations keep earlier versions as siblings under the same
// parent; `selected` marks the one shown) and full-text search over every message.
constexpr std::array<const char*, 11> kV3 = {
    "ALTER TABLE messages ADD COLUMN parent_id INTEGER REFERENCES messages(id) ON DELETE CASCADE",
    "ALTER TABLE messages ADD COLUMN variant_index INTEGER NOT NULL DEFAULT 0",
    "ALTER TABLE messages ADD COLUMN selected INTEGER NOT NULL DEFAULT 1",
    // A version 2 conversation is one straight thread: each message's parent is the one before it.
    R"(UPDATE messages SET parent_id = (
         SELECT p.id FROM messages AS p
         WHERE p.conversation_id = messages.conversation_id AND p.position < messages.position
         ORDER BY p.position DESC LIMIT 1))",
    "CREATE INDEX messages_by_parent ON messages(conversation_id, parent_id, variant_index)",
    R"(CREATE VIRTUAL TABLE messages_fts USING fts5(
         text, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'))",
    "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
    kFtsInsertTrigger,
    kFtsDeleteTrigger,
    kFtsUpdateTrigger,
    // Streaming replies (finish_reason still NULL) are looked up at every open to mark interrupted ones.
    "CREATE INDEX messages_unfinished ON messages(id) WHERE role = 'assistant' AND finish_reason IS NULL",
};

// Version 4: prefix indexes for search as you type. Every word typed is matched as a prefix; without
// these FTS5 must merge the lists of every word sharing a short prefix before it can return the newest
// matches (over 100 ms at a million messages), with them a prefix of 2 to 4 characters is one list
// read lazily like a whole word. The index is rebuilt with the extra option.
constexpr std::array<const char*, 9> kV4 = {
    "DROP TRIGGER messages_fts_insert",
    "DROP TRIGGER messages_fts_delete",
    "DROP TRIGGER messages_fts_update",
    "DROP TABLE messages_fts",
    R"(CREATE VIRTUAL TABLE messages_fts USING fts5(
         text, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2',
         prefix = '2 3 4'))",
    "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
    kFtsInsertTrigger,
    kFtsDeleteTrigger,
    kFtsUpdateTrigger,
};

constexpr std::array<Migration, 4> kMigrations = {{
    {1, "conversations and messages", kV1},
    {2, "pinning, sampling settings, soft delete, reply statistics", kV2},
    {3, "message alternatives and full-text search", kV3},
    {4, "prefix indexes for search as you type", kV4},
}};

}  // namespace

std::span<const Migration> migrations() {
  return kMigrations;
}
int latestSchemaVersion() {
  return kMigrations.back().version;
}

int schemaVersion(Database& db) {
  auto st = db.prepare("PRAGMA user_version");
  return st.step() ? st.columnInt(0) : 0;
}

void migrate(Database& db, int target) {
  if (target < 0) target = latestSchemaVersion();
  const int current = schemaVersion(db);
  if (current > latestSchemaVersion()) {
    throw StorageError(StorageError::Kind::Other, 0,
                       QStringLiteral("the database %1 was written by a newer Trit (schema version %2; this "
                                      "version understands up to %3); update Trit to open it")
                           .arg(db.path())
                           .arg(current)
                           .arg(latestSchemaVersion()));
  }
  if (current >= target) return;  // the common case: nothing to write, no write lock taken
  for (const Migration& m : kMigrations) {
    if (m.version <= current || m.version > target) continue;
    Transaction tx(db);
    // Another process may have migrated while we waited for the write lock: re-read under the lock.
    if (schemaVersion(db) >= m.version) continue;
    for (const char* step : m.steps) db.exec(step);
    // PRAGMA takes no bound parameters; the number comes from the table above, never from input.
    const std::string setVersion = "PRAGMA user_version = " + std::to_string(m.version);
    db.exec(setVersion.c_str());
    tx.commit();
  }
}

}  // namespace trit::storage
