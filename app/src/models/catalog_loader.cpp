#include "catalog_loader.h"

#include <QEventLoop>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QPointer>
#include <QTimer>
#include <QUrl>

#include "network_errors.h"
#include "sentence.h"
#include "url_policy.h"

namespace trit::models {

namespace {
constexpr qint64 kMaxCatalogBytes = 4 << 20;

bool isUrlLike(const QString& location) {
  const QUrl url(location);
  const QString scheme = url.scheme().toLower();
  // "C:/x" parses with scheme "c": a one-letter scheme is a Windows drive, not a URL.
  return scheme.size() > 1 && scheme != QLatin1String("file") && scheme != QLatin1String("qrc");
}

std::optional<Catalog> readLocal(const QString& location, QString* error) {
  QString path = location;
  const QUrl url(location);
  if (url.scheme() == QLatin1String("file")) path = url.toLocalFile();
  if (url.scheme() == QLatin1String("qrc")) path = QLatin1Char(':') + url.path();
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("Cannot read the catalogue file %1: %2").arg(path, asSentence(file.errorString()));
    return std::nullopt;
  }
  if (file.size() > kMaxCatalogBytes) {
    *error = QStringLiteral("The catalogue file %1 is larger than 4 MiB; refusing it.").arg(path);
    return std::nullopt;
  }
  return parseCatalog(file.readAll(), path, error);
}
}  // namespace

QString catalogLocation(const QString& option) {
  if (!option.isEmpty()) return option;
  const QString env = qEnvironmentVariable("TRIT_CATALOG");
  if (!env.isEmpty()) return env;
  return QString::fromLatin1(kBuiltinCatalog);
}

void fetchCatalog(const QString& location, QObject* context, CatalogCallback done, int timeoutMs) {
  if (!isUrlLike(location)) {
    QString error;
    auto catalog = readLocal(location, &error);
    QTimer::singleShot(0, context, [done, catalog, error] { done(catalog, error); });
    return;
  }
  const QUrl url(location);
  if (QString why = checkFetchUrl(url, QStringLiteral("catalogue URL"), location); !why.isEmpty()) {
    QTimer::singleShot(0, context, [done, why] { done(std::nullopt, why); });
    return;
  }
  auto* nam = new QNetworkAccessManager(context);
  QNetworkRequest request(url);
  request.setAttribute(QNetworkRequest::RedirectPolicyAttribute, QNetworkRequest::UserVerifiedRedirectPolicy);
  request.setMaximumRedirectsAllowed(10);
  request.setTransferTimeout(timeoutMs);
  QNetworkReply* reply = nam->get(request);
  QObject::connect(reply, &QNetworkReply::redirected, reply, [reply](const QUrl& to) {
    if (QString why = checkRedirect(reply->url(), to); why.isEmpty()) {
      emit reply->redirectAllowed();
    } else {
      reply->setProperty("tritRefused", why);
      reply->abort();
    }
  });
  QObject::connect(reply, &QNetworkReply::downloadProgress, reply, [reply](qint64 received, qint64) {
    if (received > kMaxCatalogBytes) {
      reply->setProperty(
          "tritRefused",
          QStringLiteral("The catalogue at %1 is larger than 4 MiB; refusing it.").arg(reply->url().toString()));
      reply->abort();
    }
  });
  QObject::connect(reply, &QNetworkReply::finished, context, [reply, nam, url, done] {
    reply->deleteLater();
    nam->deleteLater();
    const QString refused = reply->property("tritRefused").toString();
    if (!refused.isEmpty()) return done(std::nullopt, refused);
    const int status = reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt();
    if (reply->error() != QNetworkReply::NoError || status != 200) {
      const QString why =
          describeFailure(reply->error(), status, reply->url().isEmpty() ? url : reply->url(), reply->errorString());
      return done(std::nullopt, QStringLiteral("Cannot fetch the catalogue: %1").arg(asSentence(why)));
    }
    QString error;
    auto catalog = parseCatalog(reply->readAll(), url.toString(), &error);
    done(catalog, error);
  });
}

std::optional<Catalog> loadCatalog(const QString& location, QString* error, int timeoutMs) {
  QEventLoop loop;
  std::optional<Catalog> result;
  fetchCatalog(
      location, &loop,
      [&](std::optional<Catalog> c, QString e) {
        result = std::move(c);
        *error = e;
        loop.quit();
      },
      timeoutMs);
  loop.exec();
  return result;
}

}  // namespace trit::models
