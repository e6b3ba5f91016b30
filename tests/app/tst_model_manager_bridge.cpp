// The model manager's QML bridge against the in-process loopback HTTP server: catalogue rows and their
// roles, a verified download ending installed, pause/resume/cancel, import of a generated model and
// rejection of a junk file with the engine's reason, confirmed removal, a failing download, the folder
// scan on the worker thread, changing the models folder (and refusing a bad one), the window's
// --catalog/--models-dir options, and "fits the GPU" from an injected memory figure and from lavapipe.
#include <unistd.h>
#include <QAbstractItemModelTester>
#include <QCommandLineParser>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMutex>
#include <QQmlComponent>
#include <QQmlEngine>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QThread>
#include <QtTest>

#include "download_test_support.h"
#include "http_test_server.h"
#include "models/model_inspector.h"
#include "models/model_manager_bridge.h"
#include "models/model_manager_options.h"
#include "models/part_state.h"
#include "settings/app_settings.h"
#include "storage/app_folders.h"
#include "trit/devices.h"
#include "trit/gguf.h"
#include "trit/model.h"
#include "trit/vulkan_forward.h"

using trit::models::GpuMemory;
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
      return QJsonObject{{"id", id},
                         {"name", "Model " + id},
                         {"url", server_.url(path).toString()},
                         {"size", double(model_.size())},
                         {"sha256", sha},
                         {"license", "MIT"},
                         {"description", "test model " + id},
                         {"memory", double(memory)}};
    };
    const QString sha = trit::test::sha256Hex(model_);
    // What "tiny" is according to the catalogue; the synthetic file itself says otherwise (issue 27).
    QJsonObject tiny = entry("tiny", "/tiny.gguf", sha, 1000);
    tiny.insert("architecture", "llama");
    tiny.insert("parameters", 10305000000.0);
    tiny.insert("quantization", "TQ2_0");
    tiny.insert("license_url", "https://example.org/licence");
    const QJsonObject root{
        {"models", QJsonArray{tiny, entry("slow", "/slow.gguf", sha, 5000), entry("gone", "/gone.gguf", sha, 0)}}};
    const QString path = QDir(dir).filePath("catalog.json");
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) return {};
    f.write(QJsonDocument(root).toJson());
    return path;
  }

  // A bridge on a fresh models folder, catalogue read and folder scanned. `prepare` runs before load().
  std::unique_ptr<ModelManagerBridge> makeBridge(QString* folder = nullptr,
                                                 const std::function<void(ModelManagerBridge&)>& prepare = {}) {
    const QString dir = trit::test::scratchDir("bridge");
    const QString models = QDir(dir).filePath("models");
    if (folder) *folder = models;
    auto b = std::make_unique<ModelManagerBridge>(writeCatalog(dir), models, trit::test::fastOptions());
    if (prepare) prepare(*b);
    QSignalSpy ready(b.get(), &ModelManagerBridge::ready);
    b->load();
    if (ready.isEmpty()) ready.wait(10000);
    return b;
  }

  static void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    f.write(bytes);
  }

  // Row `i` as QML's cards get it (their `modelData`).
  static QVariantMap row(ModelManagerBridge& b, int i) {
    return b.model()->data(b.model()->index(i), ModelListModel::ModelDataRole).toMap();
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

  // The first start's offer: the catalogue's first model that fits the GPU; the first of all while the
  // GPU's memory is unknown; none when the GPU is known and nothing is known to fit.
  void recommendsTheFirstModelThatFits() {
    auto b = makeBridge();
    QCOMPARE(b->recommendedModel().value("id").toString(), QString("tiny"));  // GPU not asked yet
    b->setGpuFreeBytes(3000);                                                 // tiny needs 1000, slow 5000
    QCOMPARE(b->recommendedModel().value("id").toString(), QString("tiny"));
    QCOMPARE(b->recommendedModel().value("name").toString(), QString("Model tiny"));
    QVERIFY(b->recommendedModel().value("fitText").toString().startsWith("fits"));
    b->setGpuFreeBytes(500);  // nothing fits ("gone" has no memory figure: not known to fit)
    QVERIFY(b->recommendedModel().isEmpty());
    b->setGpuFreeBytes(1LL << 40);
    QCOMPARE(b->recommendedModel().value("id").toString(), QString("tiny"));
  }

  void catalogueRowsHaveTheirRoles() {
    auto b = makeBridge();
    QCOMPARE(b->catalogError(), QString());
    QAbstractItemModelTester tester(b->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(b->model()->rowCount(), 3);
    const QHash<int, QByteArray> names = b->model()->roleNames();
    for (const char* n :
         {"id", "name", "description", "size", "license", "installed", "path", "downloading", "paused", "bytesReceived",
          "bytesTotal", "percent", "speedBytesPerSec", "secondsLeft", "error", "memoryNeeded", "fitsGpu"})
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
    const QVariantMap first = row(*b, 0);
    QCOMPARE(first.value("state").toString(), QString("available"));
    QCOMPARE(first.value("sizeText").toString(), trit::models::formatBytes(model_.size()));
    QCOMPARE(first.value("fits"), QVariant(true));
    QCOMPARE(first.value("fitText").toString(), QString("fits (needs 1000 B of 1.95 KiB free)"));
    QCOMPARE(row(*b, 1).value("fitText").toString(), QString("does not fit (needs 4.88 KiB, only 1.95 KiB free)"));
    QCOMPARE(b->installedCount(), 0);
  }

  // Issue 27: each row says what the model is: architecture, parameter count, weight format, licence.
  // A catalogue entry by the catalogue's figures; an installed file by its own header, read by the engine.
  void rowsSayWhatTheModelIs() {
    auto b = makeBridge();
    QCOMPARE(b->catalogError(), QString());
    const QHash<int, QByteArray> names = b->model()->roleNames();
    for (const char* n : {"architecture", "parameters", "quantization", "license", "licenseUrl"})
      QVERIFY2(names.values().contains(QByteArray(n)), n);
    QCOMPARE(role(*b, "tiny", ModelListModel::ArchitectureRole).toString(), QString("llama"));
    QCOMPARE(role(*b, "tiny", ModelListModel::ParametersRole).toLongLong(), 10305000000LL);
    QCOMPARE(role(*b, "tiny", ModelListModel::QuantizationRole).toString(), QString("TQ2_0"));
    QCOMPARE(role(*b, "tiny", ModelListModel::LicenseRole).toString(), QString("MIT"));
    QCOMPARE(role(*b, "tiny", ModelListModel::LicenseUrlRole).toString(), QString("https://example.org/licence"));
    QCOMPARE(row(*b, 0).value("parametersText").toString(), QString("10.3 B"));
    // Unknown stays empty, never a made-up figure.
    QCOMPARE(role(*b, "gone", ModelListModel::ArchitectureRole).toString(), QString());
    QCOMPARE(role(*b, "gone", ModelListModel::ParametersRole).toLongLong(), 0);
    QCOMPARE(row(*b, 2).value("parametersText").toString(), QString());

    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QVERIFY(b->download("tiny"));
    QVERIFY(done.wait(20000));
    QCOMPARE(done.first().at(1).toBool(), true);
    const QString path = role(*b, "tiny", ModelListModel::PathRole).toString();
    const trit::models::ModelInfo info = trit::models::inspectModel(path);
    QVERIFY2(info.ok(), qPrintable(info.error));
    QVERIFY(info.parameters > 0 && info.architecture != "llama" && info.quantization != "TQ2_0");
    QCOMPARE(role(*b, "tiny", ModelListModel::ArchitectureRole).toString(), info.architecture);
    QCOMPARE(role(*b, "tiny", ModelListModel::ParametersRole).toLongLong(), info.parameters);
    QCOMPARE(role(*b, "tiny", ModelListModel::QuantizationRole).toString(), info.quantization);
    QCOMPARE(row(*b, 0).value("parametersText").toString(), trit::models::formatParameters(info.parameters));
    QCOMPARE(role(*b, "tiny", ModelListModel::LicenseRole).toString(), QString("MIT"));  // the catalogue's still
    // The engine's count: every tensor's elements.
    const auto model = trit::Model::open(path.toStdString());
    qint64 elements = 0;
    for (const auto& t : model->file().tensors()) {
      qint64 n = 1;
      for (const auto d : t.shape) n *= static_cast<qint64>(d);
      elements += n;
    }
    QCOMPARE(info.parameters, elements);
  }

  // The dialog's delegates read `required property var modelData`: the list model hands each row's map
  // through its "modelData" role, and a progress update reaches the delegate without a reset.
  void delegatesGetTheRowAsModelData() {
    auto b = makeBridge();
    QQmlEngine engine;
    QQmlComponent c(&engine);
    c.setData(
        "import QtQml\n"
        "Instantiator { property var states: []\n"
        "  delegate: QtObject { required property var modelData; property string st: modelData.state + ':' + "
        "modelData.id + ':' + modelData.fits }\n"
        "}\n",
        QUrl());
    std::unique_ptr<QObject> inst(
        c.createWithInitialProperties({{"model", QVariant::fromValue<QObject*>(b->model())}}));
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
    // The switcher's list: the models on disk only, each row the same map.
    QCOMPARE(b->installed()->rowCount(), 1);
    QCOMPARE(b->installed()->index(0, 0).data(ModelListModel::ModelDataRole).toMap().value("path").toString(), path);
    QCOMPARE(row(*b, 0).value("state").toString(), QString("installed"));
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

  // Issue 30 #2, the window: a damaged or foreign tiny.gguf used to be replaced by the download. It is
  // kept and the bridge asks (downloadConflict, no error); "keep-both" then renames it, "replace" replaces.
  void downloadAsksBeforeTouchingAnotherFile() {
    QString folder;
    auto b = makeBridge(&folder);
    QVERIFY(QDir().mkpath(folder));
    const QString target = QDir(folder).filePath("tiny.gguf");
    writeFile(target, "not a model, but the user's");
    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QSignalSpy conflict(b.get(), &ModelManagerBridge::downloadConflict);
    QSignalSpy errors(b.get(), &ModelManagerBridge::errorOccurred);
    QVERIFY(b->download("tiny"));
    QVERIFY(done.wait(20000));
    QCOMPARE(conflict.size(), 1);
    QCOMPARE(conflict.first().at(0).toString(), QString("tiny"));
    QCOMPARE(conflict.first().at(1).toString(), QString("Model tiny"));
    QCOMPARE(conflict.first().at(2).toString(), QString("tiny.gguf"));
    QVERIFY2(conflict.first().at(3).toString().contains("It was kept"), qPrintable(conflict.first().at(3).toString()));
    QVERIFY(errors.isEmpty());
    QCOMPARE(trit::test::readAll(target), QByteArray("not a model, but the user's"));

    QVERIFY(b->download("tiny", "keep-both"));
    QVERIFY(done.wait(20000));
    QVERIFY2(done.last().at(1).toBool(), qPrintable(done.last().at(2).toString()));
    QCOMPARE(trit::test::readAll(target), model_);
    QCOMPARE(trit::test::readAll(QDir(folder).filePath("tiny (2).gguf")), QByteArray("not a model, but the user's"));
    QCOMPARE(conflict.size(), 1);

    writeFile(target, "damaged again");
    QVERIFY(b->download("tiny", "replace"));
    QVERIFY(done.wait(20000));
    QVERIFY2(done.last().at(1).toBool(), qPrintable(done.last().at(2).toString()));
    QCOMPARE(trit::test::readAll(target), model_);
    QVERIFY(errors.isEmpty());
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
    QCOMPARE(QFileInfo(role(*b, "mine.gguf", ModelListModel::PathRole).toString()).absolutePath(),
             QDir(folder).absolutePath());
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
    QSignalSpy scanned(b.get(), &ModelManagerBridge::scanFinished);
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
    QVERIFY(scanned.wait(10000));  // the confirming rescan agrees
    QCOMPARE(role(*b, "tiny", ModelListModel::InstalledRole).toBool(), false);
  }

  void modelsFolderCanChange() {
    QString before;
    auto b = makeBridge(&before);
    QSignalSpy changed(b.get(), &ModelManagerBridge::modelsFolderChanged);
    QSignalSpy scanned(b.get(), &ModelManagerBridge::scanFinished);
    const QString other = trit::test::scratchDir("other-folder");
    writeFile(QDir(other).filePath("there.gguf"), model_);
    QVERIFY(b->setModelsDir(QUrl::fromLocalFile(other).toString()));  // the folder dialog gives a URL
    QCOMPARE(changed.size(), 1);
    QCOMPARE(b->modelsFolder(), QDir::cleanPath(other));
    QCOMPARE(b->modelsFolderError(), QString());
    QVERIFY(scanned.wait(10000));  // the new folder is scanned on the worker
    QCOMPARE(role(*b, "there.gguf", ModelListModel::InstalledRole).toBool(), true);
    // Remembered: the setting holds it, and the next start (no option, no $TRIT_MODELS_DIR) uses it.
    QCOMPARE(trit::storage::openSettings()->value(trit::models::ModelsFolder::settingKey()).toString(),
             QDir::cleanPath(other));
    if (qEnvironmentVariableIsEmpty("TRIT_MODELS_DIR")) {
      ModelManagerBridge next{QString(), QString()};
      QCOMPARE(next.modelsFolder(), QDir::cleanPath(other));
    }
  }

  // A missing folder, a file, or a folder Trit cannot write to is refused with the reason; the old folder
  // stays in use and in the settings.
  void badModelsFolderKeepsTheOldOne() {
    QString folder;
    auto b = makeBridge(&folder);
    QVERIFY(b->setModelsDir(folder));
    const QString kept = b->modelsFolder();
    QSignalSpy errors(b.get(), &ModelManagerBridge::errorOccurred);
    const QString scratch = trit::test::scratchDir("bad-folder");
    const QString missing = QDir(scratch).filePath("no/such/folder");
    QVERIFY(!b->setModelsDir(missing));
    QVERIFY2(b->modelsFolderError().contains(missing) && b->modelsFolderError().contains("does not exist") &&
                 b->modelsFolderError().contains(kept),
             qPrintable(b->modelsFolderError()));
    QVERIFY(!QFileInfo::exists(missing));  // not created behind the user's back
    const QString file = QDir(scratch).filePath("a-file");
    writeFile(file, "x");
    QVERIFY(!b->setModelsDir(file));
    QVERIFY2(b->modelsFolderError().contains("not a folder"), qPrintable(b->modelsFolderError()));
    // Not writable: permission bits do not stop root, so as root a folder of /proc stands in.
    QString readOnly = QDir(scratch).filePath("read-only");
    if (::geteuid() == 0) {
      readOnly = QStringLiteral("/proc/self");
    } else {
      QVERIFY(QDir().mkpath(readOnly));
      QFile::setPermissions(readOnly, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
    }
    QVERIFY(!b->setModelsDir(readOnly));
    QVERIFY2(b->modelsFolderError().contains("cannot write"), qPrintable(b->modelsFolderError()));
    QVERIFY(!b->setModelsDir(QString()));
    QCOMPARE(errors.size(), 4);
    QCOMPARE(errors.last().first().toString(), b->modelsFolderError());
    QCOMPARE(b->modelsFolder(), kept);
    QCOMPARE(trit::storage::openSettings()->value(trit::models::ModelsFolder::settingKey()).toString(), kept);
    QVERIFY(b->setModelsDir(kept));  // a good folder clears the error
    QCOMPARE(b->modelsFolderError(), QString());
  }

  // Listing the folder and reading the GGUF headers happen on the worker thread, never the GUI thread;
  // the result arrives queued (scanFinished), both at load() and on rescan().
  void folderScanRunsOffTheGuiThread() {
    QMutex mutex;
    QList<QThread*> threads;
    const QString dir = trit::test::scratchDir("scan-thread");
    writeFile(QDir(dir).filePath("first.gguf"), model_);
    auto b = std::make_unique<ModelManagerBridge>(QStringLiteral(":/trit/catalog.json"), dir);
    b->setInspector([&](const QString& path) {
      const QMutexLocker lock(&mutex);
      threads << QThread::currentThread();
      return trit::models::inspectModel(path);
    });
    QSignalSpy ready(b.get(), &ModelManagerBridge::ready);
    QSignalSpy scanned(b.get(), &ModelManagerBridge::scanFinished);
    b->load();
    QCOMPARE(b->model()->indexOf("first.gguf"), -1);  // load() returned before the scan was done
    QVERIFY(!b->scannedOnce());
    QVERIFY(b->waitForFirstScan(10000));  // what main() does before the window opens
    QCOMPARE(role(*b, "first.gguf", ModelListModel::InstalledRole).toBool(), true);
    if (ready.isEmpty()) QVERIFY(ready.wait(10000));
    QCOMPARE(role(*b, "first.gguf", ModelListModel::InstalledRole).toBool(), true);
    writeFile(QDir(dir).filePath("second.gguf"), model_);
    b->rescan();
    QVERIFY(b->scanning());
    QVERIFY(scanned.wait(10000));
    QCOMPARE(b->scanning(), false);
    QCOMPARE(role(*b, "second.gguf", ModelListModel::InstalledRole).toBool(), true);
    const QMutexLocker lock(&mutex);
    QCOMPARE(threads.size(), 3);  // first.gguf at load, then first and second
    for (QThread* t : threads) {
      QVERIFY(t != QCoreApplication::instance()->thread());
      QCOMPARE(t->objectName(), QString("trit-models-worker"));
    }
  }

  // The window's --catalog and --models-dir mean what they mean headless; without them $TRIT_CATALOG
  // names the catalogue.
  void windowOptionsChooseCatalogueAndFolder() {
    const QString dir = trit::test::scratchDir("options");
    const QString catalog = writeCatalog(dir);
    const QString models = QDir(dir).filePath("opt-models");
    QCommandLineParser parser;
    trit::models::addModelManagerOptions(parser);
    QVERIFY(parser.parse({"trit", "--catalog", catalog, "--models-dir", models}));
    const trit::models::ModelManagerSetup setup = trit::models::readModelManagerOptions(parser);
    QCOMPARE(setup.catalog, catalog);
    QCOMPARE(setup.modelsDir, models);
    ModelManagerBridge b(setup.catalog, setup.modelsDir, trit::test::fastOptions());
    QSignalSpy ready(&b, &ModelManagerBridge::ready);
    b.load();
    QVERIFY(ready.wait(10000));
    QCOMPARE(b.catalogSource(), catalog);
    QCOMPARE(b.catalogSize(), 3);
    QCOMPARE(b.modelsFolder(), models);
    QCOMPARE(b.catalogError(), QString());

    QCommandLineParser none;
    trit::models::addModelManagerOptions(none);
    QVERIFY(none.parse({"trit"}));
    qputenv("TRIT_CATALOG", catalog.toUtf8());
    ModelManagerBridge fromEnv(trit::models::readModelManagerOptions(none).catalog, models);
    qunsetenv("TRIT_CATALOG");
    QCOMPARE(fromEnv.catalogSource(), catalog);
    QVERIFY(!none.parse({"trit", "--catalog"}));  // the value is required
  }

  // "Fits the GPU" from an injected device memory figure (no Vulkan): the probe runs off the GUI thread,
  // only when the device changes; catalogue rows use their "memory", installed ones their header at the
  // configured context.
  void fitFollowsTheSelectedGpu() {
    std::atomic<int> calls{0};
    std::atomic<int> lastDevice{-2};
    std::atomic<QThread*> probeThread{nullptr};
    qint64 freeBytes = 3000;
    auto b = makeBridge(nullptr, [&](ModelManagerBridge& bridge) {
      bridge.setGpuProbe([&](int device) {
        ++calls;
        lastDevice = device;
        probeThread = QThread::currentThread();
        GpuMemory m;
        m.deviceName = QStringLiteral("Fake GPU %1").arg(device);
        m.freeBytes = freeBytes;
        m.totalBytes = 1LL << 40;
        m.budget = true;
        return m;
      });
    });
    QSignalSpy gpu(b.get(), &ModelManagerBridge::gpuChanged);
    QVERIFY(!role(*b, "tiny", ModelListModel::FitsGpuRole).isValid());  // not asked yet: unknown
    b->selectGpu(1, 0);
    QTRY_COMPARE_WITH_TIMEOUT(b->gpuName(), QString("Fake GPU 1"), 10000);
    QCOMPARE(calls.load(), 1);
    QCOMPARE(lastDevice.load(), 1);
    QVERIFY(probeThread.load() != QCoreApplication::instance()->thread());
    QCOMPARE(b->gpuFreeBytes(), 3000);
    QCOMPARE(b->gpuSummary(), QString("Fake GPU 1: 2.93 KiB of 1.00 TiB GPU memory free."));
    QCOMPARE(role(*b, "tiny", ModelListModel::FitsGpuRole), QVariant(true));   // catalogue: 1000 B
    QCOMPARE(role(*b, "slow", ModelListModel::FitsGpuRole), QVariant(false));  // catalogue: 5000 B
    QVERIFY(!role(*b, "gone", ModelListModel::FitsGpuRole).isValid());         // catalogue: unknown
    QCOMPARE(row(*b, 0).value("fitText").toString(), QString("fits (needs 1000 B of 2.93 KiB free)"));
    QCOMPARE(row(*b, 1).value("fitText").toString(), QString("does not fit (needs 4.88 KiB, only 2.93 KiB free)"));

    // Installed: the file's own figure at the configured context replaces the catalogue's.
    QSignalSpy done(b.get(), &ModelManagerBridge::downloadFinished);
    QVERIFY(b->download("tiny"));
    QVERIFY(done.wait(20000));
    const QString path = b->pathOf("tiny");
    const trit::models::ModelInfo info = trit::models::inspectModel(path);
    QVERIFY(info.ok());
    QVERIFY(info.weightBytes > 0 && info.weightBytes < info.fileSize);  // tensors only, no tokenizer metadata
    QCOMPARE(info.kvBytesPerToken, qint64(2) * 2 * 2 * 64 * 2);         // tiny: 2 layers, 2 KV heads of 64
    QCOMPARE(info.memoryNeeded, info.weightBytes + info.kvBytesPerToken * info.contextLength + info.activationBytes);
    QCOMPARE(role(*b, "tiny", ModelListModel::MemoryNeededRole).toLongLong(), info.memoryNeeded);
    QCOMPARE(role(*b, "tiny", ModelListModel::FitsGpuRole), QVariant(false));
    gpu.clear();
    b->selectGpu(1, 16);  // a shorter context: less KV cache; same device, so no new probe
    QCOMPARE(calls.load(), 1);
    QCOMPARE(gpu.size(), 1);
    QCOMPARE(role(*b, "tiny", ModelListModel::MemoryNeededRole).toLongLong(),
             info.weightBytes + info.kvBytesPerToken * 16 + info.activationBytes);
    QCOMPARE(trit::models::memoryNeededAt(info, 1 << 20), info.memoryNeeded);  // clamped to the trained length
    freeBytes = info.memoryNeeded;
    b->selectGpu(0, 16);  // another device: asked again
    QTRY_COMPARE_WITH_TIMEOUT(b->gpuName(), QString("Fake GPU 0"), 10000);
    QCOMPARE(calls.load(), 2);
    QCOMPARE(role(*b, "tiny", ModelListModel::FitsGpuRole), QVariant(true));
    QVERIFY(
        role(*b, "tiny", ModelListModel::ModelDataRole).toMap().value("fitText").toString().startsWith("fits (needs "));
    // A failing probe (no Vulkan) leaves the fit unknown and says why.
    b->setGpuProbe([](int) {
      GpuMemory m;
      m.error = QStringLiteral("No Vulkan driver.");
      return m;
    });
    b->refreshGpu();
    QTRY_COMPARE_WITH_TIMEOUT(b->gpuError(), QString("No Vulkan driver."), 10000);
    QVERIFY(!role(*b, "tiny", ModelListModel::FitsGpuRole).isValid());
    QCOMPARE(b->gpuSummary(), QString("GPU memory unknown: No Vulkan driver."));
  }

  // The window keeps the fit on the device and context chosen in Settings: a device change asks the
  // device, a context change only recomputes, other settings change nothing.
  void followsTheEngineSettings() {
    std::atomic<int> calls{0};
    std::atomic<int> lastDevice{-2};
    auto b = makeBridge(nullptr, [&](ModelManagerBridge& bridge) {
      bridge.setGpuProbe([&](int device) {
        ++calls;
        lastDevice = device;
        GpuMemory m;
        m.deviceName = QStringLiteral("Fake GPU %1").arg(device);
        m.freeBytes = 1 << 30;
        return m;
      });
    });
    trit::chat::AppSettings settings(QDir(trit::test::scratchDir("app-settings")).filePath("settings.ini"));
    settings.setDevice(2);
    settings.setContextLength(256);
    trit::models::followEngineSettings(*b, settings);
    QCOMPARE(b->gpuDevice(), 2);
    QCOMPARE(b->contextLength(), 256);
    QTRY_COMPARE_WITH_TIMEOUT(b->gpuName(), QString("Fake GPU 2"), 10000);
    settings.setTemperature(0.3);  // not an engine setting: nothing asked
    settings.setContextLength(512);
    QCOMPARE(b->contextLength(), 512);
    QCOMPARE(calls.load(), 1);
    settings.setDevice(-1);
    QTRY_COMPARE_WITH_TIMEOUT(b->gpuName(), QString("Fake GPU -1"), 10000);
    QCOMPARE(calls.load(), 2);
    QCOMPARE(lastDevice.load(), -1);
  }

  // The real probe on lavapipe: the figure the engine's device list gives arrives, and the memory the
  // estimate allows for covers what the Vulkan engine really allocates for the model.
  void realGpuFigureArrivesFromVulkan() {
    std::vector<trit::DeviceInfo> devices;
    try {
      devices = trit::list_vulkan_devices();
    } catch (const std::exception& e) {
      QSKIP(qPrintable(QStringLiteral("no Vulkan device here: %1").arg(QString::fromUtf8(e.what()))));
    }
    const trit::DeviceInfo& best = trit::choose_device(devices, {});
    auto b = makeBridge();
    b->selectGpu(-1, 0);
    QTRY_VERIFY_WITH_TIMEOUT(!b->gpuName().isEmpty() || !b->gpuError().isEmpty(), 30000);
    QCOMPARE(b->gpuError(), QString());
    QCOMPARE(b->gpuName(), QString::fromStdString(best.name));
    QCOMPARE(b->gpuTotalBytes(), qint64(best.device_local_bytes()));
    QVERIFY(b->gpuFreeBytes() > 0 && b->gpuFreeBytes() <= b->gpuTotalBytes());
    QVERIFY(role(*b, "tiny", ModelListModel::FitsGpuRole).isValid());

    const QString path = QDir(trit::test::scratchDir("vk-estimate")).filePath("m.gguf");
    writeFile(path, model_);
    const trit::models::ModelInfo info = trit::models::inspectModel(path);
    const auto model = trit::Model::open(path.toStdString());
    const trit::VulkanForward forward(*model);
    QVERIFY2(
        forward.device_bytes() <= quint64(info.memoryNeeded),
        qPrintable(
            QStringLiteral("engine allocates %1 B, estimate %2 B").arg(forward.device_bytes()).arg(info.memoryNeeded)));
  }
};

QTEST_GUILESS_MAIN(TestModelManagerBridge)
#include "tst_model_manager_bridge.moc"
