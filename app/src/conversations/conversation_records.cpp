#include "conversations/conversation_records.h"

#include <QCoreApplication>

namespace trit::chat {

QJsonObject samplingJson(const SamplingParams& s, int maxTokens) {
  return {{QStringLiteral("temperature"), double(s.temperature)},
          {QStringLiteral("top_k"), s.top_k},
          {QStringLiteral("top_p"), double(s.top_p)},
          {QStringLiteral("min_p"), double(s.min_p)},
          {QStringLiteral("repeat_penalty"), double(s.repeat_penalty)},
          {QStringLiteral("repeat_last_n"), s.repeat_last_n},
          {QStringLiteral("max_tokens"), maxTokens}};
}

storage::ReplyStats replyStats(const GenerationStats& s) {
  storage::ReplyStats r;
  r.promptTokens = s.prompt_tokens;
  r.generatedTokens = s.generated_tokens;
  r.promptTokensPerSecond = s.prompt_tokens_per_s();
  r.generationTokensPerSecond = s.generation_tokens_per_s();
  r.timeToFirstTokenMs = s.ttft_ms;
  return r;
}

storage::FinishReason storedFinishReason(trit::FinishReason reason) {
  switch (reason) {
    case trit::FinishReason::Stop:
      return storage::FinishReason::Stop;
    case trit::FinishReason::Length:
      return storage::FinishReason::Length;
    case trit::FinishReason::Cancelled:
      return storage::FinishReason::Cancelled;
    case trit::FinishReason::ContextFull:
      return storage::FinishReason::Length;
  }
  return storage::FinishReason::Error;
}

QVariantMap statsMap(const GenerationStats& s) {
  return {{QStringLiteral("promptTokens"), s.prompt_tokens},
          {QStringLiteral("reusedTokens"), s.reused_tokens},
          {QStringLiteral("generatedTokens"), s.generated_tokens},
          {QStringLiteral("ttftMs"), s.ttft_ms},
          {QStringLiteral("prefillMs"), s.prefill_ms},
          {QStringLiteral("decodeMs"), s.decode_ms},
          {QStringLiteral("promptTokensPerSecond"), s.prompt_tokens_per_s()},
          {QStringLiteral("generationTokensPerSecond"), s.generation_tokens_per_s()}};
}

QVariantMap statsMap(const storage::ReplyStats& s) {
  // What the store keeps: no cache reuse or phase times (they describe one run, not the message).
  return {{QStringLiteral("promptTokens"), qint64(s.promptTokens)},
          {QStringLiteral("reusedTokens"), 0},
          {QStringLiteral("generatedTokens"), qint64(s.generatedTokens)},
          {QStringLiteral("ttftMs"), s.timeToFirstTokenMs},
          {QStringLiteral("promptTokensPerSecond"), s.promptTokensPerSecond},
          {QStringLiteral("generationTokensPerSecond"), s.generationTokensPerSecond}};
}

ChatMessage chatMessage(const storage::ThreadMessage& stored) {
  const storage::Message& m = stored.message;
  ChatMessage c;
  c.role = storage::roleName(m.role);
  c.text = m.text;
  c.messageId = m.id;
  c.variantIndex = m.variantIndex;
  c.variantCount = stored.variantCount;
  if (m.role == storage::Role::Assistant) {
    // A reply another process is still writing (or one left by a crash, before the next open marks it)
    // shows as interrupted rather than as a reply that never ends.
    const auto finish = m.finish.value_or(storage::FinishReason::Interrupted);
    c.finishReason =
        finish == storage::FinishReason::Streaming ? QStringLiteral("interrupted") : storage::finishReasonName(finish);
    if (m.stats) c.stats = statsMap(*m.stats);
    // The engine's message is not kept; the bubble still says the reply did not end normally.
    if (finish == storage::FinishReason::Error)
      c.errorText = QCoreApplication::translate("trit::chat::ChatController", "This reply ended with an error.");
  }
  return c;
}

}  // namespace trit::chat
