#include "chat/chat_prompt.h"

#include <stdexcept>
#include <trit/tokenizer.h>

namespace trit::chat {
namespace {

QString roleLabel(const QString& role) {
  if (role == QLatin1String("user")) return QStringLiteral("User: ");
  if (role == QLatin1String("assistant")) return QStringLiteral("Assistant: ");
  if (role == QLatin1String("system")) return QStringLiteral("System: ");
  throw std::invalid_argument("unknown chat role \"" + role.toStdString() + "\"");
}

void encodeText(const Tokenizer& tokenizer, const QString& text, std::vector<int32_t>& out) {
  const QByteArray utf8 = text.toUtf8();
  tokenizer.encode_append(std::string_view(utf8.constData(), static_cast<size_t>(utf8.size())), false, out);
}

}  // namespace

std::vector<int32_t> buildChatPrompt(const Tokenizer& tokenizer, const QString& systemPrompt,
                                     const QList<ChatTurn>& turns) {
  // The end of a turn is <|eot_id|> where the vocabulary has it (2B4T does), else end-of-text.
  const int32_t endOfTurn = tokenizer.eot() >= 0 ? tokenizer.eot() : tokenizer.eos();
  if (endOfTurn < 0)
    throw std::runtime_error("the model's vocabulary has neither <|eot_id|> nor an end-of-text token, "
                             "so a chat turn cannot be ended");
  std::vector<int32_t> ids;
  if (tokenizer.bos() >= 0) ids.push_back(tokenizer.bos());
  if (!systemPrompt.trimmed().isEmpty()) {
    encodeText(tokenizer, roleLabel(QStringLiteral("system")) + systemPrompt, ids);
    ids.push_back(endOfTurn);
  }
  for (const auto& turn : turns) {
    if (turn.role == QLatin1String("assistant") && !turn.tokens.empty()) {
      encodeText(tokenizer, roleLabel(turn.role), ids);
      for (int32_t t : turn.tokens)
        if (!tokenizer.is_end_of_turn(t)) ids.push_back(t);  // a reply's own end token is written once below
    } else {
      encodeText(tokenizer, roleLabel(turn.role) + turn.text, ids);
    }
    ids.push_back(endOfTurn);
  }
  encodeText(tokenizer, roleLabel(QStringLiteral("assistant")), ids);
  return ids;
}

}  // namespace trit::chat
