// The download manager against a loopback HTTP server that misbehaves on purpose: every path of
// issue 9 (resume, Range ignored, 416, drops, stalls, errors, redirects, hashes, disk space, pause,
// cancel) is exercised here with real sockets and real files.
#include <QFileInfo>
#include <QTcpServer>
#include <QtTest>

#include "download_test_support.h"
#include "http_test_server.h"
#include "models/model_inspector.h"
#include "models/part_state.h"

using namespace trit::models;
using trit::test::HttpTestServer;
using State = DownloadTask::State;

class DownloadTest : public QObject {
  Q_OBJECT
 private:
  HttpTestServer* server_ = nullptr;
  QByteArray model_;  // a synthetic GGUF from the project's generator
  QString sha_;
  QString dir_;

  DownloadRequest request(const QString& path, const QString& sha, qint64 size = 0) {
    return DownloadRequest{QStringLiteral("m"), server_->url(path), sha, size, dir_, QStringLiteral("m.gguf")};
  }
  QString finalPath() const { return QDir(dir_).filePath(QStringLiteral("m.gguf")); }
  QString part() const { return partPath(finalPath()); }
  static void writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly)) qFatal("cannot write %s", qPrintable(path));
    f.write(bytes);
  }
  HttpTestServer::Route plain() const {
    HttpTestServer::Route r;
    r.body = model_;
    return r;
  }
  // /resolve/m redirects to /cdn/m, as Hugging Face's resolve URL redirects to its CDN, with `etag` as
  // the redirect's X-Linked-ETag (none where empty).
  void redirectToCdn(const QByteArray& etag) {
    HttpTestServer::Route resolve;
    resolve.location = "/cdn/m";
    if (!etag.isEmpty()) resolve.headers << qMakePair(QByteArray("X-Linked-ETag"), etag);
    server_->setRoute(QStringLiteral("/resolve/m"), resolve);
  }

 private slots:
  void initTestCase() {
    model_ = trit::test::syntheticModel(7);
    QVERIFY2(model_.size() > 100000, "the generator must produce a model");
    sha_ = trit::test::sha256Hex(model_);
  }
  void init() {
    server_ = new HttpTestServer(this);
    QVERIFY(server_->listen());
    dir_ = trit::test::scratchDir(QStringLiteral("dl"));
  }
  void cleanup() {
    delete server_;
    server_ = nullptr;
  }

  void completeDownloadIsVerifiedAndRenamed() {
    server_->setRoute(QStringLiteral("/m"), plain());
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(out.result, finalPath());
    QCOMPARE(out.verifiedBy, QStringLiteral("catalogue"));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
    QVERIFY(!QFileInfo::exists(part()));
    QVERIFY(!QFileInfo::exists(partStatePath(finalPath())));
    const auto record = readVerifiedRecord(recordPath(finalPath()));
    QVERIFY(record);
    QCOMPARE(record->sha256, sha_);
    QCOMPARE(record->verifiedBy, QStringLiteral("catalogue"));
    // Progress: bytes, percent, speed and time left are reported, ending at 100 %.
    QVERIFY(!out.progress.isEmpty());
    QCOMPARE(out.progress.last().received, qint64(model_.size()));
    QCOMPARE(out.progress.last().total, qint64(model_.size()));
    QCOMPARE(out.progress.last().percent, 100.0);
    QVERIFY(out.states.contains(State::Verifying));
    QCOMPARE(out.states.last(), State::Done);
    QCOMPARE(server_->requestsFor(QStringLiteral("/m")).first().range, QByteArray());
  }

  void progressReportsSpeedAndTimeLeft() {
    auto r = plain();
    r.chunkDelayMs = 10;  // ~6 MB/s: long enough for several progress samples
    server_->setRoute(QStringLiteral("/slow"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/slow"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    bool sawSpeed = false, sawEta = false, sawPartial = false;
    for (const auto& p : out.progress) {
      sawSpeed |= p.bytesPerSecond > 0;
      sawEta |= p.secondsLeft >= 0 && p.received < p.total;
      sawPartial |= p.percent > 0 && p.percent < 100;
    }
    QVERIFY(sawSpeed);
    QVERIFY(sawEta);
    QVERIFY(sawPartial);
  }

  void droppedConnectionResumesWithRangeInSameSession() {
    auto r = plain();
    r.dropAfter = model_.size() / 3;
    r.dropTimes = 2;  // two drops, then a good connection
    server_->setRoute(QStringLiteral("/drop"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/drop"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
    // Qt itself resends a GET whose connection closed before any of the response was processed, so
    // count requests loosely: what matters is that each retry asked, with If-Range, for the bytes after
    // those already on disk, and never started over.
    const auto reqs = server_->requestsFor(QStringLiteral("/drop"));
    QByteArrayList ranges;
    for (const auto& q : reqs) ranges << q.range;
    const QByteArray third = QByteArray::number(model_.size() / 3);
    QVERIFY2(ranges.contains("bytes=" + third + "-"), ranges.join(' ').constData());
    for (const QByteArray& range : ranges)  // resumed exactly where a drop left off
      QVERIFY2(range.isEmpty() || range == "bytes=" + third + "-" ||
                   range == "bytes=" + QByteArray::number(2 * (model_.size() / 3)) + "-",
               range.constData());
    QCOMPARE(ranges.count(QByteArray()), reqs.first().range.isEmpty() ? ranges.indexOf("bytes=" + third + "-") : 0);
    QCOMPARE(reqs.last().ifRange, QByteArray("\"v1-") + QByteArray::number(model_.size()) + "\"");
    QVERIFY(out.states.contains(State::Waiting));
  }

  void resumesAcrossRestartsFromPartFile() {
    auto r = plain();
    r.dropAfter = 150000;
    r.dropTimes = 1;
    server_->setRoute(QStringLiteral("/m"), r);
    auto opts = trit::test::fastOptions();
    opts.maxRetries = 0;  // the first "run" gives up after the drop, like a closed app
    {
      DownloadManager first(opts);
      const auto out = trit::test::runDownload(first, request(QStringLiteral("/m"), sha_, model_.size()));
      QVERIFY(!out.ok);
      QVERIFY2(out.result.contains(QStringLiteral("closed")), qPrintable(out.result));
    }
    QCOMPARE(QFileInfo(part()).size(), qint64(150000));
    QVERIFY(readPartState(partStatePath(finalPath())));
    DownloadManager second(opts);  // a new "app run"
    const auto out = trit::test::runDownload(second, request(QStringLiteral("/m"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(server_->requestsFor(QStringLiteral("/m")).last().range, QByteArray("bytes=150000-"));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
    QVERIFY(out.messages.join(' ').contains(QStringLiteral("Resuming from")));
  }

  void partFromAnotherUrlIsNotReused() {
    server_->setRoute(QStringLiteral("/m"), plain());
    QFile f(part());
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(5000, 'x'));
    f.close();
    PartState stale{QStringLiteral("http://127.0.0.1:1/other"), sha_, model_.size(), {}, {}, {}, -1};
    QString error;
    QVERIFY(writePartState(partStatePath(finalPath()), stale, &error));
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(server_->requestsFor(QStringLiteral("/m")).first().range, QByteArray());
  }

  void serverIgnoringRangeRestartsFromZero() {
    auto r = plain();
    r.ranges = false;
    r.dropAfter = 100000;
    r.dropTimes = 1;
    server_->setRoute(QStringLiteral("/norange"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/norange"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    const auto reqs = server_->requestsFor(QStringLiteral("/norange"));
    QVERIFY(reqs.size() >= 2);
    QCOMPARE(reqs.last().range, QByteArray("bytes=100000-"));  // asked to resume, got a 200 with everything
    QCOMPARE(trit::test::readAll(finalPath()), model_);        // not 100000 bytes of duplicate prefix
    QVERIFY(out.messages.join(' ').contains(QStringLiteral("cannot resume")));
  }

  void mismatchedContentRangeIsNotAppended() {
    auto r = plain();
    r.dropAfter = 100000;
    r.dropTimes = 1;
    r.wrongRangeStart = 0;  // 206, but from the wrong place: appending would corrupt the file
    server_->setRoute(QStringLiteral("/wrong"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/wrong"), sha_, model_.size()));
    // The restart without Range gets the whole body as a plain 200.
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
    const auto reqs = server_->requestsFor(QStringLiteral("/wrong"));
    QVERIFY(reqs.size() >= 3);
    QVERIFY(reqs[reqs.size() - 2].range.startsWith("bytes="));  // a resume, answered from the wrong offset...
    QCOMPARE(reqs.last().range, QByteArray());                  // ...so the next request starts over
  }

  void rangeNotSatisfiableWithCompletePartVerifies() {
    server_->setRoute(QStringLiteral("/m"), plain());
    QFile f(part());
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(model_);  // a previous run received everything but stopped before verifying
    f.close();
    QString error;
    QVERIFY(writePartState(
        partStatePath(finalPath()),
        PartState{server_->url(QStringLiteral("/m")).toString(), sha_, model_.size(), {}, {}, {}, model_.size()},
        &error));
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(server_->requestsFor(QStringLiteral("/m")).size(), 1);  // answered 416, then just verified
    QCOMPARE(trit::test::readAll(finalPath()), model_);
  }

  void rangeNotSatisfiableOtherwiseRestarts() {
    auto r = plain();
    r.always416 = true;
    r.dropAfter = 100000;
    r.dropTimes = 1;
    server_->setRoute(QStringLiteral("/416"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/416"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    const auto reqs = server_->requestsFor(QStringLiteral("/416"));
    QVERIFY(reqs.size() >= 3);  // drop; resume -> 416; restart from zero
    QVERIFY(reqs[reqs.size() - 2].range.startsWith("bytes="));
    QCOMPARE(reqs.last().range, QByteArray());
    QCOMPARE(trit::test::readAll(finalPath()), model_);
  }

  void httpErrorsAreExplained_data() {
    QTest::addColumn<int>("status");
    QTest::addColumn<QString>("expected");
    QTest::newRow("404") << 404 << QStringLiteral("not found on the server (HTTP 404)");
    QTest::newRow("403") << 403 << QStringLiteral("refused access to the file (HTTP 403)");
    QTest::newRow("500") << 500 << QStringLiteral("has a problem (HTTP 500)");
  }
  void httpErrorsAreExplained() {
    QFETCH(int, status);
    QFETCH(QString, expected);
    auto r = plain();
    r.status = status;
    server_->setRoute(QStringLiteral("/e"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/e"), sha_));
    QVERIFY(out.finished);
    QVERIFY(!out.ok);
    QVERIFY2(out.result.contains(expected), qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
    // 5xx is transient (retried with back-off), 4xx is final.
    QCOMPARE(server_->requestsFor(QStringLiteral("/e")).size(), status >= 500 ? 3 : 1);
    if (status >= 500) QVERIFY(out.result.contains(QStringLiteral("Gave up after 2 retries")));
  }

  void transientServerErrorIsRetriedWithBackoff() {
    auto r = plain();
    r.failTimes = 2;
    r.failStatus = 503;
    server_->setRoute(QStringLiteral("/busy"), r);
    DownloadManager manager(trit::test::fastOptions());
    QElapsedTimer t;
    t.start();
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/busy"), sha_));
    QVERIFY2(out.ok, qPrintable(out.result));
    QVERIFY(t.elapsed() >= 50 + 100);  // back-off 50 ms, then 100 ms
    QVERIFY(out.messages.join(' ').contains(QStringLiteral("(attempt 2 of 3)")));
    QVERIFY(out.messages.join(' ').contains(QStringLiteral("(attempt 3 of 3)")));
  }

  void connectionRefused() {
    QTcpServer probe;
    QVERIFY(probe.listen(QHostAddress::LocalHost, 0));
    const quint16 port = probe.serverPort();
    probe.close();  // nothing listens there now
    auto opts = trit::test::fastOptions();
    opts.maxRetries = 1;
    DownloadManager manager(opts);
    DownloadRequest req{QStringLiteral("m"),     QUrl(QStringLiteral("http://127.0.0.1:%1/m").arg(port)), sha_, 0, dir_,
                        QStringLiteral("m.gguf")};
    const auto out = trit::test::runDownload(manager, req);
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("connection was refused")), qPrintable(out.result));
  }

  void dnsFailure() {
    auto opts = trit::test::fastOptions();
    opts.maxRetries = 0;
    DownloadManager manager(opts);
    // .invalid never resolves (RFC 2606); https so the URL policy lets it through to the resolver.
    DownloadRequest req{
        QStringLiteral("m"),     QUrl(QStringLiteral("https://no-such-host.invalid/m.gguf")), sha_, 0, dir_,
        QStringLiteral("m.gguf")};
    const auto out = trit::test::runDownload(manager, req);
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("Could not find the server no-such-host.invalid")),
             qPrintable(out.result));
  }

  void redirectIsFollowed() {
    server_->setRoute(QStringLiteral("/m"), plain());
    HttpTestServer::Route hop;
    hop.location = server_->url(QStringLiteral("/m")).toEncoded();
    server_->setRoute(QStringLiteral("/resolve"), hop);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/resolve"), sha_));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
  }

  void redirectChainWithRelativeLocation() {
    server_->setRoute(QStringLiteral("/final"), plain());
    HttpTestServer::Route a, b, c;
    a.location = "/b";  // relative
    a.status = 301;
    b.location = server_->url(QStringLiteral("/c")).toEncoded();
    b.status = 307;
    c.location = "/final";
    c.status = 308;
    server_->setRoute(QStringLiteral("/a"), a);
    server_->setRoute(QStringLiteral("/b"), b);
    server_->setRoute(QStringLiteral("/c"), c);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/a"), sha_));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(server_->requests().size(), 4);
  }

  void redirectLoopIsDetected() {
    HttpTestServer::Route a, b;
    a.location = "/loop-b";
    b.location = "/loop-a";
    server_->setRoute(QStringLiteral("/loop-a"), a);
    server_->setRoute(QStringLiteral("/loop-b"), b);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/loop-a"), sha_));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("redirects in a loop")), qPrintable(out.result));
    QCOMPARE(server_->requests().size(), 2);
  }

  void tooManyRedirects() {
    for (int i = 0; i < 15; ++i) {
      HttpTestServer::Route hop;
      hop.location = "/r" + QByteArray::number(i + 1);
      server_->setRoute(QStringLiteral("/r%1").arg(i), hop);
    }
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/r0"), sha_));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("redirected more than 10 times")), qPrintable(out.result));
  }

  void redirectToPlainHttpElsewhereIsRefused() {
    HttpTestServer::Route hop;
    hop.location = "http://example.com/m.gguf";
    server_->setRoute(QStringLiteral("/evil"), hop);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/evil"), sha_));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("only allowed to this computer")), qPrintable(out.result));
  }

  void hashMismatchDeletesTheFile() {
    auto r = plain();
    r.body[r.body.size() / 2] = static_cast<char>(r.body[r.body.size() / 2] ^ 0x55);  // one flipped byte
    server_->setRoute(QStringLiteral("/bad"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/bad"), sha_, model_.size()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("SHA-256 is ")) && out.result.contains(sha_) &&
                 out.result.contains(QStringLiteral("The file was deleted")),
             qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
    QVERIFY(!QFileInfo::exists(part()));
    QVERIFY(!QFileInfo::exists(partStatePath(finalPath())));
  }

  void noCatalogueHashUsesLinkedEtagOfFirstResponse() {
    server_->setRoute(QStringLiteral("/cdn/m"), plain());
    redirectToCdn("\"" + sha_.toLatin1() + "\"");
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/resolve/m"), QString()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(out.verifiedBy, QStringLiteral("x-linked-etag"));
    const auto record = readVerifiedRecord(recordPath(finalPath()));
    QVERIFY(record);
    QCOMPARE(record->verifiedBy, QStringLiteral("x-linked-etag"));
    QCOMPARE(record->sha256, sha_);
  }

  void linkedEtagMismatchDeletesTheFile() {
    auto r = plain();
    r.headers << qMakePair(QByteArray("X-Linked-ETag"), QByteArray("\"") + QByteArray(64, 'a') + "\"");
    server_->setRoute(QStringLiteral("/m"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), QString()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("X-Linked-ETag")) && out.result.contains(QStringLiteral("deleted")),
             qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(part()));
  }

  void unverifiableFileIsNeverAccepted() {
    server_->setRoute(QStringLiteral("/m"), plain());  // no X-Linked-ETag
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), QString()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("cannot be verified")), qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
    QVERIFY(!QFileInfo::exists(part()));
  }

  // Issue 27: huggingface_hub reads X-Linked-ETag after following relative redirects (a renamed
  // repository): the hash may come on a later response of the chain, weak or not.
  void linkedEtagAfterARelativeRedirectIsUsed() {
    server_->setRoute(QStringLiteral("/cdn/m"), plain());
    HttpTestServer::Route renamed, resolve;
    renamed.location = "/new/resolve/m";  // relative, no header: the repository moved
    renamed.status = 307;
    resolve.location = server_->url(QStringLiteral("/cdn/m")).toEncoded();
    resolve.headers << qMakePair(QByteArray("X-Linked-ETag"), "W/\"" + sha_.toUpper().toLatin1() + "\"");
    server_->setRoute(QStringLiteral("/old/resolve/m"), renamed);
    server_->setRoute(QStringLiteral("/new/resolve/m"), resolve);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/old/resolve/m"), QString()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(out.verifiedBy, QStringLiteral("x-linked-etag"));
    QCOMPARE(readVerifiedRecord(recordPath(finalPath()))->sha256, sha_);
  }

  void linkedEtagOnTheFinalResponseIsUsed() {
    auto cdn = plain();
    cdn.headers << qMakePair(QByteArray("X-Linked-ETag"), "\"" + sha_.toLatin1() + "\"");
    server_->setRoute(QStringLiteral("/cdn/m"), cdn);
    redirectToCdn({});
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/resolve/m"), QString()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(out.verifiedBy, QStringLiteral("x-linked-etag"));
  }

  void conflictingLinkedEtagsInOneChainAreRefused() {
    auto cdn = plain();
    cdn.headers << qMakePair(QByteArray("X-Linked-ETag"), QByteArray("\"") + QByteArray(64, 'b') + "\"");
    server_->setRoute(QStringLiteral("/cdn/m"), cdn);
    redirectToCdn("\"" + sha_.toLatin1() + "\"");
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/resolve/m"), QString()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("two different SHA-256 values")) && out.result.contains(sha_) &&
                 out.result.contains(QString(64, QLatin1Char('b'))),
             qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
    QVERIFY(!QFileInfo::exists(part()));
  }

  // Gigabytes that could never be accepted are not fetched: the refusal comes with the headers.
  void unverifiableFileIsRefusedBeforeItsBytes() {
    auto r = plain();
    r.chunkBytes = 4096;
    r.chunkDelayMs = 20;  // the body would take half a second or more: time enough to see it is not sent
    server_->setRoute(QStringLiteral("/m"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), QString()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("server sent no X-Linked-ETag")) &&
                 out.result.contains(QStringLiteral("Nothing was downloaded")),
             qPrintable(out.result));
    for (const auto& p : out.progress) QCOMPARE(p.received, qint64(0));
    QVERIFY2(server_->bodyBytesSent() < model_.size() / 2, qPrintable(QString::number(server_->bodyBytesSent())));
    QVERIFY(!QFileInfo::exists(finalPath()));
    QVERIFY(!QFileInfo::exists(part()));
    QVERIFY(!QFileInfo::exists(partStatePath(finalPath())));
    QVERIFY(!QFileInfo::exists(recordPath(finalPath())));
  }

  void linkedEtagThatIsNotASha256IsNamed() {
    auto r = plain();
    // What Hugging Face sends for a file outside LFS: the git blob's SHA-1, not the file's SHA-256.
    r.headers << qMakePair(QByteArray("X-Linked-ETag"), QByteArray("\"") + QByteArray(40, 'c') + "\"");
    server_->setRoute(QStringLiteral("/m"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), QString()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(
        out.result.contains(QStringLiteral("is not a SHA-256")) && out.result.contains(QString(40, QLatin1Char('c'))),
        qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
    QVERIFY(!QFileInfo::exists(part()));
  }

  // A resumed download keeps the hash its first response named, even when the resuming chain names none.
  void resumeKeepsTheLinkedEtagItStartedWith() {
    auto cdn = plain();
    cdn.dropAfter = 150000;
    cdn.dropTimes = 1;
    server_->setRoute(QStringLiteral("/cdn/m"), cdn);
    redirectToCdn("\"" + sha_.toLatin1() + "\"");
    auto opts = trit::test::fastOptions();
    opts.maxRetries = 0;
    {
      DownloadManager first(opts);
      const auto out = trit::test::runDownload(first, request(QStringLiteral("/resolve/m"), QString()));
      QVERIFY(!out.ok);
    }
    QCOMPARE(QFileInfo(part()).size(), qint64(150000));
    QCOMPARE(readPartState(partStatePath(finalPath()))->linkedSha256, sha_);
    server_->route(QStringLiteral("/resolve/m")).headers.clear();
    DownloadManager second(opts);
    const auto out = trit::test::runDownload(second, request(QStringLiteral("/resolve/m"), QString()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(out.verifiedBy, QStringLiteral("x-linked-etag"));
    QCOMPARE(server_->requestsFor(QStringLiteral("/cdn/m")).last().range, QByteArray("bytes=150000-"));
  }

  // ...and a part whose file changed upstream (another X-Linked-ETag) is started over, never mixed.
  void resumeWithAChangedLinkedEtagStartsOver() {
    QFile f(part());
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(5000, 'x'));  // bytes of an older file
    f.close();
    PartState old{
        server_->url(QStringLiteral("/resolve/m")).toString(), QString(), 0, QString(64, QLatin1Char('d')), {}, {}, -1};
    QString error;
    QVERIFY(writePartState(partStatePath(finalPath()), old, &error));
    server_->setRoute(QStringLiteral("/cdn/m"), plain());
    redirectToCdn("\"" + sha_.toLatin1() + "\"");
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/resolve/m"), QString()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
    QCOMPARE(server_->requestsFor(QStringLiteral("/cdn/m")).last().range, QByteArray());
  }

  void sizeDifferentFromCatalogueIsRefused() {
    server_->setRoute(QStringLiteral("/m"), plain());
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_, model_.size() + 1));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("but the catalogue says")), qPrintable(out.result));
  }

  void stallIsDetectedAndRetried() {
    auto r = plain();
    r.stallAfter = 120000;
    r.stallTimes = 1;
    server_->setRoute(QStringLiteral("/stall"), r);
    auto opts = trit::test::fastOptions();
    opts.stallTimeoutMs = 400;
    DownloadManager manager(opts);
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/stall"), sha_, model_.size()));
    QVERIFY2(out.ok, qPrintable(out.result));
    QVERIFY(out.states.contains(State::Stalled));
    QVERIFY(out.messages.join(' ').contains(QStringLiteral("stalled")));
    QCOMPARE(server_->requestsFor(QStringLiteral("/stall")).last().range, QByteArray("bytes=120000-"));
  }

  void permanentStallGivesUpKeepingThePart() {
    // A part from an earlier run, then a server that answers but never sends a byte.
    QFile f(part());
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(model_.left(50000));
    f.close();
    QString error;
    QVERIFY(writePartState(
        partStatePath(finalPath()),
        PartState{server_->url(QStringLiteral("/stall")).toString(), sha_, model_.size(), {}, {}, {}, model_.size()},
        &error));
    auto r = plain();
    r.stallAfter = 0;
    r.stallTimes = -1;
    server_->setRoute(QStringLiteral("/stall"), r);
    auto opts = trit::test::fastOptions();
    opts.stallTimeoutMs = 300;
    opts.maxRetries = 1;
    DownloadManager manager(opts);
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/stall"), sha_, model_.size()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("stalled")) &&
                 out.result.contains(QStringLiteral("Gave up after 1 retries")),
             qPrintable(out.result));
    QCOMPARE(server_->requestsFor(QStringLiteral("/stall")).size(), 2);
    QCOMPARE(QFileInfo(part()).size(), qint64(50000));  // kept for the next try
    QVERIFY(readPartState(partStatePath(finalPath())));
  }

  void notEnoughFreeSpaceBeforeStarting() {
    server_->setRoute(QStringLiteral("/m"), plain());
    auto opts = trit::test::fastOptions();
    opts.freeSpace = [](const QString&) { return qint64(1000); };
    DownloadManager manager(opts);
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_, model_.size()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("Not enough free disk space")), qPrintable(out.result));
    QVERIFY(server_->requests().isEmpty());  // refused before any byte was fetched
  }

  void notEnoughFreeSpaceForUnknownSizeIsFoundFromHeaders() {
    server_->setRoute(QStringLiteral("/m"), plain());
    auto opts = trit::test::fastOptions();
    opts.freeSpace = [](const QString&) { return qint64(1000); };
    DownloadManager manager(opts);
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_, 0));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("Not enough free disk space")), qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
  }

  void diskFullWhileWritingKeepsResumeState() {
    if (!QFileInfo::exists(QStringLiteral("/dev/full"))) QSKIP("no /dev/full on this system");
    server_->setRoute(QStringLiteral("/m"), plain());
    // The part file is a link to /dev/full: every write fails with "No space left on device".
    QVERIFY(QFile::link(QStringLiteral("/dev/full"), part()));
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_, model_.size()));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("No space left on device")) &&
                 out.result.contains(QStringLiteral("partial download")),
             qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
  }

  void pauseAndResume() {
    auto r = plain();
    r.chunkDelayMs = 20;
    server_->setRoute(QStringLiteral("/slow"), r);
    DownloadManager manager(trit::test::fastOptions());
    const auto req = request(QStringLiteral("/slow"), sha_, model_.size());
    bool paused = false;
    auto first = trit::test::runDownload(manager, req, 20000, [&](State s, const trit::test::Outcome&) {
      if (s == State::Downloading && !paused) {
        paused = true;
        QTimer::singleShot(60, &manager, [&] { manager.pause(QStringLiteral("m")); });
      }
    });
    QVERIFY(!first.finished);
    QCOMPARE(first.states.last(), State::Paused);
    const qint64 at = QFileInfo(part()).size();
    QVERIFY(at > 0 && at < model_.size());
    QTest::qWait(100);
    QCOMPARE(QFileInfo(part()).size(), at);  // nothing arrives while paused
    manager.resume(QStringLiteral("m"));
    const auto second = trit::test::runDownload(manager, req);
    QVERIFY2(second.ok, qPrintable(second.result));
    QCOMPARE(server_->requestsFor(QStringLiteral("/slow")).last().range, "bytes=" + QByteArray::number(at) + "-");
    QCOMPARE(trit::test::readAll(finalPath()), model_);
  }

  void cancelRemovesThePartialFile() {
    auto r = plain();
    r.chunkDelayMs = 20;
    server_->setRoute(QStringLiteral("/slow"), r);
    DownloadManager manager(trit::test::fastOptions());
    bool cancelled = false;
    const auto out =
        trit::test::runDownload(manager, request(QStringLiteral("/slow"), sha_, model_.size()), 20000,
                                [&](State s, const trit::test::Outcome&) {
                                  if (s == State::Downloading && !cancelled) {
                                    cancelled = true;
                                    QTimer::singleShot(60, &manager, [&] { manager.cancel(QStringLiteral("m")); });
                                  }
                                });
    QVERIFY(out.finished && !out.ok);
    QCOMPARE(out.states.last(), State::Cancelled);
    QVERIFY(out.result.contains(QStringLiteral("cancelled")));
    QVERIFY(!QFileInfo::exists(part()));
    QVERIFY(!QFileInfo::exists(partStatePath(finalPath())));
    QVERIFY(!QFileInfo::exists(finalPath()));
  }

  void notAModelIsRejectedByTheEngine() {
    HttpTestServer::Route r;
    r.body = QByteArray(200000, 'z');
    server_->setRoute(QStringLiteral("/junk"), r);
    auto opts = trit::test::fastOptions();
    opts.validate = [](const QString& path) { return inspectModel(path).error; };
    DownloadManager manager(opts);
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/junk"), trit::test::sha256Hex(r.body)));
    QVERIFY(out.finished && !out.ok);
    QVERIFY2(out.result.contains(QStringLiteral("not a model Trit can use")), qPrintable(out.result));
    QVERIFY(!QFileInfo::exists(finalPath()));
    QVERIFY(!QFileInfo::exists(part()));
  }

  void engineAcceptsTheDownloadedModel() {
    server_->setRoute(QStringLiteral("/m"), plain());
    auto opts = trit::test::fastOptions();
    opts.validate = [](const QString& path) { return inspectModel(path).error; };
    DownloadManager manager(opts);
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_));
    QVERIFY2(out.ok, qPrintable(out.result));
  }

  void alreadyInstalledFileIsVerifiedNotFetched() {
    QFile f(finalPath());
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(model_);
    f.close();
    server_->setRoute(QStringLiteral("/m"), plain());
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_));
    QVERIFY2(out.ok, qPrintable(out.result));
    QVERIFY(server_->requests().isEmpty());
    QVERIFY(readVerifiedRecord(recordPath(finalPath())));
  }

  // Issue 30 #2: a different file of the same name (here a damaged or foreign one) used to be replaced
  // silently. It is kept, nothing is fetched, and the task ends in Conflict for the user to decide.
  void differentFileOfTheSameNameIsKept() {
    writeFile(finalPath(), "the user's own model");
    server_->setRoute(QStringLiteral("/m"), plain());
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_));
    QVERIFY(out.finished && !out.ok);
    QCOMPARE(out.states.last(), State::Conflict);
    QVERIFY2(out.result.contains(QStringLiteral("A different file named m.gguf is already in the models folder")) &&
                 out.result.contains(QStringLiteral("It was kept, and nothing was downloaded.")),
             qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), QByteArray("the user's own model"));
    QVERIFY(server_->requests().isEmpty());
    QVERIFY(!QFileInfo::exists(part()));
  }

  // Without a catalogue hash the file cannot be vouched for: kept as well.
  void uncheckableFileOfTheSameNameIsKept() {
    writeFile(finalPath(), "the user's own model");
    server_->setRoute(QStringLiteral("/m"), plain());
    DownloadManager manager(trit::test::fastOptions());
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), QString()));
    QCOMPARE(out.states.last(), State::Conflict);
    QVERIFY2(out.result.contains(QStringLiteral("cannot be checked")), qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), QByteArray("the user's own model"));
    QVERIFY(server_->requests().isEmpty());
  }

  void replaceAfterTheUserConfirmed() {
    writeFile(finalPath(), "damaged");
    server_->setRoute(QStringLiteral("/m"), plain());
    DownloadManager manager(trit::test::fastOptions());
    DownloadRequest r = request(QStringLiteral("/m"), sha_);
    r.existing = ExistingFile::Replace;
    const auto out = trit::test::runDownload(manager, r);
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
  }

  // Keep both: the other file takes the next free "NAME (n).gguf" once the download is verified.
  void keepBothRenamesTheOtherFile() {
    writeFile(finalPath(), "mine");
    writeFile(QDir(dir_).filePath(QStringLiteral("m (2).gguf")), "older copy");
    server_->setRoute(QStringLiteral("/m"), plain());
    DownloadManager manager(trit::test::fastOptions());
    DownloadRequest r = request(QStringLiteral("/m"), sha_);
    r.existing = ExistingFile::KeepBoth;
    const auto out = trit::test::runDownload(manager, r);
    QVERIFY2(out.ok, qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), model_);
    QCOMPARE(trit::test::readAll(QDir(dir_).filePath(QStringLiteral("m (2).gguf"))), QByteArray("older copy"));
    QCOMPARE(trit::test::readAll(QDir(dir_).filePath(QStringLiteral("m (3).gguf"))), QByteArray("mine"));
    QVERIFY2(out.messages.contains(QStringLiteral("The other file named m.gguf was kept as m (3).gguf.")),
             qPrintable(out.messages.join(QLatin1Char('\n'))));
  }

  // A file that appears while the download runs is not replaced either; the verified part stays.
  void fileAppearingDuringTheDownloadIsKept() {
    auto route = plain();
    route.chunkDelayMs = 5;
    server_->setRoute(QStringLiteral("/m"), route);
    DownloadManager manager(trit::test::fastOptions());
    bool written = false;
    const auto out = trit::test::runDownload(manager, request(QStringLiteral("/m"), sha_), 20000,
                                             [&](State s, const trit::test::Outcome&) {
                                               if (s == State::Downloading && !written) {
                                                 writeFile(finalPath(), "arrived meanwhile");
                                                 written = true;
                                               }
                                             });
    QCOMPARE(out.states.last(), State::Conflict);
    QVERIFY2(out.result.contains(QStringLiteral("appeared in the models folder")), qPrintable(out.result));
    QCOMPARE(trit::test::readAll(finalPath()), QByteArray("arrived meanwhile"));
    QCOMPARE(QFileInfo(part()).size(), qint64(model_.size()));
  }

  void secondStartForSameIdIsRefused() {
    auto r = plain();
    r.chunkDelayMs = 20;
    server_->setRoute(QStringLiteral("/slow"), r);
    DownloadManager manager(trit::test::fastOptions());
    QString error;
    QVERIFY(manager.start(request(QStringLiteral("/slow"), sha_), &error));
    QVERIFY(!manager.start(request(QStringLiteral("/slow"), sha_), &error));
    QVERIFY(error.contains(QStringLiteral("already being downloaded")));
    manager.cancel(QStringLiteral("m"));
    QTRY_VERIFY(!manager.isRunning(QStringLiteral("m")));
  }
};

QTEST_GUILESS_MAIN(DownloadTest)
#include "tst_download.moc"
