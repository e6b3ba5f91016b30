// The models folder: where it is, finding models already there, importing a GGUF after the engine has
// validated it, removing only with confirmation, and the per-model facts the dialog shows.
#include <QSettings>
#include <QtTest>
#include <cstring>

#include "download_test_support.h"
#include "models/model_inspector.h"
#include "models/models_folder.h"
#include "models/part_state.h"
#include "storage/app_folders.h"

using namespace trit::models;

class ModelsFolderTest : public QObject {
  Q_OBJECT
 private:
  QString src_;  // a folder holding files to import
  QString write(const QString& name, const QByteArray& bytes) {
    const QString path = QDir(src_).filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(bytes);
    return path;
  }

 private slots:
  void initTestCase() {
    QCoreApplication::setOrganizationName(QStringLiteral("TritTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_models_folder"));
    QStandardPaths::setTestModeEnabled(true);
  }
  void init() { src_ = trit::test::scratchDir(QStringLiteral("src")); }

  void locationPrecedence() {
    qunsetenv("TRIT_MODELS_DIR");
    trit::storage::openSettings()->remove(ModelsFolder::settingKey());
    QVERIFY(ModelsFolder::resolve(QString()).endsWith(QStringLiteral("/models")));
    QCOMPARE(ModelsFolder::resolve(QString()), ModelsFolder::defaultPath());
    ModelsFolder::saveSetting(QStringLiteral("/from/setting"));
    QCOMPARE(ModelsFolder::resolve(QString()), QStringLiteral("/from/setting"));
    qputenv("TRIT_MODELS_DIR", "/from/env");
    QCOMPARE(ModelsFolder::resolve(QString()), QStringLiteral("/from/env"));
    QCOMPARE(ModelsFolder::resolve(QStringLiteral("/from/option")), QStringLiteral("/from/option"));
    qunsetenv("TRIT_MODELS_DIR");
    trit::storage::openSettings()->remove(ModelsFolder::settingKey());
  }

  void inspectsASyntheticModel() {
    const QString path = write(QStringLiteral("tiny.gguf"), trit::test::syntheticModel(3));
    const ModelInfo info = inspectModel(path);
    QVERIFY2(info.ok(), qPrintable(info.error));
    QCOMPARE(info.architecture, QStringLiteral("bitnet-25"));
    QCOMPARE(info.quantization, QStringLiteral("I2_S"));
    QCOMPARE(info.contextLength, 4096);
    QVERIFY(!info.name.isEmpty());
    QVERIFY(info.memoryNeeded > info.fileSize);
    QVERIFY(fitsGpu(info.memoryNeeded, info.memoryNeeded));
    QVERIFY(!fitsGpu(info.memoryNeeded, info.memoryNeeded - 1));
    QVERIFY(!fitsGpu(info.memoryNeeded, -1));  // unknown GPU memory is not "fits"
  }

