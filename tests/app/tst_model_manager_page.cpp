// qml/ModelManagerPage.qml and qml/SettingsDialog.qml wired to the real ModelManagerBridge as Main.qml
// wires them, driven through window events: a card's Download, Pause and Resume buttons run a download
// from the loopback HTTP server (throttled) to an installed model with its speed and time left shown on
// the way; a file manager's drop (a QDropEvent carrying file URLs) onto the page imports the .gguf into
// the models folder and names the file that is not one; a file path given to the page imports too;
// removal happens only after the confirmation's Yes; the settings' models folder switches the bridge's
// folder, and a missing one shows the bridge's reason and keeps the old folder.
#include <QtQml/qqmlextensionplugin.h>
#include <QDir>
#include <QDragEnterEvent>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMimeData>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include "app_services.h"
#include "download_test_support.h"
#include "http_test_server.h"
#include "models/model_manager_bridge.h"

Q_IMPORT_QML_PLUGIN(TritPlugin)

using trit::models::ModelListModel;
using trit::models::ModelManagerBridge;
using trit::test::HttpTestServer;

class TestModelManagerPage : public QObject {
  Q_OBJECT

  struct Ui {
    std::unique_ptr<QQmlApplicationEngine> engine;
    ModelManagerBridge* bridge = nullptr;
    QQuickWindow* window = nullptr;
    QObject* models = nullptr;    // ModelManagerPage
    QObject* settings = nullptr;  // SettingsDialog
    QString folder;
  };

  HttpTestServer server_;
  QByteArray model_;  // a tiny synthetic model, served throttled at /slow.gguf

