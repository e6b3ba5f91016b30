// From a fresh install to a first reply, on the real window and bridges (issue 29, first run): an
// empty models folder shows the welcome with the GPU the app found (lavapipe here) and the recommended
// model of a catalogue served by a local HTTP server; one click downloads the tiny model, loads it on
// the GPU and puts the keyboard in the composer, ready for the first message. The welcome's states one
// by one are tests/qml/tst_FirstRun.qml.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickItem>
#include <QQuickWindow>
#include <QtTest>

#include "app_services.h"
#include "chat/chat_controller.h"
#include "download_test_support.h"
#include "engine_thread/engine_bridge.h"
#include "http_test_server.h"
#include "main_window.h"
#include "models/model_manager_bridge.h"
#include "settings/app_settings.h"

using namespace trit::chat;
using trit::models::ModelManagerBridge;
using trit::test::HttpTestServer;

class TestFirstRun : public QObject {
  Q_OBJECT

  HttpTestServer server_;

  static QQuickItem* find(QQuickWindow* window, const char* name) {
    return window->findChild<QQuickItem*>(QLatin1String(name));
  }
  static void click(QQuickWindow* window, QQuickItem* item) {
    const QPointF centre = item->mapToScene(QPointF(item->width() / 2, item->height() / 2));
    QTest::mouseClick(window, Qt::LeftButton, {}, centre.toPoint());
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, trit::test::scratchDir(u"settings"_qs));
    QCoreApplication::setOrganizationName(u"TritTest"_qs);
    QCoreApplication::setApplicationName(u"tst_first_run"_qs);
  }

  void freshInstallToComposer() {
    const QString dir = trit::test::scratchDir(u"first-run"_qs);
    const QByteArray model = trit::test::syntheticModel(5);
    QVERIFY(!model.isEmpty());
    HttpTestServer::Route route;
    route.body = model;
    server_.setRoute(u"/tiny.gguf"_qs, route);
    QVERIFY(server_.listen());
    const QJsonObject entry{{"id", "tiny"},
                            {"name", "Tiny test model"},
                            {"url", server_.url(u"/tiny.gguf"_qs).toString()},
                            {"size", double(model.size())},
                            {"sha256", trit::test::sha256Hex(model)},
                            {"license", "MIT"},
                            {"description", "a tiny synthetic model"},
                            {"memory", 1000.0},
                            {"file", "tiny.gguf"}};
    const QString catalog = dir + u"/catalog.json"_qs;
    {
      QFile f(catalog);
      QVERIFY(f.open(QIODevice::WriteOnly));
      f.write(QJsonDocument(QJsonObject{{"models", QJsonArray{entry}}}).toJson());
    }

    AppSettings settings(dir + u"/settings.ini"_qs);
    settings.setMaxTokens(8);
    EngineBridge engine(&settings);
    ChatController chat(&engine, &settings);
    ModelManagerBridge models(catalog, dir + u"/models"_qs, trit::test::fastOptions());
    QSignalSpy loaded(&models, &ModelManagerBridge::ready);
    models.load();
    QVERIFY(loaded.count() > 0 || loaded.wait(10000));
    QCOMPARE(models.installedCount(), 0);
    models.selectGpu(-1, 0);  // as main() does through the engine settings: ask the GPU for its memory

    QQmlApplicationEngine qml;
    QStringList warnings;
    connect(&qml, &QQmlApplicationEngine::warnings, this, [&warnings](const QList<QQmlError>& list) {
      for (const auto& w : list) warnings << w.toString();
    });
    trit::app::AppServices::of(qml)->setModels(&models);
    qml.setInitialProperties({{u"chat"_qs, QVariant::fromValue(static_cast<QObject*>(&chat))},
                              {u"engine"_qs, QVariant::fromValue(static_cast<QObject*>(&engine))},
                              {u"settings"_qs, QVariant::fromValue(static_cast<QObject*>(&settings))}});
    QString error;
    QQuickWindow* window = trit::app::loadMainWindow(qml, &error);
    QVERIFY2(window, qPrintable(error));
    QVERIFY(QTest::qWaitForWindowExposed(window));

    // The welcome, not the empty chat and not a dialog.
    QQuickItem* welcome = find(window, "firstRun");
    QVERIFY(welcome && welcome->isVisible());
    QVERIFY(!find(window, "emptyState")->isVisible());
    QCOMPARE(find(window, "welcomeHeading")->property("text").toString(), u"Welcome to Trit"_qs);
    // The GPU the app found (or why none), once asked.
    QTRY_VERIFY_WITH_TIMEOUT(!models.gpuSummary().isEmpty(), 20000);
    const QString gpuLine = find(window, "gpuLine")->property("text").toString();
    QVERIFY2(models.gpuError().isEmpty() ? gpuLine == models.gpuSummary() : gpuLine.startsWith(u"No GPU found"_qs),
             qPrintable(gpuLine));
    QQuickItem* button = find(window, "firstRunButton");
    QTRY_COMPARE(button->property("text").toString(), u"Download Tiny test model and start"_qs);

    // One click: download, load, composer.
    click(window, button);
    QTRY_COMPARE_WITH_TIMEOUT(engine.state(), EngineBridge::State::Ready, 60000);
    QCOMPARE(models.installedCount(), 1);
    QCOMPARE(engine.modelPath(), models.pathOf(u"tiny"_qs));
    QTRY_VERIFY(!welcome->isVisible());
    QQuickItem* input = find(window, "composerInput");
    QTRY_VERIFY(input->hasActiveFocus());
    QCOMPARE(find(window, "modelSwitcher")->property("text").toString(), engine.modelName());
    // The header's switcher lists it, from the bridge's models on disk.
    QTRY_VERIFY(window->findChild<QObject*>(u"modelMenuItem_"_qs + models.pathOf(u"tiny"_qs)));

    // What is typed now goes to the composer (the reply itself: app_chat_end_to_end).
    for (const char c : {'H', 'i'}) QTest::keyClick(window, c);
    QCOMPARE(input->property("text").toString(), u"Hi"_qs);
    QVERIFY2(warnings.isEmpty(), qPrintable(warnings.join(u'\n')));
  }

  // Issue 29 #5: the model manager is a page of the window in place of the chat, not a floating box:
  // the sidebar stays, no popup opens, and the back button or Esc return to the chat.
  void modelManagerIsAPage() {
    const QString dir = trit::test::scratchDir(u"models-page"_qs);
    AppSettings settings(dir + u"/settings.ini"_qs);
    EngineBridge engine(&settings);
    ChatController chat(&engine, &settings);
    ModelManagerBridge models(u":/trit/catalog.json"_qs, dir + u"/models"_qs, trit::test::fastOptions());
    models.setGpuProbe([](int) { return trit::models::GpuMemory{}; });
    QSignalSpy loaded(&models, &ModelManagerBridge::ready);
    models.load();
    QVERIFY(loaded.count() > 0 || loaded.wait(10000));

    QQmlApplicationEngine qml;
    trit::app::AppServices::of(qml)->setModels(&models);
    qml.setInitialProperties({{u"chat"_qs, QVariant::fromValue(static_cast<QObject*>(&chat))},
                              {u"engine"_qs, QVariant::fromValue(static_cast<QObject*>(&engine))},
                              {u"settings"_qs, QVariant::fromValue(static_cast<QObject*>(&settings))}});
    QString error;
    QQuickWindow* window = trit::app::loadMainWindow(qml, &error);
    QVERIFY2(window, qPrintable(error));
    QVERIFY(QTest::qWaitForWindowExposed(window));
    QQuickItem* page = find(window, "modelManagerPage");
    QQuickItem* chatPage = find(window, "chatPage");
    QVERIFY(page && chatPage);
    QVERIFY(!page->isVisible() && chatPage->isVisible());

    // From the welcome's "Choose another model…": the page, beside the sidebar.
    click(window, find(window, "firstRunManageButton"));
    QTRY_VERIFY(page->isVisible());
    QVERIFY(!chatPage->isVisible());
    QVERIFY(find(window, "sidebar")->isVisible());
    QVERIFY(page->width() > window->width() / 2);
    QVERIFY(window->findChildren<QQuickItem*>(u"dialogScrim"_qs).isEmpty());  // nothing modal over it
    // The catalogue's models as cards, the recommended one among them.
    QVariant card;
    QVERIFY(QMetaObject::invokeMethod(page, "cardFor", Q_RETURN_ARG(QVariant, card),
                                      Q_ARG(QVariant, models.recommendedModel().value(u"id"_qs))));
    QVERIFY(card.value<QObject*>());
    QTest::keyClick(window, Qt::Key_Escape);
    QTRY_VERIFY(chatPage->isVisible());
    QVERIFY(!page->isVisible());

    // From the sidebar, and back with the page's own button.
    click(window, find(window, "modelManagerButton"));
    QTRY_VERIFY(page->isVisible());
    click(window, find(window, "backButton"));
    QTRY_VERIFY(chatPage->isVisible());
    QVERIFY(!page->isVisible());
  }
};

QTEST_MAIN(TestFirstRun)
#include "tst_first_run.moc"
