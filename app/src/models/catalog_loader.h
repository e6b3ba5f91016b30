#pragma once
// Where the catalogue comes from and how it is read: a local file, the built-in resource, or an https
// URL (http only to loopback). Precedence: the --catalog option, then $TRIT_CATALOG, then built-in.
#include <QString>
#include <functional>
#include <optional>

#include "catalog.h"

class QObject;

namespace trit::models {

// The catalogue location to use: `option` if not empty, else $TRIT_CATALOG, else the built-in one.
QString catalogLocation(const QString& option);

using CatalogCallback = std::function<void(std::optional<Catalog>, QString error)>;

// Reads the catalogue at `location` (file path, file:// URL, :/resource, http(s) URL) and calls `done`
// on `context`'s thread. URLs are fetched with TLS verification on and at most 4 MiB accepted.
void fetchCatalog(const QString& location, QObject* context, CatalogCallback done, int timeoutMs = 30000);

// Blocking form for headless commands and tests (runs a local event loop while a URL is fetched).
std::optional<Catalog> loadCatalog(const QString& location, QString* error, int timeoutMs = 30000);

}  // namespace trit::models
