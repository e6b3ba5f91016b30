// The model manager's QML bridge against the in-process loopback HTTP server: catalogue rows and their
// roles, a verified download ending installed, pause/resume/cancel, import of a generated model and
// rejection of a junk file with the engine's reason, confirmed removal, and a failing download.
#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QtTest>

#include "download_test_support.h"
#include "http_test_server.h"
#include "models/model_inspector.h"
#include "models/model_manager_bridge.h"
#include "models/part_state.h"

using trit::models::ModelListModel;
using trit::models::ModelManagerBridge;
using trit::test::HttpTestServer;

class TestModelManagerBridge : public QObject {
  Q_OBJECT

 private:
  HttpTestServer server_;
  QByteArray model_;  // a tiny synthetic model, served at /tiny.gguf (and throttled at /slow.gguf)

  // A catalogue file naming the server's routes; returns its path.
  QString writeCatalog(const QString& dir) {
    auto entry = [&](const QString& id, const QString& path, const QString& sha, qint64 memory) {
      return QJsonObject{{"id", id}, {"name", "Model " + id}, {"url", server_.url(path).toString()},
                         {"size", double(model_.size())}, {"sha256", sha}, {"license", "MIT"},
                         {"description", "test model " + id}, {"memory", double(memory)}};
    };
    const QString sha = trit::test::sha256Hex(model_);
    const QJsonObject root{{"models", QJsonArray{entry("tiny", "/tiny.gguf", sha, 1000),
                                                 entry("slow", "/slow.gguf", sha, 5000),
                                                 entry("gone", "/gone.gguf", sha, 0)}}};
    const QString path = QDir(dir).filePath("catalog.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(QJsonDocument(root).toJson());
    return path;
  }

  // A bridge on a fresh models folder, catalogue read.
  std::unique_ptr<ModelManagerBridge> makeBridge(QString* folder = nullptr) {
    const QString dir = trit::test::scratchDir("bridge");
    const QString models = QDir(dir).filePath("models");
    if (folder) *folder = models;
    auto b = std::make_unique<ModelManagerBridge>(writeCatalog(dir), models, trit::test::fastOptions());
    QSignalSpy ready(b.get(), &ModelManagerBridge::ready);
    b->load();
    if (ready.isEmpty()) ready.wait(10000);
    return b;
  }

  static QVariant role(ModelManagerBridge& b, const QString& id, int r) {
    const int row = b.model()->indexOf(id);
    return row < 0 ? QVariant() : b.model()->data(b.model()->index(row), r);
  }

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    // setModelsDir() remembers the folder in the settings: keep them away from the user's own.
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, trit::test::scratchDir("settings"));
    QCoreApplication::setOrganizationName("TritTest");
    QCoreApplication::setApplicationName("tst_model_manager_bridge");
    model_ = trit::test::syntheticModel(7);
    QVERIFY(!model_.isEmpty());
    QVERIFY(server_.listen());
    HttpTestServer::Route tiny;
    tiny.body = model_;
    server_.setRoute("/tiny.gguf", tiny);
    // Throttled so a test can pause and cancel while it runs: 64 KiB every 40 ms.
    HttpTestServer::Route slow = tiny;
    slow.chunkDelayMs = 40;
    server_.setRoute("/slow.gguf", slow);
    HttpTestServer::Route gone;
    gone.status = 404;
    server_.setRoute("/gone.gguf", gone);
    QVERIFY2(model_.size() > 4 * 65536, "the throttled download must take several chunks");
  }

  void catalogueRowsHaveTheirRoles() {
    auto b = makeBridge();
    QCOMPARE(b->catalogError(), QString());
    QAbstractItemModelTester tester(b->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(b->model()->rowCount(), 3);
    const QHash<int, QByteArray> names = b->model()->roleNames();
    for (const char* n : {"id", "name", "description", "size", "license", "installed", "path", "downloading", "paused",
                          "bytesReceived", "bytesTotal", "percent", "speedBytesPerSec", "secondsLeft", "error",
                          "memoryNeeded", "fitsGpu"})
      QVERIFY2(names.values().contains(QByteArray(n)), n);
    QCOMPARE(role(*b, "tiny", ModelListModel::NameRole).toString(), QString("Model tiny"));
    QCOMPARE(role(*b, "tiny", ModelListModel::DescriptionRole).toString(), QString("test model tiny"));
    QCOMPARE(role(*b, "tiny", ModelListModel::SizeRole).toLongLong(), qint64(model_.size()));
    QCOMPARE(role(*b, "tiny", ModelListModel::LicenseRole).toString(), QString("MIT"));
    QCOMPARE(role(*b, "tiny", ModelListModel::InstalledRole).toBool(), false);
    QCOMPARE(role(*b, "tiny", ModelListModel::StateRole).toString(), QString("available"));
    QCOMPARE(role(*b, "slow", ModelListModel::MemoryNeededRole).toLongLong(), 5000);
    QVERIFY(!role(*b, "tiny", ModelListModel::FitsGpuRole).isValid());  // GPU memory unknown
    b->setGpuFreeBytes(2000);
    QCOMPARE(role(*b, "tiny", ModelListModel::FitsGpuRole), QVariant(true));
    QCOMPARE(role(*b, "slow", ModelListModel::FitsGpuRole), QVariant(false));
    const QVariantMap first = b->entries().first().toMap();
    QCOMPARE(first.value("state").toString(), QString("available"));
    QCOMPARE(first.value("sizeText").toString(), trit::models::formatBytes(model_.size()));
    QCOMPARE(first.value("fits"), QVariant(true));
    QCOMPARE(b->installedCount(), 0);
  }

  // The dialog's delegates read `required property var modelData`: the list model hands each row's map
  // through its "modelData" role, and a progress update reaches the delegate without a reset.
  void delegatesGetTheRowAsModelData() {
    auto b = makeBridge();
    QQmlEngine engine;
    QQmlComponent c(&engine);
    c.setData("import QtQml\n"
              "Instantiator { property var states: []\n"
              "  delegate: QtObject { required property var modelData; property string st: modelData.state + ':' + modelData.id + ':' + modelData.fits }\n"
              "}\n", QUrl());
    std::unique_ptr<QObject> inst(c.createWithInitialProperties({{"model", QVariant::fromValue<QObject*>(b->model())}}));
    QVERIFY2(inst, qPrintable(c.errorString()));
    QCOMPARE(inst->property("count").toInt(), 3);
    QObject* first = nullptr;
    QMetaObject::invokeMethod(inst.get(), "objectAt", Q_RETURN_ARG(QObject*, first), Q_ARG(int, 0));
    QVERIFY(first);
    QCOMPARE(first->property("st").toString(), QString("available:tiny:undefined"));
    b->setGpuFreeBytes(2000);  // a dataChanged, no reset: the same delegate sees the new value
    QObject* same = nullptr;
    QMetaObject::invokeMethod(inst.get(), "objectAt", Q_RETURN_ARG(QObject*, same), Q_ARG(int, 0));
    QCOMPARE(same, first);
    QCOMPARE(first->property("st").toString(), QString("available:tiny:true"));
    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QVERIFY(b->download("tiny"));
    QVERIFY(done.wait(20000));
    QObject* after = nullptr;
    QMetaObject::invokeMethod(inst.get(), "objectAt", Q_RETURN_ARG(QObject*, after), Q_ARG(int, 0));
    QVERIFY(after);
    // Installed, the engine's own figure (weights + KV cache) replaces the catalogue's 1000 bytes.
    QCOMPARE(after->property("st").toString(), QString("installed:tiny:false"));
  }

  void downloadEndsInstalledAndVerified() {
    QString folder;
    auto b = makeBridge(&folder);
    QAbstractItemModelTester tester(b->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QSignalSpy errors(b.get(), &ModelManagerBridge::errorOccurred);
    qint64 maxReceived = 0;
    bool sawDownloading = false;
    connect(b->model(), &QAbstractItemModel::dataChanged, this, [&] {
      maxReceived = qMax(maxReceived, role(*b, "tiny", ModelListModel::BytesReceivedRole).toLongLong());
      sawDownloading |= role(*b, "tiny", ModelListModel::DownloadingRole).toBool();
    });
    QVERIFY(b->download("tiny"));
    QCOMPARE(role(*b, "tiny", ModelListModel::DownloadingRole).toBool(), true);
    QVERIFY(done.wait(20000));
    QCOMPARE(done.first().at(1).toBool(), true);
    QVERIFY2(errors.isEmpty(), qPrintable(errors.isEmpty() ? QString() : errors.first().first().toString()));
    QVERIFY(sawDownloading);
    QCOMPARE(maxReceived, qint64(model_.size()));
    QCOMPARE(role(*b, "tiny", ModelListModel::InstalledRole).toBool(), true);
    QCOMPARE(role(*b, "tiny", ModelListModel::DownloadingRole).toBool(), false);
    const QString path = role(*b, "tiny", ModelListModel::PathRole).toString();
    QCOMPARE(QFileInfo(path).absolutePath(), QDir(folder).absolutePath());
    QCOMPARE(trit::test::readAll(path), model_);
    QCOMPARE(b->installedCount(), 1);
    QCOMPARE(b->pathOf("tiny"), path);
    QCOMPARE(b->installedModels().first().toMap().value("path").toString(), path);
    QCOMPARE(b->entries().first().toMap().value("state").toString(), QString("installed"));
  }

  void pauseResumeCancelChangeState() {
    QString folder;
    auto b = makeBridge(&folder);
    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QSignalSpy errors(b.get(), &ModelManagerBridge::errorOccurred);
    QVERIFY(b->download("slow"));
    QTRY_VERIFY_WITH_TIMEOUT(role(*b, "slow", ModelListModel::BytesReceivedRole).toLongLong() > 0, 10000);
    b->pause("slow");
    QTRY_VERIFY_WITH_TIMEOUT(role(*b, "slow", ModelListModel::PausedRole).toBool(), 10000);
    QCOMPARE(role(*b, "slow", ModelListModel::DownloadingRole).toBool(), false);
    QCOMPARE(role(*b, "slow", ModelListModel::StateRole).toString(), QString("paused"));
    const qint64 pausedAt = role(*b, "slow", ModelListModel::BytesReceivedRole).toLongLong();
    QVERIFY(pausedAt > 0 && pausedAt < model_.size());
    b->resume("slow");
    QTRY_VERIFY_WITH_TIMEOUT(role(*b, "slow", ModelListModel::DownloadingRole).toBool(), 10000);
    QTRY_VERIFY_WITH_TIMEOUT(role(*b, "slow", ModelListModel::BytesReceivedRole).toLongLong() > pausedAt, 10000);
    b->cancel("slow");
    QVERIFY(done.wait(10000));
    QCOMPARE(done.first().at(1).toBool(), false);
    QCOMPARE(role(*b, "slow", ModelListModel::StateRole).toString(), QString("available"));
    QCOMPARE(role(*b, "slow", ModelListModel::BytesReceivedRole).toLongLong(), 0);
    QVERIFY(!QFile::exists(trit::models::partPath(QDir(folder).filePath("slow.gguf"))));
    QVERIFY2(errors.isEmpty(), "a cancel is no error");
  }

  void failedDownloadSaysWhy() {
    auto b = makeBridge();
    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QSignalSpy errors(b.get(), &ModelManagerBridge::errorOccurred);
    QVERIFY(b->download("gone"));
    QVERIFY(done.wait(20000));
    QCOMPARE(done.first().at(1).toBool(), false);
    QCOMPARE(role(*b, "gone", ModelListModel::StateRole).toString(), QString("failed"));
    QVERIFY(!role(*b, "gone", ModelListModel::ErrorRole).toString().isEmpty());
    QCOMPARE(errors.size(), 1);
    QVERIFY2(errors.first().first().toString().contains("404"), qPrintable(errors.first().first().toString()));
    QVERIFY(!b->download("nonexistent"));
    QCOMPARE(errors.size(), 2);
    QVERIFY(errors.last().first().toString().contains("nonexistent"));
  }

  void importValidatesWithTheEngine() {
    QString folder;
    auto b = makeBridge(&folder);
    QAbstractItemModelTester tester(b->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QString src = trit::test::scratchDir("import-src");
    const QString good = QDir(src).filePath("mine.gguf");
    QFile g(good);
    QVERIFY(g.open(QIODevice::WriteOnly));
    g.write(trit::test::syntheticModel(11));
    g.close();
    QSignalSpy imported(b.get(), &ModelManagerBridge::importFinished);
    QSignalSpy errors(b.get(), &ModelManagerBridge::errorOccurred);
    b->importFiles({QUrl::fromLocalFile(good)});
    QVERIFY(imported.wait(20000));
    QCOMPARE(imported.first().at(0).toBool(), true);
    QCOMPARE(role(*b, "mine.gguf", ModelListModel::InstalledRole).toBool(), true);
    QCOMPARE(role(*b, "mine.gguf", ModelListModel::InCatalogRole).toBool(), false);
    QCOMPARE(QFileInfo(role(*b, "mine.gguf", ModelListModel::PathRole).toString()).absolutePath(), QDir(folder).absolutePath());
    QCOMPARE(b->installedCount(), 1);

    const QString junk = QDir(src).filePath("junk.gguf");
    QFile j(junk);
    QVERIFY(j.open(QIODevice::WriteOnly));
    j.write("this is not a model, just text pretending to be one");
    j.close();
    const QString engineSays = trit::models::inspectModel(junk).error;
    QVERIFY(!engineSays.isEmpty());
    b->importFile(junk);
    QVERIFY(imported.wait(20000));
    QCOMPARE(imported.last().at(0).toBool(), false);
    const QString message = imported.last().at(1).toString();
    QVERIFY2(message.contains("junk.gguf") && message.contains(engineSays), qPrintable(message));
    QCOMPARE(errors.size(), 1);
    QCOMPARE(errors.first().first().toString(), message);
    QVERIFY(!QFile::exists(QDir(folder).filePath("junk.gguf")));
    QCOMPARE(b->model()->indexOf("junk.gguf"), -1);
  }

  void removeDeletesTheModel() {
    QString folder;
    auto b = makeBridge(&folder);
    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QVERIFY(b->download("tiny"));
    QVERIFY(done.wait(20000));
    const QString path = b->pathOf("tiny");
    QVERIFY(QFile::exists(path));
    QSignalSpy errors(b.get(), &ModelManagerBridge::errorOccurred);
    QSignalSpy removed(b.get(), &ModelManagerBridge::removed);
    // A path outside the folder is refused with a reason.
    QVERIFY(!b->remove(QDir(trit::test::scratchDir("elsewhere")).filePath("tiny.gguf")));
    QCOMPARE(errors.size(), 1);
    QVERIFY(errors.first().first().toString().contains("not in the models folder"));
    QVERIFY(b->remove("tiny"));  // the dialog's removeRequested(id), after the user said yes
    QCOMPARE(removed.size(), 1);
    QVERIFY(!QFile::exists(path));
    QCOMPARE(role(*b, "tiny", ModelListModel::InstalledRole).toBool(), false);
    QCOMPARE(b->installedCount(), 0);
  }

  void modelsFolderCanChange() {
    auto b = makeBridge();
    QSignalSpy changed(b.get(), &ModelManagerBridge::modelsFolderChanged);
    const QString other = trit::test::scratchDir("other-folder");
    QFile m(QDir(other).filePath("there.gguf"));
    QVERIFY(m.open(QIODevice::WriteOnly));
    m.write(model_);
    m.close();
    b->setModelsDir(QUrl::fromLocalFile(other).toString());
    QCOMPARE(changed.size(), 1);
    QCOMPARE(b->modelsFolder(), QDir::cleanPath(other));
    QCOMPARE(role(*b, "there.gguf", ModelListModel::InstalledRole).toBool(), true);
  }
};

QTEST_GUILESS_MAIN(TestModelManagerBridge)
#include "tst_model_manager_bridge.moc"
