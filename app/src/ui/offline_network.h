#pragma once
// The QML engine's network access: local only. Model output is rendered by QML text items, and a reply
// must never make the app fetch anything (an image URL in Markdown would otherwise be a beacon). Every
// request whose scheme is not file:, qrc: or data: fails without touching the network.
#include <QNetworkAccessManager>
#include <QQmlNetworkAccessManagerFactory>
#include <atomic>

namespace trit::ui {

class OfflineNetworkAccessManager : public QNetworkAccessManager {
  Q_OBJECT
 public:
  using QNetworkAccessManager::QNetworkAccessManager;
  static int refusedCount() { return refused_.load(); }  // for tests

 protected:
  QNetworkReply* createRequest(Operation op, const QNetworkRequest& request, QIODevice* data) override;

 private:
  static std::atomic<int> refused_;
};

class OfflineNetworkFactory : public QQmlNetworkAccessManagerFactory {
 public:
  QNetworkAccessManager* create(QObject* parent) override { return new OfflineNetworkAccessManager(parent); }
};

}  // namespace trit::ui
