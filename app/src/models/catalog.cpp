#include "catalog.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>

#include "sentence.h"
#include "url_policy.h"

namespace trit::models {

const CatalogEntry* Catalog::find(const QString& id) const {
  for (const auto& m : models)
    if (m.id == id) return &m;
  return nullptr;
}

namespace {

// Reads the string field `key`; required fields must be present, optional ones default to "".
bool readString(const QJsonObject& o, const char* key, bool required, QString* out, QString* why) {
  const QJsonValue v = o.value(QLatin1String(key));
  if (v.isUndefined()) {
    if (!required) return true;
    *why = QStringLiteral("the field \"%1\" is missing").arg(QLatin1String(key));
    return false;
  }
  if (!v.isString()) {
    *why = QStringLiteral("the field \"%1\" must be a string").arg(QLatin1String(key));
    return false;
  }
  *out = v.toString();
  return true;
}

// Reads a non-negative integer field (JSON numbers are doubles: reject fractions and > 2^53); `unit`
// names what it counts, for the message.
bool readCount(const QJsonObject& o, const char* key, bool required, qint64* out, QString* why,
               const char* unit = "bytes") {
  const QJsonValue v = o.value(QLatin1String(key));
  if (v.isUndefined()) {
    if (!required) return true;
    *why = QStringLiteral("the field \"%1\" is missing").arg(QLatin1String(key));
    return false;
  }
  const double d = v.toDouble(-1);
  if (!v.isDouble() || d < 0 || d > 9007199254740992.0 || d != static_cast<double>(static_cast<qint64>(d))) {
    *why = QStringLiteral("the field \"%1\" must be a whole number of %2, not negative")
               .arg(QLatin1String(key), QLatin1String(unit));
    return false;
  }
  *out = static_cast<qint64>(d);
  return true;
}

bool parseEntry(const QJsonObject& o, CatalogEntry* e, QString* why) {
  static const QRegularExpression idPattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"));
  static const QRegularExpression hexPattern(QStringLiteral("^[0-9a-fA-F]{64}$"));
  static const QRegularExpression filePattern(QStringLiteral("^[A-Za-z0-9][A-Za-z0-9._-]{0,200}\\.gguf$"));
  // Shapes, not lists: a catalogue written for a later Trit may name an architecture or format this
  // version does not know (the engine refuses such a file by name once it is downloaded).
  static const QRegularExpression archPattern(QStringLiteral("^[a-z0-9][a-z0-9._-]{0,63}$"));
  static const QRegularExpression formatPattern(
      QStringLiteral("^[A-Z0-9][A-Z0-9_]{0,15}(\\+[A-Z0-9][A-Z0-9_]{0,15}){0,3}$"),
      QRegularExpression::CaseInsensitiveOption);
  QString url;
  if (!readString(o, "id", true, &e->id, why) || !readString(o, "name", true, &e->name, why) ||
      !readString(o, "url", true, &url, why) || !readCount(o, "size", false, &e->size, why) ||
      !readString(o, "sha256", false, &e->sha256, why) || !readString(o, "license", true, &e->license, why) ||
      !readString(o, "description", true, &e->description, why) || !readString(o, "file", false, &e->fileName, why) ||
      !readCount(o, "memory", false, &e->memory, why) || !readString(o, "quantization", false, &e->quantization, why) ||
      !readString(o, "license_url", false, &e->licenseUrl, why) ||
      !readString(o, "architecture", false, &e->architecture, why) ||
      !readCount(o, "parameters", false, &e->parameters, why, "weights"))
    return false;
  qint64 context = 0;
  if (!readCount(o, "context_length", false, &context, why)) return false;
  e->contextLength = static_cast<int>(std::min<qint64>(context, 1 << 30));
  if (!idPattern.match(e->id).hasMatch()) {
    *why = QStringLiteral("the id \"%1\" must be 1-128 letters, digits, '.', '_' or '-'").arg(e->id);
    return false;
  }
  if (e->name.trimmed().isEmpty()) {
    *why = QStringLiteral("the name is empty");
    return false;
  }
  e->url = QUrl(url, QUrl::StrictMode);
  if (QString bad = checkFetchUrl(e->url, QStringLiteral("download URL"), url); !bad.isEmpty()) {
    *why = bad;
    return false;
  }
  if (!e->sha256.isEmpty() && !hexPattern.match(e->sha256).hasMatch()) {
    *why = QStringLiteral("\"sha256\" must be 64 hexadecimal digits or empty, got \"%1\"").arg(e->sha256);
    return false;
  }
  e->sha256 = e->sha256.toLower();
  if (!e->architecture.isEmpty() && !archPattern.match(e->architecture).hasMatch()) {
    *why = QStringLiteral(
               "\"architecture\" must be a GGUF architecture name such as \"llama\" (lower-case "
               "letters, digits, '.', '_', '-'), got \"%1\"")
               .arg(e->architecture);
    return false;
  }
  if (!e->quantization.isEmpty() && !formatPattern.match(e->quantization).hasMatch()) {
    *why = QStringLiteral("\"quantization\" must be a weight format such as \"I2_S\" or \"TQ2_0+TQ1_0\", got \"%1\"")
               .arg(e->quantization);
    return false;
  }
  e->quantization = e->quantization.toUpper();  // GGUF type names are upper case: "i2_s" is I2_S
  if (e->fileName.isEmpty()) e->fileName = e->id + QStringLiteral(".gguf");
  if (!filePattern.match(e->fileName).hasMatch()) {
    *why = QStringLiteral("\"file\" must be a plain file name ending in .gguf, got \"%1\"").arg(e->fileName);
    return false;
  }
  return true;
}

}  // namespace

std::optional<Catalog> parseCatalog(const QByteArray& json, const QString& source, QString* error) {
  QJsonParseError perr{};
  const QJsonDocument doc = QJsonDocument::fromJson(json, &perr);
  if (perr.error != QJsonParseError::NoError) {
    *error = QStringLiteral("The catalogue %1 is not valid JSON: %2 at byte %3.")
                 .arg(source, perr.errorString())
                 .arg(perr.offset);
    return std::nullopt;
  }
  if (!doc.isObject() || !doc.object().value(QLatin1String("models")).isArray()) {
    *error = QStringLiteral("The catalogue %1 must be a JSON object with a \"models\" array.").arg(source);
    return std::nullopt;
  }
  Catalog catalog;
  catalog.source = source;
  QSet<QString> ids, files;
  const QJsonArray models = doc.object().value(QLatin1String("models")).toArray();
  for (qsizetype i = 0; i < models.size(); ++i) {
    CatalogEntry e;
    QString why;
    if (!models[i].isObject()) {
      why = QStringLiteral("it is not a JSON object");
    } else if (parseEntry(models[i].toObject(), &e, &why)) {
      if (ids.contains(e.id))
        why = QStringLiteral("the id \"%1\" is used twice").arg(e.id);
      else if (files.contains(e.fileName))
        why = QStringLiteral("the file \"%1\" is used twice").arg(e.fileName);
    }
    if (!why.isEmpty()) {
      const QString label = e.id.isEmpty() ? QString() : QStringLiteral(" (\"%1\")").arg(e.id);
      *error = QStringLiteral("The catalogue %1 has a bad entry models[%2]%3: %4")
                   .arg(source)
                   .arg(i)
                   .arg(label, asSentence(why));
      return std::nullopt;
    }
    ids.insert(e.id);
    files.insert(e.fileName);
    catalog.models.append(e);
  }
  return catalog;
}

}  // namespace trit::models
