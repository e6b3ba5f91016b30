#pragma once
// The model catalogue: a JSON object {"models": [{"id", "name", "url", "license", "description", ...}]}.
// Those names are fixed so third parties can write catalogues; further fields are optional (see
// docs/downloads.md). Parsing validates every entry and names the first problem.
#include <QByteArray>
#include <QList>
#include <QString>
#include <QUrl>
#include <optional>

namespace trit::models {

struct CatalogEntry {
  QString id;       // unique; letters, digits, '.', '_' and '-' only
  QString name;     // shown to the user
  QUrl url;         // https (or http to loopback)
  qint64 size = 0;  // "size", optional: exact bytes, checked against the server; 0 when unknown
                    // (then the server's Content-Length is used for the free-space check and progress)
  QString sha256;   // optional: 64 lower-case hex digits, or empty (then X-Linked-ETag is required)
  QString license;
  QString description;
  QString fileName;       // "file": name in the models folder; default "<id>.gguf"
  qint64 memory = 0;      // "memory": bytes of GPU memory needed to run it (0 when unknown)
  QString quantization;   // "quantization": the weight format ("I2_S", "TQ2_0", "TQ1_0", "TQ2_0+TQ1_0"), shown
  QString architecture;   // "architecture": the file's general.architecture ("bitnet-25", "llama"), shown
  qint64 parameters = 0;  // "parameters": number of weights (0 when unknown), shown as "2.4 B"
  int contextLength = 0;  // "context_length", informational
  QString licenseUrl;     // "license_url", optional
};

struct Catalog {
  QList<CatalogEntry> models;
  QString source;  // where it was read from, for messages

  const CatalogEntry* find(const QString& id) const;
};

// Parses catalogue JSON. On failure returns nullopt and sets `error` to a sentence naming `source`,
// the entry and the field at fault.
std::optional<Catalog> parseCatalog(const QByteArray& json, const QString& source, QString* error);

// The built-in catalogue shipped in the app's resources.
inline constexpr const char* kBuiltinCatalog = ":/trit/catalog.json";

}  // namespace trit::models
