// The headless commands of the real `trit` binary: --list-models and --download against a loopback
// server, including the exit codes, progress lines, errors, and resuming a .part left by an earlier run;
// and the window (offscreen, --check-startup) taking the same --catalog / --models-dir options and
// environment variables.
#include <QProcess>
#include <QtTest>

#include "download_test_support.h"
#include "http_test_server.h"
#include "models/model_inspector.h"
#include "models/part_state.h"

using trit::test::HttpTestServer;

class DownloadCliTest : public QObject {
  Q_OBJECT
 private:
  HttpTestServer* server_ = nullptr;
  QByteArray model_;
  QString dir_;
  QString catalog_;

  struct Run {
    int code = -1;
    QString out, err;
  };
  // Runs trit in a separate process while this process's event loop serves HTTP.
  // `window`: the GUI (offscreen), with its settings and data kept in the scratch folder.
  Run trit(const QStringList& args, const QString& catalogEnv = {}, bool window = false,
           const QString& modelsDirEnv = {}) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("TRIT_CATALOG"));
    env.remove(QStringLiteral("TRIT_MODELS_DIR"));
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));  // the headless commands must not need a platform
    if (window) {
      env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
      env.insert(QStringLiteral("XDG_CONFIG_HOME"), QDir(dir_).filePath(QStringLiteral("config")));
      env.insert(QStringLiteral("XDG_DATA_HOME"), QDir(dir_).filePath(QStringLiteral("data")));
    }
    if (!catalogEnv.isEmpty()) env.insert(QStringLiteral("TRIT_CATALOG"), catalogEnv);
    if (!modelsDirEnv.isEmpty()) env.insert(QStringLiteral("TRIT_MODELS_DIR"), modelsDirEnv);
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(TRIT_APP_BINARY), args);
    Run r;
    if (!p.waitForStarted(10000)) return r;
    QEventLoop loop;
    connect(&p, &QProcess::finished, &loop, &QEventLoop::quit);
    QTimer::singleShot(60000, &loop, &QEventLoop::quit);
    if (p.state() != QProcess::NotRunning) loop.exec();
    r.code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = QString::fromUtf8(p.readAllStandardOutput());
    r.err = QString::fromUtf8(p.readAllStandardError());
    return r;
  }
  void writeCatalog(const QString& path, const QString& sha, qint64 size) {
    const QString json =
        QStringLiteral(
            "{\"models\": [{\"id\": \"tiny\", \"name\": \"Tiny synthetic\", \"url\": \"%1\", \"size\": %2, "
            "\"sha256\": \"%3\", \"license\": \"MIT\", \"description\": \"test\"},"
            "{\"id\": \"missing\", \"name\": \"Not on the server\", \"url\": \"%4\", \"size\": 0, "
            "\"sha256\": \"\", \"license\": \"MIT\", \"description\": \"test\"}]}")
            .arg(server_->url(path).toString())
            .arg(size)
            .arg(sha)
            .arg(server_->url(QStringLiteral("/missing")).toString());
    QFile f(catalog_);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(json.toUtf8());
  }

 private slots:
  void initTestCase() {
    model_ = trit::test::syntheticModel(11);
    QVERIFY(!model_.isEmpty());
  }
  void init() {
    server_ = new HttpTestServer(this);
    QVERIFY(server_->listen());
    HttpTestServer::Route r;
    r.body = model_;
    server_->setRoute(QStringLiteral("/tiny.gguf"), r);
    dir_ = trit::test::scratchDir(QStringLiteral("cli"));
    catalog_ = QDir(dir_).filePath(QStringLiteral("catalog.json"));
    writeCatalog(QStringLiteral("/tiny.gguf"), trit::test::sha256Hex(model_), model_.size());
  }
  void cleanup() {
    delete server_;
    server_ = nullptr;
  }

  void downloadThenList() {
    const QString models = QDir(dir_).filePath(QStringLiteral("models"));
    auto r = trit({QStringLiteral("--list-models"), QStringLiteral("--catalog"), catalog_,
                   QStringLiteral("--models-dir"), models});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QRegularExpression(QStringLiteral("tiny\\s+Tiny synthetic.*not installed"))),
             qPrintable(r.out));

    r = trit({QStringLiteral("--download"), QStringLiteral("tiny"), QStringLiteral("--catalog"), catalog_,
              QStringLiteral("--models-dir"), models});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("tiny: 100.0% ")), qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("tiny: done: ")) && r.out.contains(QStringLiteral("verified by catalogue")),
             qPrintable(r.out));
    QCOMPARE(trit::test::readAll(QDir(models).filePath(QStringLiteral("tiny.gguf"))), model_);

    r = trit({QStringLiteral("--list-models"), QStringLiteral("--models-dir"), models, QStringLiteral("--catalog"),
              catalog_});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QStringLiteral("installed (verified by catalogue)")), qPrintable(r.out));
  }

  // Issue 27: the list says what each model is. Before the download the catalogue's figures (or
  // "unknown"), after it the file's own header as the engine reads it; imported files too.
  void listShowsArchitectureParametersFormatAndLicence() {
    const QString json =
        QStringLiteral(
            "{\"models\": [{\"id\": \"tiny\", \"name\": \"Tiny synthetic\", \"url\": \"%1\", \"license\": \"Some "
            "Licence 2.0\", "
            "\"license_url\": \"https://example.org/licence\", \"description\": \"test\", \"architecture\": \"llama\", "
            "\"parameters\": 10305000000, \"quantization\": \"TQ2_0\"},"
            "{\"id\": \"bare\", \"name\": \"Bare\", \"url\": \"%2\", \"license\": \"MIT\", \"description\": \"\"}]}")
            .arg(server_->url(QStringLiteral("/tiny.gguf")).toString(),
                 server_->url(QStringLiteral("/missing")).toString());
    QFile f(catalog_);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(json.toUtf8());
    f.close();
    const QString models = QDir(dir_).filePath(QStringLiteral("models"));
    auto r = trit({QStringLiteral("--list-models"), QStringLiteral("--catalog"), catalog_,
                   QStringLiteral("--models-dir"), models});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QStringLiteral("\n    llama architecture, 10.3 B parameters, TQ2_0 weights, licence: Some "
                                           "Licence 2.0 <https://example.org/licence>\n")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("\n    architecture unknown, parameters unknown, weight format unknown, "
                                           "licence: MIT\n")),
             qPrintable(r.out));

    // The catalogue has no hash for tiny: the server's X-Linked-ETag verifies it.
    server_->route(QStringLiteral("/tiny.gguf")).headers
        << qMakePair(QByteArray("X-Linked-ETag"), "\"" + trit::test::sha256Hex(model_).toLatin1() + "\"");
    r = trit({QStringLiteral("--download"), QStringLiteral("tiny"), QStringLiteral("--catalog"), catalog_,
              QStringLiteral("--models-dir"), models});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("verified by x-linked-etag")), qPrintable(r.out));
    const QString file = QDir(models).filePath(QStringLiteral("tiny.gguf"));
    QVERIFY(QFile::copy(file, QDir(models).filePath(QStringLiteral("mine.gguf"))));
    const trit::models::ModelInfo info = trit::models::inspectModel(file);
    QVERIFY2(info.ok(), qPrintable(info.error));
    QVERIFY(info.architecture != QStringLiteral("llama") && info.quantization != QStringLiteral("TQ2_0"));
    const QString fromFile =
        QStringLiteral("\n    %1 architecture, %2 parameters, %3 weights")
            .arg(info.architecture, trit::models::formatParameters(info.parameters), info.quantization);
    QVERIFY(info.parameters > 0);
    r = trit({QStringLiteral("--list-models"), QStringLiteral("--catalog"), catalog_, QStringLiteral("--models-dir"),
              models});
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(fromFile + QStringLiteral(", licence: Some Licence 2.0 <https://example.org/licence>\n")),
             qPrintable(r.out));
    QVERIFY2(r.out.contains(QStringLiteral("mine.gguf")) && r.out.contains(fromFile + QStringLiteral("\n")),
             qPrintable(r.out));
  }

  // Issue 30 #2: `--download` overwrote a user's own file of the same name and exited 0. It refuses,
  // naming the file and the options; --keep-both and --replace do what they say; the right file is
  // simply "already there".
  void downloadNeverReplacesAnotherFile() {
    const QString models = QDir(dir_).filePath(QStringLiteral("models"));
    QVERIFY(QDir().mkpath(models));
    const QString target = QDir(models).filePath(QStringLiteral("tiny.gguf"));
    const QByteArray mine = trit::test::syntheticModel(12);  // a valid model, just not the catalogue's
    QFile f(target);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(mine);
    f.close();
    const QStringList base{QStringLiteral("--download=tiny"), QStringLiteral("--catalog"), catalog_,
                           QStringLiteral("--models-dir"), models};
    auto r = trit(base);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(
                 QStringLiteral("A different file named tiny.gguf is already in the models folder (%1)").arg(target)) &&
                 r.err.contains(QStringLiteral("Run again with --replace to replace it, or with --keep-both")),
             qPrintable(r.err));
    QCOMPARE(trit::test::readAll(target), mine);
    QVERIFY(server_->requests().isEmpty());

    r = trit(base + QStringList{QStringLiteral("--keep-both")});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("The other file named tiny.gguf was kept as tiny (2).gguf.")),
             qPrintable(r.out));
    QCOMPARE(trit::test::readAll(target), model_);
    QCOMPARE(trit::test::readAll(QDir(models).filePath(QStringLiteral("tiny (2).gguf"))), mine);

    r = trit(base);  // the right file: already there, nothing fetched
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("Already installed and verified.")), qPrintable(r.out));
    QCOMPARE(server_->requests().size(), 1);

    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(mine);
    f.close();
    r = trit(base + QStringList{QStringLiteral("--replace")});
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QCOMPARE(trit::test::readAll(target), model_);

    r = trit(base + QStringList{QStringLiteral("--replace"), QStringLiteral("--keep-both")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--replace and --keep-both cannot be combined")), qPrintable(r.err));
  }

  // Issue 30 #11: a second command was silently ignored.
  void twoCommandsAreRefused() {
    const auto r = trit({QStringLiteral("--download"), QStringLiteral("tiny"), QStringLiteral("--list-models"),
                         QStringLiteral("--catalog"), catalog_});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--list-models and --download cannot be combined")), qPrintable(r.err));
    QVERIFY(server_->requests().isEmpty());
  }

  void catalogueFromEnvironment() {
    auto r = trit({QStringLiteral("--list-models"), QStringLiteral("--models-dir"), dir_}, catalog_);
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QStringLiteral("Tiny synthetic")) && !r.out.contains(QStringLiteral("bitnet")),
             qPrintable(r.out));
    r = trit({QStringLiteral("--list-models"), QStringLiteral("--models-dir"), dir_});  // the built-in one
    QCOMPARE(r.code, 0);
    QVERIFY2(r.out.contains(QStringLiteral("bitnet-b1.58-2b-4t")), qPrintable(r.out));
  }

  void resumesPartLeftByEarlierRun() {
    server_->route(QStringLiteral("/tiny.gguf")).dropAfter = 200000;
    server_->route(QStringLiteral("/tiny.gguf")).dropTimes = 1;
    const QString models = QDir(dir_).filePath(QStringLiteral("models"));
    const QStringList args{QStringLiteral("--download"),   QStringLiteral("tiny"),
                           QStringLiteral("--catalog"),    catalog_,
                           QStringLiteral("--models-dir"), models,
                           QStringLiteral("--retries"),    QStringLiteral("0")};
    auto r = trit(args);
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QStringLiteral("trit: cannot download tiny: ")), qPrintable(r.err));
    const QString part = trit::models::partPath(QDir(models).filePath(QStringLiteral("tiny.gguf")));
    QCOMPARE(QFileInfo(part).size(), qint64(200000));
    r = trit({QStringLiteral("--list-models"), QStringLiteral("--catalog"), catalog_, QStringLiteral("--models-dir"),
              models});
    QVERIFY2(r.out.contains(QStringLiteral("partial")) && r.out.contains(QStringLiteral("(resumable)")),
             qPrintable(r.out));
    r = trit(args);
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(r.out.contains(QStringLiteral("Resuming from")), qPrintable(r.out));
    QCOMPARE(server_->requests().last().range, QByteArray("bytes=200000-"));
    QCOMPARE(trit::test::readAll(QDir(models).filePath(QStringLiteral("tiny.gguf"))), model_);
  }

  void failuresExitNonZeroWithReason() {
    const QString models = QDir(dir_).filePath(QStringLiteral("models"));
    auto r = trit({QStringLiteral("--download"), QStringLiteral("missing"), QStringLiteral("--catalog"), catalog_,
                   QStringLiteral("--models-dir"), models});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QStringLiteral("HTTP 404")), qPrintable(r.err));
    r = trit({QStringLiteral("--download"), QStringLiteral("nope"), QStringLiteral("--catalog"), catalog_});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("has no model \"nope\"; it lists: tiny, missing")), qPrintable(r.err));
    r = trit(
        {QStringLiteral("--list-models"), QStringLiteral("--catalog"), QStringLiteral("http://example.org/c.json")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("use https")), qPrintable(r.err));
    r = trit({QStringLiteral("--download"), QStringLiteral("tiny"), QStringLiteral("--catalog"), catalog_,
              QStringLiteral("--retries"), QStringLiteral("many")});
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(QStringLiteral("--retries wants a number")), qPrintable(r.err));
  }

  void hashMismatchExitsNonZero() {
    writeCatalog(QStringLiteral("/tiny.gguf"), QString(64, QLatin1Char('0')), model_.size());
    const QString models = QDir(dir_).filePath(QStringLiteral("models"));
    const auto r = trit({QStringLiteral("--download"), QStringLiteral("tiny"), QStringLiteral("--catalog"), catalog_,
                         QStringLiteral("--models-dir"), models});
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains(QStringLiteral("The file was deleted")), qPrintable(r.err));
    QVERIFY(!QFileInfo::exists(QDir(models).filePath(QStringLiteral("tiny.gguf"))));
  }

  // The window honours --catalog and --models-dir like the headless commands, and without them the
  // environment variables: --check-startup reports what the model manager read once it is ready.
  void windowTakesCatalogueAndFolderOptions() {
    const QString models = QDir(dir_).filePath(QStringLiteral("gui-models"));
    QVERIFY(QDir().mkpath(models));
    QFile m(QDir(models).filePath(QStringLiteral("mine.gguf")));
    QVERIFY(m.open(QIODevice::WriteOnly));
    m.write(model_);
    m.close();
    const Run r = trit({QStringLiteral("--check-startup"), QStringLiteral("--catalog"), catalog_,
                        QStringLiteral("--models-dir"), models},
                       {}, true);
    QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
    QVERIFY2(
        r.out.contains(
            QStringLiteral("models: catalogue \"%1\" (2 entries), folder \"%2\" (1 installed)").arg(catalog_, models)),
        qPrintable(r.out + r.err));

    const Run env = trit({QStringLiteral("--check-startup")}, catalog_, true, models);
    QVERIFY2(env.code == 0, qPrintable(env.out + env.err));
    QVERIFY2(
        env.out.contains(
            QStringLiteral("models: catalogue \"%1\" (2 entries), folder \"%2\" (1 installed)").arg(catalog_, models)),
        qPrintable(env.out + env.err));

    // A catalogue that cannot be read is reported, and the window still opens with the folder's models.
    const QString missing = QDir(dir_).filePath(QStringLiteral("no-such-catalog.json"));
    const Run bad = trit({QStringLiteral("--check-startup"), QStringLiteral("--catalog"), missing,
                          QStringLiteral("--models-dir"), models},
                         {}, true);
    QVERIFY2(bad.code == 0, qPrintable(bad.out + bad.err));
    QVERIFY2(bad.out.contains(QStringLiteral("models: catalogue \"%1\" (0 entries: ").arg(missing)) &&
                 bad.out.contains(QStringLiteral("(1 installed)")),
             qPrintable(bad.out + bad.err));
  }
};

QTEST_GUILESS_MAIN(DownloadCliTest)
#include "tst_download_cli.moc"
