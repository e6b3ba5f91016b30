#include "conversations/conversations_bridge.h"

#include <QDebug>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>
#include <QStandardPaths>

#include "storage/conversation_exchange.h"
#include "storage/conversation_list_model.h"
#include "storage/conversation_search_model.h"
#include "storage/conversation_store.h"
#include "storage/data_location.h"

namespace trit::chat {
namespace {

constexpr qint64 kMaxImportBytes = 256LL * 1024 * 1024;  // as the headless import: far beyond any chat

QString localPath(const QUrl& file) {
  return file.isLocalFile() ? file.toLocalFile() : file.toString();
}

}  // namespace

ConversationsBridge::ConversationsBridge(QObject* parent) : QObject(parent) {}

// The models watch the store: they go first.
ConversationsBridge::~ConversationsBridge() {
  search_.reset();
  list_.reset();
  store_.reset();
}

QObject* ConversationsBridge::list() const {
  return list_.get();
}
QObject* ConversationsBridge::search() const {
  return search_.get();
}

void ConversationsBridge::setProblem(const QString& problem, bool notice) {
  if (problem_ == problem && problemIsNotice_ == notice) return;
  problem_ = problem;
  problemIsNotice_ = notice;
  emit problemChanged();
}

void ConversationsBridge::setLastError(const QString& error) {
  if (lastError_ == error) return;
  lastError_ = error;
  emit lastErrorChanged();
}

bool ConversationsBridge::open(const QString& path) {
  requestedPath_ = path;
  QString file = path;
  if (file.isEmpty()) {
    QString folderError;
    file = storage::conversationDatabasePath(&folderError);
    if (file.isEmpty()) {
      setProblem(tr("Conversations are not being saved: %1. This chat is kept in memory only and is lost when "
                    "Trit closes. Fix the folder (or start Trit with --data-dir) and choose Retry.")
                     .arg(folderError),
                 false);
      return false;
    }
  }
  // A retry opens afresh: the old models and store go first (the chat controller is told below).
  if (store_) {
    emit storeChanged(nullptr);
    search_.reset();
    list_.reset();
    store_.reset();
  }
  QString notice;
  try {
    store_ = storage::openStoreMovingCorruptAside(file, &notice);
  } catch (const storage::StorageError& e) {
    path_ = file;
    QString why;
    switch (e.kind()) {
      case storage::StorageError::Kind::Locked:
        why = tr("Conversations are not being saved: the database %1 is in use by another program (%2). This "
                 "chat is kept in memory only. Close the other program and choose Retry.")
                  .arg(QDir::toNativeSeparators(file), e.message());
        break;
      default:
        why = tr("Conversations are not being saved: the database %1 cannot be opened (%2). This chat is kept in "
                 "memory only and is lost when Trit closes. Choose Retry once it is fixed.")
                  .arg(QDir::toNativeSeparators(file), e.message());
        break;
    }
    setProblem(why, false);
    emit availableChanged();
    return false;
  }
  path_ = file;
  list_ = std::make_unique<storage::ConversationListModel>(store_.get());
  search_ = std::make_unique<storage::ConversationSearchModel>(store_.get());
  if (!notice.isEmpty()) {
    // Said on stderr too: the banner is easy to miss, and a log should show where the old file went.
    qWarning().noquote() << QStringLiteral("trit: the conversation database was damaged: %1.").arg(notice);
    setProblem(tr("The conversation database was damaged: %1. Your earlier conversations are in that file; new "
                  "ones are saved in the new database.")
                   .arg(notice),
               true);
  } else if (store_->emptyAtOpen()) {
    const QString where = QDir::toNativeSeparators(file);
    qWarning().noquote() << QStringLiteral(
                                "trit: the conversation database %1 was an empty file (0 bytes): there "
                                "were no conversations in it, and a new database was started there.")
                                .arg(where);
    setProblem(tr("The conversation database %1 was an empty file (0 bytes), so there were no conversations to "
                  "show; new ones are saved in it. If you expected conversations here, restore the file from a "
                  "backup.")
                   .arg(where),
               true);
  } else if (store_->interruptedAtOpen() > 0) {
    setProblem(tr("%n reply(s) were cut off when Trit last stopped; the text written so far was kept and is "
                  "marked as interrupted.",
                  nullptr, store_->interruptedAtOpen()),
               true);
  } else {
    setProblem({}, false);
  }
  emit availableChanged();
  emit storeChanged(store_.get());
  return true;
}

bool ConversationsBridge::retry() {
  return open(requestedPath_);
}

void ConversationsBridge::dismissProblem() {
  // Only a notice goes away; "not saving" stays visible while it is true.
  if (problemIsNotice_) setProblem({}, false);
}

bool ConversationsBridge::exportConversation(qint64 id, const QUrl& file, const QString& format) {
  if (!store_) {
    setLastError(tr("Cannot export: the conversation database is not open."));
    return false;
  }
  const QString path = localPath(file);
  QByteArray bytes;
  try {
    if (format == QLatin1String("markdown"))
      bytes = storage::exportMarkdown(*store_, id).toUtf8();
    else if (format == QLatin1String("json"))
      bytes = storage::exportJson(*store_, id);
    else {
      setLastError(tr("Cannot export: unknown format \"%1\" (markdown or json).").arg(format));
      return false;
    }
  } catch (const storage::ExchangeError& e) {
    setLastError(tr("Cannot export: %1").arg(e.message()));
    return false;
  } catch (const storage::StorageError& e) {
    setLastError(tr("Cannot export: %1").arg(e.message()));
    return false;
  }
  QSaveFile out(path);
  if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit()) {
    setLastError(tr("Cannot write %1: %2").arg(QDir::toNativeSeparators(path), out.errorString()));
    return false;
  }
  setLastError({});
  return true;
}

