// qml/ModelManagerDialog.qml and qml/SettingsDialog.qml wired to the real ModelManagerBridge as Main.qml
// wires them, driven through window events: a file manager's drop (a QDropEvent carrying file URLs) onto
// the list imports the .gguf into the models folder and names the file that is not one; removal happens
// only after the confirmation's Yes; the settings' models folder switches the bridge's folder, and a
// missing one shows the bridge's reason and keeps the old folder.
#include <QDir>
#include <QDragEnterEvent>
#include <QFile>
#include <QMimeData>
#include <QQmlApplicationEngine>
#include <QQmlContext>
#include <QQuickItem>
#include <QQuickWindow>
#include <QSettings>
#include <QStandardPaths>
#include <QSignalSpy>
#include <QtQml/qqmlextensionplugin.h>
#include <QtTest>

#include "download_test_support.h"
#include "models/model_manager_bridge.h"

Q_IMPORT_QML_PLUGIN(TritPlugin)

using trit::models::ModelListModel;
using trit::models::ModelManagerBridge;

class TestModelManagerDialog : public QObject {
  Q_OBJECT

  struct Ui {
    std::unique_ptr<QQmlApplicationEngine> engine;
    ModelManagerBridge* bridge = nullptr;
    QQuickWindow* window = nullptr;
    QObject* models = nullptr;    // ModelManagerDialog
    QObject* settings = nullptr;  // SettingsDialog
    QString folder;
  };

  // The two dialogs in a window, connected to the bridge like Main.qml connects them.
  static void makeUi(Ui& ui) {
    ui.folder = trit::test::scratchDir(QStringLiteral("dialog-models"));
    ui.engine = std::make_unique<QQmlApplicationEngine>();
    ui.bridge = new ModelManagerBridge(QStringLiteral(":/trit/catalog.json"), ui.folder, {}, ui.engine.get());
    ui.engine->rootContext()->setContextProperty(QStringLiteral("tritModels"), ui.bridge);
    QSignalSpy ready(ui.bridge, &ModelManagerBridge::ready);
    ui.bridge->load();
    QVERIFY(ready.wait(10000));
    ui.engine->addImportPath(QStringLiteral("qrc:/qt/qml"));
    ui.engine->loadData(R"(
      import QtQuick
      import QtQuick.Controls
      import Trit
      ApplicationWindow {
        width: 900; height: 700; visible: true
        property alias models: manager
        property alias settings: settingsDialog
        ModelManagerDialog {
          id: manager
          entries: tritModels.model
          modelsFolder: tritModels.modelsFolder
          onImportRequested: fileUrls => tritModels.importFiles(fileUrls)
          onRemoveRequested: id => tritModels.remove(id)
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
    // The settings' folder change is remembered in QSettings: keep that away from the user's own.
    QStandardPaths::setTestModeEnabled(true);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, trit::test::scratchDir(QStringLiteral("settings")));
    QCoreApplication::setOrganizationName(QStringLiteral("TritTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_model_manager_dialog"));
  }

  void dropImportsIntoTheFolder() {
    Ui ui;
    makeUi(ui);
    QVERIFY(QMetaObject::invokeMethod(ui.models, "open"));
    QTRY_VERIFY(ui.models->property("opened").toBool());
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
    QVERIFY(QMetaObject::invokeMethod(ui.models, "open"));
    QTRY_VERIFY(ui.models->property("opened").toBool());
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
    QCOMPARE(ui.settings->property("models").value<QObject*>(), ui.bridge);  // found as "tritModels"
    QVERIFY(QMetaObject::invokeMethod(ui.settings, "open"));
    QTRY_VERIFY(ui.settings->property("opened").toBool());
    auto* field = ui.settings->findChild<QObject*>(QStringLiteral("modelsFolderField"));
    auto* error = ui.settings->findChild<QObject*>(QStringLiteral("modelsFolderError"));
    QVERIFY(field && error);
    QCOMPARE(field->property("text").toString(), ui.folder);

    const QString other = trit::test::scratchDir(QStringLiteral("dialog-other"));
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
    QVERIFY(QMetaObject::invokeMethod(ui.settings, "chooseModelsFolder", Q_RETURN_ARG(QVariant, ok), Q_ARG(QVariant, missing)));
    QCOMPARE(ok.toBool(), false);
    QCOMPARE(ui.bridge->modelsFolder(), other);
    QCOMPARE(field->property("text").toString(), other);
    QVERIFY(error->property("visible").toBool());
    QVERIFY2(error->property("text").toString().contains(QStringLiteral("does not exist")),
             qPrintable(error->property("text").toString()));
  }
};

QTEST_MAIN(TestModelManagerDialog)
#include "tst_model_manager_dialog.moc"
