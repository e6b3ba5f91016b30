#include "http_test_server.h"

#include <QPointer>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTimer>

namespace trit::test {

struct HttpTestServer::Connection {
  QPointer<QTcpSocket> socket;
  QByteArray buffer;
  QByteArray body;     // shared with the route (implicitly shared, no copy)
  qint64 pos = 0;      // next body byte to send
  qint64 end = 0;      // one past the last body byte to send
  qint64 stopAt = -1;  // body offset where sending stops (drop or stall)
  bool dropAtStop = false;
  int delayMs = 0;
  qint64 chunkBytes = 64 * 1024;
  bool responded = false;
  bool waiting = false;  // a throttle timer is pending
};

HttpTestServer::HttpTestServer(QObject* parent) : QObject(parent), server_(new QTcpServer(this)) {
  connect(server_, &QTcpServer::newConnection, this, &HttpTestServer::onConnection);
}

HttpTestServer::~HttpTestServer() = default;

bool HttpTestServer::listen() {
  return server_->listen(QHostAddress::LocalHost, 0);
}
quint16 HttpTestServer::port() const {
  return server_->serverPort();
}

QUrl HttpTestServer::url(const QString& path) const {
  return QUrl(QStringLiteral("http://127.0.0.1:%1%2").arg(port()).arg(path));
}

void HttpTestServer::setRoute(const QString& path, const Route& route) {
  routes_[path] = route;
}

QList<HttpTestServer::Request> HttpTestServer::requestsFor(const QString& path) const {
  QList<Request> out;
  for (const auto& r : requests_)
    if (r.path == path.toLatin1()) out << r;
  return out;
}

void HttpTestServer::onConnection() {
  while (QTcpSocket* socket = server_->nextPendingConnection()) {
    auto* c = new Connection;
    c->socket = socket;
    connect(socket, &QTcpSocket::readyRead, this, [this, c] { onData(c); });
    connect(socket, &QTcpSocket::bytesWritten, this, [this, c] { pump(c); });
    connect(socket, &QTcpSocket::disconnected, socket, &QObject::deleteLater);
    connect(socket, &QObject::destroyed, this, [c] { delete c; });
  }
}

void HttpTestServer::onData(Connection* c) {
  c->buffer += c->socket->readAll();
  if (c->responded) return;
  const qsizetype end = c->buffer.indexOf("\r\n\r\n");
  if (end < 0) return;
  const QList<QByteArray> lines = c->buffer.left(end).split('\n');
  Request request;
  const QList<QByteArray> first = lines.value(0).trimmed().split(' ');
  request.method = first.value(0);
  request.path = first.value(1);
  for (qsizetype i = 1; i < lines.size(); ++i) {
    const QByteArray line = lines[i].trimmed();
    const qsizetype colon = line.indexOf(':');
    if (colon < 0) continue;
    const QByteArray name = line.left(colon).trimmed().toLower();
    const QByteArray value = line.mid(colon + 1).trimmed();
    if (name == "range") request.range = value;
    if (name == "if-range") request.ifRange = value;
  }
  requests_ << request;
  c->responded = true;
  respond(c, request);
}

void HttpTestServer::respond(Connection* c, const Request& request) {
  const QString path = QString::fromLatin1(request.path);
  const int hit = hits_[path]++;
  QByteArray head;
  auto finishHead = [&](int status, const char* reason) {
    head = "HTTP/1.1 " + QByteArray::number(status) + ' ' + reason + "\r\nConnection: close\r\n" + head;
  };
  if (!routes_.contains(path)) {
    head = "Content-Length: 9\r\n\r\nnot found";
    finishHead(404, "Not Found");
    c->socket->write(head);
    c->socket->disconnectFromHost();
    return;
  }
  const Route& r = routes_[path];
  for (const auto& [name, value] : r.headers) head += name + ": " + value + "\r\n";
  const qint64 size = r.body.size();
  if (!r.location.isEmpty()) {
    head += "Location: " + r.location + "\r\nContent-Length: 0\r\n\r\n";
    finishHead(r.status == 200 ? 302 : r.status, "Found");
    c->socket->write(head);
    c->socket->disconnectFromHost();
    return;
  }
  const int status = hit < r.failTimes ? r.failStatus : r.status;
  if (status >= 400) {
    const QByteArray page = "error " + QByteArray::number(status);
    head += "Content-Type: text/plain\r\nContent-Length: " + QByteArray::number(page.size()) + "\r\n\r\n" + page;
    finishHead(status, "Error");
    c->socket->write(head);
    c->socket->disconnectFromHost();
    return;
  }
  qint64 start = 0;
  const bool wantsRange = r.ranges && request.range.startsWith("bytes=") && request.range.endsWith('-');
  if (wantsRange) start = request.range.mid(6, request.range.size() - 7).toLongLong();
  if (wantsRange && (r.always416 || start >= size)) {
    head += "Content-Range: bytes */" + QByteArray::number(size) + "\r\nContent-Length: 0\r\n\r\n";
    finishHead(416, "Range Not Satisfiable");
    c->socket->write(head);
    c->socket->disconnectFromHost();
    return;
  }
  head += "Accept-Ranges: " + QByteArray(r.ranges ? "bytes" : "none") + "\r\nETag: \"v1-" + QByteArray::number(size) +
          "\"\r\nContent-Type: application/octet-stream\r\n";
  if (wantsRange) {
    const qint64 claimed = r.wrongRangeStart >= 0 ? r.wrongRangeStart : start;
    head += "Content-Range: bytes " + QByteArray::number(claimed) + '-' + QByteArray::number(size - 1) + '/' +
            QByteArray::number(size) + "\r\n";
    start = claimed;
  }
  head += "Content-Length: " + QByteArray::number(size - start) + "\r\n\r\n";
  finishHead(wantsRange ? 206 : 200, wantsRange ? "Partial Content" : "OK");
  c->socket->write(head);
  c->body = r.body;
  c->pos = start;
  c->end = size;
  c->delayMs = r.chunkDelayMs;
  c->chunkBytes = r.chunkBytes > 0 ? r.chunkBytes : 64 * 1024;
  const bool drop = r.dropAfter >= 0 && (r.dropTimes < 0 || hits_[path + QStringLiteral("#drop")]++ < r.dropTimes);
  const bool stall =
      !drop && r.stallAfter >= 0 && (r.stallTimes < 0 || hits_[path + QStringLiteral("#stall")]++ < r.stallTimes);
  // Drop/stall offsets count body bytes of this response.
  if (drop) c->stopAt = std::min(size, start + r.dropAfter), c->dropAtStop = true;
  if (stall) c->stopAt = std::min(size, start + r.stallAfter);
  pump(c);
}

void HttpTestServer::pump(Connection* c) {
  QTcpSocket* s = c->socket;
  if (!s || !c->responded || c->waiting || s->state() != QAbstractSocket::ConnectedState) return;
  const qint64 limit = c->stopAt >= 0 ? c->stopAt : c->end;
  const qint64 chunk = c->chunkBytes;
  while (c->pos < limit && s->bytesToWrite() < 4 * chunk) {
    const qint64 n = std::min(chunk, limit - c->pos);
    s->write(c->body.constData() + c->pos, n);
    c->pos += n;
    bodyBytesSent_ += n;
    if (c->delayMs > 0) {
      c->waiting = true;
      QTimer::singleShot(c->delayMs, this, [this, c, socket = QPointer<QTcpSocket>(s)] {
        if (!socket) return;
        c->waiting = false;
        pump(c);
      });
      return;
    }
  }
  if (c->pos >= limit && s->bytesToWrite() == 0) {
    if (c->pos >= c->end || c->dropAtStop) s->disconnectFromHost();
    // else: stalled, keep the connection open and silent
  }
}

}  // namespace trit::test
