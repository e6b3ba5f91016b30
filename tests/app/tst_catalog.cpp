// The catalogue: the built-in file, validation of third-party catalogues with precise messages, the URL
// policy (https, or http to loopback only), where the catalogue is read from, and fetching it over http.
#include <QtTest>

#include "download_test_support.h"
#include "http_test_server.h"
#include "models/catalog.h"
#include "models/catalog_loader.h"
#include "models/download_types.h"
#include "models/url_policy.h"

using namespace trit::models;

namespace {
QByteArray entryJson(const QString& fields) {
  return QStringLiteral("{\"models\": [{%1}]}").arg(fields).toUtf8();
}
const QString kGood = QStringLiteral(
    "\"id\": \"a\", \"name\": \"A\", \"url\": \"https://example.org/a.gguf\", \"size\": 10, "
    "\"sha256\": \"\", \"license\": \"MIT\", \"description\": \"d\"");
}  // namespace

class CatalogTest : public QObject {
  Q_OBJECT
 private slots:
  void builtinCatalogueListsBitNet() {
    QString error;
    const auto catalog = loadCatalog(QString::fromLatin1(kBuiltinCatalog), &error);
    QVERIFY2(catalog, qPrintable(error));
    const CatalogEntry* e = catalog->find(QStringLiteral("bitnet-b1.58-2b-4t"));
    QVERIFY(e);
    QCOMPARE(
        e->url.toString(),
        QStringLiteral("https://huggingface.co/microsoft/bitnet-b1.58-2B-4T-gguf/resolve/main/ggml-model-i2_s.gguf"));
    QCOMPARE(e->size, qint64(1187801280));
    QCOMPARE(e->sha256.size(), 64);
    QCOMPARE(e->license, QStringLiteral("MIT"));
    QVERIFY(!e->description.isEmpty());
    QVERIFY(e->memory > e->size);
    QCOMPARE(e->contextLength, 4096);
    QCOMPARE(e->fileName, QStringLiteral("bitnet-b1.58-2b-4t-i2_s.gguf"));
    QCOMPARE(e->architecture, QStringLiteral("bitnet-25"));
    QCOMPARE(formatParameters(e->parameters), QStringLiteral("2.4 B"));
    QCOMPARE(e->quantization, QStringLiteral("I2_S"));
  }

  // Issue 27: the Falcon 1.58-bit family next to 2B4T, from TII's Hugging Face repositories, with their
  // licence. No sizes or hashes (not measurable here): X-Linked-ETag verifies them at download time.
  void builtinCatalogueListsTheTernaryFamily_data() {
    QTest::addColumn<QString>("id");
    QTest::addColumn<QString>("url");
    QTest::addColumn<QString>("license");
    QTest::addColumn<QString>("parameters");
    const QString falcon3 = QStringLiteral(
        "https://huggingface.co/tiiuae/Falcon3-%1-Instruct-1.58bit-GGUF/resolve/main/ggml-model-i2_s.gguf");
    const QString falconE =
        QStringLiteral("https://huggingface.co/tiiuae/Falcon-E-%1-Instruct-GGUF/resolve/main/ggml-model-i2_s.gguf");
    const QString tii2 = QStringLiteral("TII Falcon License 2.0");
    QTest::newRow("Falcon3-1B") << "falcon3-1b-instruct-1.58bit" << falcon3.arg(QStringLiteral("1B")) << tii2
                                << "1.7 B";
    QTest::newRow("Falcon3-3B") << "falcon3-3b-instruct-1.58bit" << falcon3.arg(QStringLiteral("3B")) << tii2
                                << "3.2 B";
    QTest::newRow("Falcon3-7B") << "falcon3-7b-instruct-1.58bit" << falcon3.arg(QStringLiteral("7B")) << tii2
                                << "7.5 B";
    QTest::newRow("Falcon3-10B") << "falcon3-10b-instruct-1.58bit" << falcon3.arg(QStringLiteral("10B")) << tii2
                                 << "10.3 B";
    QTest::newRow("Falcon-E-1B") << "falcon-e-1b-instruct" << falconE.arg(QStringLiteral("1B")) << "Falcon-LLM License"
                                 << "";
    QTest::newRow("Falcon-E-3B") << "falcon-e-3b-instruct" << falconE.arg(QStringLiteral("3B")) << "Falcon-LLM License"
                                 << "";
  }
  void builtinCatalogueListsTheTernaryFamily() {
    QFETCH(QString, id);
    QFETCH(QString, url);
    QFETCH(QString, license);
    QFETCH(QString, parameters);
    QString error;
    const auto catalog = loadCatalog(QString::fromLatin1(kBuiltinCatalog), &error);
    QVERIFY2(catalog, qPrintable(error));
    const CatalogEntry* e = catalog->find(id);
    QVERIFY2(e, qPrintable(id));
    QCOMPARE(e->url.toString(), url);
    QCOMPARE(e->license, license);
    QCOMPARE(e->licenseUrl, QStringLiteral("https://falconllm.tii.ae/falcon-terms-and-conditions.html"));
    QVERIFY(e->sha256.isEmpty());
    QCOMPARE(e->size, qint64(0));
    QCOMPARE(e->architecture, QStringLiteral("llama"));
    QCOMPARE(e->quantization, QStringLiteral("I2_S"));
    QCOMPARE(formatParameters(e->parameters), parameters);
    QVERIFY(e->fileName.endsWith(QStringLiteral("-i2_s.gguf")));
  }

