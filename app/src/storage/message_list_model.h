#pragma once
// The messages of one conversation for the chat view: the shown thread (one version of each message),
// with each message's alternatives to page through (edits and regenerations keep earlier versions).
// A streaming reply's row updates as the store writes it (every 250 ms); switching to another
// alternative replaces only the rows below the switch.
#include <QAbstractListModel>

#include "storage/conversation_store.h"

namespace trit::storage {

class MessageListModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(qint64 conversationId READ conversationId WRITE setConversationId NOTIFY conversationIdChanged)
  Q_PROPERTY(int count READ count NOTIFY countChanged)
  Q_PROPERTY(QString errorString READ errorString NOTIFY errorStringChanged)

 public:
  enum Roles {
    MessageIdRole = Qt::UserRole + 1,
    ParentIdRole,
    RoleRole,  // "system", "user", "assistant"
    TextRole,
    CreatedRole,  // QDateTime
    VariantIndexRole,  // 0-based version shown
    VariantCountRole,  // how many versions there are
    FinishReasonRole,  // "stop", "length", "cancelled", "error", "interrupted"; "" while streaming or not a reply
    StreamingRole,
    HasStatsRole,
    PromptTokensRole,
    GeneratedTokensRole,
    PromptTokensPerSecondRole,
    GenerationTokensPerSecondRole,
    TimeToFirstTokenMsRole,
  };

  explicit MessageListModel(ConversationStore* store, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QHash<int, QByteArray> roleNames() const override;

  qint64 conversationId() const { return conversationId_; }
  void setConversationId(qint64 id);
  int count() const { return static_cast<int>(rows_.size()); }
  QString errorString() const { return error_; }

  Q_INVOKABLE qint64 lastMessageId() const { return rows_.isEmpty() ? 0 : rows_.last().message.id; }
  // Adds a message at the end of the shown thread; returns its id, 0 on failure (see errorString).
  Q_INVOKABLE qint64 appendMessage(const QString& role, const QString& text);
  // An edit of the message in `row`: a new version beside it, shown; the old one is kept.
  Q_INVOKABLE qint64 editMessage(int row, const QString& text);
  // Shows version `variantIndex` (0-based) of the message in `row`; false if there is no such version.
  Q_INVOKABLE bool showVariant(int row, int variantIndex);
  Q_INVOKABLE bool showNextVariant(int row);
  Q_INVOKABLE bool showPreviousVariant(int row);
  Q_INVOKABLE void reload();

 signals:
  void conversationIdChanged();
  void countChanged();
  void errorStringChanged();

 private:
  void onThreadChanged(qint64 conversationId);
  void onMessageTextChanged(qint64 conversationId, qint64 messageId);
  void setError(const QString& error);

  ConversationStore* store_;
  qint64 conversationId_ = 0;
  QList<ThreadMessage> rows_;
  QString error_;
};

}  // namespace trit::storage
