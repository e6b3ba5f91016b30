#pragma once
// The small files beside a model that make downloads resumable and verifiable:
//   NAME.gguf.part       the bytes received so far
//   NAME.gguf.part.json  what they are: URL, expected hash and size, the server's validators
//   NAME.gguf.json       after acceptance: which SHA-256 the file was verified against and its source
#include <QString>
#include <optional>

namespace trit::models {

struct PartState {
  QString url;              // the catalogue URL the bytes came from
  QString expectedSha256;   // from the catalogue ("" when none)
  qint64 expectedSize = 0;  // from the catalogue
  QString linkedSha256;     // X-Linked-ETag of the first response, when sent
  QString etag;             // validators of the response that carried the bytes, for If-Range
  QString lastModified;
  qint64 total = -1;  // full length the server announced
};

struct VerifiedRecord {
  QString id;
  QString url;
  QString sha256;
  QString verifiedBy;  // "catalogue", "x-linked-etag" or "imported"
  qint64 size = 0;
};

QString partPath(const QString& finalPath);
QString partStatePath(const QString& finalPath);
QString recordPath(const QString& finalPath);

std::optional<PartState> readPartState(const QString& path);
bool writePartState(const QString& path, const PartState& state, QString* error);
std::optional<VerifiedRecord> readVerifiedRecord(const QString& path);
bool writeVerifiedRecord(const QString& path, const VerifiedRecord& record, QString* error);

}  // namespace trit::models
