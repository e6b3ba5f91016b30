#pragma once
// The sidebar's list of conversations for QML: pinned first, then by last use, loaded a page at a
// time (fetchMore) so 10,000 conversations open as fast as 10. Rows follow the store's signals one
// by one (insert, move, remove), never a reset, so a ListView keeps its scroll position and selection.
// Delete has an undo window: the row goes at once, the data is purged when the window closes.
#include <QAbstractListModel>
#include <QTimer>
#include <functional>

#include "storage/conversation_store.h"

namespace trit::storage {

class ConversationListModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(int count READ count NOTIFY countChanged)
  Q_PROPERTY(bool canUndoDelete READ canUndoDelete NOTIFY undoChanged)
  Q_PROPERTY(QString undoTitle READ undoTitle NOTIFY undoChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

 public:
  enum Roles {
    IdRole = Qt::UserRole + 1,
    TitleRole,         // as stored ("" until the first message names it)
    DisplayTitleRole,  // what to show: the title, or "New conversation"
    CreatedRole,       // QDateTime
    UpdatedRole,       // QDateTime (last use)
    PinnedRole,
    ModelRole,
  };
  static constexpr int kPageSize = 200;
  static constexpr int kUndoWindowMs = 5000;

  explicit ConversationListModel(ConversationStore* store, QObject* parent = nullptr);
  ~ConversationListModel() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;

  int count() const { return static_cast<int>(rows_.size()); }
  bool canUndoDelete() const { return pendingDelete_ != 0; }
  QString undoTitle() const { return pendingTitle_; }
  QString errorString() const { return error_; }
  void setUndoWindowMs(int ms) { undoTimer_.setInterval(ms); }  // tests shorten it

  Q_INVOKABLE void reload();
  Q_INVOKABLE int indexOfId(qint64 id) const;
  Q_INVOKABLE qint64 idAt(int row) const;
  // Each returns false (and sets errorString) when the store refuses; true otherwise.
  Q_INVOKABLE qint64 createConversation();  // 0 on failure
  Q_INVOKABLE bool rename(qint64 id, const QString& title);
  Q_INVOKABLE bool setPinned(qint64 id, bool pinned);
  Q_INVOKABLE bool remove(qint64 id);  // undoable until the window closes or the next remove
  Q_INVOKABLE bool undoRemove();
  Q_INVOKABLE void commitRemove();  // closes the undo window now (purges the data)

 signals:
  void countChanged();
  void undoChanged();
  void errorStringChanged();

 private:
  void place(qint64 id);  // puts the store's current version of `id` where it belongs (or removes it)
  void removeRow(int row);
  void setError(const QString& error);
  bool guarded(const std::function<void()>& action);

  ConversationStore* store_;
  QList<Conversation> rows_;
  bool complete_ = false;  // every row is loaded
  qint64 pendingDelete_ = 0;
  QString pendingTitle_;
  QTimer undoTimer_;
  QString error_;
};

}  // namespace trit::storage
