#pragma once
// Full-text search results for the sidebar's search field: one row per matching message, newest
// first, with the matching passage highlighted. Setting `query` searches at once (the store answers
// in milliseconds, see docs/storage.md); deleting or restoring a conversation refreshes the results.
#include <QAbstractListModel>

#include "storage/conversation_store.h"

namespace trit::storage {

class ConversationSearchModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(QString query READ query WRITE setQuery NOTIFY queryChanged)
  Q_PROPERTY(int count READ count NOTIFY countChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

 public:
  enum Roles {
    ConversationIdRole = Qt::UserRole + 1,
    ConversationTitleRole,
    MessageIdRole,
    MessageRoleRole,   // "user", "assistant", "system"
    CreatedRole,       // QDateTime
    SnippetRole,       // HTML: escaped text, matches in <b>..</b> (Text.StyledText)
    SnippetPlainRole,  // plain text, matches between [ and ]
  };
  static constexpr int kMaxResults = 50;

  explicit ConversationSearchModel(ConversationStore* store, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;

  QString query() const { return query_; }
  void setQuery(const QString& query);
  int count() const { return static_cast<int>(hits_.size()); }
  QString errorString() const { return error_; }
  Q_INVOKABLE void refresh();

 signals:
  void queryChanged();
  void countChanged();
  void errorStringChanged();

 private:
  ConversationStore* store_;
  QString query_;
  QList<SearchHit> hits_;
  QString error_;
};

}  // namespace trit::storage
