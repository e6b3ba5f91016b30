// libFuzzer target: the model catalogue parser (app/src/models/catalog.cpp) on arbitrary bytes. A
// catalogue comes from a URL the user may type, so it is hostile input. Built with clang against Qt
// (tests/fuzz/CMakeLists.txt), run for a bounded time as the CTest test catalog_fuzz. Besides crashes
// and sanitizer reports it checks what the parser promises:
// - a rejected catalogue gets one sentence naming the source (ending in one full stop);
// - an accepted one holds only entries the downloader may act on: a valid id, a name, a URL that
//   the fetch policy allows, a 64-digit lower-case SHA-256 or none, a plain .gguf file name that
//   cannot leave the models folder, sizes and parameter counts not negative, an architecture and a
//   weight format of the documented shapes (or none), ids and file names unique.
#include <QByteArray>
#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "models/catalog.h"
#include "models/url_policy.h"

namespace {

[[noreturn]] void fail(const char* what, const QString& detail) {
  std::fprintf(stderr, "catalog_fuzz: %s: %s\n", what, detail.toUtf8().constData());
  std::abort();
}

void checkEntry(const trit::models::CatalogEntry& e) {
  static const QRegularExpression id(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
  static const QRegularExpression hex(QStringLiteral("^[0-9a-f]{64}$"));
  static const QRegularExpression file(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]*\\.gguf$"));
  if (!id.match(e.id).hasMatch()) fail("an accepted entry has a bad id", e.id);
  if (e.name.trimmed().isEmpty()) fail("an accepted entry has no name", e.id);
  if (const QString why = trit::models::checkFetchUrl(e.url, QStringLiteral("URL")); !why.isEmpty())
    fail("an accepted entry has a URL the fetch policy refuses", why);
  const QString scheme = e.url.scheme();
  if (scheme != QLatin1String("https") &&
      !(scheme == QLatin1String("http") && trit::models::isLoopbackHost(e.url.host())))
    fail("an accepted entry fetches over plain http from a remote host", e.url.toString());
  if (!e.sha256.isEmpty() && !hex.match(e.sha256).hasMatch()) fail("an accepted entry has a bad sha256", e.sha256);
  // (No '/' and no leading '.': the name is one path component that is neither "." nor "..".)
  if (!file.match(e.fileName).hasMatch())
    fail("an accepted entry's file name could leave the models folder", e.fileName);
  if (e.size < 0 || e.memory < 0 || e.contextLength < 0 || e.parameters < 0)
    fail("an accepted entry has a negative count", e.id);
  static const QRegularExpression arch(QStringLiteral("^([a-z0-9][a-z0-9._-]*)?$"));
  static const QRegularExpression format(QStringLiteral("^([A-Z0-9][A-Z0-9_]*(\\+[A-Z0-9][A-Z0-9_]*)*)?$"));
  if (!arch.match(e.architecture).hasMatch()) fail("an accepted entry has a bad architecture", e.architecture);
  if (!format.match(e.quantization).hasMatch()) fail("an accepted entry has a bad weight format", e.quantization);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const QByteArray json(reinterpret_cast<const char*>(data), static_cast<qsizetype>(size));
  QString error;
  const auto catalog = trit::models::parseCatalog(json, QStringLiteral("fuzz.json"), &error);
  if (!catalog) {
    if (!error.startsWith(QLatin1String("The catalogue fuzz.json ")))
      fail("the error does not name the catalogue", error);
    if (!error.endsWith(QLatin1Char('.')) || error.endsWith(QLatin1String("..")))
      fail("the error is not one sentence ending in one full stop", error);
    return 0;
  }
  if (!error.isEmpty()) fail("an accepted catalogue came with an error", error);
  QSet<QString> ids, files;
  for (const auto& e : catalog->models) {
    checkEntry(e);
    if (ids.contains(e.id)) fail("an id is used twice", e.id);
    if (files.contains(e.fileName)) fail("a file name is used twice", e.fileName);
    ids.insert(e.id);
    files.insert(e.fileName);
    if (catalog->find(e.id) != &e) fail("find() does not return the entry of its id", e.id);
  }
  return 0;
}
