#pragma once
// The saved conversations as the window sees them: opens the database (moving a damaged one aside),
// and gives QML the sidebar's list and search models, export to Markdown or JSON and import of JSON.
// When the database cannot be opened the chat goes on in memory; `problem` says why and retry()
// tries again. The chat controller gets the store through storeChanged().
#include <QObject>
#include <QPointer>
#include <QUrl>
#include <memory>

namespace trit::storage {
class ConversationStore;
class ConversationListModel;
class ConversationSearchModel;
}  // namespace trit::storage

namespace trit::chat {

class ConversationsBridge : public QObject {
  Q_OBJECT
  Q_PROPERTY(bool available READ available NOTIFY availableChanged)
  // ConversationListModel and ConversationSearchModel (null while the database is not open).
  Q_PROPERTY(QObject* list READ list NOTIFY availableChanged)
  Q_PROPERTY(QObject* search READ search NOTIFY availableChanged)
  Q_PROPERTY(QString databasePath READ databasePath NOTIFY availableChanged)
  // Why conversations are not saved, or what happened at open (a damaged file kept aside); "" if nothing.
  Q_PROPERTY(QString problem READ problem NOTIFY problemChanged)
  // True when `problem` is only a notice (the database works); false when saving is off.
  Q_PROPERTY(bool problemIsNotice READ problemIsNotice NOTIFY problemChanged)
  // The last export or import failure, for the window to show ("" after a success).
  Q_PROPERTY(QString lastError READ lastError NOTIFY lastErrorChanged)

 public:
  explicit ConversationsBridge(QObject* parent = nullptr);
  ~ConversationsBridge() override;

  bool available() const { return store_ != nullptr; }
  QObject* list() const;
  QObject* search() const;
  storage::ConversationStore* store() const { return store_.get(); }
  storage::ConversationListModel* listModel() const { return list_.get(); }
  storage::ConversationSearchModel* searchModel() const { return search_.get(); }
  QString databasePath() const { return path_; }
  QString problem() const { return problem_; }
  bool problemIsNotice() const { return problemIsNotice_; }
  QString lastError() const { return lastError_; }

  // Opens the database at `path` (empty: the data folder's, see storage/data_location.h). False, with
  // `problem` set, if it cannot be opened; the window then keeps conversations in memory.
  bool open(const QString& path = {});
  Q_INVOKABLE bool retry();
  Q_INVOKABLE void dismissProblem();
  Q_INVOKABLE void dismissLastError() { setLastError({}); }

  // `format` is "markdown" or "json". False with lastError set if the conversation or file fails.
  Q_INVOKABLE bool exportConversation(qint64 id, const QUrl& file, const QString& format);
  // The new conversation's id, 0 with lastError set if the file cannot be read or is not valid.
  Q_INVOKABLE qint64 importConversation(const QUrl& file);
  // A file name for the export dialog: the title made safe for file systems, with the extension.
  Q_INVOKABLE QString suggestedFileName(qint64 id, const QString& format) const;
  // That name in the user's documents folder (the home folder if there is none), for the save dialog.
  Q_INVOKABLE QUrl suggestedFileUrl(qint64 id, const QString& format) const;

 signals:
  void availableChanged();
  void problemChanged();
  void lastErrorChanged();
  // The store changed (opened, or null): the chat controller saves into it.
  void storeChanged(trit::storage::ConversationStore* store);

 private:
  void setProblem(const QString& problem, bool notice);
  void setLastError(const QString& error);

  std::unique_ptr<storage::ConversationStore> store_;
  std::unique_ptr<storage::ConversationListModel> list_;
  std::unique_ptr<storage::ConversationSearchModel> search_;
  QString requestedPath_;
  QString path_;
  QString problem_;
  bool problemIsNotice_ = false;
  QString lastError_;
};

}  // namespace trit::chat
