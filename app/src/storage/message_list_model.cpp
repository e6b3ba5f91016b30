#include "storage/message_list_model.h"

#include <QDateTime>

namespace trit::storage {

MessageListModel::MessageListModel(ConversationStore* store, QObject* parent)
    : QAbstractListModel(parent), store_(store) {
  connect(store_, &ConversationStore::threadChanged, this, &MessageListModel::onThreadChanged);
  connect(store_, &ConversationStore::messageTextChanged, this, &MessageListModel::onMessageTextChanged);
  connect(store_, &ConversationStore::conversationDeleted, this, [this](qint64 id) {
    if (id == conversationId_) reload();  // the chat view empties; undo brings it back
  });
  connect(store_, &ConversationStore::conversationRestored, this, [this](qint64 id) {
    if (id == conversationId_) reload();
  });
}

int MessageListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const ThreadMessage& tm = rows_.at(index.row());
  const Message& m = tm.message;
  const ReplyStats stats = m.stats.value_or(ReplyStats{});
  switch (role) {
    case MessageIdRole: return QVariant::fromValue<qint64>(m.id);
    case ParentIdRole: return QVariant::fromValue<qint64>(m.parentId);
    case RoleRole: return roleName(m.role);
    case Qt::DisplayRole:
    case TextRole: return m.text;
    case CreatedRole: return QDateTime::fromMSecsSinceEpoch(m.createdMs);
    case VariantIndexRole: return m.variantIndex;
    case VariantCountRole: return tm.variantCount;
    case FinishReasonRole: return m.finish ? finishReasonName(*m.finish) : QString();
    case StreamingRole: return m.finish == FinishReason::Streaming;
    case HasStatsRole: return m.stats.has_value();
    case PromptTokensRole: return QVariant::fromValue<qint64>(stats.promptTokens);
    case GeneratedTokensRole: return QVariant::fromValue<qint64>(stats.generatedTokens);
    case PromptTokensPerSecondRole: return stats.promptTokensPerSecond;
    case GenerationTokensPerSecondRole: return stats.generationTokensPerSecond;
    case TimeToFirstTokenMsRole: return stats.timeToFirstTokenMs;
    default: return {};
  }
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
  return {{MessageIdRole, "messageId"},
          {ParentIdRole, "parentId"},
          {RoleRole, "role"},
          {TextRole, "text"},
          {CreatedRole, "created"},
          {VariantIndexRole, "variantIndex"},
          {VariantCountRole, "variantCount"},
          {FinishReasonRole, "finishReason"},
          {StreamingRole, "streaming"},
          {HasStatsRole, "hasStats"},
          {PromptTokensRole, "promptTokens"},
          {GeneratedTokensRole, "generatedTokens"},
          {PromptTokensPerSecondRole, "promptTokensPerSecond"},
          {GenerationTokensPerSecondRole, "generationTokensPerSecond"},
          {TimeToFirstTokenMsRole, "timeToFirstTokenMs"}};
}

void MessageListModel::setConversationId(qint64 id) {
  if (id == conversationId_) return;
  conversationId_ = id;
  emit conversationIdChanged();
  reload();
}

void MessageListModel::setError(const QString& error) {
  if (error == error_) return;
  error_ = error;
  emit errorStringChanged();
}

void MessageListModel::reload() {
  beginResetModel();
  rows_.clear();
  endResetModel();
  onThreadChanged(conversationId_);
}

void MessageListModel::onThreadChanged(qint64 conversationId) {
  if (conversationId != conversationId_) return;
  QList<ThreadMessage> fresh;
  try {
    if (conversationId_ && store_->conversation(conversationId_)) fresh = store_->thread(conversationId_);
    setError({});
  } catch (const StorageError& e) {
    setError(e.message());
    return;
  }
  // Keep the rows that did not change (same message, same number of versions); replace the rest.
  int same = 0;
  while (same < rows_.size() && same < fresh.size() && rows_[same].message.id == fresh[same].message.id) ++same;
  if (same < rows_.size()) {
    beginRemoveRows({}, same, static_cast<int>(rows_.size()) - 1);
    rows_.erase(rows_.begin() + same, rows_.end());
    endRemoveRows();
  }
  for (int i = 0; i < same; ++i) {
    if (rows_[i].variantCount != fresh[i].variantCount || rows_[i].message.text != fresh[i].message.text ||
        rows_[i].message.finish != fresh[i].message.finish) {
      rows_[i] = fresh[i];
      emit dataChanged(index(i), index(i));
    }
  }
  if (same < fresh.size()) {
    beginInsertRows({}, same, static_cast<int>(fresh.size()) - 1);
    rows_.append(fresh.mid(same));
    endInsertRows();
  }
  emit countChanged();
}

void MessageListModel::onMessageTextChanged(qint64 conversationId, qint64 messageId) {
  if (conversationId != conversationId_) return;
  for (int i = 0; i < rows_.size(); ++i) {
    if (rows_[i].message.id != messageId) continue;
    try {
      if (const auto m = store_->message(messageId)) rows_[i].message = *m;
    } catch (const StorageError& e) {
      setError(e.message());
      return;
    }
    emit dataChanged(index(i), index(i));
    return;
  }
}

qint64 MessageListModel::appendMessage(const QString& role, const QString& text) {
  const auto parsed = roleFromName(role);
  if (!parsed) {
    setError(tr("Unknown message role \"%1\" (expected system, user or assistant).").arg(role));
    return 0;
  }
  if (!conversationId_) {
    setError(tr("No conversation is open."));
    return 0;
  }
  try {
    return store_->addMessage(conversationId_, lastMessageId(), *parsed, text);
  } catch (const StorageError& e) {
    setError(e.message());
    return 0;
  }
}

qint64 MessageListModel::editMessage(int row, const QString& text) {
  if (row < 0 || row >= count()) {
    setError(tr("There is no message %1 to edit.").arg(row));
    return 0;
  }
  try {
    return store_->addAlternative(rows_[row].message.id, text);
  } catch (const StorageError& e) {
    setError(e.message());
    return 0;
  }
}

bool MessageListModel::showVariant(int row, int variantIndex) {
  if (row < 0 || row >= count()) return false;
  try {
    const QList<Message> versions = store_->alternatives(rows_[row].message.id);
    for (const Message& m : versions) {
      if (m.variantIndex != variantIndex) continue;
      if (!m.selected) store_->selectAlternative(m.id);
      return true;
    }
  } catch (const StorageError& e) {
    setError(e.message());
  }
  return false;
}

bool MessageListModel::showNextVariant(int row) {
  if (row < 0 || row >= count()) return false;
  try {
    const QList<Message> versions = store_->alternatives(rows_[row].message.id);
    for (int i = 0; i + 1 < versions.size(); ++i)
      if (versions[i].id == rows_[row].message.id) return showVariant(row, versions[i + 1].variantIndex);
  } catch (const StorageError& e) {
    setError(e.message());
  }
  return false;
}

bool MessageListModel::showPreviousVariant(int row) {
  if (row < 0 || row >= count()) return false;
  try {
    const QList<Message> versions = store_->alternatives(rows_[row].message.id);
    for (int i = 1; i < versions.size(); ++i)
      if (versions[i].id == rows_[row].message.id) return showVariant(row, versions[i - 1].variantIndex);
  } catch (const StorageError& e) {
    setError(e.message());
  }
  return false;
}

}  // namespace trit::storage
