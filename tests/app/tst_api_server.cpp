// The local API server inside the app (issue 28: Settings → Local API server) over real HTTP on
// 127.0.0.1, on the model the window has loaded (CPU engine; the tiny synthetic model of the chat's
// end-to-end test, whose greedy replies are real text, and the golden base model): it follows the
// settings, answers with the chat's model and takes turns with the chat on the one engine thread, each
// side's greedy replies staying what they are alone; "allow other machines" needs a key and then listens
// on IPv4 and IPv6 (reached over both loopbacks, and the machine's addresses it lists); a port in use is
// shown and the app keeps working; turning it off closes the port; a model switch ends the requests on
// the old model with a 503 and the new model is served.
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QNetworkAccessManager>
#include <QNetworkProxy>
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QTcpSocket>
#include <QtTest>
#include <memory>

#include "chat/chat_controller.h"
#include "chat/message_list_model.h"
#include "chat_test_model.h"
#include "engine_thread/engine_bridge.h"
#include "server/api_server.h"
#include "settings/app_settings.h"

using namespace trit::chat;
using trit::api::ApiServer;

namespace {
constexpr int kTimeoutMs = 60'000;
const QString kModelId = QStringLiteral("trit-synthetic-tiny-seed7");  // the tiny model's general.name

struct HttpReply {
  int status = 0;
  QByteArray body;
  QJsonObject json() const { return QJsonDocument::fromJson(body).object(); }
  QString errorCode() const { return json()[u"error"_qs].toObject()[u"code"_qs].toString(); }
  QString errorMessage() const { return json()[u"error"_qs].toObject()[u"message"_qs].toString(); }
};

// A chat completion request, greedy, `tokens` long at most.
QByteArray chatBody(const QString& text, int tokens, bool stream = false) {
  QJsonObject message{{u"role"_qs, u"user"_qs}, {u"content"_qs, text}};
  return QJsonDocument(QJsonObject{{u"model"_qs, kModelId},
                                   {u"messages"_qs, QJsonArray{message}},
                                   {u"max_tokens"_qs, tokens},
                                   {u"temperature"_qs, 0},
                                   {u"stream"_qs, stream}})
      .toJson(QJsonDocument::Compact);
}

// The text of a stream's chunks, and the message of an error event in it (if one came).
QString streamText(const QByteArray& body, QString* error = nullptr) {
  QString text;
  for (const QByteArray& line : body.split('\n')) {
    if (!line.startsWith("data: ") || line == "data: [DONE]") continue;
    const QJsonObject o = QJsonDocument::fromJson(line.mid(6)).object();
    if (o.contains(u"error"_qs) && error) *error = o[u"error"_qs].toObject()[u"message"_qs].toString();
    const QJsonArray choices = o[u"choices"_qs].toArray();
    if (!choices.isEmpty()) text += choices[0].toObject()[u"delta"_qs].toObject()[u"content"_qs].toString();
  }
  return text;
}

QString completionText(const HttpReply& r) {
  return r.json()[u"choices"_qs].toArray()[0].toObject()[u"message"_qs].toObject()[u"content"_qs].toString();
}

int freePort() {
  QTcpServer probe;
  if (!probe.listen(QHostAddress::LocalHost, 0)) return 0;
  return probe.serverPort();
}

// Whether this machine has IPv6 loopback (::1) to test the IPv6 half on.
bool hasIPv6Loopback() {
  QTcpServer probe;
  return probe.listen(QHostAddress::LocalHostIPv6, 0);
}

// Nothing listens on 127.0.0.1:port.
bool portClosed(int port) {
  QTcpSocket socket;
  socket.connectToHost(QHostAddress::LocalHost, static_cast<quint16>(port));
  return !socket.waitForConnected(2000) && socket.error() == QAbstractSocket::ConnectionRefusedError;
}
}  // namespace

class TestApiServer : public QObject {
  Q_OBJECT

  QString dir_;
  QString model_;
  int port_ = 0;
  QString host_ = QStringLiteral("127.0.0.1");  // where requests go, as a URL writes it ("[::1]")
  std::unique_ptr<AppSettings> settings_;
  std::unique_ptr<EngineBridge> engine_;
  std::unique_ptr<ChatController> chat_;
  std::unique_ptr<ApiServer> api_;
  QNetworkAccessManager nam_;

  bool load(const QString& path) {
    LoadRequest r;
    r.path = path;
    r.backend = QStringLiteral("cpu");
    engine_->load(r);
    QElapsedTimer clock;
    clock.start();
    while (engine_->state() == EngineBridge::State::Loading && clock.elapsed() < kTimeoutMs) QTest::qWait(5);
    return engine_->state() == EngineBridge::State::Ready;
  }

