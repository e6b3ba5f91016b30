// The app-level guards of the chat: one instance per user (a second start raises the first), and the
// QML engine's network access, which must never reach the network whatever a reply contains.
#include <QNetworkReply>
#include <QSignalSpy>
#include <QTcpServer>
#include <QUuid>
#include <QtTest>

#include "ui/offline_network.h"
#include "ui/single_instance.h"

class TestChatGuards : public QObject {
  Q_OBJECT

 private slots:
  void secondInstanceRaisesTheFirst() {
    const QString key = QStringLiteral("tst-chat-guards/") + QUuid::createUuid().toString();
    trit::ui::SingleInstance first(key);
    QVERIFY(first.claim());
    QSignalSpy raised(&first, &trit::ui::SingleInstance::raiseRequested);
    trit::ui::SingleInstance second(key);
    QVERIFY(!second.claim());  // someone is running: the second start gives way
    QVERIFY(raised.wait(5000));
    // Another key is another instance.
    trit::ui::SingleInstance other(key + QStringLiteral("-other"));
    QVERIFY(other.claim());
  }

  void remoteRequestsAreRefusedWithoutConnecting() {
    QTcpServer server;
    QVERIFY(server.listen(QHostAddress::LocalHost));
    trit::ui::OfflineNetworkAccessManager nam;
    const int before = trit::ui::OfflineNetworkAccessManager::refusedCount();
    QNetworkReply* reply =
        nam.get(QNetworkRequest(QUrl(QStringLiteral("http://127.0.0.1:%1/image.png").arg(server.serverPort()))));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    QVERIFY(finished.wait(5000));
    QVERIFY(reply->error() != QNetworkReply::NoError);
    QCOMPARE(trit::ui::OfflineNetworkAccessManager::refusedCount(), before + 1);
    QTest::qWait(100);
    QVERIFY2(!server.hasPendingConnections(), "the refused request reached the server");
    reply->deleteLater();
  }

  void localFilesStillLoad() {
    QTemporaryFile file;
    QVERIFY(file.open());
    file.write("local");
    file.flush();
    trit::ui::OfflineNetworkAccessManager nam;
    QNetworkReply* reply = nam.get(QNetworkRequest(QUrl::fromLocalFile(file.fileName())));
    QSignalSpy finished(reply, &QNetworkReply::finished);
    QVERIFY(reply->isFinished() || finished.wait(5000));
    QCOMPARE(reply->error(), QNetworkReply::NoError);
    QCOMPARE(reply->readAll(), QByteArray("local"));
    reply->deleteLater();
  }
};

QTEST_GUILESS_MAIN(TestChatGuards)
#include "tst_chat_guards.moc"
