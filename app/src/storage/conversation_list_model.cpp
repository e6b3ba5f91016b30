#include "storage/conversation_list_model.h"

#include <QDateTime>
#include <functional>

namespace trit::storage {

ConversationListModel::ConversationListModel(ConversationStore* store, QObject* parent)
    : QAbstractListModel(parent), store_(store) {
  undoTimer_.setSingleShot(true);
  undoTimer_.setInterval(kUndoWindowMs);
  connect(&undoTimer_, &QTimer::timeout, this, &ConversationListModel::commitRemove);
  connect(store_, &ConversationStore::conversationAdded, this, &ConversationListModel::place);
  connect(store_, &ConversationStore::conversationChanged, this, &ConversationListModel::place);
  connect(store_, &ConversationStore::conversationDeleted, this, &ConversationListModel::place);
  connect(store_, &ConversationStore::conversationRestored, this, &ConversationListModel::place);
  reload();
}

ConversationListModel::~ConversationListModel() {
  // Quitting ends the undo window: the deletion the user asked for happens now rather than at the
  // next start.
  if (pendingDelete_) {
    try {
      store_->purgeConversation(pendingDelete_);
    } catch (const StorageError& e) {
      qWarning("trit: a deleted conversation stays on disk until the next start: %s", e.what());
    }
  }
}

int ConversationListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant ConversationListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const Conversation& c = rows_.at(index.row());
  switch (role) {
    case IdRole:
      return QVariant::fromValue<qint64>(c.id);
    case TitleRole:
      return c.title;
    case Qt::DisplayRole:
    case DisplayTitleRole:
      return c.title.isEmpty() ? tr("New conversation") : c.title;
    case CreatedRole:
      return QDateTime::fromMSecsSinceEpoch(c.createdMs);
    case UpdatedRole:
      return QDateTime::fromMSecsSinceEpoch(c.updatedMs);
    case PinnedRole:
      return c.pinned;
    case ModelRole:
      return c.model;
    default:
      return {};
  }
}

QHash<int, QByteArray> ConversationListModel::roleNames() const {
  return {{IdRole, "conversationId"}, {TitleRole, "title"},     {DisplayTitleRole, "displayTitle"},
          {CreatedRole, "created"},   {UpdatedRole, "updated"}, {PinnedRole, "pinned"},
          {ModelRole, "model"}};
}

bool ConversationListModel::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && !complete_;
}

void ConversationListModel::fetchMore(const QModelIndex& parent) {
  if (parent.isValid() || complete_) return;
  QList<Conversation> page;
  try {
    page = rows_.isEmpty() ? store_->listConversations(kPageSize)
                           : store_->listConversationsAfter(rows_.last(), kPageSize);
  } catch (const StorageError& e) {
    setError(e.message());
    complete_ = true;  // do not retry in a loop; reload() tries again
    return;
  }
  complete_ = page.size() < kPageSize;
  if (page.isEmpty()) return;
  beginInsertRows({}, count(), count() + static_cast<int>(page.size()) - 1);
  rows_.append(page);
  endInsertRows();
  emit countChanged();
}

void ConversationListModel::reload() {
  beginResetModel();
  rows_.clear();
  complete_ = false;
  endResetModel();
  fetchMore({});
  emit countChanged();
}

int ConversationListModel::indexOfId(qint64 id) const {
  for (int i = 0; i < rows_.size(); ++i)
    if (rows_[i].id == id) return i;
  return -1;
}

qint64 ConversationListModel::idAt(int row) const {
  return row >= 0 && row < count() ? rows_[row].id : 0;
}

void ConversationListModel::removeRow(int row) {
  beginRemoveRows({}, row, row);
  rows_.removeAt(row);
  endRemoveRows();
  emit countChanged();
}

void ConversationListModel::place(qint64 id) {
  std::optional<Conversation> current;
  try {
    current = store_->conversation(id);
  } catch (const StorageError& e) {
    setError(e.message());
    return;
  }
  const int old = indexOfId(id);
  if (!current) {  // deleted
    if (old >= 0) removeRow(old);
    return;
  }
  // Where it goes among the other rows (the list without it).
  int target = 0;
  for (int i = 0; i < rows_.size(); ++i) {
    if (i == old) continue;
    if (ConversationStore::listsBefore(rows_[i], *current)) ++target;
  }
  const int others = static_cast<int>(rows_.size()) - (old >= 0 ? 1 : 0);
  if (target == others && !complete_) {
    // It belongs after the loaded rows: the next fetchMore brings it.
    if (old >= 0) removeRow(old);
    return;
  }
  if (old < 0) {
    beginInsertRows({}, target, target);
    rows_.insert(target, *current);
    endInsertRows();
    emit countChanged();
    return;
  }
  if (target != old) {
    // beginMoveRows counts the destination in the list before the move.
    beginMoveRows({}, old, old, {}, target > old ? target + 1 : target);
    rows_.move(old, target);
    endMoveRows();
  }
  rows_[target] = *current;
  emit dataChanged(index(target), index(target));
}

void ConversationListModel::setError(const QString& error) {
  if (error_ == error) return;
  error_ = error;
  emit errorStringChanged();
}

bool ConversationListModel::guarded(const std::function<void()>& action) {
  try {
    action();
    setError({});
    return true;
  } catch (const StorageError& e) {
    setError(e.message());
    return false;
  }
}

qint64 ConversationListModel::createConversation() {
  qint64 id = 0;
  guarded([&] { id = store_->createConversation(); });
  return id;
}

bool ConversationListModel::rename(qint64 id, const QString& title) {
  return guarded([&] { store_->renameConversation(id, title); });
}

bool ConversationListModel::setPinned(qint64 id, bool pinned) {
  return guarded([&] { store_->setPinned(id, pinned); });
}

bool ConversationListModel::remove(qint64 id) {
  commitRemove();  // one undo at a time: a second delete makes the first final
  const int row = indexOfId(id);
  const QString title = row >= 0 ? data(index(row), DisplayTitleRole).toString() : QString();
  if (!guarded([&] { store_->deleteConversation(id); })) return false;
  pendingDelete_ = id;
  pendingTitle_ = title;
  undoTimer_.start();
  emit undoChanged();
  return true;
}

bool ConversationListModel::undoRemove() {
  if (!pendingDelete_) {
    setError(tr("There is no deleted conversation to bring back."));
    return false;
  }
  const qint64 id = pendingDelete_;
  undoTimer_.stop();
  pendingDelete_ = 0;
  pendingTitle_.clear();
  emit undoChanged();
  return guarded([&] { store_->restoreConversation(id); });
}

void ConversationListModel::commitRemove() {
  undoTimer_.stop();
  if (!pendingDelete_) return;
  const qint64 id = pendingDelete_;
  pendingDelete_ = 0;
  pendingTitle_.clear();
  emit undoChanged();
  // If this fails the row stays soft-deleted and the next start purges it.
  guarded([&] { store_->purgeConversation(id); });
}

}  // namespace trit::storage
