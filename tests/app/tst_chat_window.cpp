// The real Main.qml on the real bridges (no model needed): the sidebar lists the saved conversations,
// opening one shows its messages and versions in the chat view, search opens the conversation of a
// match, rename/pin/delete/undo go through to the store, and the storage banner offers Retry when the
// database cannot be opened. Catches wiring mistakes between Main.qml, Sidebar.qml and the models that
// the Qt Quick tests (with stand-in models) cannot see.
#include <QElapsedTimer>
#include <QQmlApplicationEngine>
#include <QQuickItem>
#include <QQuickWindow>
#include <QtTest>

#include "chat/chat_controller.h"
#include "chat_test_model.h"
#include "conversations/conversations_bridge.h"
#include "engine_thread/engine_bridge.h"
#include "main_window.h"
#include "settings/app_settings.h"
#include "storage/conversation_list_model.h"
#include "storage/conversation_store.h"

using namespace trit::chat;
namespace storage = trit::storage;

class TestChatWindow : public QObject {
  Q_OBJECT

  QString dir_;
  std::unique_ptr<AppSettings> settings_;
  std::unique_ptr<EngineBridge> engine_;
  std::unique_ptr<ChatController> chat_;
  std::unique_ptr<ConversationsBridge> bridge_;
  std::unique_ptr<QQmlApplicationEngine> qml_;
  QQuickWindow* window_ = nullptr;
  QStringList warnings_;
  qint64 alpha_ = 0, beta_ = 0;

  QQuickItem* item(const char* name) { return window_->findChild<QQuickItem*>(QLatin1String(name)); }
  static QQuickItem* itemAt(QQuickItem* list, int row) {
    QQuickItem* result = nullptr;
    QMetaObject::invokeMethod(list, "itemAtIndex", Q_RETURN_ARG(QQuickItem*, result), Q_ARG(int, row));
    return result;
  }
  static QString rowTitle(QQuickItem* list, int row) {
    QQuickItem* r = itemAt(list, row);
    auto* label = r ? r->findChild<QQuickItem*>(QStringLiteral("titleLabel")) : nullptr;
    return label ? label->property("text").toString() : QString();
  }

 private slots:
  void initTestCase() {
    dir_ = trit::test::scratchDir(QStringLiteral("chat-window"));
    settings_ = std::make_unique<AppSettings>(dir_ + QStringLiteral("/settings.ini"));
    engine_ = std::make_unique<EngineBridge>(settings_.get());
    chat_ = std::make_unique<ChatController>(engine_.get(), settings_.get());
    bridge_ = std::make_unique<ConversationsBridge>();
    connect(bridge_.get(), &ConversationsBridge::storeChanged, chat_.get(), &ChatController::setStore);
    QVERIFY(bridge_->open(dir_ + QStringLiteral("/conversations.sqlite3")));

    // Two saved conversations; the first has a regenerated reply (two versions).
    auto& store = *bridge_->store();
    alpha_ = store.createConversation();
    const auto q = store.addMessage(alpha_, 0, storage::Role::User, u"Alpha: what is a ternary weight?"_qs);
    for (const QString& text : {u"first answer"_qs, u"second answer"_qs}) {
      const auto r = store.beginReply(alpha_, q);
      store.appendReplyText(r, text);
      storage::ReplyStats stats;
      stats.promptTokens = 12;
      stats.generatedTokens = 3;
      stats.timeToFirstTokenMs = 40;
      stats.generationTokensPerSecond = 30;
      store.finishReply(r, stats, storage::FinishReason::Stop);
    }
    QTest::qWait(5);
    beta_ = store.createConversation();
    store.addMessage(beta_, 0, storage::Role::User, u"Beta question"_qs);

    qml_ = std::make_unique<QQmlApplicationEngine>();
    connect(qml_.get(), &QQmlApplicationEngine::warnings, this, [this](const QList<QQmlError>& list) {
      for (const auto& w : list) warnings_ << w.toString();
    });
    qml_->setInitialProperties({{u"chat"_qs, QVariant::fromValue(static_cast<QObject*>(chat_.get()))},
                                {u"engine"_qs, QVariant::fromValue(static_cast<QObject*>(engine_.get()))},
                                {u"settings"_qs, QVariant::fromValue(static_cast<QObject*>(settings_.get()))},
                                {u"conversations"_qs, QVariant::fromValue(static_cast<QObject*>(bridge_.get()))}});
    QString error;
    window_ = trit::app::loadMainWindow(*qml_, &error);
    QVERIFY2(window_, qPrintable(error));
    QVERIFY(QTest::qWaitForWindowExposed(window_));
  }

