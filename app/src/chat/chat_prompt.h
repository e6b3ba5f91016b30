#pragma once
// The BitNet b1.58 2B4T chat prompt as token ids (see shared/docs/bitnet-b158.md, "Chat prompt"):
//   <|begin_of_text|>System: {system}<|eot_id|>User: {user}<|eot_id|>Assistant: {reply}<|eot_id|>...Assistant: 
// Each message is encoded on its own (message text never contains special tokens: a user typing
// "<|eot_id|>" gets text, not a turn end), so a message's ids do not depend on what follows it and an
// unchanged beginning of a conversation gives an unchanged prefix of ids: the KV cache is reused.
#include <QList>
#include <QString>
#include <cstdint>
#include <vector>

#include "chat/engine_types.h"

namespace trit {
class Tokenizer;
}

namespace trit::chat {

// Throws TokenizerError (invalid UTF-8 cannot come from a QString) or std::runtime_error when the
// vocabulary lacks the end-of-turn token the template needs.
std::vector<int32_t> buildChatPrompt(const Tokenizer& tokenizer, const QString& systemPrompt,
                                     const QList<ChatTurn>& turns);

}  // namespace trit::chat
