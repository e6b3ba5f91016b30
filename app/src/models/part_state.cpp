#include "part_state.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace trit::models {

QString partPath(const QString& finalPath) {
  return finalPath + QStringLiteral(".part");
}
QString partStatePath(const QString& finalPath) {
  return finalPath + QStringLiteral(".part.json");
}
QString recordPath(const QString& finalPath) {
  return finalPath + QStringLiteral(".json");
}

namespace {
std::optional<QJsonObject> readObject(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return std::nullopt;
  const QJsonDocument doc = QJsonDocument::fromJson(f.read(1 << 20));
  if (!doc.isObject()) return std::nullopt;
  return doc.object();
}

// QSaveFile: the sidecar is replaced atomically, so a crash never leaves half a JSON file.
bool writeObject(const QString& path, const QJsonObject& o, QString* error) {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(o).toJson()) < 0 || !f.commit()) {
    *error = QStringLiteral("Cannot write %1: %2.").arg(path, f.errorString());
    return false;
  }
  return true;
}
}  // namespace

std::optional<PartState> readPartState(const QString& path) {
  const auto o = readObject(path);
  if (!o) return std::nullopt;
  PartState s;
  s.url = o->value(QLatin1String("url")).toString();
  s.expectedSha256 = o->value(QLatin1String("expected_sha256")).toString();
  s.expectedSize = o->value(QLatin1String("expected_size")).toInteger();
  s.linkedSha256 = o->value(QLatin1String("linked_sha256")).toString();
  s.etag = o->value(QLatin1String("etag")).toString();
  s.lastModified = o->value(QLatin1String("last_modified")).toString();
  s.total = o->value(QLatin1String("total")).toInteger(-1);
  if (s.url.isEmpty()) return std::nullopt;
  return s;
}

bool writePartState(const QString& path, const PartState& s, QString* error) {
  QJsonObject o{{QStringLiteral("url"), s.url},
                {QStringLiteral("expected_sha256"), s.expectedSha256},
                {QStringLiteral("expected_size"), s.expectedSize},
                {QStringLiteral("linked_sha256"), s.linkedSha256},
                {QStringLiteral("etag"), s.etag},
                {QStringLiteral("last_modified"), s.lastModified},
                {QStringLiteral("total"), s.total}};
  return writeObject(path, o, error);
}

std::optional<VerifiedRecord> readVerifiedRecord(const QString& path) {
  const auto o = readObject(path);
  if (!o) return std::nullopt;
  VerifiedRecord r;
  r.id = o->value(QLatin1String("id")).toString();
  r.url = o->value(QLatin1String("url")).toString();
  r.sha256 = o->value(QLatin1String("sha256")).toString();
  r.verifiedBy = o->value(QLatin1String("verified_by")).toString();
  r.size = o->value(QLatin1String("size")).toInteger();
  if (r.sha256.size() != 64) return std::nullopt;
  return r;
}

bool writeVerifiedRecord(const QString& path, const VerifiedRecord& r, QString* error) {
  QJsonObject o{{QStringLiteral("id"), r.id},
                {QStringLiteral("url"), r.url},
                {QStringLiteral("sha256"), r.sha256},
                {QStringLiteral("verified_by"), r.verifiedBy},
                {QStringLiteral("size"), r.size}};
  return writeObject(path, o, error);
}

}  // namespace trit::models
