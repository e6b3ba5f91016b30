#pragma once
// A small RAII wrapper over the libsqlite3 C API: one Database (connection), Statements that are
// always prepared (values are bound, never pasted into SQL), and a Transaction guard that rolls back
// unless committed. Failures throw StorageError, which keeps SQLite's result code so callers can tell
// "locked" and "damaged" apart from other errors and say something useful to the user.
#include <QByteArray>
#include <QString>
#include <concepts>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

struct sqlite3;
struct sqlite3_stmt;

namespace trit::storage {

class StorageError : public std::runtime_error {
 public:
  enum class Kind { Other, Locked, Corrupt, CannotOpen, Constraint };
  StorageError(Kind kind, int sqliteCode, const QString& message)
      : std::runtime_error(message.toStdString()), kind_(kind), code_(sqliteCode) {}
  Kind kind() const { return kind_; }
  int sqliteCode() const { return code_; }
  QString message() const { return QString::fromStdString(what()); }

 private:
  Kind kind_;
  int code_;
};

// Maps an SQLite result code to the kind of problem it is.
StorageError::Kind errorKindFor(int sqliteCode);

class Statement;

class Database {
 public:
  enum class Mode { ReadWriteCreate, ReadWrite, ReadOnly };
  // Opens (or creates) the file. Does not touch its contents: an unreadable file fails later, on the
  // first statement, as SQLite reads lazily.
  Database(const QString& path, Mode mode = Mode::ReadWriteCreate);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Runs SQL that takes no parameters and returns no rows we need (schema steps, pragmas). Only ever
  // called with SQL text from the program itself, never with user text.
  void exec(const char* sql);
  Statement prepare(const char* sql);

  void setBusyTimeout(int milliseconds);
  int busyTimeout() const { return busyTimeoutMs_; }
  std::int64_t lastInsertRowId() const;
  int changes() const;
  const QString& path() const { return path_; }
  sqlite3* handle() const { return db_; }

  // Throws StorageError describing `code` with the connection's current error message and `context`.
  [[noreturn]] void fail(int code, const char* context) const;

 private:
  sqlite3* db_ = nullptr;
  QString path_;
  int busyTimeoutMs_ = 0;
};

class Statement {
 public:
  Statement(Database& db, const char* sql);
  ~Statement();
  Statement(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;

  // Parameters are numbered from 1, as in SQLite. Each returns *this so binds chain.
  Statement& bind(int index, std::int64_t value);
  // Any other integer type (int, qint64, bool as 0/1) binds as a 64-bit integer.
  template <std::integral T>
  Statement& bind(int index, T value) {
    return bind(index, static_cast<std::int64_t>(value));
  }
  Statement& bind(int index, double value);
  Statement& bind(int index, const QString& value);
  Statement& bind(int index, const char* value) { return bind(index, QString::fromUtf8(value)); }
  Statement& bindNull(int index);
  // Binds NULL for 0 (row ids start at 1, so 0 is free to mean "none").
  Statement& bindIdOrNull(int index, std::int64_t id) { return id ? bind(index, id) : bindNull(index); }
  template <typename T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bindNull(index);
  }

  // Advances to the next row: true while there is one, false when done.
  bool step();
  // Runs a statement that returns no rows (or whose rows are not needed).
  void run();
  void reset();

  bool isNull(int column) const;
  std::int64_t columnInt64(int column) const;
  int columnInt(int column) const { return static_cast<int>(columnInt64(column)); }
  bool columnBool(int column) const { return columnInt64(column) != 0; }
  double columnDouble(int column) const;
  QString columnText(int column) const;
  std::optional<std::int64_t> columnOptionalInt64(int column) const;
  std::optional<double> columnOptionalDouble(int column) const;

 private:
  Database* db_;
  sqlite3_stmt* stmt_ = nullptr;
  const char* sql_;
};

// BEGIN IMMEDIATE on construction (the write lock is taken up front so a busy database fails here,
// not halfway through), ROLLBACK on destruction unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace trit::storage