  // A catalogue with one model, served slowly enough to be paused on the way.
  QString writeCatalog() {
    const QString dir = trit::test::scratchDir(QStringLiteral("page-catalog"));
    const QJsonObject slow{{"id", "slow"},
                           {"name", "Slow model"},
                           {"url", server_.url("/slow.gguf").toString()},
                           {"size", double(model_.size())},
                           {"sha256", trit::test::sha256Hex(model_)},
                           {"license", "MIT"},
                           {"description", "a tiny synthetic model"},
                           {"memory", 1000.0},
                           {"file", "slow.gguf"}};
    const QString path = QDir(dir).filePath("catalog.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(QJsonDocument(QJsonObject{{"models", QJsonArray{slow}}}).toJson());
    return path;
  }

  // The page and the settings in a window, connected to the bridge like Main.qml connects them.
  void makeUi(Ui& ui, const QString& catalog = QStringLiteral(":/trit/catalog.json")) {
    ui.folder = trit::test::scratchDir(QStringLiteral("page-models"));
    ui.engine = std::make_unique<QQmlApplicationEngine>();
    ui.bridge = new ModelManagerBridge(catalog, ui.folder, trit::test::fastOptions(), ui.engine.get());
    trit::app::AppServices::of(*ui.engine)->setModels(ui.bridge);
    QSignalSpy ready(ui.bridge, &ModelManagerBridge::ready);
    ui.bridge->load();
    QVERIFY(ready.wait(10000));
    ui.bridge->setGpuFreeBytes(1LL << 30);
    ui.engine->addImportPath(QStringLiteral("qrc:/qt/qml"));
    ui.engine->loadData(R"(
      import QtQuick
      import QtQuick.Controls
      import Trit
      import Trit.App
      ApplicationWindow {
        width: 1000; height: 760; visible: true
        property alias models: manager
        property alias settings: settingsDialog
        ModelManagerPage {
          id: manager
          anchors.fill: parent
          entries: App.models.model
          modelsFolder: App.models.modelsFolder
          installedCount: App.models.installedCount
          onDownloadRequested: id => App.models.download(id)
          onPauseRequested: id => App.models.pause(id)
          onResumeRequested: id => App.models.resume(id)
          onImportRequested: fileUrls => App.models.importFiles(fileUrls)
          onRemoveRequested: id => App.models.remove(id)
        }
        SettingsDialog { id: settingsDialog }
      })");
    QCOMPARE(ui.engine->rootObjects().size(), 1);
    ui.window = qobject_cast<QQuickWindow*>(ui.engine->rootObjects().first());
    QVERIFY(ui.window);
    ui.models = ui.window->property("models").value<QObject*>();
    ui.settings = ui.window->property("settings").value<QObject*>();
    QVERIFY(ui.models && ui.settings);
    QVERIFY(QTest::qWaitForWindowExposed(ui.window));
  }

  // The card the page shows for `id` (in whichever section), and one of its children.
  static QQuickItem* card(Ui& ui, const QString& id) {
    QVariant c;
    if (!QMetaObject::invokeMethod(ui.models, "cardFor", Q_RETURN_ARG(QVariant, c), Q_ARG(QVariant, id)))
      return nullptr;
    return qobject_cast<QQuickItem*>(c.value<QObject*>());
  }
  static QQuickItem* inCard(Ui& ui, const QString& id, const char* name) {
    QQuickItem* c = card(ui, id);
    return c ? c->findChild<QQuickItem*>(QLatin1String(name)) : nullptr;
  }
  static QString textOf(Ui& ui, const QString& id, const char* name) {
    QQuickItem* item = inCard(ui, id, name);
    return item ? item->property("text").toString() : QString();
  }
  static bool shown(Ui& ui, const QString& id, const char* name) {
    QQuickItem* item = inCard(ui, id, name);
    return item && item->isVisible();
  }
  static void click(Ui& ui, QQuickItem* item) {
    QVERIFY(item && item->isVisible());
    const QPointF centre = item->mapToScene(QPointF(item->width() / 2, item->height() / 2));
    QVERIFY2(QRectF(QPointF(0, 0), ui.window->size()).contains(centre), "the button is on screen");
    QTest::mouseClick(ui.window, Qt::LeftButton, {}, centre.toPoint());
  }

  static QString writeModel(const QString& dir, const QString& name) {
    const QString path = QDir(dir).filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(trit::test::syntheticModel(5));
    return path;
  }

  static QVariant role(ModelManagerBridge& b, const QString& id, int r) {
    const int row = b.model()->indexOf(id);
    return row < 0 ? QVariant() : b.model()->data(b.model()->index(row), r);
  }

 private slots:
  void initTestCase() {
    model_ = trit::test::syntheticModel(9);
    QVERIFY(!model_.isEmpty());
    QVERIFY2(model_.size() > 8 * 16384, "the throttled download must take several chunks");
    QVERIFY(server_.listen());
    // 16 KiB every 30 ms: slow enough to pause on the way, quick enough for a short test.
    HttpTestServer::Route slow;
    slow.body = model_;
    slow.chunkBytes = 16 * 1024;
    slow.chunkDelayMs = 30;
    server_.setRoute("/slow.gguf", slow);
    // The settings' folder change is remembered in QSettings: keep that away from the user's own.
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope,
                       trit::test::scratchDir(QStringLiteral("settings")));
    QCoreApplication::setOrganizationName(QStringLiteral("TritTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_model_manager_page"));
  }

  // Download, pause, resume, installed: all by the card's buttons, with the figures on the card.
  void downloadPauseResumeFromTheCard() {
    Ui ui;
    makeUi(ui, writeCatalog());
    QVERIFY(card(ui, "slow"));
    QCOMPARE(card(ui, "slow")->objectName(), QStringLiteral("catalogCard_slow"));
    QVERIFY(shown(ui, "slow", "fitBadge"));
    QCOMPARE(textOf(ui, "slow", "fitBadgeLabel"), QStringLiteral("Fits your GPU"));
    QVERIFY(ui.models->findChild<QQuickItem*>("noModelsYet")->isVisible());

    click(ui, inCard(ui, "slow", "downloadButton"));
    QTRY_VERIFY_WITH_TIMEOUT(shown(ui, "slow", "pauseButton"), 10000);
    QVERIFY(shown(ui, "slow", "modelProgress"));
    // While it runs: how much arrived, how fast, and how long is left.
    QTRY_VERIFY_WITH_TIMEOUT(textOf(ui, "slow", "modelSpeed").endsWith("/s"), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(textOf(ui, "slow", "modelTimeLeft").endsWith(" left"), 10000);
    QVERIFY2(textOf(ui, "slow", "modelReceived").contains(QStringLiteral(" of ")),
             qPrintable(textOf(ui, "slow", "modelReceived")));

    click(ui, inCard(ui, "slow", "pauseButton"));
    QTRY_VERIFY_WITH_TIMEOUT(shown(ui, "slow", "resumeButton"), 10000);
    QVERIFY(!shown(ui, "slow", "pauseButton"));
    QVERIFY(!shown(ui, "slow", "modelSpeed"));  // nothing moves while paused
    const qint64 pausedAt =
        ui.bridge->model()->data(ui.bridge->model()->index(0), ModelListModel::BytesReceivedRole).toLongLong();
    QVERIFY(pausedAt > 0 && pausedAt < model_.size());
    QVERIFY(QFile::exists(QDir(ui.folder).filePath("slow.gguf.part")));

    QSignalSpy finished(ui.bridge, &ModelManagerBridge::downloadFinished);
    click(ui, inCard(ui, "slow", "resumeButton"));
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.first().at(1).toBool(), true);
    // Resumed where it stopped (a Range request), and now on this computer with its file.
    bool ranged = false;
    for (const auto& r : server_.requestsFor("/slow.gguf")) ranged = ranged || r.range.startsWith("bytes=");
    QVERIFY(ranged);
    QTRY_COMPARE(card(ui, "slow")->objectName(), QStringLiteral("installedCard_slow"));
    QCOMPARE(textOf(ui, "slow", "modelPath"), QDir(ui.folder).filePath("slow.gguf"));
    QVERIFY(shown(ui, "slow", "useButton"));
    QVERIFY(!ui.models->findChild<QQuickItem*>("noModelsYet")->isVisible());
  }

