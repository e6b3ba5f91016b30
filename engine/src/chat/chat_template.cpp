// Which chat format a model uses: its architecture, then its tokenizer.chat_template recognised by content.
#include <string>

#include "trit/chat.h"
#include "trit/gguf.h"
#include "trit/model.h"

namespace trit {
namespace {

bool has(std::string_view text, std::string_view piece) {
  return text.find(piece) != std::string_view::npos;
}

// The text with every space, tab and line break removed: templates differ in how they lay out their
// Jinja ("{%- if" or "{% if", one line or many), never in these pieces.
std::string squeezed(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out += c;
  return out;
}

}  // namespace

std::string_view chat_format_name(ChatFormatKind kind) {
  switch (kind) {
    case ChatFormatKind::Base:
      return "base model";
    case ChatFormatKind::Bitnet2B4T:
      return "2B4T";
    case ChatFormatKind::Falcon3:
      return "Falcon3";
    case ChatFormatKind::ChatML:
      return "ChatML";
    case ChatFormatKind::Llama3:
      return "Llama 3 Instruct";
  }
  return "base model";  // unreachable for valid enum values
}

ChatFormatKind recognise_chat_template(std::string_view chat_template) {
  const std::string t = squeezed(chat_template);
  // Llama 3: headers around the role, each message ended by <|eot_id|>.
  if (has(t, "<|start_header_id|>") && has(t, "<|end_header_id|>") && has(t, "<|eot_id|>"))
    return ChatFormatKind::Llama3;
  // ChatML (Qwen, Falcon-E/H1 and many fine-tunes): checked before Falcon3, since some Falcon templates
  // mention <|system|> in a tool-calling branch while their messages are ChatML.
  if (has(t, "<|im_start|>") && has(t, "<|im_end|>")) return ChatFormatKind::ChatML;
  // Falcon3: <|system|> / <|user|> / <|assistant|> lines, a user message ended by a line break and a reply
  // by EOS. Zephyr-style templates use the same markers but end every message with EOS (a different
  // format), and Phi-3 ends them with <|end|>: neither has a user line closed by '\n' alone.
  if (has(t, "<|user|>") && has(t, "<|assistant|>") && has(t, "eos_token") && !has(t, "<|end|>") &&
      (has(t, "'<|user|>\\n'+message['content']+'\\n'") || has(t, "\"<|user|>\\n\"+message[\"content\"]+\"\\n\"") ||
       has(t, "<|user|>\\n'+message.content+'\\n'")))
    return ChatFormatKind::Falcon3;
  return ChatFormatKind::Base;
}

ChatFormatKind chat_format_kind(std::string_view architecture, std::string_view chat_template) {
  // The published 2B4T GGUF stores a broken placeholder template: bitnet files use the 2B4T format.
  if (architecture == "bitnet-25" || architecture == "bitnet-b1.58") return ChatFormatKind::Bitnet2B4T;
  return recognise_chat_template(chat_template);
}

ChatFormatKind chat_format_kind(const Model& model) {
  const auto tmpl = model.file().metadata().find_string("tokenizer.chat_template");
  return chat_format_kind(model.config().architecture, tmpl.value_or(std::string_view{}));
}

std::optional<ChatFormat> ChatFormat::for_model(const Model& model) {
  const ChatFormatKind kind = chat_format_kind(model);
  if (kind == ChatFormatKind::Base) return std::nullopt;
  const auto tmpl = model.file().metadata().find_string("tokenizer.chat_template");
  try {
    return ChatFormat(kind, model.tokenizer(), tmpl.value_or(std::string_view{}));
  } catch (const TokenizerError& e) {
    throw TokenizerError("'" + model.file().source_name() + "': the " + std::string(chat_format_name(kind)) +
                         " chat format cannot be used: " + e.what());
  }
}

}  // namespace trit
