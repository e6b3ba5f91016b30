#pragma once
// The conversation database schema, kept as data: an ordered list of migrations, each a list of SQL
// steps that takes the schema from version N-1 to N (PRAGMA user_version records the version). A new
// schema change is a new entry at the end; old entries are never edited, so every database ever
// written can be brought forward step by step. The tests migrate from every earlier version.
#include <span>

namespace trit::storage {

class Database;

struct Migration {
  int version;          // the user_version after this migration
  const char* summary;  // why it exists, for logs and docs
  std::span<const char* const> steps;
};

std::span<const Migration> migrations();
int latestSchemaVersion();
int schemaVersion(Database& db);

// Brings `db` from its current version up to `target` (default: the latest), one transaction per
// migration so a failure leaves the previous version intact. Throws StorageError if the file was
// written by a newer Trit (never downgrades) or a step fails.
void migrate(Database& db, int target = -1);

}  // namespace trit::storage
