#pragma once
// A loopback HTTP/1.1 server for the download tests, running in the test's own thread (the test's event
// loop drives it while it waits). Each path has a Route saying how to misbehave: ignore Range, drop the
// connection after N bytes, stall, answer an error status, redirect, send extra headers (X-Linked-ETag).
#include <QByteArray>
#include <QHash>
#include <QList>
#include <QObject>
#include <QPair>
#include <QUrl>

class QTcpServer;
class QTcpSocket;

namespace trit::test {

class HttpTestServer : public QObject {
  Q_OBJECT
 public:
  struct Route {
    QByteArray body;
    int status = 200;     // a 4xx/5xx here is answered with a short error page
    bool ranges = true;   // honour "Range: bytes=N-" with 206; false: always 200 with the whole body
    QByteArray location;  // non-empty: answer `status` (302 unless set) with this Location
    QList<QPair<QByteArray, QByteArray>> headers;  // extra response headers
    qint64 dropAfter = -1;                         // close the connection after this many body bytes...
    int dropTimes = 0;                             // ...on this many requests (< 0: every request)
    qint64 stallAfter = -1;  // stop sending after this many body bytes, keeping the connection open...
    int stallTimes = 0;      // ...on this many requests (< 0: every request)
    int failTimes = 0;       // answer failStatus to the first failTimes requests
    int failStatus = 503;
    bool always416 = false;         // answer every range request with 416 (Content-Range: bytes */size)
    qint64 wrongRangeStart = -1;    // answer range requests with a 206 starting here instead
    int chunkDelayMs = 0;           // throttle: wait this long between chunks
    qint64 chunkBytes = 64 * 1024;  // bytes handed to the socket at a time (the benchmark uses 1 MiB)
  };
  struct Request {
    QByteArray method;
    QByteArray path;
    QByteArray range;
    QByteArray ifRange;
  };

  explicit HttpTestServer(QObject* parent = nullptr);
  ~HttpTestServer() override;

  bool listen();  // 127.0.0.1, a free port
  quint16 port() const;
  QUrl url(const QString& path) const;
  void setRoute(const QString& path, const Route& route);
  Route& route(const QString& path) { return routes_[path]; }
  const QList<Request>& requests() const { return requests_; }
  QList<Request> requestsFor(const QString& path) const;
  qint64 bodyBytesSent() const { return bodyBytesSent_; }

 private:
  struct Connection;
  void onConnection();
  void onData(Connection* c);
  void respond(Connection* c, const Request& request);
  void pump(Connection* c);

  QTcpServer* server_ = nullptr;
  QHash<QString, Route> routes_;
  QHash<QString, int> hits_;
  QList<Request> requests_;
  qint64 bodyBytesSent_ = 0;
};

}  // namespace trit::test
