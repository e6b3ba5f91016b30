// The catalogue: the built-in file, validation of third-party catalogues with precise messages, the URL
// policy (https, or http to loopback only), where the catalogue is read from, and fetching it over http.
#include <QtTest>

#include "download_test_support.h"
#include "http_test_server.h"
#include "models/catalog.h"
#include "models/catalog_loader.h"
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
    QCOMPARE(e->url.toString(), QStringLiteral("https://huggingface.co/microsoft/bitnet-b1.58-2B-4T-gguf/resolve/main/ggml-model-i2_s.gguf"));
    QCOMPARE(e->size, qint64(1187801280));
    QCOMPARE(e->sha256.size(), 64);
    QCOMPARE(e->license, QStringLiteral("MIT"));
    QVERIFY(!e->description.isEmpty());
    QVERIFY(e->memory > e->size);
    QCOMPARE(e->contextLength, 4096);
    QCOMPARE(e->fileName, QStringLiteral("bitnet-b1.58-2b-4t-i2_s.gguf"));
  }

  void minimalEntryGetsDefaults() {
    QString error;
    const auto c = parseCatalog(entryJson(kGood), QStringLiteral("t"), &error);
    QVERIFY2(c, qPrintable(error));
    QCOMPARE(c->models.size(), 1);
    QCOMPARE(c->models[0].fileName, QStringLiteral("a.gguf"));
    QCOMPARE(c->models[0].memory, qint64(0));
  }

  void badCataloguesAreExplained_data() {
    QTest::addColumn<QByteArray>("json");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not json") << QByteArray("{\"models\": [") << QStringLiteral("is not valid JSON");
    QTest::newRow("no models") << QByteArray("{\"items\": []}") << QStringLiteral("with a \"models\" array");
    QTest::newRow("array root") << QByteArray("[]") << QStringLiteral("with a \"models\" array");
    QTest::newRow("entry not object") << QByteArray("{\"models\": [1]}") << QStringLiteral("models[0]: it is not a JSON object");
    QTest::newRow("missing id") << entryJson(QString(kGood).replace(QStringLiteral("\"id\": \"a\", "), QString()))
                                << QStringLiteral("the field \"id\" is missing");
    QTest::newRow("missing sha256") << entryJson(QString(kGood).replace(QStringLiteral("\"sha256\": \"\", "), QString()))
                                    << QStringLiteral("the field \"sha256\" is missing");
    QTest::newRow("size string") << entryJson(QString(kGood).replace(QStringLiteral("\"size\": 10"), QStringLiteral("\"size\": \"10\"")))
                                 << QStringLiteral("\"size\" must be a whole number");
    QTest::newRow("size negative") << entryJson(QString(kGood).replace(QStringLiteral("\"size\": 10"), QStringLiteral("\"size\": -1")))
                                   << QStringLiteral("\"size\" must be a whole number");
    QTest::newRow("size fraction") << entryJson(QString(kGood).replace(QStringLiteral("\"size\": 10"), QStringLiteral("\"size\": 1.5")))
                                   << QStringLiteral("\"size\" must be a whole number");
    QTest::newRow("bad sha") << entryJson(QString(kGood).replace(QStringLiteral("\"sha256\": \"\""), QStringLiteral("\"sha256\": \"abc\"")))
                             << QStringLiteral("\"sha256\" must be 64 hexadecimal digits or empty, got \"abc\"");
    QTest::newRow("id with slash") << entryJson(QString(kGood).replace(QStringLiteral("\"id\": \"a\""), QStringLiteral("\"id\": \"../a\"")))
                                   << QStringLiteral("the id \"../a\" must be");
    QTest::newRow("file path") << entryJson(kGood + QStringLiteral(", \"file\": \"../../x.gguf\""))
                               << QStringLiteral("\"file\" must be a plain file name");
    QTest::newRow("http remote") << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"), QStringLiteral("http://example.org")))
                                 << QStringLiteral("plain http, which is only allowed to this computer");
    QTest::newRow("ftp") << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"), QStringLiteral("ftp://example.org")))
                         << QStringLiteral("unsupported scheme \"ftp\"");
    // Issue 30 #11: "has no host.." for file://, and "" for a URL with a space.
    QTest::newRow("file scheme") << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"), QStringLiteral("file://")))
                                 << QStringLiteral("uses the unsupported scheme \"file\"; only https is accepted (and plain http to this computer).");
    QTest::newRow("space in url") << entryJson(QString(kGood).replace(QStringLiteral("https://example.org"), QStringLiteral("https://exa mple.org")))
                                  << QStringLiteral("The download URL \"https://exa mple.org");
    QTest::newRow("empty name") << entryJson(QString(kGood).replace(QStringLiteral("\"name\": \"A\""), QStringLiteral("\"name\": \" \"")))
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
    QVERIFY(checkRedirect(QUrl(QStringLiteral("https://huggingface.co/a")), QUrl(QStringLiteral("https://cdn-lfs.hf.co/b"))).isEmpty());
    const QString down = checkRedirect(QUrl(QStringLiteral("https://huggingface.co/a")), QUrl(QStringLiteral("http://127.0.0.1/b")));
    QVERIFY2(down.contains(QStringLiteral("downgrade")), qPrintable(down));
    QVERIFY(!checkRedirect(QUrl(QStringLiteral("https://huggingface.co/a")), QUrl(QStringLiteral("http://cdn.example/b"))).isEmpty());
    QVERIFY(checkRedirect(QUrl(QStringLiteral("http://127.0.0.1:1/a")), QUrl(QStringLiteral("http://localhost:2/b"))).isEmpty());
    QVERIFY(checkRedirect(QUrl(QStringLiteral("https://localhost/a")), QUrl(QStringLiteral("http://127.0.0.1/b"))).isEmpty());
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
    QVERIFY2(error.contains(QStringLiteral("Cannot fetch the catalogue")) && error.contains(QStringLiteral("HTTP 404")), qPrintable(error));
  }

  void refusesPlainHttpCatalogueElsewhere() {
    QString error;
    QVERIFY(!loadCatalog(QStringLiteral("http://example.org/catalog.json"), &error));
    QVERIFY2(error.contains(QStringLiteral("catalogue URL")) && error.contains(QStringLiteral("use https")), qPrintable(error));
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
