#pragma once
// Trit's folders, one per kind and each named "trit": the application is called "trit" and sets no
// organisation, so QStandardPaths' application locations are ~/.local/share/trit (data: models,
// conversations), ~/.config/trit (settings: trit.conf) and ~/.cache/trit on Linux, and the
// platform's equivalents elsewhere. Versions before 0.2 used "Trit" twice (~/.local/share/Trit/Trit,
// ~/.config/Trit/Trit.conf); migrateLegacyFolders() moves those over once.
#include <QSettings>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>

namespace trit::storage {

inline constexpr const char* kApplicationName = "trit";

// Sets the application's name (and version); main() calls it first, in every mode.
void setApplicationNames(const QString& version);

// The application data folder (models/, conversations.sqlite3): QStandardPaths::AppDataLocation, or the
// legacy folder for this run when moving it failed (the user was told; nothing was lost).
QString applicationDataFolder();
// The user's settings (~/.config/trit/trit.conf on Linux; QSettings::setPath moves it, as tests do),
// or the legacy file for this run when moving it failed.
std::unique_ptr<QSettings> openSettings();

// Where versions before 0.2 kept things.
struct LegacyFolders {
  QString dataFolder;    // <GenericDataLocation>/Trit/Trit
  QString settingsFile;  // QSettings("Trit", "Trit")'s file: ~/.config/Trit/Trit.conf
};
LegacyFolders legacyFolders();
// Where this version keeps them.
struct CurrentFolders {
  QString dataFolder;    // <GenericDataLocation>/trit
  QString settingsFile;  // ~/.config/trit/trit.conf
};
CurrentFolders currentFolders();

// The file operations the move uses; tests replace them to make a step fail.
struct FolderOps {
  std::function<bool(const QString& from, const QString& to)> rename;    // atomic on one file system
  std::function<bool(const QString& from, const QString& to)> copyFile;  // a plain copy
};
FolderOps defaultFolderOps();

struct MigrationResult {
  QStringList moved;              // what was moved, in words ("the data folder ... to ...")
  QString error;                  // why something could not be moved (it stays where it was, and is used from there)
  bool dataFallback = false;      // the data stays in the legacy folder for this run
  bool settingsFallback = false;  // the settings stay in the legacy file for this run
  // One sentence or two for the user: what moved where, or what could not and why. Empty: nothing to say.
  QString message() const;
};

// Moves the legacy data folder and settings file to the current places, once: only what exists in the
// legacy place while its current place does not (nothing is ever merged or overwritten). The data folder
// is renamed (atomic) or, when renaming is impossible (another file system), copied into a temporary
// folder that is renamed into place once complete and only then is the old one removed; any failure
// removes the partial copy and leaves the old folder as it was. Settings holding paths inside the old data
// folder (the last model, the models folder) are rewritten to the new one. A part that cannot be moved is
// used from its old place for this run (applicationDataFolder(), openSettings()).
MigrationResult migrateLegacyFolders(const LegacyFolders& from, const CurrentFolders& to,
                                     const FolderOps& ops = defaultFolderOps());

// migrateLegacyFolders(legacyFolders(), currentFolders()) with the default operations: what main() and
// the window run at start. Returns its message() (empty: nothing to say).
QString moveLegacyFoldersOnce();

}  // namespace trit::storage
