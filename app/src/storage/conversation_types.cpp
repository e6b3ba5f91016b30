#include "storage/conversation_types.h"

namespace trit::storage {

QString roleName(Role role) {
  switch (role) {
    case Role::System:
      return QStringLiteral("system");
    case Role::User:
      return QStringLiteral("user");
    case Role::Assistant:
      return QStringLiteral("assistant");
  }
  return {};
}

std::optional<Role> roleFromName(const QString& name) {
  for (Role r : {Role::System, Role::User, Role::Assistant})
    if (roleName(r) == name) return r;
  return std::nullopt;
}

QString finishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::Streaming:
      return {};
    case FinishReason::Stop:
      return QStringLiteral("stop");
    case FinishReason::Length:
      return QStringLiteral("length");
    case FinishReason::Cancelled:
      return QStringLiteral("cancelled");
    case FinishReason::Error:
      return QStringLiteral("error");
    case FinishReason::Interrupted:
      return QStringLiteral("interrupted");
  }
  return {};
}

std::optional<FinishReason> finishReasonFromName(const QString& name) {
  for (FinishReason r : {FinishReason::Stop, FinishReason::Length, FinishReason::Cancelled, FinishReason::Error,
                         FinishReason::Interrupted})
    if (finishReasonName(r) == name) return r;
  return std::nullopt;
}

QString highlightSnippetPlain(const QString& snippet, const QString& open, const QString& close) {
  QString out = snippet;
  out.replace(kMatchStart, open);
  out.replace(kMatchEnd, close);
  return out;
}

QString highlightSnippetHtml(const QString& snippet) {
  // Escape first: the markers are private-use characters that toHtmlEscaped leaves alone.
  return highlightSnippetPlain(snippet.toHtmlEscaped(), QStringLiteral("<b>"), QStringLiteral("</b>"));
}

}  // namespace trit::storage
