#pragma once
// The blocks of one message (prose and code) as a list model for a Repeater inside the message bubble.
// Streaming text is appended through MarkdownSegmenter and only the rows that changed are signalled,
// so QML re-renders the last block rather than the whole reply.
#include <QAbstractListModel>

#include "ui/markdown_segmenter.h"

namespace trit::chat {

class SegmentListModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(int count READ count NOTIFY countChanged)

 public:
  enum Roles { KindRole = Qt::UserRole + 1, MarkdownRole, SourceRole, LanguageRole };

  explicit SegmentListModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;
  int count() const { return static_cast<int>(segments_.size()); }

  void append(QStringView text);
  void setText(QStringView text);  // replaces everything (a message loaded or edited)
  void finish();                   // the text is complete (see MarkdownSegmenter::finish)

 signals:
  void countChanged();

 private:
  void sync(qsizetype firstDirty);

  ui::MarkdownSegmenter segmenter_;
  QList<ui::MarkdownSegment> segments_;  // what the views were last told about
  QList<QString> sanitized_;             // prose rows: sanitised Markdown, computed once per change
};

}  // namespace trit::chat
