#include "storage/sqlite.h"

#include <sqlite3.h>

#include <QDir>

namespace trit::storage {

StorageError::Kind errorKindFor(int sqliteCode) {
  switch (sqliteCode & 0xff) {  // the primary code; extended codes keep it in the low byte
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return StorageError::Kind::Locked;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return StorageError::Kind::Corrupt;
    case SQLITE_CANTOPEN:
    case SQLITE_PERM:
    case SQLITE_READONLY:
      return StorageError::Kind::CannotOpen;
    case SQLITE_CONSTRAINT:
      return StorageError::Kind::Constraint;
    default:
      return StorageError::Kind::Other;
  }
}

Database::Database(const QString& path, Mode mode) : path_(path) {
  int flags = SQLITE_OPEN_FULLMUTEX;
  switch (mode) {
    case Mode::ReadWriteCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case Mode::ReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case Mode::ReadOnly:
      flags |= SQLITE_OPEN_READONLY;
      break;
  }
  const QByteArray file = QDir::toNativeSeparators(path).toUtf8();
  const int rc = sqlite3_open_v2(file.constData(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const QString why = db_ ? QString::fromUtf8(sqlite3_errmsg(db_)) : QStringLiteral("out of memory");
    sqlite3_close(db_);
    db_ = nullptr;
    throw StorageError(errorKindFor(rc), rc, QStringLiteral("cannot open the database %1: %2").arg(path, why));
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::~Database() {
  // sqlite3_close_v2 defers the close until every statement is finalized, so an order mistake in the
  // owners cannot leak the connection.
  if (db_) sqlite3_close_v2(db_);
}

void Database::fail(int code, const char* context) const {
  const QString detail = QString::fromUtf8(sqlite3_errmsg(db_));
  const auto kind = errorKindFor(code);
  QString message;
  switch (kind) {
    case StorageError::Kind::Locked:
      message = QStringLiteral(
                    "the database %1 is locked by another program (another Trit writing to it?) and "
                    "stayed locked for %2 ms; close the other program or try again (%3)")
                    .arg(path_)
                    .arg(busyTimeoutMs_)
                    .arg(detail);
      break;
    case StorageError::Kind::Corrupt:
      message = QStringLiteral("the database %1 is damaged (%2)").arg(path_, detail);
      break;
    default:
      message = QStringLiteral("database %1: %2 failed: %3").arg(path_, QString::fromUtf8(context), detail);
  }
  throw StorageError(kind, code, message);
}

void Database::exec(const char* sql) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(rc, sql);
}

Statement Database::prepare(const char* sql) {
  return Statement(*this, sql);
}

void Database::setBusyTimeout(int milliseconds) {
  sqlite3_busy_timeout(db_, milliseconds);
  busyTimeoutMs_ = milliseconds;
}

std::int64_t Database::lastInsertRowId() const {
  return sqlite3_last_insert_rowid(db_);
}
int Database::changes() const {
  return sqlite3_changes(db_);
}

Statement::Statement(Database& db, const char* sql) : db_(&db), sql_(sql) {
  const int rc = sqlite3_prepare_v2(db.handle(), sql, -1, &stmt_, nullptr);
  if (rc != SQLITE_OK) db.fail(rc, sql);
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_), sql_(other.sql_) {
  other.stmt_ = nullptr;
}

Statement& Statement::bind(int index, std::int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_->fail(rc, sql_);
  return *this;
}

Statement& Statement::bind(int index, double value) {
  const int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_->fail(rc, sql_);
  return *this;
}

Statement& Statement::bind(int index, const QString& value) {
  const QByteArray utf8 = value.toUtf8();
  const int rc = sqlite3_bind_text64(stmt_, index, utf8.constData(), static_cast<sqlite3_uint64>(utf8.size()),
                                     SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) db_->fail(rc, sql_);
  return *this;
}

Statement& Statement::bindNull(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_->fail(rc, sql_);
  return *this;
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);  // leave the statement reusable after a busy or constraint failure
  db_->fail(rc, sql_);
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::isNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}
std::int64_t Statement::columnInt64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}
double Statement::columnDouble(int column) const {
  return sqlite3_column_double(stmt_, column);
}

QString Statement::columnText(int column) const {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return text ? QString::fromUtf8(text, sqlite3_column_bytes(stmt_, column)) : QString();
}

std::optional<std::int64_t> Statement::columnOptionalInt64(int column) const {
  if (isNull(column)) return std::nullopt;
  return columnInt64(column);
}

std::optional<double> Statement::columnOptionalDouble(int column) const {
  if (isNull(column)) return std::nullopt;
  return columnDouble(column);
}

Transaction::Transaction(Database& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace trit::storage