  // Issue 30 #4: the model list called files "installed" that the engine then refused to run. It asks
  // the engine's own validation (Model::open), so the tokenizer and the ranges of counts are checked.
  void filesTheEngineCannotRunAreNotLoadable() {
    const QByteArray good = trit::test::syntheticModel(2);
    // The value bytes right after a metadata key (the key's text, then its 4-byte value type).
    auto valueAt = [&](const char* key) {
      const qsizetype at = good.indexOf(key);
      return at < 0 ? qsizetype(-1) : at + qsizetype(std::strlen(key)) + 4;
    };
    QByteArray badType = good;  // tokenizer.ggml.token_type: element type (4), count (8), then int32s
    const qsizetype types = valueAt("tokenizer.ggml.token_type");
    QVERIFY(types > 0);
    const qint32 hostile = 3841;
    badType.replace(types + 12 + 70 * 4, 4, reinterpret_cast<const char*>(&hostile), 4);
    QByteArray hugeContext = good;
    const qsizetype context = valueAt("bitnet-25.context_length");
    QVERIFY(context > 0);
    const quint32 big = 0x80000000u;
    hugeContext.replace(context, 4, reinterpret_cast<const char*>(&big), 4);

    const QString dir = trit::test::scratchDir(QStringLiteral("unrunnable"));
    QFile::copy(write(QStringLiteral("a-token-type.gguf"), badType),
                QDir(dir).filePath(QStringLiteral("a-token-type.gguf")));
    QFile::copy(write(QStringLiteral("b-context.gguf"), hugeContext),
                QDir(dir).filePath(QStringLiteral("b-context.gguf")));
    const auto models = ModelsFolder(dir).scan();
    QCOMPARE(models.size(), 2);
    QVERIFY(!models[0].ok());
    QVERIFY2(models[0].error.contains(QStringLiteral("has token type 3841 (valid: 1..6)")),
             qPrintable(models[0].error));
    QVERIFY(!models[1].ok());
    QVERIFY2(models[1].error.contains(QStringLiteral("'bitnet-25.context_length' = 2147483648 is out of range")),
             qPrintable(models[1].error));
  }

  void goldenFileIsInspected() {
    const QString golden =
        QDir(qEnvironmentVariable("TRIT_SHARED_DIR")).filePath(QStringLiteral("golden/golden-a.gguf"));
    if (!QFileInfo::exists(golden)) QSKIP("no shared golden files here");
    const ModelInfo info = inspectModel(golden);
    QVERIFY2(info.ok(), qPrintable(info.error));
    QCOMPARE(info.quantization, QStringLiteral("I2_S"));
  }

  void scanFindsModelsAlreadyThere() {
    const QString dir = trit::test::scratchDir(QStringLiteral("scan"));
    QFile::copy(write(QStringLiteral("a.gguf"), trit::test::syntheticModel(1)),
                QDir(dir).filePath(QStringLiteral("a.gguf")));
    QFile::copy(write(QStringLiteral("junk.gguf"), QByteArray(1000, 'j')),
                QDir(dir).filePath(QStringLiteral("junk.gguf")));
    QFile::copy(write(QStringLiteral("b.gguf.part"), QByteArray(10, 'p')),
                QDir(dir).filePath(QStringLiteral("b.gguf.part")));
    const auto models = ModelsFolder(dir).scan();
    QCOMPARE(models.size(), 2);  // the partial download is not a model
    QCOMPARE(models[0].fileName, QStringLiteral("a.gguf"));
    QVERIFY2(models[0].ok(), qPrintable(models[0].error));
    QCOMPARE(models[1].fileName, QStringLiteral("junk.gguf"));
    QVERIFY(!models[1].ok());  // shown with the engine's reason instead of being hidden
    QVERIFY(!models[1].error.isEmpty());
  }

  void importValidModel() {
    const QByteArray bytes = trit::test::syntheticModel(5);
    const QString source = write(QStringLiteral("mine.gguf"), bytes);
    const ModelsFolder folder(trit::test::scratchDir(QStringLiteral("imp")));
    QString error;
    const auto info = folder.importFile(source, &error);
    QVERIFY2(info, qPrintable(error));
    const QString dest = QDir(folder.path()).filePath(QStringLiteral("mine.gguf"));
    QCOMPARE(info->path, dest);
    QCOMPARE(trit::test::readAll(dest), bytes);
    QVERIFY(!QFileInfo::exists(partPath(dest)));
    const auto record = readVerifiedRecord(recordPath(dest));
    QVERIFY(record);
    QCOMPARE(record->verifiedBy, QStringLiteral("imported"));
    QCOMPARE(record->sha256, trit::test::sha256Hex(bytes));
    // The same name again is refused rather than overwritten.
    QVERIFY(!folder.importFile(source, &error));
    QVERIFY2(error.contains(QStringLiteral("already in")), qPrintable(error));
  }

