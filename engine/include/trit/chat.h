#pragma once
// The chat prompt format of BitNet b1.58 2B4T (its tokenizer_config.json template; the template stored in
// the published GGUF is a broken placeholder, so it is not read):
//   <|begin_of_text|>System: {system}<|eot_id|>User: {user}<|eot_id|>Assistant: {reply}<|eot_id|>User: ...<|eot_id|>Assistant: 
// Special tokens are inserted as ids; message text is encoded with special tokens NOT allowed, so a user
// who types "<|eot_id|>" gets those characters, never an end of turn. Each "{Role}: {content}" is encoded
// as one piece of text, exactly as a Hugging Face tokenizer encodes the rendered template.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trit/tokenizer.h"

namespace trit {

enum class ChatRole { System, User, Assistant };

struct ChatMessage {
  ChatRole role;
  std::string content;
};

// "System", "User", "Assistant".
std::string_view chat_role_name(ChatRole role);

// Token ids of the conversation: BOS, each message as "{Role}: {content}" then EOT, and, if
// add_generation_prompt, "Assistant: " for the model to continue. Throws TokenizerError when the
// vocabulary lacks BOS or EOT, or a message is not valid UTF-8.
std::vector<int32_t> chat_prompt_ids(const Tokenizer& tokenizer, std::span<const ChatMessage> messages,
                                     bool add_generation_prompt = true);

// The same prompt as text, special tokens spelled out (for logs and `trit-cli` display). Encoding this
// text with allow_special = true gives chat_prompt_ids only where no message contains special-token text.
std::string chat_prompt_text(std::span<const ChatMessage> messages, bool add_generation_prompt = true);

}  // namespace trit
