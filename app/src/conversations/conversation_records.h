#pragma once
// Conversions between what the chat shows and sends (ChatMessage, the engine's statistics and
// sampler settings) and what the conversation store keeps (storage::Message, ReplyStats, JSON).
#include <QJsonObject>
#include <QVariantMap>

#include <trit/sampler.h>
#include <trit/session.h>

#include "chat/message_list_model.h"
#include "storage/conversation_types.h"

namespace trit::chat {

// The sampler settings and reply length a conversation was continued with, as stored with it.
QJsonObject samplingJson(const SamplingParams& sampling, int maxTokens);

storage::ReplyStats replyStats(const GenerationStats& stats);
// A full context is stored as "length": the reply was cut by a length limit (the context's).
storage::FinishReason storedFinishReason(trit::FinishReason reason);

// The statistics as the chat's message model and MessageStats.qml show them.
QVariantMap statsMap(const GenerationStats& stats);
QVariantMap statsMap(const storage::ReplyStats& stats);

// A stored message of the shown thread as a chat row (without segments: the model makes them).
ChatMessage chatMessage(const storage::ThreadMessage& stored);

}  // namespace trit::chat