  QNetworkReply* start(const QString& path, const QByteArray& body = {}, const QByteArray& key = {}) {
    QNetworkRequest req(QUrl(QStringLiteral("http://%1:%2%3").arg(host_).arg(port_).arg(path)));
    req.setHeader(QNetworkRequest::ContentTypeHeader, QByteArrayLiteral("application/json"));
    if (!key.isEmpty()) req.setRawHeader("Authorization", "Bearer " + key);
    return body.isEmpty() ? nam_.get(req) : nam_.post(req, body);
  }

  static HttpReply finish(QNetworkReply* reply) {
    if (!reply->isFinished()) QSignalSpy(reply, &QNetworkReply::finished).wait(kTimeoutMs);
    HttpReply out{reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt(), reply->readAll()};
    reply->deleteLater();
    return out;
  }

  HttpReply call(const QString& path, const QByteArray& body = {}, const QByteArray& key = {}) {
    return finish(start(path, body, key));
  }

  // Sends a chat message in the window's controller and returns the reply's text ({} on failure).
  static QString chatTurn(ChatController& chat, const QString& text) {
    QSignalSpy finished(&chat, &ChatController::replyFinished);
    if (!chat.send(text) || !finished.wait(kTimeoutMs)) return {};
    return chat.messages()->get(finished.first().first().toInt()).value(u"text"_qs).toString();
  }

  void turnOn() {
    settings_->setApiServerPort(port_);
    settings_->setApiServerEnabled(true);
    api_->followSettings();
  }

 private slots:
  void init() {
    dir_ = trit::test::scratchDir(QStringLiteral("api-server"));
    model_ = qEnvironmentVariable("TRIT_API_TEST_MODEL");  // made by the app_chat_make_model fixture
    QVERIFY2(QFile::exists(model_), qPrintable(u"the tiny model is missing: "_qs + model_));
    nam_.setProxy(QNetworkProxy::NoProxy);
    port_ = freePort();
    QVERIFY(port_ > 0);
    host_ = QStringLiteral("127.0.0.1");
    settings_ = std::make_unique<AppSettings>(dir_ + QStringLiteral("/settings.ini"));
    settings_->setTemperature(0);  // greedy chat replies: the same tokens however they are scheduled
    engine_ = std::make_unique<EngineBridge>(settings_.get());
    chat_ = std::make_unique<ChatController>(engine_.get(), settings_.get());
    chat_->setMaxTokensOverride(6);
    api_ = std::make_unique<ApiServer>(engine_.get(), settings_.get());
  }

  void cleanup() {
    nam_.clearConnectionCache();  // idle keep-alive connections would hold up the server's stop
    api_.reset();
    chat_.reset();
    engine_.reset();
    settings_.reset();
  }

  void offByDefault() {
    QCOMPARE(settings_->apiServerEnabled(), false);
    QCOMPARE(settings_->apiServerPort(), 8080);
    QCOMPARE(settings_->apiServerAllowOthers(), false);
    api_->followSettings();
    QCOMPARE(api_->state(), u"off"_qs);
    QVERIFY(api_->url().isEmpty());
    settings_->setApiServerPort(0);  // the settings keep a port a server can be asked for
    QCOMPARE(settings_->apiServerPort(), 1);
    settings_->setApiServerPort(70000);
    QCOMPARE(settings_->apiServerPort(), 65535);
  }

  // The tentpole: the window's model over HTTP, chat and API taking turns on one session, every greedy
  // reply the same as alone, whatever ran in between (each replaces the other's KV cache).
  void servesTheWindowsModelAndTakesTurnsWithTheChat() {
    turnOn();
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"listening"_qs, kTimeoutMs);
    QCOMPARE(api_->url(), QStringLiteral("http://127.0.0.1:%1").arg(port_));
    QVERIFY2(api_->statusText().contains(api_->url()), qPrintable(api_->statusText()));

    // No model yet: nothing listed, and a completion is told why (503: it works once a model is loaded).
    HttpReply models = call(u"/v1/models"_qs);
    QCOMPARE(models.status, 200);
    QCOMPARE(models.json()[u"data"_qs].toArray().size(), 0);
    HttpReply none = call(u"/v1/chat/completions"_qs, chatBody(u"Hi"_qs, 4));
    QCOMPARE(none.status, 503);
    QCOMPARE(none.errorCode(), u"model_not_loaded"_qs);

    QVERIFY(load(model_));
    models = call(u"/v1/models"_qs);
    QCOMPARE(models.json()[u"data"_qs].toArray().size(), 1);
    QCOMPARE(models.json()[u"data"_qs].toArray()[0].toObject()[u"id"_qs].toString(), kModelId);

    const QByteArray ask = chatBody(u"Tell me a story"_qs, 6);
    const HttpReply alone = call(u"/v1/chat/completions"_qs, ask);  // first on a fresh session: alone
    QCOMPARE(alone.status, 200);
    const QString apiText = completionText(alone);
    QVERIFY(!apiText.isEmpty());

