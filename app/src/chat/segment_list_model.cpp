#include "chat/segment_list_model.h"

#include "ui/markdown_sanitizer.h"

namespace trit::chat {

SegmentListModel::SegmentListModel(QObject* parent) : QAbstractListModel(parent) {}

int SegmentListModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(segments_.size());
}

QVariant SegmentListModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= segments_.size()) return {};
  const auto& s = segments_[index.row()];
  switch (role) {
    case KindRole:
      return s.kind == ui::MarkdownSegment::Kind::Code ? QStringLiteral("code") : QStringLiteral("prose");
    case MarkdownRole:
      return sanitized_[index.row()];
    case SourceRole:
      return s.text;
    case LanguageRole:
      return s.language;
    default:
      return {};
  }
}

QHash<int, QByteArray> SegmentListModel::roleNames() const {
  return {{KindRole, "kind"}, {MarkdownRole, "markdown"}, {SourceRole, "source"}, {LanguageRole, "language"}};
}

void SegmentListModel::append(QStringView text) {
  if (text.isEmpty()) return;
  sync(segmenter_.append(text));
}

void SegmentListModel::setText(QStringView text) {
  segmenter_.clear();
  beginResetModel();
  segments_.clear();
  sanitized_.clear();
  endResetModel();
  segmenter_.append(text);
  sync(segmenter_.finish());
  emit countChanged();
}

void SegmentListModel::finish() {
  sync(segmenter_.finish());
}

// Tells the views about rows from firstDirty on: changed rows get dataChanged, new rows are inserted,
// rows that disappeared (an unfinished line that became a code fence) are removed.
void SegmentListModel::sync(qsizetype firstDirty) {
  const auto& now = segmenter_.segments();
  const qsizetype before = segments_.size();
  const qsizetype common = std::min(before, now.size());
  for (qsizetype i = firstDirty; i < common; ++i) {
    if (segments_[i] == now[i]) continue;
    const bool kindChanged = segments_[i].kind != now[i].kind;
    segments_[i] = now[i];
    sanitized_[i] = now[i].kind == ui::MarkdownSegment::Kind::Prose ? ui::sanitizeMarkdown(now[i].text) : QString();
    const QModelIndex at = index(static_cast<int>(i));
    if (kindChanged)
      emit dataChanged(at, at);
    else
      emit dataChanged(at, at, {MarkdownRole, SourceRole, LanguageRole});
  }
  if (now.size() > before) {
    beginInsertRows({}, static_cast<int>(before), static_cast<int>(now.size() - 1));
    for (qsizetype i = before; i < now.size(); ++i) {
      segments_.append(now[i]);
      sanitized_.append(now[i].kind == ui::MarkdownSegment::Kind::Prose ? ui::sanitizeMarkdown(now[i].text)
                                                                        : QString());
    }
    endInsertRows();
    emit countChanged();
  } else if (now.size() < before) {
    beginRemoveRows({}, static_cast<int>(now.size()), static_cast<int>(before - 1));
    segments_.resize(now.size());
    sanitized_.resize(now.size());
    endRemoveRows();
    emit countChanged();
  }
}

}  // namespace trit::chat
