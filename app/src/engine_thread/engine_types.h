#pragma once
// Values passed between the UI thread and the engine thread (by queued signals, so they are copied).
#include <QList>
#include <QMetaType>
#include <QString>
#include <cstdint>
#include <vector>

#include <trit/sampler.h>
#include <trit/session.h>

namespace trit::chat {

struct LoadRequest {
  QString path;
  QString backend = QStringLiteral("vulkan");  // "vulkan" or "cpu"
  int device = -1;                             // Vulkan device index, -1: the engine's choice
  int context = 0;                             // 0: the model's trained context length
};

struct ModelInfo {
  QString path;
  QString name;  // general.name, else the file name
  QString architecture;
  QString backend;
  QString deviceName;  // "llvmpipe (LLVM 15.0.6, 256 bits)", "CPU"
  QString memoryText;  // what the device's memory holds, for the status bar
  qint64 fileBytes = 0;
  int contextLength = 0;
  int layers = 0;
  int dim = 0;
  int vocab = 0;
  QString chatFormat;  // "2B4T", "Llama 3 Instruct", ...; empty for a base model (plain completion)
};

// One message as the prompt needs it. Assistant replies carry their sampled token ids so the next
// prompt repeats them exactly (re-encoding the text could tokenise differently and lose the cached prefix).
struct ChatTurn {
  QString role;  // "user" or "assistant"
  QString text;
  std::vector<int32_t> tokens;
};

struct GenerateRequest {
  std::uint64_t id = 0;
  QString systemPrompt;
  QList<ChatTurn> turns;  // ends with the user message to answer
  SamplingParams sampling;
  int maxTokens = 2048;
};

struct ReplyOutcome {
  std::uint64_t id = 0;
  QString text;
  std::vector<int32_t> tokens;
  FinishReason reason = FinishReason::Stop;
  GenerationStats stats;
  int cachedTokens = 0;  // tokens in the KV cache afterwards
  int contextLength = 0;
  // The prompt alone was longer than the context (reason ContextFull, no reply): stats.prompt_tokens
  // holds its length, and nothing of it was processed.
  bool promptTooLong = false;
};

}  // namespace trit::chat

Q_DECLARE_METATYPE(trit::chat::LoadRequest)
Q_DECLARE_METATYPE(trit::chat::ModelInfo)
Q_DECLARE_METATYPE(trit::chat::GenerateRequest)
Q_DECLARE_METATYPE(trit::chat::ReplyOutcome)