  void cleanupTestCase() {
    qml_.reset();
    chat_.reset();
    bridge_.reset();
    engine_.reset();
    settings_.reset();
  }

  void sidebarListsTheSavedConversations() {
    auto* list = item("conversationList");
    QVERIFY(list);
    QTRY_COMPARE(list->property("count").toInt(), 2);
    QTRY_VERIFY(itemAt(list, 1));
    QCOMPARE(rowTitle(list, 0), u"Beta question"_qs);  // last used first
    QCOMPARE(rowTitle(list, 1), u"Alpha: what is a ternary weight?"_qs);
  }

  void openingAConversationShowsItWithItsVersions() {
    auto* list = item("conversationList");
    QVERIFY(QMetaObject::invokeMethod(itemAt(list, 1), "activate"));
    QCOMPARE(chat_->conversationId(), alpha_);
    auto* messages = item("messageList");
    QTRY_COMPARE(messages->property("count").toInt(), 2);
    QTRY_VERIFY(itemAt(messages, 1));
    auto* label = itemAt(messages, 1)->findChild<QQuickItem*>(u"variantLabel"_qs);
    QVERIFY(label);
    QCOMPARE(label->property("text").toString(), u"2/2"_qs);
    auto* stats = itemAt(messages, 1)->findChild<QQuickItem*>(u"statsLabel"_qs);
    QVERIFY(stats);
    QVERIFY2(stats->property("text").toString().contains(u"12 prompt + 3 generated"_qs),
             qPrintable(stats->property("text").toString()));
    // The pager in the bubble switches the stored version.
    auto* previous = itemAt(messages, 1)->findChild<QQuickItem*>(u"previousVariantButton"_qs);
    QVERIFY(previous && previous->isEnabled());
    QVERIFY(QMetaObject::invokeMethod(previous, "clicked"));
    QTRY_COMPARE(chat_->messages()->at(1).text, u"first answer"_qs);
    QCOMPARE(bridge_->store()->thread(alpha_)[1].message.text, u"first answer"_qs);
  }

  void searchOpensTheConversationOfAMatch() {
    chat_->newConversation();
    QCOMPARE(chat_->conversationId(), 0);
    item("searchField")->setProperty("text", u"ternary"_qs);
    auto* results = item("searchResultList");
    QTRY_VERIFY(results->isVisible());
    QTRY_COMPARE(results->property("count").toInt(), 1);
    QTRY_VERIFY(itemAt(results, 0));
    auto* snippet = itemAt(results, 0)->findChild<QQuickItem*>(u"snippetText"_qs);
    QVERIFY(snippet->property("text").toString().contains(u"<b>ternary</b>"_qs));
    QVERIFY(QMetaObject::invokeMethod(itemAt(results, 0), "clicked"));
    QCOMPARE(chat_->conversationId(), alpha_);
    item("searchField")->setProperty("text", QString());
  }

