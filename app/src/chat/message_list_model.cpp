#include "chat/message_list_model.h"

#include <algorithm>

namespace trit::chat {

MessageListModel::MessageListModel(QObject* parent) : QAbstractListModel(parent) {}

MessageListModel::~MessageListModel() = default;  // segment models are children: deleted with us

int MessageListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(messages_.size());
}

QVariant MessageListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= messages_.size()) return {};
  const auto& m = messages_[index.row()];
  switch (role) {
    case RoleRole:
      return m.role;
    case TextRole:
      return m.text;
    case SegmentsRole:
      return QVariant::fromValue(static_cast<QObject*>(m.segments));
    case StreamingRole:
      return m.streaming;
    case FinishReasonRole:
      return m.finishReason;
    case ErrorTextRole:
      return m.errorText;
    case StatsRole:
      return m.stats;
    case SpeedHistoryRole:
      return m.speedHistory;
    case MessageIdRole:
      return m.messageId;
    case VariantIndexRole:
      return m.variantIndex;
    case VariantCountRole:
      return m.variantCount;
    default:
      return {};
  }
}

QHash<int, QByteArray> MessageListModel::roleNames() const {
  return {{RoleRole, "role"},
          {TextRole, "text"},
          {SegmentsRole, "segments"},
          {StreamingRole, "streaming"},
          {FinishReasonRole, "finishReason"},
          {ErrorTextRole, "errorText"},
          {StatsRole, "stats"},
          {SpeedHistoryRole, "speedHistory"},
          {MessageIdRole, "messageId"},
          {VariantIndexRole, "variantIndex"},
          {VariantCountRole, "variantCount"}};
}

int MessageListModel::append(const QString& role, const QString& text, bool streaming) {
  const int row = count();
  beginInsertRows({}, row, row);
  ChatMessage m;
  m.role = role;
  m.text = text;
  m.streaming = streaming;
  m.segments = new SegmentListModel(this);
  m.segments->setText(text);
  messages_.append(std::move(m));
  endInsertRows();
  emit countChanged();
  return row;
}

void MessageListModel::appendText(int row, QStringView text) {
  if (row < 0 || row >= count() || text.isEmpty()) return;
  auto& m = messages_[row];
  m.text += text;
  m.segments->append(text);
  changed(row, {TextRole});
}

void MessageListModel::setText(int row, const QString& text) {
  if (row < 0 || row >= count()) return;
  auto& m = messages_[row];
  if (m.text == text) return;
  m.text = text;
  m.segments->setText(text);
  changed(row, {TextRole});
}

void MessageListModel::finish(int row, const QString& reason, const QVariantMap& stats, std::vector<int32_t> tokens,
                              const QString& errorText) {
  if (row < 0 || row >= count()) return;
  auto& m = messages_[row];
  m.segments->finish();
  m.streaming = false;
  m.finishReason = reason;
  m.stats = stats;
  m.tokens = std::move(tokens);
  m.errorText = errorText;
  changed(row, {StreamingRole, FinishReasonRole, StatsRole, ErrorTextRole});
}

void MessageListModel::setSpeedHistory(int row, const QVariantList& history) {
  if (row < 0 || row >= count()) return;
  messages_[row].speedHistory = history;
  changed(row, {SpeedHistoryRole});
}

void MessageListModel::setIdentity(int row, qint64 messageId, int variantIndex, int variantCount) {
  if (row < 0 || row >= count()) return;
  auto& m = messages_[row];
  m.messageId = messageId;
  m.variantIndex = variantIndex;
  m.variantCount = variantCount;
  changed(row, {MessageIdRole, VariantIndexRole, VariantCountRole});
}

void MessageListModel::replaceFrom(int row, QList<ChatMessage> messages) {
  row = std::clamp(row, 0, count());
  removeFrom(row);
  if (messages.isEmpty()) return;
  beginInsertRows({}, row, row + static_cast<int>(messages.size()) - 1);
  for (auto& m : messages) {
    m.segments = new SegmentListModel(this);
    m.segments->setText(m.text);
    if (!m.streaming) m.segments->finish();
    messages_.append(std::move(m));
  }
  endInsertRows();
  emit countChanged();
}

void MessageListModel::removeFrom(int row) {
  if (row < 0 || row >= count()) return;
  beginRemoveRows({}, row, count() - 1);
  for (int i = row; i < count(); ++i) messages_[i].segments->deleteLater();
  messages_.resize(row);
  endRemoveRows();
  emit countChanged();
}

void MessageListModel::removeFirst(int n) {
  n = std::min(n, count());
  if (n <= 0) return;
  beginRemoveRows({}, 0, n - 1);
  for (int i = 0; i < n; ++i) messages_[i].segments->deleteLater();
  messages_.remove(0, n);
  endRemoveRows();
  emit countChanged();
}

void MessageListModel::clear() {
  removeFrom(0);
}

QVariantMap MessageListModel::get(int row) const {
  if (row < 0 || row >= count()) return {};
  const auto& m = messages_[row];
  return {{QStringLiteral("role"), m.role},
          {QStringLiteral("text"), m.text},
          {QStringLiteral("streaming"), m.streaming},
          {QStringLiteral("finishReason"), m.finishReason},
          {QStringLiteral("errorText"), m.errorText},
          {QStringLiteral("stats"), m.stats},
          {QStringLiteral("segmentCount"), m.segments->count()},
          {QStringLiteral("messageId"), m.messageId},
          {QStringLiteral("variantIndex"), m.variantIndex},
          {QStringLiteral("variantCount"), m.variantCount}};
}

void MessageListModel::changed(int row, const QList<int>& roles) {
  const QModelIndex at = index(row);
  emit dataChanged(at, at, roles);
}

}  // namespace trit::chat
