// The QML-facing models over the conversation store: the sidebar list (paging, order, pin, rename,
// delete with undo) and search results with highlights. QAbstractItemModelTester checks every signal
// each model emits along the way. (The chat's messages: chat::MessageListModel, tst_chat_conversations.)
#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QtTest>

#include "storage/conversation_list_model.h"
#include "storage/conversation_search_model.h"
#include "storage/reply_writer.h"
#include "storage_test_support.h"

using namespace trit::storage;

class TestConversationModels : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> dir_;
  std::unique_ptr<ConversationStore> store_;

  static QList<qint64> ids(const QAbstractItemModel& model, int role) {
    QList<qint64> out;
    for (int i = 0; i < model.rowCount(); ++i) out << model.index(i, 0).data(role).toLongLong();
    return out;
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

  void listFollowsTheStoreRowByRow() {
    ConversationListModel model(store_.get());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(model.count(), 0);
    QSignalSpy resets(&model, &QAbstractItemModel::modelReset);

    const auto a = model.createConversation();
    const auto b = model.createConversation();
    QCOMPARE(ids(model, ConversationListModel::IdRole), (QList<qint64>{b, a}));
    QCOMPARE(model.index(0, 0).data(ConversationListModel::DisplayTitleRole).toString(),
             QStringLiteral("New conversation"));
    QCOMPARE(model.index(0, 0).data(ConversationListModel::TitleRole).toString(), QString());

    // Using `a` moves it to the top and gives it its automatic title.
    store_->addMessage(a, 0, Role::User, QStringLiteral("Plan a trip to Porto"), ConversationStore::nowMs() + 1000);
    QCOMPARE(ids(model, ConversationListModel::IdRole), (QList<qint64>{a, b}));
    QCOMPARE(model.index(0, 0).data(ConversationListModel::TitleRole).toString(),
             QStringLiteral("Plan a trip to Porto"));

    QVERIFY(model.setPinned(b, true));
    QCOMPARE(ids(model, ConversationListModel::IdRole), (QList<qint64>{b, a}));
    QVERIFY(model.index(0, 0).data(ConversationListModel::PinnedRole).toBool());
    QVERIFY(model.rename(a, QStringLiteral("Porto")));
    QCOMPARE(model.index(1, 0).data(ConversationListModel::TitleRole).toString(), QStringLiteral("Porto"));
    QVERIFY(!model.rename(12345, QStringLiteral("nope")));
    QVERIFY2(model.errorString().contains(QStringLiteral("does not exist")), qPrintable(model.errorString()));
    QCOMPARE(resets.size(), 0);  // never a reset: the view keeps its place
    const auto roles = model.roleNames();
    for (const char* name : {"conversationId", "title", "displayTitle", "created", "updated", "pinned", "model"})
      QVERIFY2(roles.values().contains(name), name);
  }

  void deleteCanBeUndoneUntilTheWindowCloses() {
    ConversationListModel model(store_.get());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto a = model.createConversation();
    const auto b = model.createConversation();
    model.rename(a, QStringLiteral("keep me"));
    QVERIFY(model.remove(a));
    QCOMPARE(ids(model, ConversationListModel::IdRole), (QList<qint64>{b}));
    QVERIFY(model.canUndoDelete());
    QCOMPARE(model.undoTitle(), QStringLiteral("keep me"));
    QVERIFY(model.undoRemove());
    QVERIFY(!model.canUndoDelete());
    QCOMPARE(ids(model, ConversationListModel::IdRole), (QList<qint64>{b, a}));  // back in its place
    QVERIFY(!model.undoRemove());                                                // nothing left to undo

    // When the window closes, the data is gone for good.
    model.setUndoWindowMs(50);
    QVERIFY(model.remove(a));
    QTRY_VERIFY_WITH_TIMEOUT(!model.canUndoDelete(), 2000);
    auto st = store_->database().prepare("SELECT count(*) FROM conversations WHERE id = ?1");
    st.bind(1, a);
    QVERIFY(st.step());
    QCOMPARE(st.columnInt(0), 0);
    QCOMPARE(model.count(), 1);
  }

  void listPagesThroughManyConversations() {
    {
      Transaction tx(store_->database());
      for (int i = 0; i < ConversationListModel::kPageSize * 2 + 17; ++i) store_->createConversation();
      tx.commit();
    }
    ConversationListModel model(store_.get());
    QCOMPARE(model.count(), ConversationListModel::kPageSize);  // only the first page at open
    QVERIFY(model.canFetchMore({}));
    model.fetchMore({});
    QCOMPARE(model.count(), ConversationListModel::kPageSize * 2);
    // The tester fetches the rest itself (it walks every row).
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.fetchMore({});
    QCOMPARE(model.count(), ConversationListModel::kPageSize * 2 + 17);
    QVERIFY(!model.canFetchMore({}));
    QList<qint64> all;
    for (const auto& c : store_->listConversations()) all << c.id;
    QCOMPARE(ids(model, ConversationListModel::IdRole), all);
  }

  void searchModelHighlightsMatches() {
    const auto a = store_->createConversation();
    store_->addMessage(a, 0, Role::User, QStringLiteral("The <quick> brown fox"));
    ConversationSearchModel model(store_.get());
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy count(&model, &ConversationSearchModel::countChanged);
    model.setQuery(QStringLiteral("qui"));
    QCOMPARE(model.count(), 1);
    QCOMPARE(count.size(), 1);
    const QModelIndex hit = model.index(0, 0);
    QCOMPARE(hit.data(ConversationSearchModel::SnippetRole).toString(),
             QStringLiteral("The &lt;<b>quick</b>&gt; brown fox"));
    QCOMPARE(hit.data(ConversationSearchModel::SnippetPlainRole).toString(), QStringLiteral("The <[quick]> brown fox"));
    QCOMPARE(hit.data(ConversationSearchModel::ConversationIdRole).toLongLong(), a);
    QCOMPARE(hit.data(ConversationSearchModel::ConversationTitleRole).toString(),
             QStringLiteral("The <quick> brown fox"));
    QCOMPARE(hit.data(ConversationSearchModel::MessageRoleRole).toString(), QStringLiteral("user"));
    store_->deleteConversation(a);
    QCOMPARE(model.count(), 0);
    store_->restoreConversation(a);
    QCOMPARE(model.count(), 1);
    model.setQuery(QString());
    QCOMPARE(model.count(), 0);
  }
};

QTEST_MAIN(TestConversationModels)
#include "tst_conversation_models.moc"
