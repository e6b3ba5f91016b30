#pragma once
// Plain values the conversation store reads and writes. Times are milliseconds since the Unix epoch
// (UTC), the resolution the export format keeps, so a round trip is exact.
#include <QJsonObject>
#include <QList>
#include <QString>
#include <cstdint>
#include <optional>

namespace trit::storage {

enum class Role { System, User, Assistant };
// Streaming: a reply still being written (finish_reason NULL in the database).
enum class FinishReason { Streaming, Stop, Length, Cancelled, Error, Interrupted };

QString roleName(Role role);
std::optional<Role> roleFromName(const QString& name);
QString finishReasonName(FinishReason reason);  // "" for Streaming
std::optional<FinishReason> finishReasonFromName(const QString& name);

struct ReplyStats {
  std::int64_t promptTokens = 0;
  std::int64_t generatedTokens = 0;
  double promptTokensPerSecond = 0;
  double generationTokensPerSecond = 0;
  double timeToFirstTokenMs = 0;
  bool operator==(const ReplyStats&) const = default;
};

struct Conversation {
  std::int64_t id = 0;
  QString title;
  std::int64_t createdMs = 0;
  std::int64_t updatedMs = 0;
  bool pinned = false;
  QString systemPrompt;
  QString model;
  QJsonObject sampling;  // sampler settings as the chat session uses them (temperature, top_p, ...)
};

struct Message {
  std::int64_t id = 0;
  std::int64_t conversationId = 0;
  std::int64_t parentId = 0;  // 0: the first message of the conversation
  int position = 0;           // depth in the thread: 0 for the first message
  int variantIndex = 0;       // order among alternatives (siblings under the same parent)
  bool selected = true;       // the alternative shown
  Role role = Role::User;
  QString text;
  std::int64_t createdMs = 0;
  std::optional<ReplyStats> stats;     // replies only, once known
  std::optional<FinishReason> finish;  // replies only
};

// One message of the shown thread, with how many alternatives it has.
struct ThreadMessage {
  Message message;
  int variantCount = 1;
};

struct SearchHit {
  std::int64_t conversationId = 0;
  QString conversationTitle;
  std::int64_t messageId = 0;
  Role role = Role::User;
  std::int64_t createdMs = 0;
  // The matching passage with each match between kMatchStart and kMatchEnd (private-use characters, so
  // user text can never fake a marker); see highlightSnippetHtml().
  QString snippet;
};

inline constexpr QChar kMatchStart{0xE000};
inline constexpr QChar kMatchEnd{0xE001};

// The snippet as HTML-escaped rich text with matches in <b>..</b>, for a QML Text with StyledText.
QString highlightSnippetHtml(const QString& snippet);
// The snippet with matches between the given plain markers (the headless list uses [ and ]).
QString highlightSnippetPlain(const QString& snippet, const QString& open, const QString& close);

}  // namespace trit::storage