  void parameterCountsReadLikeModelNames() {
    QCOMPARE(formatParameters(0), QString());
    QCOMPARE(formatParameters(999), QStringLiteral("999"));
    QCOMPARE(formatParameters(125000000), QStringLiteral("125 M"));
    QCOMPARE(formatParameters(999499999), QStringLiteral("999 M"));
    QCOMPARE(formatParameters(999500000), QStringLiteral("1.0 B"));
    QCOMPARE(formatParameters(1000000000), QStringLiteral("1.0 B"));
    QCOMPARE(formatParameters(2412820480), QStringLiteral("2.4 B"));
    QCOMPARE(formatParameters(10305000000), QStringLiteral("10.3 B"));
  }

  void minimalEntryGetsDefaults() {
    QString error;
    const auto c = parseCatalog(entryJson(kGood), QStringLiteral("t"), &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->models.size(), 1);
    QCOMPARE(c->models[0].fileName, QStringLiteral("a.gguf"));
    QCOMPARE(c->models[0].memory, qint64(0));
  }

  // Issue 27: sha256 and size may be left out (X-Linked-ETag and the server's length stand in).
  void shaAndSizeMayBeLeftOut() {
    QString lean = kGood;
    lean.replace(QStringLiteral("\"size\": 10, "), QString()).replace(QStringLiteral("\"sha256\": \"\", "), QString());
    QVERIFY(!lean.contains(QStringLiteral("size")) && !lean.contains(QStringLiteral("sha256")));
    QString error;
    const auto c = parseCatalog(entryJson(lean), QStringLiteral("t"), &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->models[0].size, qint64(0));
    QVERIFY(c->models[0].sha256.isEmpty());
  }

  void architectureParametersAndFormatAreRead() {
    QString error;
    const auto c =
        parseCatalog(entryJson(kGood + QStringLiteral(", \"architecture\": \"llama\", \"parameters\": 10305000000, "
                                                      "\"quantization\": \"tq2_0+tq1_0\"")),
                     QStringLiteral("t"), &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->models[0].architecture, QStringLiteral("llama"));
    QCOMPARE(c->models[0].parameters, qint64(10305000000));
    QCOMPARE(c->models[0].quantization, QStringLiteral("TQ2_0+TQ1_0"));  // GGUF spelling
    // Absent: unknown, not an error.
    const auto bare = parseCatalog(entryJson(kGood), QStringLiteral("t"), &error);
    QVERIFY2(bare, qPrintable(error));
    QVERIFY(bare->models[0].architecture.isEmpty());
    QCOMPARE(bare->models[0].parameters, qint64(0));
  }

