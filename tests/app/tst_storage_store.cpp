// The conversation store: create, automatic and edited titles, pin and list order, delete with undo,
// alternatives (edits and regenerations), streamed replies, full-text search with highlights, and
// where the database lives.
#include <QSignalSpy>
#include <QtTest>

#include "storage/conversation_store.h"
#include "storage/data_location.h"
#include "storage/reply_writer.h"
#include "storage_test_support.h"

using namespace trit::storage;

class TestStorageStore : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> dir_;
  std::unique_ptr<ConversationStore> store_;

  QList<qint64> listedIds() {
    QList<qint64> ids;
    for (const auto& c : store_->listConversations()) ids << c.id;
    return ids;
  }

 private slots:
  void init() {
    dir_ = test::scratchDir();
    store_ = std::make_unique<ConversationStore>(test::dbPathIn(*dir_));
  }
  void cleanup() {
    store_.reset();
    dir_.reset();
  }

  void createAndReadBack() {
    const QJsonObject sampling{{QStringLiteral("temperature"), 0.8}, {QStringLiteral("top_k"), 40}};
    const auto id =
        store_->createConversation(QString(), QStringLiteral("Be kind."), QStringLiteral("bitnet-2b"), sampling);
    const auto c = store_->conversation(id);
    QVERIFY(c);
    QCOMPARE(c->title, QString());
    QCOMPARE(c->systemPrompt, QStringLiteral("Be kind."));
    QCOMPARE(c->model, QStringLiteral("bitnet-2b"));
    QCOMPARE(c->sampling, sampling);
    QVERIFY(qAbs(c->createdMs - ConversationStore::nowMs()) < 60'000);
    QCOMPARE(c->updatedMs, c->createdMs);
    QVERIFY(!store_->conversation(id + 1000));
  }

  void automaticTitleFromFirstUserMessage() {
    const auto id = store_->createConversation();
    const auto first = store_->addMessage(id, 0, Role::User, QStringLiteral("  How do   ternary\nweights work?  "));
    QCOMPARE(store_->conversation(id)->title, QStringLiteral("How do ternary weights work?"));
    store_->addMessage(id, first, Role::Assistant, QStringLiteral("Like this."));
    store_->addMessage(id, first, Role::User, QStringLiteral("A second user message does not rename"));
    QCOMPARE(store_->conversation(id)->title, QStringLiteral("How do ternary weights work?"));
    // A title the user chose is never replaced.
    const auto named = store_->createConversation(QStringLiteral("My name"));
    store_->addMessage(named, 0, Role::User, QStringLiteral("hello"));
    QCOMPARE(store_->conversation(named)->title, QStringLiteral("My name"));
  }

  void automaticTitleIsShortened() {
    const QString longText = QStringLiteral(
        "Please explain in great detail how the packed two-bit ternary "
        "weight format of BitNet is laid out in memory");
    const QString title = ConversationStore::automaticTitle(longText);
    QVERIFY2(title.size() <= 61, qPrintable(title));
    QVERIFY(title.endsWith(QChar(0x2026)));
    QVERIFY2(longText.startsWith(title.chopped(1)), qPrintable(title));
    QVERIFY(!title.chopped(1).endsWith(QLatin1Char(' ')));  // cut at a word boundary
    const QString word(100, QLatin1Char('x'));
    QCOMPARE(ConversationStore::automaticTitle(word), QString(60, QLatin1Char('x')) + QChar(0x2026));
    const QString emoji = QString(59, QLatin1Char('y')) + QStringLiteral("\U0001F600\U0001F600");
    QVERIFY(!ConversationStore::automaticTitle(emoji).chopped(1).back().isHighSurrogate());
  }

  void renameTrimsAndRefusesMissing() {
    const auto id = store_->createConversation();
    QSignalSpy changed(store_.get(), &ConversationStore::conversationChanged);
    store_->renameConversation(id, QStringLiteral("  Trip plans  "));
    QCOMPARE(store_->conversation(id)->title, QStringLiteral("Trip plans"));
    QCOMPARE(changed.size(), 1);
    try {
      store_->renameConversation(9999, QStringLiteral("x"));
      QFAIL("renamed a conversation that does not exist");
    } catch (const StorageError& e) {
      QCOMPARE(e.message(), QStringLiteral("cannot rename the conversation: conversation 9999 does not exist"));
    }
  }

  void listIsPinnedFirstThenLastUsed() {
    const auto a = store_->createConversation(QStringLiteral("a"));
    const auto b = store_->createConversation(QStringLiteral("b"));
    const auto c = store_->createConversation(QStringLiteral("c"));
    const qint64 t = ConversationStore::nowMs();
    store_->addMessage(a, 0, Role::User, QStringLiteral("used last"), t + 3000);
    store_->addMessage(b, 0, Role::User, QStringLiteral("used first"), t + 1000);
    store_->addMessage(c, 0, Role::User, QStringLiteral("used second"), t + 2000);
    QCOMPARE(listedIds(), (QList<qint64>{a, c, b}));
    store_->setPinned(b, true);
    QCOMPARE(listedIds(), (QList<qint64>{b, a, c}));
    // Keyset paging walks the same order.
    const auto page1 = store_->listConversations(2);
    QCOMPARE(page1.size(), 2);
    const auto page2 = store_->listConversationsAfter(page1.last(), 2);
    QCOMPARE(page2.size(), 1);
    QCOMPARE(page2[0].id, c);
    QCOMPARE(store_->conversationCount(), 3);
  }

  void deleteHidesRestoreBringsBackPurgeRemoves() {
    const auto id = store_->createConversation(QStringLiteral("doomed"));
    const auto m = store_->addMessage(id, 0, Role::User, QStringLiteral("zebra crossing"));
    store_->deleteConversation(id);
    QVERIFY(!store_->conversation(id));
    QCOMPARE(store_->conversationCount(), 0);
    QVERIFY(store_->search(QStringLiteral("zebra")).isEmpty());
    store_->restoreConversation(id);
    QCOMPARE(store_->conversation(id)->title, QStringLiteral("doomed"));
    QCOMPARE(store_->thread(id).size(), 1);
    QCOMPARE(store_->search(QStringLiteral("zebra")).size(), 1);

    store_->deleteConversation(id);
    QCOMPARE(store_->purgeDeleted(ConversationStore::nowMs() + 1), 1);
    QVERIFY(!store_->message(m));  // messages went with it
    QVERIFY(store_->search(QStringLiteral("zebra")).isEmpty());
    try {
      store_->restoreConversation(id);
      QFAIL("restored a purged conversation");
    } catch (const StorageError& e) {
      QVERIFY2(e.message().contains(QStringLiteral("already removed for good")), qPrintable(e.message()));
    }
  }

  void oldDeletionsArePurgedAtOpen() {
    const auto id = store_->createConversation(QStringLiteral("old"));
    store_->deleteConversation(id);
    store_->database()
        .prepare("UPDATE conversations SET deleted_ms = deleted_ms - 3600000 WHERE id = ?1")
        .bind(1, id)
        .run();
    const QString path = store_->path();
    store_.reset();
    store_ = std::make_unique<ConversationStore>(path);
    auto st = store_->database().prepare("SELECT count(*) FROM conversations");
    QVERIFY(st.step());
    QCOMPARE(st.columnInt(0), 0);
  }

  void editsAndRegenerationsKeepEarlierVersions() {
    const auto id = store_->createConversation();
    const auto q1 = store_->addMessage(id, 0, Role::User, QStringLiteral("first question"));
    const auto r1 = store_->addMessage(id, q1, Role::Assistant, QStringLiteral("first answer"));
    const auto r2 = store_->addMessage(id, q1, Role::Assistant, QStringLiteral("regenerated answer"));
    auto thread = store_->thread(id);
    QCOMPARE(thread.size(), 2);
    QCOMPARE(thread[1].message.id, r2);
    QCOMPARE(thread[1].variantCount, 2);
    QCOMPARE(thread[1].message.variantIndex, 1);

    const auto follow = store_->addMessage(id, r2, Role::User, QStringLiteral("follow-up on the regenerated one"));
    QCOMPARE(store_->thread(id).size(), 3);

    // Going back to the first answer shows its (empty) branch; going forward again restores the rest.
    store_->selectAlternative(r1);
    thread = store_->thread(id);
    QCOMPARE(thread.size(), 2);
    QCOMPARE(thread[1].message.id, r1);
    store_->selectAlternative(r2);
    thread = store_->thread(id);
    QCOMPARE(thread.size(), 3);
    QCOMPARE(thread[2].message.id, follow);

    // Editing the question starts a new branch beside the old one.
    const auto q2 = store_->addAlternative(q1, QStringLiteral("edited question"));
    thread = store_->thread(id);
    QCOMPARE(thread.size(), 1);
    QCOMPARE(thread[0].message.id, q2);
    QCOMPARE(thread[0].variantCount, 2);
    const auto versions = store_->alternatives(q2);
    QCOMPARE(versions.size(), 2);
    QCOMPARE(versions[0].id, q1);
    QVERIFY(!versions[0].selected);
    QVERIFY(versions[1].selected);
    QCOMPARE(store_->allMessages(id).size(), 5);
    // Position is the depth in the thread.
    QCOMPARE(store_->message(follow)->position, 2);
  }

  void replyStreamsThenFinishes() {
    const auto id = store_->createConversation();
    const auto q = store_->addMessage(id, 0, Role::User, QStringLiteral("stream please"));
    ReplyWriter writer(*store_);
    QElapsedTimer sinceBegin;
    sinceBegin.start();
    const auto reply = writer.begin(id, q);
    writer.append(QStringLiteral("Hello"));
    writer.append(QStringLiteral(", world"));
    // Batched: nothing is written within the first 250 ms (checked only if this machine was not
    // stalled long enough to make the batch due).
    if (sinceBegin.elapsed() < 200) QCOMPARE(writer.flushCount(), 0);
    QCOMPARE(store_->message(reply)->finish, FinishReason::Streaming);
    QTRY_COMPARE_WITH_TIMEOUT(writer.flushCount(), 1, 2000);  // the timer writes the batch
    QCOMPARE(store_->message(reply)->text, QStringLiteral("Hello, world"));
    writer.append(QStringLiteral("!"));
    const ReplyStats stats{12, 3, 250.5, 30.25, 80};
    writer.finish(stats, FinishReason::Stop);
    const auto m = store_->message(reply);
    QCOMPARE(m->text, QStringLiteral("Hello, world!"));
    QCOMPARE(m->finish, FinishReason::Stop);
    QCOMPARE(*m->stats, stats);
    QVERIFY(!writer.active());
    try {
      store_->appendReplyText(reply, QStringLiteral("late"));
      QFAIL("appended to a finished reply");
    } catch (const StorageError& e) {
      QVERIFY2(e.message().contains(QStringLiteral("not a reply being written")), qPrintable(e.message()));
    }
  }

  void unfinishedReplyIsInterruptedAtNextOpen() {
    const auto id = store_->createConversation();
    const auto q = store_->addMessage(id, 0, Role::User, QStringLiteral("q"));
    const auto reply = store_->beginReply(id, q);
    store_->appendReplyText(reply, QStringLiteral("partial"));
    const QString path = store_->path();
    store_.reset();
    // A headless open leaves it alone (the app might be writing it)...
    OpenOptions headless;
    headless.recoverInterruptedReplies = false;
    {
      ConversationStore peek(path, headless);
      QCOMPARE(peek.message(reply)->finish, FinishReason::Streaming);
    }
    // ...the app's open marks it.
    store_ = std::make_unique<ConversationStore>(path);
    QCOMPARE(store_->interruptedAtOpen(), 1);
    QCOMPARE(store_->message(reply)->finish, FinishReason::Interrupted);
    QCOMPARE(store_->message(reply)->text, QStringLiteral("partial"));
  }

  void searchFindsHighlightsAndSkipsDeleted() {
    const auto a = store_->createConversation(QStringLiteral("Cooking"));
    const auto b = store_->createConversation(QStringLiteral("Travel"));
    const auto qa = store_->addMessage(a, 0, Role::User, QStringLiteral("How long do I boil <pasta> & eggs?"));
    store_->addMessage(a, qa, Role::Assistant, QStringLiteral("Boil the pasta for ten minutes."));
    store_->addMessage(b, 0, Role::User, QStringLiteral("Caf\u00e9s in Lisbon serving past\u00e9is"));
    auto hits = store_->search(QStringLiteral("pasta"));
    QCOMPARE(hits.size(), 2);
    QCOMPARE(hits[0].role, Role::Assistant);  // newest first
    QCOMPARE(hits[0].conversationTitle, QStringLiteral("Cooking"));
    QCOMPARE(highlightSnippetPlain(hits[0].snippet, QStringLiteral("["), QStringLiteral("]")),
             QStringLiteral("Boil the [pasta] for ten minutes."));
    // HTML in messages is escaped; only the highlight is markup.
    QCOMPARE(highlightSnippetHtml(hits[1].snippet),
             QStringLiteral("How long do I boil &lt;<b>pasta</b>&gt; &amp; eggs?"));
    // Prefix match on the last word, accents folded.
    hits = store_->search(QStringLiteral("cafe lisb"));
    QCOMPARE(hits.size(), 1);
    QCOMPARE(hits[0].conversationId, b);
    QCOMPARE(highlightSnippetPlain(hits[0].snippet, QStringLiteral("["), QStringLiteral("]")),
             QStringLiteral("[Caf\u00e9s] in [Lisbon] serving past\u00e9is"));
    QVERIFY(store_->search(QStringLiteral("\"ten pasta\"")).isEmpty());  // a phrase keeps word order
    QCOMPARE(store_->search(QStringLiteral("\"pasta for ten\"")).size(), 1);
    store_->deleteConversation(a);
    QVERIFY(store_->search(QStringLiteral("pasta")).isEmpty());
    QCOMPARE(store_->search(QStringLiteral("pasta"), 10).size(), 0);
  }

  void searchNeverFailsOnWhatPeopleType() {
    const auto id = store_->createConversation();
    store_->addMessage(id, 0, Role::User, QStringLiteral("NEAR AND OR NOT col:umn \"quoted\" (paren) star*"));
    for (const QString& q :
         {QStringLiteral("\""), QStringLiteral("AND"), QStringLiteral("NEAR("), QStringLiteral("col:"),
          QStringLiteral("* ^ -"), QStringLiteral("(paren"), QStringLiteral("\"unclosed phrase"),
          QStringLiteral("'; DROP TABLE messages; --"), QString(), QStringLiteral("   ")}) {
      try {
        store_->search(q);
      } catch (const StorageError& e) {
        QFAIL(qPrintable(QStringLiteral("search for %1 failed: %2").arg(q, e.message())));
      }
    }
    QCOMPARE(store_->search(QStringLiteral("AND")).size(), 1);  // operators are plain words
    QCOMPARE(store_->search(QStringLiteral("(paren")).size(), 1);
    QCOMPARE(store_->search(QStringLiteral("\"quoted")).size(), 1);
    QCOMPARE(ftsQueryFromUserText(QStringLiteral("a \"b c\" d")), QStringLiteral("\"a\"* \"b c\" \"d\"*"));
    QCOMPARE(ftsQueryFromUserText(QStringLiteral("\"b c\"")), QStringLiteral("\"b c\""));
    QCOMPARE(ftsQueryFromUserText(QStringLiteral("-- ** ")), QString());
  }

  void searchSeesStreamedText() {
    const auto id = store_->createConversation();
    const auto q = store_->addMessage(id, 0, Role::User, QStringLiteral("q"));
    const auto reply = store_->beginReply(id, q);
    store_->appendReplyText(reply, QStringLiteral("quantum "));
    store_->appendReplyText(reply, QStringLiteral("xylophone"));
    QCOMPARE(store_->search(QStringLiteral("xylophone")).size(), 1);
    QCOMPARE(store_->search(QStringLiteral("quantum")).size(), 1);
    QCOMPARE(store_->integrityCheck(), QStringLiteral("ok"));
    auto st = store_->database().prepare("INSERT INTO messages_fts(messages_fts, rank) VALUES ('integrity-check', 1)");
    st.run();  // throws if the index disagrees with the messages
  }

  void dataLocationOrder() {
    const auto dir = test::scratchDir();
    qputenv("TRIT_DATA_DIR", dir->filePath(QStringLiteral("from-env")).toUtf8());
    QString error;
    QCOMPARE(conversationDatabasePath(&error), dir->filePath(QStringLiteral("from-env/conversations.sqlite3")));
    QVERIFY(QFileInfo(dir->filePath(QStringLiteral("from-env"))).isDir());
    setDataDirOverride(dir->filePath(QStringLiteral("from-option")));
    QCOMPARE(dataDirectory(), dir->filePath(QStringLiteral("from-option")));
    setDataDirOverride({});
    qunsetenv("TRIT_DATA_DIR");
    QCoreApplication::setApplicationName(QStringLiteral("Trit"));
    QCoreApplication::setOrganizationName(QStringLiteral("Trit"));
    QCOMPARE(dataDirectory(), QStandardPaths::writableLocation(QStandardPaths::AppDataLocation));
    // A file where the folder should be gives a clear error.
    QFile blocker(dir->filePath(QStringLiteral("file")));
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    setDataDirOverride(dir->filePath(QStringLiteral("file/sub")));
    QCOMPARE(conversationDatabasePath(&error), QString());
    QVERIFY2(error.contains(QStringLiteral("cannot create the data folder")), qPrintable(error));
    setDataDirOverride({});
  }
};

QTEST_GUILESS_MAIN(TestStorageStore)
#include "tst_storage_store.moc"
