#pragma once
// The chat formats the engine knows, rendered straight to token ids: the one place where a conversation
// becomes a prompt (the app, `trit-cli generate --chat` and the tests all come here).
//
// Which format a model uses: bitnet architectures ("bitnet-25", "bitnet-b1.58") always use the 2B4T
// format (the tokenizer.chat_template stored in their published GGUF is a broken placeholder); any other
// file's tokenizer.chat_template is recognised by content (recognise_chat_template). A file without a
// template, or with one that is not recognised, is a base model: it continues text (completion_prompt)
// and has no chat format. There is no general Jinja engine: each format is written out below.
//
//   2B4T     <|begin_of_text|>System: {s}<|eot_id|>User: {u}<|eot_id|>Assistant: {a}<|eot_id|>...Assistant:
//   Falcon3  <|system|>\n{s}\n<|user|>\n{u}\n<|assistant|>\n{a}<EOS>\n<|user|>\n...<|assistant|>\n
//            (the last message, when it is a reply, ends with EOS alone)
//   ChatML   <|im_start|>system\n{s}<|im_end|>\n<|im_start|>user\n{u}<|im_end|>\n...<|im_start|>assistant\n
//   Llama 3  <|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n{u, trimmed}<|eot_id|>...
//            <|start_header_id|>assistant<|end_header_id|>\n\n
//
// The ids equal what a Hugging Face tokenizer gives for the rendered template text (markup tokens that
// are special tokens of the vocabulary become their ids; the text between them is encoded as one piece),
// except that message text is encoded with special tokens NOT allowed: a user who types "<|im_end|>"
// gets those characters, never an end of turn.
//
// A reply's sampled ids are reused as they were sampled (ChatMessage::sampled): the reply's header is
// encoded exactly as the generation prompt was, then the sampled ids follow, so a conversation that grows
// by a reply and a new message gives a prompt whose beginning is the KV cache's content, unchanged.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trit/tokenizer.h"

namespace trit {

class Model;

enum class ChatRole { System, User, Assistant };

struct ChatMessage {
  ChatRole role;
  std::string content;
  // Assistant replies only: the ids exactly as they were sampled (a trailing end-of-turn token may be
  // included or not). When present they are used instead of encoding `content`.
  std::vector<int32_t> sampled = {};
};

// "System", "User", "Assistant".
std::string_view chat_role_name(ChatRole role);

enum class ChatFormatKind {
  Base,        // no chat format: plain text completion
  Bitnet2B4T,  // BitNet b1.58 2B4T
  Falcon3,     // Falcon3 Instruct (also Falcon3 1.58-bit)
  ChatML,      // <|im_start|> / <|im_end|>
  Llama3,      // Llama 3 Instruct
};

// "base model", "2B4T", "Falcon3", "ChatML", "Llama 3 Instruct".
std::string_view chat_format_name(ChatFormatKind kind);

// The format a tokenizer.chat_template text renders, recognised by distinctive pieces of its text (not
// an exact match, so reformatted or extended templates are still recognised). Base for an empty or
// unrecognised template.
ChatFormatKind recognise_chat_template(std::string_view chat_template);

// The format of a model with this general.architecture and tokenizer.chat_template (empty: none).
ChatFormatKind chat_format_kind(std::string_view architecture, std::string_view chat_template);
ChatFormatKind chat_format_kind(const Model& model);

class ChatFormat {
 public:
  // The format `kind` (not Base) on `tokenizer`, which must outlive it. chat_template decides, for
  // Falcon3 and ChatML, whether BOS comes first (where the template writes bos_token). Throws
  // TokenizerError when the vocabulary lacks a token the format needs (its BOS or end of turn) and
  // std::invalid_argument for Base.
  ChatFormat(ChatFormatKind kind, const Tokenizer& tokenizer, std::string_view chat_template = {});
  // The model's chat format, or nullopt for a base model. Throws TokenizerError as above.
  static std::optional<ChatFormat> for_model(const Model& model);

  ChatFormatKind kind() const { return kind_; }
  std::string_view name() const { return chat_format_name(kind_); }
  // The token that ends a turn, and so a reply: generation must stop on it (GenerateOptions::stop_tokens).
  int32_t end_of_turn() const { return end_of_turn_; }
  std::vector<int32_t> stop_tokens() const { return {end_of_turn_}; }

  // Token ids of the conversation, with the generation prompt (the assistant's header) at the end where
  // add_generation_prompt. A system message whose text is only whitespace is left out (an empty system
  // prompt means none). Throws TokenizerError naming the message for invalid UTF-8 or a sampled id
  // outside the vocabulary.
  std::vector<int32_t> render(std::span<const ChatMessage> messages, bool add_generation_prompt = true) const;
  // The same prompt as text, special tokens spelled out (logs, `trit-cli`, tests).
  std::string render_text(std::span<const ChatMessage> messages, bool add_generation_prompt = true) const;

 private:
  struct Renderer;
  void render_into(Renderer& r, std::span<const ChatMessage> messages, bool add_generation_prompt) const;

  ChatFormatKind kind_;
  const Tokenizer* tokenizer_;
  bool bos_ = false;
  int32_t end_of_turn_ = -1;
};

// A base model's prompt: BOS where the vocabulary has one, then every message's text in order (a reply's
// sampled ids as they were sampled, without a trailing end of turn), with no markup: the conversation is
// one text the model continues. System messages are not part of it. Throws TokenizerError as render().
std::vector<int32_t> completion_prompt(const Tokenizer& tokenizer, std::span<const ChatMessage> messages);

}  // namespace trit
