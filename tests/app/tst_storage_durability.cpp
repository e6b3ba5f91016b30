// Nothing is lost: a reply being written when the process is SIGKILLed keeps its text and is marked
// interrupted; a database locked by another process or damaged on disk gives a clear message and a
// way out (the damaged file is kept aside, never overwritten). The headless commands of the real
// `trit` binary are checked here too, including their exit codes.
#include <signal.h>
#include <sqlite3.h>

#include <QJsonArray>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

#include "storage/conversation_exchange.h"
#include "storage/conversation_store.h"
#include "storage_test_support.h"

using namespace trit::storage;

namespace {

// Another process's connection, holding the write lock until it goes away.
class WriteLockHolder {
 public:
  explicit WriteLockHolder(const QString& path) {
    if (sqlite3_open(path.toUtf8().constData(), &db_) != SQLITE_OK) qFatal("cannot open %s", qPrintable(path));
    if (sqlite3_exec(db_, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr) != SQLITE_OK) qFatal("cannot lock");
  }
  ~WriteLockHolder() {
    sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    sqlite3_close(db_);
  }
  WriteLockHolder(const WriteLockHolder&) = delete;
  WriteLockHolder& operator=(const WriteLockHolder&) = delete;

 private:
  sqlite3* db_ = nullptr;
};

QByteArray readFile(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

void writeGarbage(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) qFatal("cannot write %s", qPrintable(path));
  QByteArray junk;
  for (int i = 0; i < 8192; ++i) junk.append(static_cast<char>((i * 7919 + 13) & 0xff));
  f.write(junk);
}

struct Run {
  int exitCode = -1;
  QByteArray out;
  QByteArray err;
};

// Runs the real `trit` with TRIT_DATA_DIR at `dataDir` and a short busy timeout. `piece` > 0 writes
// `input` that many bytes at a time with a pause after each, as a slow writer into a pipe does.
Run runTrit(const QString& dataDir, const QStringList& args, const QByteArray& input = {}, qsizetype piece = 0) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("TRIT_DATA_DIR"), dataDir);
  env.insert(QStringLiteral("TRIT_DB_BUSY_TIMEOUT_MS"), QStringLiteral("300"));
  env.remove(QStringLiteral("DISPLAY"));  // the commands must not need one
  env.remove(QStringLiteral("WAYLAND_DISPLAY"));
  env.remove(QStringLiteral("QT_QPA_PLATFORM"));
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(TRIT_APP_BINARY), args);
  if (!p.waitForStarted(10'000)) qFatal("cannot start trit");
  for (qsizetype at = 0; at<input.size(); at += piece> 0 ? piece : input.size()) {
    p.write(input.mid(at, piece > 0 ? piece : input.size()));
    p.waitForBytesWritten(10'000);
    if (piece > 0) QThread::msleep(30);
  }
  p.closeWriteChannel();
  if (!p.waitForFinished(30'000)) qFatal("trit %s did not finish", qPrintable(args.join(' ')));
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
          p.readAllStandardError()};
}

}  // namespace

class TestStorageDurability : public QObject {
  Q_OBJECT

 private slots:
  void killedMidReplyKeepsTextMarkedInterrupted() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    QProcess helper;
    helper.setProcessChannelMode(QProcess::ForwardedErrorChannel);
    helper.start(QStringLiteral(TRIT_REPLY_HELPER), {path});
    QVERIFY2(helper.waitForStarted(10'000), "the helper did not start");
    // Wait until three batches reached the disk, remembering the last token each one covered.
    static const QRegularExpression flushed(QStringLiteral("^flushed through t(\\d+)$"));
    QByteArray buffered;
    qint64 replyId = 0;
    long long lastFlushedToken = -1;
    int flushes = 0;
    QElapsedTimer waited;
    waited.start();
    while (flushes < 3 && waited.elapsed() < 30'000) {
      helper.waitForReadyRead(1000);
      buffered += helper.readAllStandardOutput();
      int nl;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(buffered.left(nl));
        buffered.remove(0, nl + 1);
        if (line.startsWith(QStringLiteral("reply "))) replyId = line.mid(6).toLongLong();
        const auto m = flushed.match(line);
        if (m.hasMatch()) {
          lastFlushedToken = m.captured(1).toLongLong();
          ++flushes;
        }
      }
    }
    QVERIFY2(flushes >= 3, "the helper reported no writes within 30 s");
    QVERIFY(replyId > 0);
    QCOMPARE(::kill(static_cast<pid_t>(helper.processId()), SIGKILL), 0);  // no chance to clean up
    QVERIFY(helper.waitForFinished(10'000));
    QCOMPARE(helper.exitStatus(), QProcess::CrashExit);

    ConversationStore store(path);
    QCOMPARE(store.integrityCheck(), QStringLiteral("ok"));
    QCOMPARE(store.interruptedAtOpen(), 1);
    const auto reply = store.message(replyId);
    QVERIFY(reply);
    QCOMPARE(reply->finish, FinishReason::Interrupted);
    // The text is exactly "t0 t1 ... tN " for some N at least as far as the last reported write.
    const QStringList tokens = reply->text.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    QVERIFY2(
        tokens.size() > lastFlushedToken,
        qPrintable(
            QStringLiteral("kept %1 tokens, %2 were reported written").arg(tokens.size()).arg(lastFlushedToken + 1)));
    for (int i = 0; i < tokens.size(); ++i) QCOMPARE(tokens[i], QStringLiteral("t%1").arg(i));
    QVERIFY(reply->text.endsWith(QLatin1Char(' ')));  // batches end on token boundaries: nothing torn
    // The partial reply is searchable like any other.
    QCOMPARE(store.search(QStringLiteral("t2")).size(), 1);
  }

  void lockedDatabaseGivesAClearError() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    OpenOptions quick;
    quick.busyTimeoutMs = 200;
    ConversationStore store(path, quick);
    const auto id = store.createConversation(QStringLiteral("readable while locked"));
    WriteLockHolder other(path);
    QElapsedTimer t;
    t.start();
    try {
      store.renameConversation(id, QStringLiteral("x"));
      QFAIL("wrote through another process's write lock");
    } catch (const StorageError& e) {
      QCOMPARE(e.kind(), StorageError::Kind::Locked);
      QVERIFY2(e.message().contains(QStringLiteral("is locked by another program")), qPrintable(e.message()));
      QVERIFY2(e.message().contains(QStringLiteral("200 ms")), qPrintable(e.message()));
    }
    QVERIFY(t.elapsed() >= 150);  // it did wait for the lock first
    // Reading still works in WAL mode while someone else writes.
    QCOMPARE(store.conversation(id)->title, QStringLiteral("readable while locked"));
  }

  void damagedFileIsKeptAsideNeverOverwritten() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    writeGarbage(path);
    const QByteArray garbage = readFile(path);
    try {
      ConversationStore store(path);
      QFAIL("opened a damaged file");
    } catch (const StorageError& e) {
      QCOMPARE(e.kind(), StorageError::Kind::Corrupt);
      QVERIFY2(e.message().contains(QStringLiteral("is damaged")), qPrintable(e.message()));
    }
    QCOMPARE(readFile(path), garbage);  // a failed open changes nothing

    QString notice;
    auto store = openStoreMovingCorruptAside(path, &notice);
    QVERIFY(store);
    QCOMPARE(store->conversationCount(), 0);
    static const QRegularExpression aside(
        QStringLiteral("kept as (\\S+conversations\\.sqlite3\\.corrupt-\\d{8}-\\d{6})"));
    const auto m = aside.match(notice);
    QVERIFY2(m.hasMatch(), qPrintable(notice));
    QCOMPARE(readFile(m.captured(1)), garbage);  // the old bytes, untouched

    // A second damaged file in the same second gets its own name.
    store.reset();
    writeGarbage(path);
    const QString second = ConversationStore::moveCorruptFileAside(path);
    QVERIFY(second != m.captured(1));
    QVERIFY(QFileInfo::exists(m.captured(1)));
    QVERIFY(!QFileInfo::exists(path));
  }

  void cliListsExportsAndImports() {
    const auto dir = test::scratchDir();
    const QString sample = QStringLiteral(TRIT_STORAGE_TEST_DATA "/sample_conversation.json");
    Run r = runTrit(dir->path(), {QStringLiteral("--list-conversations")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray());
    r = runTrit(dir->path(), {QStringLiteral("--import-conversation"), sample});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("imported conversation 1\n"));
    // From standard input, into the same database the app uses.
    r = runTrit(dir->path(), {QStringLiteral("--import-conversation"), QStringLiteral("-")}, readFile(sample));
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, QByteArray("imported conversation 2\n"));
    r = runTrit(dir->path(), {QStringLiteral("--export-conversation"), QStringLiteral("2"), QStringLiteral("--format"),
                              QStringLiteral("json")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out, readFile(sample));
    r = runTrit(dir->path(), {QStringLiteral("--export-conversation=1")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.startsWith("# Sample: ternary weights\n"));
    r = runTrit(dir->path(), {QStringLiteral("--list-conversations")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.out.count('\n'), 2);
    ConversationStore store(dir->filePath(QStringLiteral("conversations.sqlite3")));
    QCOMPARE(store.conversationCount(), 2);
  }

  // Issue 30 #3: only the first chunk of a pipe was read, so a large file failed at column 65,537 and
  // a writer that pauses failed even on a small one. 200 KB in 16 KiB pieces, 30 ms apart.
  void cliImportReadsAPausingPipeToTheEnd() {
    const auto dir = test::scratchDir();
    QJsonObject conversation =
        QJsonDocument::fromJson(readFile(QStringLiteral(TRIT_STORAGE_TEST_DATA "/sample_conversation.json"))).object();
    QJsonArray messages = conversation.value(QStringLiteral("messages")).toArray();
    QJsonObject first = messages[0].toObject();
    const QString longText = QString(200'000, QLatin1Char('t'));
    first[QStringLiteral("text")] = longText;
    messages[0] = first;
    conversation[QStringLiteral("messages")] = messages;
    const QByteArray json = QJsonDocument(conversation).toJson();
    QVERIFY(json.size() > 200'000);
    const Run r = runTrit(dir->path(), {QStringLiteral("--import-conversation"), QStringLiteral("-")}, json, 16 * 1024);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(r.out, QByteArray("imported conversation 1\n"));
    ConversationStore store(dir->filePath(QStringLiteral("conversations.sqlite3")));
    QCOMPARE(store.allMessages(1).first().text, longText);
  }

  void cliRefusesBadUsage() {
    const auto dir = test::scratchDir();
    Run r = runTrit(dir->path(), {QStringLiteral("--export-conversation"), QStringLiteral("abc")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("needs a conversation id"), r.err.constData());
    r = runTrit(dir->path(), {QStringLiteral("--export-conversation"), QStringLiteral("1"), QStringLiteral("--format"),
                              QStringLiteral("pdf")});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("--format must be markdown or json, not \"pdf\""), r.err.constData());
    r = runTrit(dir->path(), {QStringLiteral("--list-conversations"), QStringLiteral("--import-conversation"),
                              QStringLiteral("x.json")});
    QCOMPARE(r.exitCode, 2);
    r = runTrit(dir->path(), {QStringLiteral("--import-conversation"), dir->filePath(QStringLiteral("missing.json"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("cannot read"), r.err.constData());
    r = runTrit(dir->path(), {QStringLiteral("--import-conversation"), QStringLiteral("-")}, "{\"format\": 1");
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("cannot import standard input: not valid JSON at line 1"), r.err.constData());
    // Issue 30 #7: checked like the app's import (one importJson), nothing stored.
    QByteArray bad = readFile(QStringLiteral(TRIT_STORAGE_TEST_DATA "/sample_conversation.json"));
    bad.replace("\"temperature\": 0.7", "\"temperature\": -5");
    r = runTrit(dir->path(), {QStringLiteral("--import-conversation=-")}, bad);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("cannot import standard input: conversation.sampling.temperature: temperature must be >= 0 "
                            "(got -5)"),
             r.err.constData());
  }

  void cliWaitsOutNoLockForever() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    {
      ConversationStore create(path);
      create.createConversation(QStringLiteral("listed while locked"));
    }
    WriteLockHolder app(path);
    // Reading needs no write lock: list works while the app writes.
    Run r = runTrit(dir->path(), {QStringLiteral("--list-conversations")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("listed while locked"));
    // Import does, and gives up after the busy timeout with a clear message and its own exit code.
    r = runTrit(dir->path(), {QStringLiteral("--import-conversation"),
                              QStringLiteral(TRIT_STORAGE_TEST_DATA "/sample_conversation.json")});
    QCOMPARE(r.exitCode, 3);
    QVERIFY2(r.err.contains("is locked by another program"), r.err.constData());
  }

  // Issue 30 #11: an empty database file was silently taken for a new one; the commands say it.
  void cliSaysWhenTheDatabaseFileWasEmpty() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    QFile empty(path);
    QVERIFY(empty.open(QIODevice::WriteOnly));
    empty.close();
    Run r = runTrit(dir->path(), {QStringLiteral("--list-conversations")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.contains("was an empty file (0 bytes): there were no conversations in it"), r.err.constData());
    r = runTrit(dir->path(), {QStringLiteral("--list-conversations")});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(r.err, QByteArray());  // said once: the file is a database now
  }

  void cliRefusesDamagedFileAndOffersAWayOut() {
    const auto dir = test::scratchDir();
    const QString path = test::dbPathIn(*dir);
    writeGarbage(path);
    const QByteArray garbage = readFile(path);
    Run r = runTrit(dir->path(), {QStringLiteral("--list-conversations")});
    QCOMPARE(r.exitCode, 4);
    QVERIFY2(r.err.contains("is damaged") && r.err.contains("Nothing was changed") &&
                 r.err.contains("--set-aside-damaged-database"),
             r.err.constData());
    QCOMPARE(readFile(path), garbage);
    r = runTrit(dir->path(), {QStringLiteral("--set-aside-damaged-database")});
    QCOMPARE(r.exitCode, 0);
    static const QRegularExpression kept(QStringLiteral("kept the damaged database as (\\S+)\n"));
    const auto m = kept.match(QString::fromUtf8(r.out));
    QVERIFY2(m.hasMatch(), r.out.constData());
    QCOMPARE(readFile(m.captured(1)), garbage);
    r = runTrit(dir->path(), {QStringLiteral("--list-conversations")});
    QCOMPARE(r.exitCode, 0);
    r = runTrit(dir->path(), {QStringLiteral("--set-aside-damaged-database")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("is not damaged; nothing was changed"), r.out.constData());
  }
};

QTEST_GUILESS_MAIN(TestStorageDurability)
#include "tst_storage_durability.moc"