  // A file path (what a file dialog or a typed path gives) imports like a drop.
  void pathImportsIntoTheFolder() {
    Ui ui;
    makeUi(ui);
    const QString src = trit::test::scratchDir(QStringLiteral("path-src"));
    const QString model = writeModel(src, QStringLiteral("by path.gguf"));
    QSignalSpy imported(ui.bridge, &ModelManagerBridge::importFinished);
    QVariant accepted;
    QVERIFY(QMetaObject::invokeMethod(ui.models, "handleFiles", Q_RETURN_ARG(QVariant, accepted),
                                      Q_ARG(QVariant, QVariantList{model})));
    QCOMPARE(accepted.toInt(), 1);
    QVERIFY(imported.wait(20000));
    QVERIFY2(imported.first().at(0).toBool(), qPrintable(imported.first().at(1).toString()));
    QTRY_VERIFY(card(ui, "by path.gguf"));
    QCOMPARE(card(ui, "by path.gguf")->objectName(), QStringLiteral("installedCard_by path.gguf"));
    QCOMPARE(textOf(ui, "by path.gguf", "modelPath"), QDir(ui.folder).filePath("by path.gguf"));
    QVERIFY(QFile::exists(model));
  }

  void dropImportsIntoTheFolder() {
    Ui ui;
    makeUi(ui);
    auto* area = ui.models->findChild<QQuickItem*>(QStringLiteral("modelDropArea"));
    QVERIFY(area);
    const QPointF at = area->mapToScene(QPointF(area->width() / 2, area->height() / 2));
    const QString src = trit::test::scratchDir(QStringLiteral("drop-src"));
    const QString model = writeModel(src, QStringLiteral("dropped.gguf"));
    QVERIFY(!model.isEmpty());
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(model), QUrl::fromLocalFile(QDir(src).filePath(QStringLiteral("notes.txt")))});
    QSignalSpy imported(ui.bridge, &ModelManagerBridge::importFinished);
    // What the window system delivers for a drop from a file manager: enter, move, drop.
    QDragEnterEvent enter(at.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(ui.window, &enter);
    QDragMoveEvent move(at.toPoint(), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(ui.window, &move);
    QVERIFY(area->property("containsDrag").toBool());
    QDropEvent drop(at, Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(ui.window, &drop);
    QVERIFY(imported.wait(20000));
    QCOMPARE(imported.first().at(0).toBool(), true);
    QCOMPARE(imported.size(), 1);  // the .txt was not passed on
    QVERIFY2(ui.models->property("notice").toString().contains(QStringLiteral("notes.txt")),
             qPrintable(ui.models->property("notice").toString()));
    QCOMPARE(role(*ui.bridge, QStringLiteral("dropped.gguf"), ModelListModel::InstalledRole).toBool(), true);
    QVERIFY(QFile::exists(QDir(ui.folder).filePath(QStringLiteral("dropped.gguf"))));
    QVERIFY(QFile::exists(model));  // imported as a copy; the user's file stays
  }

  void removeOnlyAfterYes() {
    Ui ui;
    makeUi(ui);
    const QString path = writeModel(ui.folder, QStringLiteral("mine.gguf"));
    QSignalSpy scanned(ui.bridge, &ModelManagerBridge::scanFinished);
    ui.bridge->rescan();
    QVERIFY(scanned.wait(10000));
    QCOMPARE(role(*ui.bridge, QStringLiteral("mine.gguf"), ModelListModel::InstalledRole).toBool(), true);
    auto* confirm = ui.models->findChild<QObject*>(QStringLiteral("confirmRemoveDialog"));
    QVERIFY(confirm);
    // The card's "Remove…" button calls askRemove(id, name).
    QVERIFY(QMetaObject::invokeMethod(ui.models, "askRemove", Q_ARG(QVariant, QStringLiteral("mine.gguf")),
                                      Q_ARG(QVariant, QStringLiteral("mine"))));
    QTRY_VERIFY(confirm->property("opened").toBool());
    QVERIFY(QMetaObject::invokeMethod(confirm, "reject"));
    QVERIFY(QFile::exists(path));  // "No" keeps it
    QVERIFY(QMetaObject::invokeMethod(ui.models, "askRemove", Q_ARG(QVariant, QStringLiteral("mine.gguf")),
                                      Q_ARG(QVariant, QStringLiteral("mine"))));
    QTRY_VERIFY(confirm->property("opened").toBool());
    QSignalSpy removed(ui.bridge, &ModelManagerBridge::removed);
    QVERIFY(QMetaObject::invokeMethod(confirm, "accept"));
    QCOMPARE(removed.size(), 1);
    QVERIFY(!QFile::exists(path));
    QCOMPARE(ui.bridge->model()->indexOf(QStringLiteral("mine.gguf")), -1);
  }

  void settingsChangeTheBridgesFolder() {
    Ui ui;
    makeUi(ui);
    QCOMPARE(ui.settings->property("models").value<QObject*>(), ui.bridge);  // found as App.models
    QVERIFY(QMetaObject::invokeMethod(ui.settings, "open"));
    QTRY_VERIFY(ui.settings->property("opened").toBool());
    auto* field = ui.settings->findChild<QObject*>(QStringLiteral("modelsFolderField"));
    auto* error = ui.settings->findChild<QObject*>(QStringLiteral("modelsFolderError"));
    QVERIFY(field && error);
    QCOMPARE(field->property("text").toString(), ui.folder);

    const QString other = trit::test::scratchDir(QStringLiteral("page-other"));
    writeModel(other, QStringLiteral("there.gguf"));
    QSignalSpy scanned(ui.bridge, &ModelManagerBridge::scanFinished);
    QVariant ok;
    QVERIFY(QMetaObject::invokeMethod(ui.settings, "chooseModelsFolder", Q_RETURN_ARG(QVariant, ok),
                                      Q_ARG(QVariant, QVariant::fromValue(QUrl::fromLocalFile(other)))));
    QCOMPARE(ok.toBool(), true);
    QCOMPARE(ui.bridge->modelsFolder(), other);
    QCOMPARE(field->property("text").toString(), other);
    QVERIFY(scanned.wait(10000));
    QCOMPARE(role(*ui.bridge, QStringLiteral("there.gguf"), ModelListModel::InstalledRole).toBool(), true);
    QCOMPARE(ui.models->property("modelsFolder").toString(), other);

    const QString missing = QDir(other).filePath(QStringLiteral("missing"));
    QVERIFY(QMetaObject::invokeMethod(ui.settings, "chooseModelsFolder", Q_RETURN_ARG(QVariant, ok),
                                      Q_ARG(QVariant, missing)));
    QCOMPARE(ok.toBool(), false);
    QCOMPARE(ui.bridge->modelsFolder(), other);
    QCOMPARE(field->property("text").toString(), other);
    QVERIFY(error->property("visible").toBool());
    QVERIFY2(error->property("text").toString().contains(QStringLiteral("does not exist")),
             qPrintable(error->property("text").toString()));
  }
};

QTEST_MAIN(TestModelManagerPage)
#include "tst_model_manager_page.moc"
