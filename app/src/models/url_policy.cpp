#include "url_policy.h"

#include <QHostAddress>

namespace trit::models {

bool isLoopbackHost(const QString& host) {
  if (host.compare(QStringLiteral("localhost"), Qt::CaseInsensitive) == 0) return true;
  const QHostAddress address(host);
  return !address.isNull() && address.isLoopback();
}

QString checkFetchUrl(const QUrl& url, const QString& what, const QString& given) {
  // Quoted as the user wrote it: an invalid QUrl prints as "".
  const QString shown = given.isEmpty() ? url.toString() : given;
  if (!url.isValid() || url.isRelative())
    return QStringLiteral("The %1 \"%2\" is not a valid absolute URL.").arg(what, shown);
  const QString scheme = url.scheme().toLower();
  if (scheme != QLatin1String("https") && scheme != QLatin1String("http"))
    return QStringLiteral(
               "The %1 \"%2\" uses the unsupported scheme \"%3\"; only https is accepted (and plain "
               "http to this computer).")
        .arg(what, shown, scheme);
  if (url.host().isEmpty()) return QStringLiteral("The %1 \"%2\" has no host.").arg(what, shown);
  if (scheme == QLatin1String("https") || isLoopbackHost(url.host())) return {};
  return QStringLiteral(
             "The %1 \"%2\" uses plain http, which is only allowed to this computer "
             "(127.0.0.1, ::1, localhost); use https.")
      .arg(what, shown);
}

QString checkRedirect(const QUrl& from, const QUrl& to) {
  if (QString why = checkFetchUrl(to, QStringLiteral("redirect target")); !why.isEmpty())
    return QStringLiteral("The server at %1 redirected to a refused address. %2").arg(from.host(), why);
  const bool downgrade =
      from.scheme().toLower() == QLatin1String("https") && to.scheme().toLower() == QLatin1String("http");
  if (downgrade && !isLoopbackHost(from.host()))
    return QStringLiteral(
               "The server at %1 redirected from https to plain http (%2); refusing the insecure "
               "downgrade.")
        .arg(from.host(), to.toString());
  return {};
}

}  // namespace trit::models