  void renamePinDeleteAndUndoReachTheStore() {
    auto* sidebar = item("sidebar");
    auto* list = item("conversationList");
    QVERIFY(QMetaObject::invokeMethod(sidebar, "renameRequested", Q_ARG(QVariant, QVariant::fromValue(beta_)),
                                      Q_ARG(QString, u"Beta renamed"_qs)));
    QCOMPARE(bridge_->store()->conversation(beta_)->title, u"Beta renamed"_qs);
    QTRY_COMPARE(rowTitle(list, 0), u"Beta renamed"_qs);
    // Pinning the older one puts it first.
    QVERIFY(QMetaObject::invokeMethod(sidebar, "pinRequested", Q_ARG(QVariant, QVariant::fromValue(alpha_)),
                                      Q_ARG(bool, true)));
    QVERIFY(bridge_->store()->conversation(alpha_)->pinned);
    QTRY_COMPARE(rowTitle(list, 0), u"Alpha: what is a ternary weight?"_qs);
    QTRY_VERIFY(itemAt(list, 0)->findChild<QQuickItem*>(u"pinnedMark"_qs)->isVisible());
    // Delete the conversation on screen: the list and the chat follow; Undo brings it back.
    QCOMPARE(chat_->conversationId(), alpha_);
    QVERIFY(QMetaObject::invokeMethod(sidebar, "deleteRequested", Q_ARG(QVariant, QVariant::fromValue(alpha_))));
    QTRY_COMPARE(list->property("count").toInt(), 1);
    QCOMPARE(chat_->conversationId(), 0);
    auto* undo = item("undoDeleteButton");
    QTRY_VERIFY(item("undoBar")->isVisible());
    QVERIFY(QMetaObject::invokeMethod(undo, "clicked"));
    QTRY_COMPARE(list->property("count").toInt(), 2);
    QCOMPARE(chat_->conversationId(), alpha_);
    QVERIFY(!item("undoBar")->isVisible());
  }

  void bannerOffersRetryWhenTheDatabaseCannotBeOpened() {
    auto* banner = item("storageBanner");
    QVERIFY(banner);
    QVERIFY(!banner->isVisible());
    QFile blocker(dir_ + u"/blocker"_qs);
    QVERIFY(blocker.open(QIODevice::WriteOnly));
    blocker.close();
    QVERIFY(!bridge_->open(blocker.fileName() + u"/x.sqlite3"_qs));
    QTRY_VERIFY(banner->isVisible());
    QVERIFY(item("storageRetryButton")->isVisible());
    QVERIFY(item("storageMessage")->property("text").toString().contains(u"memory only"_qs));
    QCOMPARE(item("conversationList")->property("count").toInt(), 0);
    QVERIFY(!chat_->persistent());
    QVERIFY(bridge_->open(dir_ + QStringLiteral("/conversations.sqlite3")));
    QTRY_VERIFY(!banner->isVisible());
    QTRY_COMPARE(item("conversationList")->property("count").toInt(), 2);
  }

  // Issue 27: a model without a chat format says so near the composer, whose prompt asks for text to
  // continue; a chat model shows neither.
  bool loadGolden(const char* name) {
    LoadRequest r;
    r.path = qEnvironmentVariable("TRIT_SHARED_DIR") + QStringLiteral("/golden/") + QLatin1String(name);
    r.backend = QStringLiteral("cpu");
    engine_->load(r);
    QElapsedTimer clock;
    clock.start();
    while (engine_->state() != EngineBridge::State::Ready && clock.elapsed() < 20000) QTest::qWait(10);
    return engine_->state() == EngineBridge::State::Ready;
  }
  void baseModelIsShownAndOffersCompletion() {
    auto* notice = item("baseModelNotice");
    auto* input = item("composerInput");
    QVERIFY(notice && input);
    QVERIFY(!notice->isVisible());  // no model yet

    QVERIFY(loadGolden("golden-c.gguf"));  // llama, no tokenizer.chat_template
    QVERIFY(engine_->baseModel());
    QTRY_VERIFY(notice->isVisible());
    QVERIFY(notice->property("text").toString().contains(u"base model"_qs));
    QVERIFY(input->property("placeholderText").toString().contains(u"continue"_qs));

    QVERIFY(loadGolden("golden-a.gguf"));  // bitnet-25: the 2B4T chat format
    QVERIFY(!engine_->baseModel());
    QCOMPARE(engine_->chatFormat(), u"2B4T"_qs);
    QTRY_VERIFY(!notice->isVisible());
    QVERIFY(input->property("placeholderText").toString().startsWith(u"Message Trit"_qs));
    engine_->unloadModel();
  }

  void noQmlWarnings() { QVERIFY2(warnings_.isEmpty(), qPrintable(warnings_.join(u'\n'))); }
};

QTEST_MAIN(TestChatWindow)
#include "tst_chat_window.moc"
