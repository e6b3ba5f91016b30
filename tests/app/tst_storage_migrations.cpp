// Schema migrations: a database written at every earlier schema version opens in this version with its
// data intact (and searchable), and a database from a newer Trit is refused rather than damaged.
#include <QtTest>

#include "storage/conversation_store.h"
#include "storage/schema.h"
#include "storage_test_support.h"

using namespace trit::storage;

namespace {

// Writes what a Trit of schema `version` would have written: one conversation of three messages.
void writeSampleAt(Database& db, int version) {
  if (version < 1) return;
  db.exec(
      "INSERT INTO conversations (id, title, created_ms, updated_ms, system_prompt, model) "
      "VALUES (1, 'Old talk', 1000, 2000, 'Be brief.', 'bitnet-old')");
  db.exec(
      "INSERT INTO messages (id, conversation_id, position, role, text, created_ms) VALUES "
      "(1, 1, 0, 'user', 'alpha question', 1000), (2, 1, 1, 'assistant', 'bravo answer', 1500), "
      "(3, 1, 2, 'user', 'charlie follow-up', 2000)");
  if (version < 2) return;
  db.exec("UPDATE conversations SET pinned = 1, sampling_json = '{\"temperature\":0.5}' WHERE id = 1");
  db.exec(
      "UPDATE messages SET prompt_tokens = 5, generated_tokens = 7, prompt_tokens_per_s = 100.5, "
      "generation_tokens_per_s = 20.25, time_to_first_token_ms = 42, finish_reason = 'length' WHERE id = 2");
  if (version < 3) return;
  // From version 3 on, Trit writes the thread's links itself.
  db.exec("UPDATE messages SET parent_id = id - 1 WHERE id > 1");
}

}  // namespace

class TestStorageMigrations : public QObject {
  Q_OBJECT

 private slots:
  void migrationsAreNumberedInOrder() {
    int expected = 1;
    for (const Migration& m : migrations()) {
      QCOMPARE(m.version, expected++);
      QVERIFY(!m.steps.empty());
    }
    QCOMPARE(latestSchemaVersion(), expected - 1);
  }

  void migratesFromEveryEarlierVersion_data() {
    QTest::addColumn<int>("from");
    for (int v = 0; v < latestSchemaVersion(); ++v) QTest::addRow("from v%d", v) << v;
  }

  void migratesFromEveryEarlierVersion() {
    QFETCH(int, from);
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    {
      Database db(path);
      migrate(db, from);
      QCOMPARE(schemaVersion(db), from);
      writeSampleAt(db, from);
    }
    ConversationStore store(path);
    QCOMPARE(schemaVersion(store.database()), latestSchemaVersion());
    QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
    auto fk = store.database().prepare("PRAGMA foreign_key_check");
    QVERIFY2(!fk.step(), "a migrated row points at nothing");
    if (from == 0) {
      QCOMPARE(store.conversationCount(), 0);
      return;
    }
    const auto c = store.conversation(1);
    QVERIFY(c.has_value());
    QCOMPARE(c->title, QStringLiteral("Old talk"));
    QCOMPARE(c->systemPrompt, QStringLiteral("Be brief."));
    QCOMPARE(c->model, QStringLiteral("bitnet-old"));
    QCOMPARE(c->createdMs, 1000);
    QCOMPARE(c->pinned, from >= 2);
    QCOMPARE(c->sampling.value(QStringLiteral("temperature")).toDouble(), from >= 2 ? 0.5 : 0.0);

    // The flat list became one thread: each message's parent is the one before it.
    const auto thread = store.thread(1);
    QCOMPARE(thread.size(), 3);
    QCOMPARE(thread[0].message.text, QStringLiteral("alpha question"));
    QCOMPARE(thread[1].message.parentId, thread[0].message.id);
    QCOMPARE(thread[2].message.parentId, thread[1].message.id);
    QCOMPARE(thread[2].message.text, QStringLiteral("charlie follow-up"));
    for (const auto& tm : thread) QCOMPARE(tm.variantCount, 1);
    const Message& reply = thread[1].message;
    QCOMPARE(reply.finish, from >= 2 ? FinishReason::Length : FinishReason::Stop);
    QCOMPARE(reply.stats.has_value(), from >= 2);
    if (from >= 2) QCOMPARE(*reply.stats, (ReplyStats{5, 7, 100.5, 20.25, 42}));

    // Old messages are in the search index, and new ones join it.
    const auto hits = store.search(QStringLiteral("bravo"));
    QCOMPARE(hits.size(), 1);
    QCOMPARE(hits[0].messageId, reply.id);
    store.addMessage(1, thread[2].message.id, Role::Assistant, QStringLiteral("delta reply"));
    QCOMPARE(store.search(QStringLiteral("delta")).size(), 1);
    QCOMPARE(store.thread(1).size(), 4);
  }

  void reopeningMigratesNothing() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    {
      ConversationStore first(path);
      first.createConversation(QStringLiteral("kept"));
    }
    ConversationStore second(path);
    QCOMPARE(schemaVersion(second.database()), latestSchemaVersion());
    QCOMPARE(second.conversationCount(), 1);
  }

  void refusesADatabaseFromANewerTrit() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    {
      Database db(path);
      migrate(db);
      const std::string sql = "PRAGMA user_version = " + std::to_string(latestSchemaVersion() + 1);
      db.exec(sql.c_str());
    }
    try {
      ConversationStore store(path);
      QFAIL("opened a database from a newer version");
    } catch (const StorageError& e) {
      QVERIFY2(e.message().contains(QStringLiteral("newer Trit")), qPrintable(e.message()));
    }
    Database db(path);  // and it was left as it was
    QCOMPARE(schemaVersion(db), latestSchemaVersion() + 1);
  }

  void storeTurnsOnWalAndForeignKeys() {
    const auto dir = test::scratchDir();
    ConversationStore store(test::dbPathIn(*dir));
    auto mode = store.database().prepare("PRAGMA journal_mode");
    QVERIFY(mode.step());
    QCOMPARE(mode.columnText(0), QStringLiteral("wal"));
    auto fk = store.database().prepare("PRAGMA foreign_keys");
    QVERIFY(fk.step());
    QCOMPARE(fk.columnInt(0), 1);
    QVERIFY(store.database().busyTimeout() > 0);
  }
};

QTEST_GUILESS_MAIN(TestStorageMigrations)
#include "tst_storage_migrations.moc"
