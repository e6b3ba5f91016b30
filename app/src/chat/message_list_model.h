#pragma once
// The messages of the conversation on screen, for the chat view's ListView. Each assistant reply keeps
// its blocks (SegmentListModel), its statistics and its speed history; each message keeps the exact
// token ids it contributed to the prompt, so the next prompt repeats them and the engine reuses the
// cached prefix instead of processing the conversation again.
#include <QAbstractListModel>
#include <QVariantMap>
#include <cstdint>
#include <vector>

#include "chat/segment_list_model.h"

namespace trit::chat {

struct ChatMessage {
  QString role;  // "user" or "assistant"
  QString text;
  bool streaming = false;
  QString finishReason;       // assistant: "stop", "length", "cancelled", "context_full", "error"; "" while streaming
  QString errorText;          // assistant: why the reply failed, for the user
  QVariantMap stats;          // assistant: promptTokens, reusedTokens, generatedTokens, ttftMs, promptTokensPerSecond,
                              // generationTokensPerSecond
  QVariantList speedHistory;  // assistant: smoothed tokens/s sampled while it streamed (the sparkline)
  std::vector<int32_t> tokens;           // assistant: the sampled ids, reused verbatim in the next prompt
  SegmentListModel* segments = nullptr;  // owned by the model
  // Where it is kept (0: not saved, e.g. the database could not be opened) and which of its versions
  // (edits, regenerations) this is: the bubble pages through them.
  qint64 messageId = 0;
  int variantIndex = 0;
  int variantCount = 1;
};

class MessageListModel : public QAbstractListModel {
  Q_OBJECT
  Q_PROPERTY(int count READ count NOTIFY countChanged)

 public:
  enum Roles {
    RoleRole = Qt::UserRole + 1,
    TextRole,
    SegmentsRole,
    StreamingRole,
    FinishReasonRole,
    ErrorTextRole,
    StatsRole,
    SpeedHistoryRole,
    MessageIdRole,
    VariantIndexRole,  // 0-based version shown
    VariantCountRole,  // how many versions there are
  };

  explicit MessageListModel(QObject* parent = nullptr);
  ~MessageListModel() override;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QHash<int, QByteArray> roleNames() const override;
  int count() const { return static_cast<int>(messages_.size()); }

  const ChatMessage& at(int row) const { return messages_[row]; }
  int append(const QString& role, const QString& text, bool streaming = false);
  void appendText(int row, QStringView text);  // streaming: only the new text
  void setText(int row, const QString& text);  // replaces (an edit, or the engine's final text)
  void finish(int row, const QString& reason, const QVariantMap& stats, std::vector<int32_t> tokens,
              const QString& errorText = {});
  void setSpeedHistory(int row, const QVariantList& history);
  void setIdentity(int row, qint64 messageId, int variantIndex, int variantCount);
  // Replaces row `row` and everything after it with `messages` (a reloaded conversation, or the thread
  // below another version); segments are made here.
  void replaceFrom(int row, QList<ChatMessage> messages);
  void removeFrom(int row);  // removes row and everything after it
  void removeFirst(int n);   // drops the oldest n messages
  void clear();

  // For QML: a row's role and text (delegates outside the view, tests).
  Q_INVOKABLE QVariantMap get(int row) const;

 signals:
  void countChanged();

 private:
  void changed(int row, const QList<int>& roles);
  QList<ChatMessage> messages_;
};

}  // namespace trit::chat
