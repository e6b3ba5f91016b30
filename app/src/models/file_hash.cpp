#include "file_hash.h"

#include <QFile>

namespace trit::models {

bool addFileToHash(const QString& path, qint64 length, Sha256* hash, QString* error) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) {
    *error = QStringLiteral("Cannot read %1: %2.").arg(path, f.errorString());
    return false;
  }
  if (length < 0) length = f.size();
  QByteArray block(4 << 20, Qt::Uninitialized);
  qint64 left = length;
  while (left > 0) {
    const qint64 n = f.read(block.data(), std::min<qint64>(left, block.size()));
    if (n <= 0) {
      *error = QStringLiteral("Cannot read %1 to check it: %2.")
                   .arg(path, n < 0 ? f.errorString() : QStringLiteral("it is shorter than expected"));
      return false;
    }
    hash->addData(QByteArrayView(block.constData(), n));
    left -= n;
  }
  return true;
}

QString sha256OfFile(const QString& path, QString* error) {
  Sha256 hash;
  if (!addFileToHash(path, -1, &hash, error)) return {};
  return QString::fromLatin1(hash.result().toHex());
}

}  // namespace trit::models