  void importRejectsNonGguf() {
    const ModelsFolder folder(trit::test::scratchDir(QStringLiteral("imp")));
    QString error;
    QVERIFY(!folder.importFile(write(QStringLiteral("notes.gguf"), "hello, not a model"), &error));
    QVERIFY2(error.startsWith(QStringLiteral("Cannot import notes.gguf: ")), qPrintable(error));
    QVERIFY(QDir(folder.path()).entryList(QDir::Files).isEmpty());
    QVERIFY(!folder.importFile(write(QStringLiteral("model.bin"), "x"), &error));
    QVERIFY2(error.contains(QStringLiteral("GGUF model files")), qPrintable(error));
    QVERIFY(!folder.importFile(QDir(src_).filePath(QStringLiteral("absent.gguf")), &error));
    QVERIFY2(error.contains(QStringLiteral("no such file")), qPrintable(error));
  }

  void importRejectsUnsupportedArchitecture() {
    // A well-formed GGUF whose architecture the engine does not run: patch the synthetic model's
    // architecture string (same length, so the file stays well-formed).
    QByteArray bytes = trit::test::syntheticModel(9);
    const qsizetype at = bytes.indexOf("bitnet-25");
    QVERIFY(at > 0);
    bytes.replace(at, 9, "llama-xyz");
    const ModelsFolder folder(trit::test::scratchDir(QStringLiteral("imp")));
    QString error;
    QVERIFY(!folder.importFile(write(QStringLiteral("other.gguf"), bytes), &error));
    QVERIFY2(error.startsWith(QStringLiteral("Cannot import other.gguf: ")) && error.size() > 30, qPrintable(error));
  }

  void importChecksFreeSpace() {
    const ModelsFolder folder(trit::test::scratchDir(QStringLiteral("imp")));
    QString error;
    QVERIFY(!folder.importFile(write(QStringLiteral("big.gguf"), trit::test::syntheticModel(2)), &error,
                               [](const QString&) { return qint64(10); }));
    QVERIFY2(error.contains(QStringLiteral("only 10 B are free")), qPrintable(error));
  }

  void removeNeedsConfirmation() {
    const ModelsFolder folder(trit::test::scratchDir(QStringLiteral("rm")));
    QString error;
    QVERIFY(folder.importFile(write(QStringLiteral("gone.gguf"), trit::test::syntheticModel(4)), &error));
    const QString dest = QDir(folder.path()).filePath(QStringLiteral("gone.gguf"));
    QVERIFY(!folder.remove(QStringLiteral("gone.gguf"), false, &error));
    QVERIFY2(error.contains(QStringLiteral("confirmation")), qPrintable(error));
    QVERIFY(QFileInfo::exists(dest));
    QVERIFY(!folder.remove(QStringLiteral("../gone.gguf"), true, &error));
    QVERIFY(!folder.remove(QStringLiteral("absent.gguf"), true, &error));
    QVERIFY2(error.contains(QStringLiteral("not in the models folder")), qPrintable(error));
    QVERIFY2(folder.remove(QStringLiteral("gone.gguf"), true, &error), qPrintable(error));
    QVERIFY(!QFileInfo::exists(dest));
    QVERIFY(!QFileInfo::exists(recordPath(dest)));
  }

  void installedAndPartialState() {
    const ModelsFolder folder(trit::test::scratchDir(QStringLiteral("st")));
    CatalogEntry e;
    e.fileName = QStringLiteral("x.gguf");
    QVERIFY(!folder.isInstalled(e));
    QCOMPARE(folder.partialBytes(e), qint64(0));
    QFile part(partPath(folder.filePath(e)));
    QVERIFY(part.open(QIODevice::WriteOnly));
    part.write(QByteArray(123, 'p'));
    part.close();
    QCOMPARE(folder.partialBytes(e), qint64(123));
  }
};

QTEST_GUILESS_MAIN(ModelsFolderTest)
#include "tst_models_folder.moc"
