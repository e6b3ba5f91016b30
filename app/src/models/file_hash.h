#pragma once
// SHA-256 of a file's first `length` bytes (all of it when length < 0), read in large blocks.
#include <QString>

#include "sha256.h"

namespace trit::models {

// Adds the file's bytes to `hash`. Returns false with `error` set if the file cannot be read fully.
bool addFileToHash(const QString& path, qint64 length, Sha256* hash, QString* error);

// Lower-case hex SHA-256 of the whole file, or "" with `error` set.
QString sha256OfFile(const QString& path, QString* error);

}  // namespace trit::models
