// Trit's folders (app/src/storage/app_folders.h): one folder per kind named "trit" (the data folder was
// ~/.local/share/Trit/Trit, organisation and application name doubled), and the one-time move of an
// earlier version's data and settings: renamed whole, or copied when renaming fails and the old removed
// only once the copy is in place; a failure leaves the old folder as it was, uses it for this run and
// says why; nothing is merged or overwritten, and a second start moves nothing.
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "storage/app_folders.h"
#include "storage/data_location.h"

using namespace trit::storage;

class TestAppFolders : public QObject {
  Q_OBJECT

  std::unique_ptr<QTemporaryDir> root_;
  LegacyFolders from_;
  CurrentFolders to_;

  static void write(const QString& path, const QByteArray& bytes) {
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    QVERIFY2(f.open(QIODevice::WriteOnly), qPrintable(path));
    f.write(bytes);
  }
  static QByteArray read(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
  }

  // An earlier version's data (database with its WAL, a model, a partial download) and settings that
  // name files in it.
  void makeLegacy() {
    write(from_.dataFolder + "/conversations.sqlite3", "database");
    write(from_.dataFolder + "/conversations.sqlite3-wal", "wal");
    write(from_.dataFolder + "/models/a.gguf", QByteArray(100000, 'a'));
    write(from_.dataFolder + "/models/b.gguf.part", "partial");
    QSettings s(from_.settingsFile, QSettings::NativeFormat);
    s.setValue("engine/lastModel", from_.dataFolder + "/models/a.gguf");
    s.setValue("models/folder", from_.dataFolder + "/models");
    s.setValue("ui/theme", "dark");
    s.setValue("other/path", "/elsewhere/" + from_.dataFolder);  // not inside the folder: untouched
    s.sync();
  }
  void verifyLegacyIntact() {
    QCOMPARE(read(from_.dataFolder + "/conversations.sqlite3"), QByteArray("database"));
    QCOMPARE(read(from_.dataFolder + "/models/a.gguf"), QByteArray(100000, 'a'));
    QCOMPARE(read(from_.dataFolder + "/models/b.gguf.part"), QByteArray("partial"));
  }

 private slots:
  void init() {
    root_ = std::make_unique<QTemporaryDir>();
    QVERIFY(root_->isValid());
    from_ = {root_->filePath("share/Trit/Trit"), root_->filePath("config/Trit/Trit.conf")};
    to_ = {root_->filePath("share/trit"), root_->filePath("config/trit/trit.conf")};
  }
  void cleanup() { migrateLegacyFolders({}, {}); /* no fallbacks left for the next test */ }

