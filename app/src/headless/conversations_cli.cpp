#include "headless/conversations_cli.h"

#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDateTime>
#include <QFile>
#include <cstdio>

#include "storage/conversation_exchange.h"
#include "storage/conversation_store.h"
#include "storage/data_location.h"

namespace trit::app {
namespace {

using storage::ConversationStore;
using storage::StorageError;

constexpr qint64 kMaxImportBytes = 256LL * 1024 * 1024;  // far beyond any real conversation

struct Options {
  QCommandLineOption dataDir{QStringLiteral("data-dir"),
                             QStringLiteral("Keep conversations in <dir> instead of the platform's data folder "
                                            "(the environment variable TRIT_DATA_DIR does the same)."),
                             QStringLiteral("dir")};
  QCommandLineOption list{QStringLiteral("list-conversations"),
                          QStringLiteral("Print every conversation (id, last use, pinned, title) and exit.")};
  QCommandLineOption exportId{QStringLiteral("export-conversation"),
                              QStringLiteral("Print conversation <id> in the --format given and exit."),
                              QStringLiteral("id")};
  QCommandLineOption format{QStringLiteral("format"), QStringLiteral("Export format: markdown (default) or json."),
                            QStringLiteral("format"), QStringLiteral("markdown")};
  QCommandLineOption importFile{QStringLiteral("import-conversation"),
                                QStringLiteral("Add the conversation in JSON <file> (from --format json; - reads "
                                               "standard input) and exit."),
                                QStringLiteral("file")};
  QCommandLineOption setAside{QStringLiteral("set-aside-damaged-database"),
                              QStringLiteral("If the conversation database is damaged, keep it aside under a new "
                                             "name and start an empty one.")};
};

void printError(const QString& message) {
  std::fprintf(stderr, "trit: %s\n", qPrintable(message));
}

void writeOut(const QByteArray& bytes) {
  std::fwrite(bytes.constData(), 1, static_cast<size_t>(bytes.size()), stdout);
  std::fflush(stdout);
}

QString oneLine(QString s) {
  for (QChar& c : s)
    if (c == QLatin1Char('\t') || c == QLatin1Char('\n') || c == QLatin1Char('\r')) c = QLatin1Char(' ');
  return s;
}

int reportStorageError(const StorageError& e, const QString& dbPath) {
  switch (e.kind()) {
    case StorageError::Kind::Locked:
      printError(e.message());
      return kExitLocked;
    case StorageError::Kind::Corrupt:
      printError(QStringLiteral("%1. Nothing was changed. To keep the damaged file and start a new database, run "
                                "`trit --set-aside-damaged-database` (with the same --data-dir), or restore %2 "
                                "from a backup.")
                     .arg(e.message(), dbPath));
      return kExitDamaged;
    default:
      printError(e.message());
      return kExitFailed;
  }
}

// Headless commands read and write but leave repairs to the app: an unfinished reply may be one the
// running app is streaming right now, and purging is the app's undo window to close.
storage::OpenOptions headlessOptions() {
  storage::OpenOptions o;
  o.recoverInterruptedReplies = false;
  o.purgeDeletedOlderThanMs = -1;
  return o;
}

int listConversations(ConversationStore& store) {
  QByteArray out;
  for (const auto& c : store.listConversations()) {
    out += QStringLiteral("%1\t%2\t%3\t%4\n")
               .arg(c.id)
               .arg(QDateTime::fromMSecsSinceEpoch(c.updatedMs, Qt::UTC).toString(Qt::ISODate),
                    c.pinned ? QStringLiteral("pinned") : QStringLiteral("-"), oneLine(c.title))
               .toUtf8();
  }
  writeOut(out);
  return kExitOk;
}

int exportConversation(ConversationStore& store, const QString& idText, const QString& format) {
  bool ok = false;
  const qint64 id = idText.toLongLong(&ok);
  if (!ok || id <= 0) {
    printError(QStringLiteral("--export-conversation needs a conversation id (a number from --list-conversations), "
                              "not \"%1\"")
                   .arg(idText));
    return kExitUsage;
  }
  try {
    if (format == QLatin1String("markdown")) {
      writeOut(storage::exportMarkdown(store, id).toUtf8());
    } else {
      writeOut(storage::exportJson(store, id));
    }
  } catch (const storage::ExchangeError& e) {
    printError(e.message());
    return kExitFailed;
  }
  return kExitOk;
}

int importConversation(ConversationStore& store, const QString& file) {
  QFile in;
  const bool fromStdin = file == QLatin1String("-");
  const bool opened =
      fromStdin ? in.open(stdin, QIODevice::ReadOnly) : (in.setFileName(file), in.open(QIODevice::ReadOnly));
  if (!opened) {
    printError(QStringLiteral("cannot read %1: %2").arg(file, in.errorString()));
    return kExitFailed;
  }
  // To the end: one read() of a pipe returns only what the writer has written so far (64 KiB at most).
  QByteArray bytes;
  for (;;) {
    const QByteArray chunk = in.read(kMaxImportBytes + 1 - bytes.size());
    if (chunk.isEmpty()) break;
    bytes += chunk;
    if (bytes.size() > kMaxImportBytes) break;
  }
  if (in.error() != QFileDevice::NoError) {
    printError(QStringLiteral("cannot read %1: %2")
                   .arg(fromStdin ? QStringLiteral("standard input") : file, in.errorString()));
    return kExitFailed;
  }
  if (bytes.size() > kMaxImportBytes) {
    printError(QStringLiteral("%1 is larger than %2 MiB; that is not a conversation export")
                   .arg(file)
                   .arg(kMaxImportBytes / (1024 * 1024)));
    return kExitFailed;
  }
  try {
    const qint64 id = storage::importJson(store, bytes);
    writeOut(QStringLiteral("imported conversation %1\n").arg(id).toUtf8());
  } catch (const storage::ExchangeError& e) {
    printError(
        QStringLiteral("cannot import %1: %2").arg(fromStdin ? QStringLiteral("standard input") : file, e.message()));
    return kExitFailed;
  }
  return kExitOk;
}

int setAsideDamaged(const QString& dbPath) {
  try {
    ConversationStore probe(dbPath, headlessOptions());
    const QString check = probe.integrityCheck();
    if (check == QLatin1String("ok")) {
      writeOut(QStringLiteral("%1 is not damaged; nothing was changed\n").arg(dbPath).toUtf8());
      return kExitOk;
    }
    printError(QStringLiteral("the integrity check of %1 found problems:\n%2").arg(dbPath, check));
  } catch (const StorageError& e) {
    if (e.kind() != StorageError::Kind::Corrupt) return reportStorageError(e, dbPath);
  }
  try {
    const QString aside = ConversationStore::moveCorruptFileAside(dbPath);
    ConversationStore fresh(dbPath, headlessOptions());
    writeOut(QStringLiteral("kept the damaged database as %1\nstarted a new, empty database at %2\n")
                 .arg(aside, dbPath)
                 .toUtf8());
    return kExitOk;
  } catch (const StorageError& e) {
    return reportStorageError(e, dbPath);
  }
}

}  // namespace

QList<QCommandLineOption> conversationOptions() {
  const Options o;
  return {o.dataDir, o.list, o.exportId, o.format, o.importFile, o.setAside};
}

int runConversationCommand(const QCommandLineParser& parser) {
  const Options o;
  const QString format = parser.value(o.format);
  if (format != QLatin1String("markdown") && format != QLatin1String("json")) {
    printError(QStringLiteral("--format must be markdown or json, not \"%1\"").arg(format));
    return kExitUsage;
  }
  applyConversationOptions(parser);

  QString error;
  const QString dbPath = storage::conversationDatabasePath(&error);
  if (dbPath.isEmpty()) {
    printError(error);
    return kExitFailed;
  }
  if (parser.isSet(o.setAside)) return setAsideDamaged(dbPath);
  try {
    ConversationStore store(dbPath, headlessOptions());
    if (store.emptyAtOpen()) {  // said, not silently taken for a new database (issue 30)
      printError(QStringLiteral("note: the conversation database %1 was an empty file (0 bytes): there were no "
                                "conversations in it, and a new database was started there.")
                     .arg(dbPath));
    }
    if (parser.isSet(o.list)) return listConversations(store);
    if (parser.isSet(o.exportId)) return exportConversation(store, parser.value(o.exportId), format);
    return importConversation(store, parser.value(o.importFile));
  } catch (const StorageError& e) {
    return reportStorageError(e, dbPath);
  }
}

void applyConversationOptions(const QCommandLineParser& parser) {
  const QString dir = parser.value(QStringLiteral("data-dir"));
  if (!dir.isEmpty()) storage::setDataDirOverride(dir);
}

}  // namespace trit::app