    const QString chat1 = chatTurn(*chat_, u"hello"_qs);
    QVERIFY(!chat1.isEmpty());
    // After the chat replaced the cache: the same reply, streamed.
    QString streamError;
    const HttpReply streamed = call(u"/v1/chat/completions"_qs, chatBody(u"Tell me a story"_qs, 6, true));
    QCOMPARE(streamed.status, 200);
    QCOMPARE(streamText(streamed.body, &streamError), apiText);
    QVERIFY2(streamError.isEmpty(), qPrintable(streamError));

    // The chat's next turn and an API request at the same time: they take turns, both right.
    QSignalSpy chatDone(chat_.get(), &ChatController::replyFinished);
    QVERIFY(chat_->send(u"and then?"_qs));
    QNetworkReply* during = start(u"/v1/chat/completions"_qs, ask);
    QVERIFY(chatDone.wait(kTimeoutMs));
    const QString chat2 = chat_->messages()->get(chatDone.first().first().toInt()).value(u"text"_qs).toString();
    const HttpReply concurrent = finish(during);
    QCOMPARE(concurrent.status, 200);
    QCOMPARE(completionText(concurrent), apiText);
    QCOMPARE(completionText(call(u"/v1/chat/completions"_qs, ask)), apiText);

    // The same two chat turns in a window without an API server give the same replies.
    EngineBridge aloneEngine(settings_.get());
    ChatController aloneChat(&aloneEngine, settings_.get());
    aloneChat.setMaxTokensOverride(6);
    LoadRequest r;
    r.path = model_;
    r.backend = QStringLiteral("cpu");
    aloneEngine.load(r);
    QTRY_COMPARE_WITH_TIMEOUT(aloneEngine.state(), EngineBridge::State::Ready, kTimeoutMs);
    QCOMPARE(chatTurn(aloneChat, u"hello"_qs), chat1);
    QCOMPARE(chatTurn(aloneChat, u"and then?"_qs), chat2);
  }

  void refusesOtherMachinesWithoutAKey() {
    settings_->setApiServerAllowOthers(true);
    turnOn();
    QCOMPARE(api_->state(), u"error"_qs);
    QVERIFY2(api_->statusText().contains(u"API key"_qs), qPrintable(api_->statusText()));
    QVERIFY(api_->url().isEmpty());
    QTest::qWait(50);
    QCOMPARE(api_->state(), u"error"_qs);
    QVERIFY(portClosed(port_));  // nothing bound, on any interface
    QTcpServer anywhere;
    QVERIFY(anywhere.listen(QHostAddress::AnyIPv4, static_cast<quint16>(port_)));
    anywhere.close();

    // With a key: every interface, and a request without the key is refused.
    settings_->setApiServerKey(u"  s3cret  "_qs);
    QCOMPARE(settings_->apiServerKey(), u"s3cret"_qs);  // a pasted key's spaces are not part of it
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"listening"_qs, kTimeoutMs);
    QCOMPARE(api_->url(), QStringLiteral("http://127.0.0.1:%1").arg(port_));
    QCOMPARE(call(u"/v1/models"_qs).status, 401);
    QCOMPARE(call(u"/v1/models"_qs, {}, "s3cret").status, 200);
  }

  // With a key, other machines reach it over IPv4 and IPv6 alike: it answers on both loopbacks and on
  // every address it lists for them (the machine's own, where the test machine has some).
  void otherMachinesReachItOverIPv4AndIPv6() {
    settings_->setApiServerAllowOthers(true);
    settings_->setApiServerKey(u"s3cret"_qs);
    turnOn();
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"listening"_qs, kTimeoutMs);
    QCOMPARE(api_->url(), QStringLiteral("http://127.0.0.1:%1").arg(port_));  // this machine's, to copy
    QCOMPARE(call(u"/v1/models"_qs).status, 401);
    QCOMPARE(call(u"/v1/models"_qs, {}, "s3cret").status, 200);
    for (const QString& listed : api_->urls()) {
      QVERIFY2(api_->statusText().contains(listed), qPrintable(api_->statusText()));
      const QUrl url(listed);
      QVERIFY2(url.isValid() && url.scheme() == u"http"_qs && url.port() == port_ && url.path().isEmpty(),
               qPrintable(listed));
      host_ = listed.section(u"//"_qs, 1).section(QLatin1Char(':'), 0, -2);  // "127.0.0.1", "[2001:db8::5]"
      QCOMPARE(call(u"/health"_qs).status, 200);
    }
    host_ = u"127.0.0.1"_qs;
    if (!hasIPv6Loopback())
      QSKIP("this machine has no IPv6 loopback (::1): the IPv6 half of \"allow other machines\" is not tested");
    const QString v6 = QStringLiteral("http://[::1]:%1").arg(port_);
    QVERIFY2(api_->urls().contains(v6), qPrintable(api_->statusText()));
    host_ = u"[::1]"_qs;
    QCOMPARE(call(u"/v1/models"_qs).status, 401);
    QCOMPARE(call(u"/v1/models"_qs, {}, "s3cret").status, 200);
    host_ = u"127.0.0.1"_qs;
  }

  void portInUseIsShownAndTheAppKeepsWorking() {
    QTcpServer squatter;
    QVERIFY(squatter.listen(QHostAddress::LocalHost, static_cast<quint16>(port_)));
    QVERIFY(load(model_));
    turnOn();
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"error"_qs, kTimeoutMs);
    QVERIFY2(api_->statusText().contains(QString::number(port_)) && api_->statusText().contains(u"in use"_qs),
             qPrintable(api_->statusText()));
    QVERIFY(!chatTurn(*chat_, u"hello"_qs).isEmpty());  // the window goes on
    // Another port: it starts.
    port_ = freePort();
    settings_->setApiServerPort(port_);
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"listening"_qs, kTimeoutMs);
    QCOMPARE(call(u"/v1/models"_qs).status, 200);
  }

  void turningItOffClosesThePort() {
    turnOn();
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"listening"_qs, kTimeoutMs);
    QCOMPARE(call(u"/health"_qs).status, 200);
    settings_->setApiServerEnabled(false);
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"off"_qs, kTimeoutMs);
    QVERIFY(portClosed(port_));
    // On and off again at once: no hang, and it ends off.
    settings_->setApiServerEnabled(true);
    settings_->setApiServerEnabled(false);
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"off"_qs, kTimeoutMs);
    QVERIFY(portClosed(port_));
  }

  // Quitting the app while the server starts: nothing stays bound, and quitting does not hang.
  void quittingWhileItStartsClosesThePort() {
    turnOn();
    QCOMPARE(api_->state(), u"starting"_qs);
    api_.reset();
    QVERIFY(portClosed(port_));
  }

  // A model switch ends the API requests on the old model with a 503 that says why (the one decoding
  // within a token, the one waiting at once), then the new model is the one served.
  void aModelSwitchEndsRequestsOnTheOldModel() {
    QVERIFY(load(model_));
    turnOn();
    QTRY_COMPARE_WITH_TIMEOUT(api_->state(), u"listening"_qs, kTimeoutMs);
    QNetworkReply* running = start(u"/v1/chat/completions"_qs, chatBody(u"Go on"_qs, 4000, true));
    QByteArray received;
    QElapsedTimer clock;
    clock.start();
    while (!received.contains("\"content\"") && clock.elapsed() < kTimeoutMs) {
      QSignalSpy(running, &QNetworkReply::readyRead).wait(1000);
      received += running->readAll();
    }
    QVERIFY2(received.contains("\"content\""), received.constData());  // decoding now
    QNetworkReply* waiting = start(u"/v1/chat/completions"_qs, chatBody(u"Me next"_qs, 4));
    QTest::qWait(100);  // it reaches the queue

    const QString base = qEnvironmentVariable("TRIT_SHARED_DIR") + QStringLiteral("/golden/golden-c.gguf");
    QVERIFY(load(base));
    const HttpReply queued = finish(waiting);
    QCOMPARE(queued.status, 503);
    QVERIFY2(queued.errorMessage().contains(u"unloaded or replaced"_qs), queued.body.constData());
    HttpReply stream = finish(running);
    stream.body.prepend(received);
    QString streamError;
    streamText(stream.body, &streamError);
    QVERIFY2(streamError.contains(u"unloaded or replaced"_qs), stream.body.right(400).constData());

    const QJsonArray listed = call(u"/v1/models"_qs).json()[u"data"_qs].toArray();
    QCOMPARE(listed.size(), 1);
    const QString baseId = listed[0].toObject()[u"id"_qs].toString();
    QVERIFY(baseId != kModelId);
    const QByteArray completion =
        QJsonDocument(QJsonObject{{u"model"_qs, baseId}, {u"prompt"_qs, u"Once upon"_qs}, {u"max_tokens"_qs, 3}})
            .toJson(QJsonDocument::Compact);
    const HttpReply next = call(u"/v1/completions"_qs, completion);
    QCOMPARE(next.status, 200);
    const int generated = next.json()[u"usage"_qs].toObject()[u"completion_tokens"_qs].toInt();
    QVERIFY(generated >= 1 && generated <= 3);
    // The old model's name is no longer served.
    QCOMPARE(call(u"/v1/chat/completions"_qs, chatBody(u"Hi"_qs, 2)).status, 404);
  }
};

QTEST_MAIN(TestApiServer)
#include "tst_api_server.moc"