  // The names give one folder per kind, "trit", in QStandardPaths' own locations.
  void oneFolderNamedTrit() {
    setApplicationNames("0.2.0");
    const QString data = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation);
    QVERIFY2(data.endsWith("/trit") && !data.contains("trit/trit") && !data.contains("Trit/Trit"), qPrintable(data));
    QVERIFY(QStandardPaths::writableLocation(QStandardPaths::AppConfigLocation).endsWith("/trit"));
    QVERIFY(QStandardPaths::writableLocation(QStandardPaths::CacheLocation).endsWith("/trit"));
    QCOMPARE(applicationDataFolder(), data);
    QVERIFY2(currentFolders().settingsFile.endsWith("/trit/trit.conf"), qPrintable(currentFolders().settingsFile));
    QVERIFY(legacyFolders().dataFolder.endsWith("/Trit/Trit"));
    QCOMPARE(QFileInfo(legacyFolders().dataFolder).absolutePath(), QFileInfo(data).absolutePath() + "/Trit");
    QVERIFY(legacyFolders().settingsFile.endsWith("/Trit/Trit.conf"));
    QCOMPARE(openSettings()->fileName(), currentFolders().settingsFile);
  }

  void freshInstallMovesNothing() {
    const MigrationResult r = migrateLegacyFolders(from_, to_);
    QVERIFY(r.moved.isEmpty());
    QVERIFY(r.error.isEmpty());
    QCOMPARE(r.message(), QString());
    QVERIFY(!QFileInfo::exists(to_.dataFolder));
  }

  void movesDataAndSettingsOnce() {
    makeLegacy();
    const MigrationResult r = migrateLegacyFolders(from_, to_);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QCOMPARE(r.moved.size(), 2);
    QVERIFY2(r.message().contains(to_.dataFolder) && r.message().contains(from_.dataFolder), qPrintable(r.message()));
    QCOMPARE(read(to_.dataFolder + "/conversations.sqlite3"), QByteArray("database"));
    QCOMPARE(read(to_.dataFolder + "/conversations.sqlite3-wal"), QByteArray("wal"));
    QCOMPARE(read(to_.dataFolder + "/models/a.gguf"), QByteArray(100000, 'a'));
    QCOMPARE(read(to_.dataFolder + "/models/b.gguf.part"), QByteArray("partial"));
    QVERIFY(!QFileInfo::exists(from_.dataFolder));
    QVERIFY2(!QFileInfo::exists(root_->filePath("share/Trit")), "the empty old parent is gone too");
    QVERIFY(!QFileInfo::exists(to_.dataFolder + ".moving"));
    QVERIFY(!QFileInfo::exists(from_.settingsFile));
    QSettings s(to_.settingsFile, QSettings::NativeFormat);
    QCOMPARE(s.value("engine/lastModel").toString(), to_.dataFolder + "/models/a.gguf");
    QCOMPARE(s.value("models/folder").toString(), to_.dataFolder + "/models");
    QCOMPARE(s.value("ui/theme").toString(), QString("dark"));
    QCOMPARE(s.value("other/path").toString(), "/elsewhere/" + from_.dataFolder);
    QCOMPARE(applicationDataFolder(), QStandardPaths::writableLocation(QStandardPaths::AppDataLocation));

    // The next start: nothing left to move.
    const MigrationResult again = migrateLegacyFolders(from_, to_);
    QVERIFY(again.moved.isEmpty() && again.error.isEmpty());
    QCOMPARE(read(to_.dataFolder + "/models/a.gguf"), QByteArray(100000, 'a'));
  }

  // Renaming is impossible (another file system): the folder is copied, put in place, then the old removed.
  void copiesWhenRenamingFails() {
    makeLegacy();
    FolderOps ops = defaultFolderOps();
    int renames = 0;
    const auto rename = ops.rename;
    ops.rename = [&](const QString& a, const QString& b) {
      ++renames;
      // Only the temporary copy may be renamed (into place), as across file systems.
      return a.endsWith(".moving") ? rename(a, b) : false;
    };
    const MigrationResult r = migrateLegacyFolders(from_, to_, ops);
    QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
    QVERIFY(renames >= 2);
    QCOMPARE(read(to_.dataFolder + "/models/a.gguf"), QByteArray(100000, 'a'));
    QCOMPARE(read(to_.dataFolder + "/conversations.sqlite3"), QByteArray("database"));
    QVERIFY(!QFileInfo::exists(from_.dataFolder));
    QVERIFY(!QFileInfo::exists(to_.dataFolder + ".moving"));
    QCOMPARE(QSettings(to_.settingsFile, QSettings::NativeFormat).value("engine/lastModel").toString(),
             to_.dataFolder + "/models/a.gguf");
  }

  // A copy that fails half-way (a disk full, a file that cannot be read): nothing is lost, no partial copy
  // stays, the old folder is used for this run, and the message says what and why.
  void failureLosesNothingAndSaysWhy() {
    makeLegacy();
    FolderOps ops = defaultFolderOps();
    ops.rename = [](const QString&, const QString&) { return false; };
    const auto copy = ops.copyFile;
    ops.copyFile = [&](const QString& a, const QString& b) { return a.endsWith("a.gguf") ? false : copy(a, b); };
    const MigrationResult r = migrateLegacyFolders(from_, to_, ops);
    verifyLegacyIntact();
    QVERIFY(!QFileInfo::exists(to_.dataFolder));
    QVERIFY(!QFileInfo::exists(to_.dataFolder + ".moving"));
    QVERIFY(r.dataFallback);
    QCOMPARE(applicationDataFolder(), from_.dataFolder);
    QCOMPARE(dataDirectory().isEmpty(), false);
    QVERIFY2(r.message().contains("could not move its data") && r.message().contains("a.gguf") &&
                 r.message().contains("keeps using " + from_.dataFolder),
             qPrintable(r.message()));
    // No rename works, so the settings stay too, and are used where they are.
    QVERIFY(r.settingsFallback);
    QVERIFY(!QFileInfo::exists(to_.settingsFile));
    QCOMPARE(openSettings()->fileName(), from_.settingsFile);
    // The next start tries again, and succeeds.
    const MigrationResult again = migrateLegacyFolders(from_, to_);
    QVERIFY2(again.error.isEmpty(), qPrintable(again.error));
    QCOMPARE(read(to_.dataFolder + "/models/a.gguf"), QByteArray(100000, 'a'));
    QCOMPARE(applicationDataFolder(), QStandardPaths::writableLocation(QStandardPaths::AppDataLocation));
    QCOMPARE(QSettings(to_.settingsFile, QSettings::NativeFormat).value("engine/lastModel").toString(),
             to_.dataFolder + "/models/a.gguf");
  }

  void settingsThatCannotMoveAreUsedWhereTheyAre() {
    makeLegacy();
    FolderOps ops = defaultFolderOps();
    const auto rename = ops.rename;
    ops.rename = [&](const QString& a, const QString& b) { return a.endsWith(".conf") ? false : rename(a, b); };
    ops.copyFile = [](const QString&, const QString&) { return false; };
    const MigrationResult r = migrateLegacyFolders(from_, to_, ops);
    QVERIFY(r.settingsFallback);
    QVERIFY(r.error.contains("settings"));
    QCOMPARE(openSettings()->fileName(), from_.settingsFile);
    QCOMPARE(openSettings()->value("ui/theme").toString(), QString("dark"));
    // The data did move, and the settings in use follow it.
    QCOMPARE(openSettings()->value("engine/lastModel").toString(), to_.dataFolder + "/models/a.gguf");
  }

  // Both places hold something (an earlier start of this version, then the old version again): nothing is
  // merged or overwritten.
  void neverOverwrites() {
    makeLegacy();
    write(to_.dataFolder + "/conversations.sqlite3", "newer database");
    write(to_.settingsFile, "[ui]\ntheme=light\n");
    const MigrationResult r = migrateLegacyFolders(from_, to_);
    QVERIFY(r.moved.isEmpty() && r.error.isEmpty());
    verifyLegacyIntact();
    QCOMPARE(read(to_.dataFolder + "/conversations.sqlite3"), QByteArray("newer database"));
    QCOMPARE(QSettings(to_.settingsFile, QSettings::NativeFormat).value("ui/theme").toString(), QString("light"));
  }

  // A run that stopped between the two renames left the data beside its new name: the next one finishes.
  void finishesAnInterruptedMove() {
    write(to_.dataFolder + ".moving/conversations.sqlite3", "database");
    const MigrationResult r = migrateLegacyFolders(from_, to_);
    QVERIFY(r.error.isEmpty());
    QCOMPARE(read(to_.dataFolder + "/conversations.sqlite3"), QByteArray("database"));
    QVERIFY(!QFileInfo::exists(to_.dataFolder + ".moving"));
  }
};

QTEST_GUILESS_MAIN(TestAppFolders)
#include "tst_app_folders.moc"
