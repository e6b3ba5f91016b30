// The 2B4T chat template, rendered straight to token ids.
#include <string>

#include "trit/chat.h"

namespace trit {

std::string_view chat_role_name(ChatRole role) {
  switch (role) {
    case ChatRole::System: return "System";
    case ChatRole::User: return "User";
    case ChatRole::Assistant: return "Assistant";
  }
  return "User";  // unreachable for valid enum values
}

std::vector<int32_t> chat_prompt_ids(const Tokenizer& tokenizer, std::span<const ChatMessage> messages,
                                     bool add_generation_prompt) {
  if (tokenizer.bos() < 0) throw TokenizerError("the chat format needs <|begin_of_text|> but the vocabulary has no BOS");
  if (tokenizer.eot() < 0) throw TokenizerError("the chat format needs <|eot_id|> but the vocabulary has no EOT or EOS");
  std::vector<int32_t> ids{tokenizer.bos()};
  std::string text;
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    // Checked before the "Role: " prefix is added, so the offset is one in what the user wrote.
    if (auto bad = find_invalid_utf8(m.content))
      throw TokenizerError("chat message " + std::to_string(i) + " (" + std::string(chat_role_name(m.role)) +
                           ") is not valid UTF-8 at byte " + std::to_string(*bad) + " of its " +
                           std::to_string(m.content.size()) + " bytes");
    text.assign(chat_role_name(m.role));
    text += ": ";
    text += m.content;
    try {
      tokenizer.encode_append(text, /*allow_special=*/false, ids);
    } catch (const TokenizerError& e) {
      throw TokenizerError("chat message " + std::to_string(i) + " (" + std::string(chat_role_name(m.role)) +
                           "): " + e.what());
    }
    ids.push_back(tokenizer.eot());
  }
  if (add_generation_prompt) tokenizer.encode_append("Assistant: ", false, ids);
  return ids;
}

std::string chat_prompt_text(std::span<const ChatMessage> messages, bool add_generation_prompt) {
  std::string text = "<|begin_of_text|>";
  for (const ChatMessage& m : messages) {
    text += chat_role_name(m.role);
    text += ": ";
    text += m.content;
    text += "<|eot_id|>";
  }
  if (add_generation_prompt) text += "Assistant: ";
  return text;
}

}  // namespace trit
