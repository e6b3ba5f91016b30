#include "network_errors.h"

namespace trit::models {

QString describeFailure(QNetworkReply::NetworkError error, int status, const QUrl& url, const QString& detail) {
  const QString host = url.host();
  const QString where = url.toString(QUrl::RemoveQuery | QUrl::RemoveUserInfo);
  if (status == 404) return QStringLiteral("The file was not found on the server (HTTP 404): %1.").arg(where);
  if (status == 401 || status == 403)
    return QStringLiteral(
               "The server refused access to the file (HTTP %1): %2. The model may need a login or "
               "accepted licence on its website.")
        .arg(status)
        .arg(where);
  if (status == 429)
    return QStringLiteral("The server at %1 is limiting requests (HTTP 429); try again later.").arg(host);
  if (status >= 500 && status <= 599)
    return QStringLiteral("The server at %1 has a problem (HTTP %2); try again later.").arg(host).arg(status);
  if (status >= 400)
    return QStringLiteral("The server at %1 answered HTTP %2 for %3.").arg(host).arg(status).arg(where);
  switch (error) {
    case QNetworkReply::ConnectionRefusedError:
      return QStringLiteral(
                 "Could not connect to %1: the connection was refused. Check your network connection "
                 "or try again later.")
          .arg(host);
    case QNetworkReply::HostNotFoundError:
      return QStringLiteral(
                 "Could not find the server %1 (name lookup failed). Check that you are connected "
                 "to the internet.")
          .arg(host);
    case QNetworkReply::RemoteHostClosedError:
      return QStringLiteral("The connection to %1 was closed by the server before the transfer finished.").arg(host);
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
      return QStringLiteral("The connection to %1 timed out.").arg(host);
    case QNetworkReply::SslHandshakeFailedError:
    case QNetworkReply::InsecureRedirectError:
      return QStringLiteral("The secure connection to %1 could not be verified (%2); the download was refused.")
          .arg(host, detail);
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::UnknownNetworkError:
      return QStringLiteral("The network is not available (%1). Check your connection.").arg(detail);
    case QNetworkReply::TooManyRedirectsError:
      return QStringLiteral("The server at %1 redirected too many times.").arg(host);
    default:
      return QStringLiteral("The transfer from %1 failed: %2.").arg(host, detail);
  }
}

bool isTransient(QNetworkReply::NetworkError error, int status) {
  if (status == 408 || status == 429 || (status >= 500 && status <= 599)) return true;
  if (status >= 400) return false;
  switch (error) {
    case QNetworkReply::ConnectionRefusedError:
    case QNetworkReply::RemoteHostClosedError:
    case QNetworkReply::TimeoutError:
    case QNetworkReply::OperationCanceledError:
    case QNetworkReply::TemporaryNetworkFailureError:
    case QNetworkReply::NetworkSessionFailedError:
    case QNetworkReply::UnknownNetworkError:
    case QNetworkReply::ProxyConnectionClosedError:
    case QNetworkReply::UnknownServerError:
    case QNetworkReply::HostNotFoundError:  // a flaky resolver or a network that is just coming up
      return true;
    default:
      return false;
  }
}

}  // namespace trit::models