  void badCataloguesAreExplained_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not json") << QByteArray("{\"models\": [") << QStringLiteral("is not valid JSON");
    QTest::newRow("no models") << QByteArray("{\"items\": []}") << QStringLiteral("with a \"models\" array");
    QTest::newRow("array root") << QByteArray("[]") << QStringLiteral("with a \"models\" array");
    QTest::newRow("entry not object") << QByteArray("{\"models\": [1]}")
                                      << QStringLiteral("models[0]: it is not a JSON object");
    QTest::newRow("missing id") << entryJson(QString(kGood).replace(QStringLiteral("\"id\": \"a\", "), QString()))
                                << QStringLiteral("the field \"id\" is missing");
    QTest::newRow("sha256 not string") << entryJson(QString(kGood).replace(QStringLiteral("\"sha256\": \"\""),
                                                                           QStringLiteral("\"sha256\": 1")))
                                       << QStringLiteral("the field \"sha256\" must be a string");
    QTest::newRow("architecture spaces") << entryJson(kGood + QStringLiteral(", \"architecture\": \"Llama 3\""))
                                         << QStringLiteral(
                                                "\"architecture\" must be a GGUF architecture name such as \"llama\"");
    QTest::newRow("architecture number") << entryJson(kGood + QStringLiteral(", \"architecture\": 3"))
                                         << QStringLiteral("the field \"architecture\" must be a string");
    QTest::newRow("parameters text") << entryJson(kGood + QStringLiteral(", \"parameters\": \"2B\""))
                                     << QStringLiteral("\"parameters\" must be a whole number of weights");
    QTest::newRow("parameters negative") << entryJson(kGood + QStringLiteral(", \"parameters\": -5"))
                                         << QStringLiteral("\"parameters\" must be a whole number of weights");
    QTest::newRow("format words") << entryJson(kGood + QStringLiteral(", \"quantization\": \"1.58 bit\""))
                                  << QStringLiteral("\"quantization\" must be a weight format such as \"I2_S\"");
    QTest::newRow("size string") << entryJson(QString(kGood).replace(QStringLiteral("\"size\": 10"),
                                                                     QStringLiteral("\"size\": \"10\"")))
                                 << QStringLiteral("\"size\" must be a whole number");
    QTest::newRow("size negative") << entryJson(QString(kGood).replace(QStringLiteral("\"size\": 10"),
                                                                       QStringLiteral("\"size\": -1")))
                                   << QStringLiteral("\"size\" must be a whole number");
    QTest::newRow("size fraction") << entryJson(QString(kGood).replace(QStringLiteral("\"size\": 10"),
                                                                       QStringLiteral("\"size\": 1.5")))
                                   << QStringLiteral("\"size\" must be a whole number");
    QTest::newRow("bad sha") << entryJson(QString(kGood).replace(QStringLiteral("\"sha256\": \"\""),
                                                                 QStringLiteral("\"sha256\": \"abc\"")))
                             << QStringLiteral("\"sha256\" must be 64 hexadecimal digits or empty, got \"abc\"");
    QTest::newRow("id with slash") << entryJson(QString(kGood).replace(QStringLiteral("\"id\": \"a\""),
                                                                       QStringLiteral("\"id\": \"../a\"")))
                                   << QStringLiteral("the id \"../a\" must be");
    QTest::newRow("file path") << entryJson(kGood + QStringLiteral(", \"file\": \"../../x.gguf\""))
                               << QStringLiteral("\"file\" must be a plain file name");
    QTest::newRow("http remote") << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"),
                                                                     QStringLiteral("http://example.org")))
                                 << QStringLiteral("plain http, which is only allowed to this computer");
    QTest::newRow("ftp") << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"),
                                                             QStringLiteral("ftp://example.org")))
                         << QStringLiteral("unsupported scheme \"ftp\"");
    // Issue 30 #11: "has no host.." for file://, and "" for a URL with a space.
    QTest::newRow("file scheme")
        << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"), QStringLiteral("file://")))
        << QStringLiteral(
               "uses the unsupported scheme \"file\"; only https is accepted (and plain http to this computer).");
    QTest::newRow("space in url") << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"),
                                                                      QStringLiteral("https://exa mple.org")))
                                  << QStringLiteral("The download URL \"https://exa mple.org");
    QTest::newRow("empty name") << entryJson(QString(kGood).replace(QStringLiteral("\"name\": \"A\""),
                                                                    QStringLiteral("\"name\": \" \"")))
                                << QStringLiteral("the name is empty");
    QTest::newRow("duplicate id") << QStringLiteral("{\"models\": [{%1}, {%1}]}").arg(kGood).toUtf8()
                                  << QStringLiteral("models[1] (\"a\"): the id \"a\" is used twice");
  }
  void badCataloguesAreExplained() {
    QFETCH(QByteArray, json);
    QFETCH(QString, expected);
    QString error;
    QVERIFY(!parseCatalog(json, QStringLiteral("test.json"), &error));
    QVERIFY2(error.contains(expected), qPrintable(error));
    QVERIFY2(error.contains(QStringLiteral("test.json")), qPrintable(error));
    QVERIFY2(error.endsWith(QLatin1Char('.')) && !error.endsWith(QStringLiteral("..")), qPrintable(error));
  }

  void urlPolicy() {
    QVERIFY(checkFetchUrl(QUrl(QStringLiteral("https://huggingface.co/x")), QStringLiteral("u")).isEmpty());
    QVERIFY(checkFetchUrl(QUrl(QStringLiteral("http://127.0.0.1:8080/x")), QStringLiteral("u")).isEmpty());
    QVERIFY(checkFetchUrl(QUrl(QStringLiteral("http://[::1]:8080/x")), QStringLiteral("u")).isEmpty());
    QVERIFY(checkFetchUrl(QUrl(QStringLiteral("http://localhost/x")), QStringLiteral("u")).isEmpty());
    QVERIFY(!checkFetchUrl(QUrl(QStringLiteral("http://192.168.1.2/x")), QStringLiteral("u")).isEmpty());
    QVERIFY(!checkFetchUrl(QUrl(QStringLiteral("http://localhost.example.com/x")), QStringLiteral("u")).isEmpty());
    QCOMPARE(checkFetchUrl(QUrl(QStringLiteral("file:///etc/passwd")), QStringLiteral("u")),
             QStringLiteral("The u \"file:///etc/passwd\" uses the unsupported scheme \"file\"; only https is accepted "
                            "(and plain http to this computer)."));
    const QString spaced = QStringLiteral("https://exa mple.org/c.json");
    QCOMPARE(checkFetchUrl(QUrl(spaced, QUrl::StrictMode), QStringLiteral("u"), spaced),
             QStringLiteral("The u \"https://exa mple.org/c.json\" is not a valid absolute URL."));
    QVERIFY(!checkFetchUrl(QUrl(QStringLiteral("/relative")), QStringLiteral("u")).isEmpty());
    // Redirects: to a CDN over https is fine; https -> http is a downgrade, refused.
    QVERIFY(
        checkRedirect(QUrl(QStringLiteral("https://huggingface.co/a")), QUrl(QStringLiteral("https://cdn-lfs.hf.co/b")))
            .isEmpty());
    const QString down =
        checkRedirect(QUrl(QStringLiteral("https://huggingface.co/a")), QUrl(QStringLiteral("http://127.0.0.1/b")));
    QVERIFY2(down.contains(QStringLiteral("downgrade")), qPrintable(down));
    QVERIFY(
        !checkRedirect(QUrl(QStringLiteral("https://huggingface.co/a")), QUrl(QStringLiteral("http://cdn.example/b")))
             .isEmpty());
    QVERIFY(checkRedirect(QUrl(QStringLiteral("http://127.0.0.1:1/a")), QUrl(QStringLiteral("http://localhost:2/b")))
                .isEmpty());
    QVERIFY(checkRedirect(QUrl(QStringLiteral("https://localhost/a")), QUrl(QStringLiteral("http://127.0.0.1/b")))
                .isEmpty());
  }

  void locationPrecedence() {
    qunsetenv("TRIT_CATALOG");
    QCOMPARE(catalogLocation(QString()), QString::fromLatin1(kBuiltinCatalog));
    qputenv("TRIT_CATALOG", "/from/env.json");
    QCOMPARE(catalogLocation(QString()), QStringLiteral("/from/env.json"));
    QCOMPARE(catalogLocation(QStringLiteral("/from/option.json")), QStringLiteral("/from/option.json"));
    qunsetenv("TRIT_CATALOG");
  }

  void readsLocalFileAndFileUrl() {
    const QString dir = trit::test::scratchDir(QStringLiteral("cat"));
    const QString path = QDir(dir).filePath(QStringLiteral("c.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(entryJson(kGood));
    f.close();
    QString error;
    QVERIFY2(loadCatalog(path, &error), qPrintable(error));
    QVERIFY2(loadCatalog(QUrl::fromLocalFile(path).toString(), &error), qPrintable(error));
    QVERIFY(!loadCatalog(QDir(dir).filePath(QStringLiteral("missing.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("Cannot read the catalogue file")), qPrintable(error));
  }

  void fetchesOverLoopbackHttpWithRedirect() {
    trit::test::HttpTestServer server;
    QVERIFY(server.listen());
    trit::test::HttpTestServer::Route r, hop;
    r.body = entryJson(kGood);
    server.setRoute(QStringLiteral("/catalog.json"), r);
    hop.location = "/catalog.json";
    server.setRoute(QStringLiteral("/latest"), hop);
    QString error;
    const auto c = loadCatalog(server.url(QStringLiteral("/latest")).toString(), &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->models.first().id, QStringLiteral("a"));
    QVERIFY(!loadCatalog(server.url(QStringLiteral("/nothing")).toString(), &error));
    QVERIFY2(error.contains(QStringLiteral("Cannot fetch the catalogue")) && error.contains(QStringLiteral("HTTP 404")),
             qPrintable(error));
  }

  void refusesPlainHttpCatalogueElsewhere() {
    QString error;
    QVERIFY(!loadCatalog(QStringLiteral("http://example.org/catalog.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("catalogue URL")) && error.contains(QStringLiteral("use https")),
             qPrintable(error));
  }

  void refusesRedirectToRemotePlainHttp() {
    trit::test::HttpTestServer server;
    QVERIFY(server.listen());
    trit::test::HttpTestServer::Route hop;
    hop.location = "http://example.org/catalog.json";
    server.setRoute(QStringLiteral("/c"), hop);
    QString error;
    QVERIFY(!loadCatalog(server.url(QStringLiteral("/c")).toString(), &error));
    QVERIFY2(error.contains(QStringLiteral("only allowed to this computer")), qPrintable(error));
  }
};

QTEST_GUILESS_MAIN(CatalogTest)
#include "tst_catalog.moc"
