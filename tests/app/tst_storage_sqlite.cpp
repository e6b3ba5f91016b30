// The SQLite RAII wrapper: typed binds and columns, statement reuse, transactions that roll back
// unless committed, and errors that say what kind of failure happened.
#include <QtTest>

#include "storage/sqlite.h"
#include "storage_test_support.h"

using namespace trit::storage;

class TestStorageSqlite : public QObject {
  Q_OBJECT

 private slots:
  void bindsAndReadsEveryType() {
    Database db(QStringLiteral(":memory:"));
    db.exec("CREATE TABLE t (i INTEGER, r REAL, s TEXT, n INTEGER)");
    const QString text = QStringLiteral("tern\u00e4r \U0001F600 'quoted' \"double\"; DROP TABLE t; --");
    db.prepare("INSERT INTO t VALUES (?1, ?2, ?3, ?4)")
        .bind(1, std::int64_t{1} << 40)
        .bind(2, 2.5)
        .bind(3, text)
        .bindNull(4)
        .run();
    auto st = db.prepare("SELECT i, r, s, n FROM t");
    QVERIFY(st.step());
    QCOMPARE(st.columnInt64(0), std::int64_t{1} << 40);
    QCOMPARE(st.columnDouble(1), 2.5);
    QCOMPARE(st.columnText(2), text);  // user text is a value, never SQL: the table is still there
    QVERIFY(st.isNull(3));
    QVERIFY(!st.columnOptionalInt64(3).has_value());
    QCOMPARE(st.columnOptionalDouble(1).value_or(0), 2.5);
    QVERIFY(!st.step());
  }

  void optionalBindsNullWhenEmpty() {
    Database db(QStringLiteral(":memory:"));
    db.exec("CREATE TABLE t (a INTEGER)");
    auto insert = db.prepare("INSERT INTO t VALUES (?1)");
    insert.bind(1, std::optional<std::int64_t>{}).run();
    insert.bind(1, std::optional<std::int64_t>{7}).run();  // a statement is reusable after run()
    auto st = db.prepare("SELECT count(*), count(a), sum(a) FROM t");
    QVERIFY(st.step());
    QCOMPARE(st.columnInt(0), 2);
    QCOMPARE(st.columnInt(1), 1);
    QCOMPARE(st.columnInt(2), 7);
  }

  void transactionRollsBackUnlessCommitted() {
    Database db(QStringLiteral(":memory:"));
    db.exec("CREATE TABLE t (a INTEGER)");
    {
      Transaction tx(db);
      db.exec("INSERT INTO t VALUES (1)");
    }  // no commit
    {
      Transaction tx(db);
      db.exec("INSERT INTO t VALUES (2)");
      tx.commit();
    }
    auto st = db.prepare("SELECT group_concat(a) FROM t");
    QVERIFY(st.step());
    QCOMPARE(st.columnText(0), QStringLiteral("2"));
  }

  void errorsCarryTheirKind() {
    Database db(QStringLiteral(":memory:"));
    db.exec("CREATE TABLE t (a INTEGER NOT NULL UNIQUE)");
    db.exec("INSERT INTO t VALUES (1)");
    auto insert = db.prepare("INSERT INTO t VALUES (?1)");
    try {
      insert.bind(1, 1).run();
      QFAIL("a duplicate was accepted");
    } catch (const StorageError& e) {
      QCOMPARE(e.kind(), StorageError::Kind::Constraint);
      QVERIFY2(e.message().contains(QStringLiteral("UNIQUE")), qPrintable(e.message()));
    }
    insert.bind(1, 2).run();  // the failed statement was reset and still works
    try {
      db.prepare("SELECT * FROM no_such_table");
      QFAIL("a statement on a missing table was prepared");
    } catch (const StorageError& e) {
      QCOMPARE(e.kind(), StorageError::Kind::Other);
      QVERIFY2(e.message().contains(QStringLiteral("no_such_table")), qPrintable(e.message()));
    }
  }

  void missingFolderCannotOpen() {
    const auto dir = test::scratchDir();
    try {
      Database db(dir->filePath(QStringLiteral("no/such/folder/x.sqlite3")));
      QFAIL("opened a database in a missing folder");
    } catch (const StorageError& e) {
      QCOMPARE(e.kind(), StorageError::Kind::CannotOpen);
      QVERIFY2(e.message().contains(QStringLiteral("no/such/folder")), qPrintable(e.message()));
    }
  }
};

QTEST_GUILESS_MAIN(TestStorageSqlite)
#include "tst_storage_sqlite.moc"
