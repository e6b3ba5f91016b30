#pragma once
// Turns network failures and HTTP statuses into sentences a user understands and can act on.
#include <QNetworkReply>
#include <QString>
#include <QUrl>

namespace trit::models {

// `status` is the HTTP status (0 when no response arrived); `detail` is Qt's own error string.
QString describeFailure(QNetworkReply::NetworkError error, int status, const QUrl& url, const QString& detail);

// Whether trying again later may help (server busy, connection lost) rather than being final (404).
bool isTransient(QNetworkReply::NetworkError error, int status);

}  // namespace trit::models
