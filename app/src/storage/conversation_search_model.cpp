#include "storage/conversation_search_model.h"

#include <QDateTime>

namespace trit::storage {

ConversationSearchModel::ConversationSearchModel(ConversationStore* store, QObject* parent)
    : QAbstractListModel(parent), store_(store) {
  connect(store_, &ConversationStore::conversationDeleted, this, &ConversationSearchModel::refresh);
  connect(store_, &ConversationStore::conversationRestored, this, &ConversationSearchModel::refresh);
  connect(store_, &ConversationStore::conversationAdded, this, &ConversationSearchModel::refresh);
}

int ConversationSearchModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(hits_.size());
}

QVariant ConversationSearchModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid)) return {};
  const SearchHit& h = hits_.at(index.row());
  switch (role) {
    case ConversationIdRole:
      return QVariant::fromValue<qint64>(h.conversationId);
    case ConversationTitleRole:
      return h.conversationTitle;
    case MessageIdRole:
      return QVariant::fromValue<qint64>(h.messageId);
    case MessageRoleRole:
      return roleName(h.role);
    case CreatedRole:
      return QDateTime::fromMSecsSinceEpoch(h.createdMs);
    case SnippetRole:
      return highlightSnippetHtml(h.snippet);
    case Qt::DisplayRole:
    case SnippetPlainRole:
      return highlightSnippetPlain(h.snippet, QStringLiteral("["), QStringLiteral("]"));
    default:
      return {};
  }
}

QHash<int, QByteArray> ConversationSearchModel::roleNames() const {
  return {{ConversationIdRole, "conversationId"},
          {ConversationTitleRole, "conversationTitle"},
          {MessageIdRole, "messageId"},
          {MessageRoleRole, "messageRole"},
          {CreatedRole, "created"},
          {SnippetRole, "snippet"},
          {SnippetPlainRole, "snippetPlain"}};
}

void ConversationSearchModel::setQuery(const QString& query) {
  if (query == query_) return;
  query_ = query;
  emit queryChanged();
  refresh();
}

void ConversationSearchModel::refresh() {
  QList<SearchHit> hits;
  QString error;
  try {
    hits = store_->search(query_, kMaxResults);
  } catch (const StorageError& e) {
    error = e.message();
  }
  const bool countChanges = hits.size() != hits_.size();
  beginResetModel();  // results are a new answer to a new question: nothing to keep
  hits_ = hits;
  endResetModel();
  if (countChanges) emit countChanged();
  if (error != error_) {
    error_ = error;
    emit errorStringChanged();
  }
}

}  // namespace trit::storage
