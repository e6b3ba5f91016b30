#pragma once
// The conversation the UI holds, as the engine's chat component (trit/chat.h) takes it, and the prompt
// ids for the loaded model: its chat format, or plain completion for a base model. The format itself
// lives only in the engine.
#include <trit/chat.h>
#include <QList>
#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine_thread/engine_types.h"

namespace trit::chat {

// The system prompt (as a system message) then the turns; a reply keeps its sampled ids. (The engine's
// trit::ChatMessage, named in full: trit::chat::ChatMessage is the UI's row.) Throws
// std::invalid_argument for a role other than "user" or "assistant".
std::vector<trit::ChatMessage> chatMessages(const QString& systemPrompt, const QList<ChatTurn>& turns);

// The prompt for the model: rendered in its chat format, or for a base model (no format) the text
// continued. Throws TokenizerError as the engine does.
std::vector<int32_t> promptIds(const std::optional<ChatFormat>& format, const Tokenizer& tokenizer,
                               const QString& systemPrompt, const QList<ChatTurn>& turns);

}  // namespace trit::chat
