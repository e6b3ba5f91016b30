#pragma once
// Where the conversation database lives: the --data-dir option if given, else the TRIT_DATA_DIR
// environment variable (tests point it at a scratch folder), else the application data folder
// (app_folders.h: QStandardPaths::AppDataLocation, ~/.local/share/trit on Linux).
#include <QString>

namespace trit::storage {

inline constexpr const char* kDatabaseFileName = "conversations.sqlite3";

// Set from --data-dir; empty clears it.
void setDataDirOverride(const QString& dir);
QString dataDirectory();
// The database path inside dataDirectory(), creating the folder if needed. Returns an empty string and
// sets `error` when the folder cannot be created.
QString conversationDatabasePath(QString* error);

}  // namespace trit::storage
