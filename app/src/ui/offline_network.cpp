#include "ui/offline_network.h"

#include <QNetworkRequest>

namespace trit::ui {

std::atomic<int> OfflineNetworkAccessManager::refused_{0};

QNetworkReply* OfflineNetworkAccessManager::createRequest(Operation op, const QNetworkRequest& request,
                                                          QIODevice* data) {
  const QString scheme = request.url().scheme();
  if (scheme == QLatin1String("file") || scheme == QLatin1String("qrc") || scheme == QLatin1String("data"))
    return QNetworkAccessManager::createRequest(op, request, data);
  ++refused_;
  // A scheme no backend handles: Qt answers with a failed reply (ProtocolUnknownError), no I/O at all.
  QNetworkRequest refused(request);
  refused.setUrl(QUrl(QStringLiteral("trit-refused:remote-resources-are-disabled")));
  return QNetworkAccessManager::createRequest(op, refused, data);
}

}  // namespace trit::ui