qint64 ConversationsBridge::importConversation(const QUrl& file) {
  if (!store_) {
    setLastError(tr("Cannot import: the conversation database is not open."));
    return 0;
  }
  const QString path = localPath(file);
  QFile in(path);
  if (!in.open(QIODevice::ReadOnly)) {
    setLastError(tr("Cannot read %1: %2").arg(QDir::toNativeSeparators(path), in.errorString()));
    return 0;
  }
  if (in.size() > kMaxImportBytes) {
    setLastError(tr("Cannot import %1: the file is larger than 256 MiB, which no exported conversation is.")
                     .arg(QDir::toNativeSeparators(path)));
    return 0;
  }
  try {
    const qint64 id = storage::importJson(*store_, in.readAll());
    setLastError({});
    return id;
  } catch (const storage::ExchangeError& e) {
    setLastError(tr("Cannot import %1: %2").arg(QFileInfo(path).fileName(), e.message()));
  } catch (const storage::StorageError& e) {
    setLastError(tr("Cannot import %1: %2").arg(QFileInfo(path).fileName(), e.message()));
  }
  return 0;
}

QString ConversationsBridge::suggestedFileName(qint64 id, const QString& format) const {
  QString title;
  if (store_) {
    try {
      if (const auto c = store_->conversation(id)) title = c->title;
    } catch (const storage::StorageError&) {
    }
  }
  QString safe;
  for (const QChar c : title.left(60)) safe += c.isLetterOrNumber() || c == QLatin1Char('-') ? c : QLatin1Char('_');
  while (safe.contains(QStringLiteral("__"))) safe.replace(QStringLiteral("__"), QStringLiteral("_"));
  safe = safe.trimmed();
  if (safe.isEmpty() || safe == QLatin1String("_")) safe = QStringLiteral("conversation-%1").arg(id);
  return safe + (format == QLatin1String("json") ? QStringLiteral(".json") : QStringLiteral(".md"));
}

QUrl ConversationsBridge::suggestedFileUrl(qint64 id, const QString& format) const {
  QString folder = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
  if (folder.isEmpty() || !QFileInfo(folder).isDir()) folder = QDir::homePath();
  return QUrl::fromLocalFile(QDir(folder).filePath(suggestedFileName(id, format)));
}

}  // namespace trit::chat
