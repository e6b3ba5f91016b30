#pragma once
// Which URLs Trit fetches catalogues and models from, and which redirects it follows.
// Policy: https anywhere (TLS verification is never turned off); plain http only to a loopback host
// (127.0.0.1, ::1, localhost), which tests and local mirrors use. A redirect may change host (Hugging
// Face redirects to its CDN) but never downgrades https to http, except between loopback hosts.
#include <QString>
#include <QUrl>

namespace trit::models {

bool isLoopbackHost(const QString& host);

// Empty when `url` may be fetched; otherwise a sentence saying why not. `what` names the URL's role
// in the message ("catalogue URL", "download URL"); `given`, the text the URL was parsed from, is what
// the message quotes (default: the URL itself).
QString checkFetchUrl(const QUrl& url, const QString& what, const QString& given = {});

// Empty when a response from `from` may redirect to `to`; otherwise why not.
QString checkRedirect(const QUrl& from, const QUrl& to);

}  // namespace trit::models
