#include "chat/chat_messages.h"

#include <stdexcept>

namespace trit::chat {

std::vector<trit::ChatMessage> chatMessages(const QString& systemPrompt, const QList<ChatTurn>& turns) {
  std::vector<trit::ChatMessage> messages;
  messages.reserve(static_cast<size_t>(turns.size()) + 1);
  messages.push_back({ChatRole::System, systemPrompt.toStdString()});
  for (const auto& turn : turns) {
    ChatRole role;
    if (turn.role == QLatin1String("user"))
      role = ChatRole::User;
    else if (turn.role == QLatin1String("assistant"))
      role = ChatRole::Assistant;
    else
      throw std::invalid_argument("unknown chat role \"" + turn.role.toStdString() + "\"");
    messages.push_back(
        {role, turn.text.toStdString(), role == ChatRole::Assistant ? turn.tokens : std::vector<int32_t>{}});
  }
  return messages;
}

std::vector<int32_t> promptIds(const std::optional<ChatFormat>& format, const Tokenizer& tokenizer,
                               const QString& systemPrompt, const QList<ChatTurn>& turns) {
  const auto messages = chatMessages(systemPrompt, turns);
  return format ? format->render(messages) : completion_prompt(tokenizer, messages);
}

}  // namespace trit::chat
