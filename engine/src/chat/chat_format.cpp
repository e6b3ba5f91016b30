// The chat formats of trit/chat.h, rendered straight to token ids.
#include <stdexcept>
#include <string>

#include "trit/chat.h"

namespace trit {
namespace {

bool is_blank(std::string_view s) {
  return s.find_first_not_of(" \t\r\n\f\v") == std::string_view::npos;
}

// Jinja's `trim` (the Llama 3 template trims every message), for the whitespace people type.
std::string_view trimmed(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n\f\v");
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t\r\n\f\v") - b + 1);
}

std::string_view lower_role(ChatRole role) {
  switch (role) {
    case ChatRole::System:
      return "system";
    case ChatRole::User:
      return "user";
    case ChatRole::Assistant:
      return "assistant";
  }
  return "user";
}

std::string describe(size_t index, ChatRole role) {
  return "chat message " + std::to_string(index) + " (" + std::string(chat_role_name(role)) + ")";
}

// The id of a special token the template spells out, where the vocabulary has it as an added token.
std::optional<int32_t> added_token(const Tokenizer& tok, std::string_view spelling) {
  auto id = tok.find_token(spelling);
  if (!id) return std::nullopt;
  const int32_t type = tok.token_type(*id);
  if (type != kTokenControl && type != kTokenUserDefined) return std::nullopt;
  return id;
}

int32_t required_token(const Tokenizer& tok, std::string_view spelling) {
  if (auto id = added_token(tok, spelling)) return *id;
  throw TokenizerError("the vocabulary has no special token " + std::string(spelling) + " to end a turn with");
}

}  // namespace

// Collects ids as a Hugging Face tokenizer produces them for the rendered text: special tokens as ids,
// the text between two of them encoded as one piece (without special tokens), and the same prompt as text.
struct ChatFormat::Renderer {
  explicit Renderer(const Tokenizer& t) : tok(t) {}
  const Tokenizer& tok;
  std::vector<int32_t> ids;
  std::string text;
  std::string pending;  // text since the last special token
  size_t message = 0;   // for error messages
  ChatRole role = ChatRole::User;

  void special(int32_t id) {
    flush();
    ids.push_back(id);
    text += tok.token_text(id);
  }
  // A token the template writes: its id where the vocabulary has it, else plain text (as HF would).
  void markup(std::string_view spelling) {
    if (auto id = added_token(tok, spelling))
      special(*id);
    else
      literal(spelling);
  }
  void literal(std::string_view s) {
    pending += s;
    text += s;
  }
  // Messages were checked for valid UTF-8 before they were added, so this can only fail on size.
  void flush() {
    if (pending.empty()) return;
    tok.encode_append(pending, /*allow_special=*/false, ids);
    pending.clear();
  }
  void sampled(std::span<const int32_t> reply) {
    flush();
    for (int32_t id : reply) {
      if (id < 0 || id >= tok.vocab_size())
        throw TokenizerError(describe(message, role) + ": sampled token id " + std::to_string(id) +
                             " is outside the vocabulary of " + std::to_string(tok.vocab_size()) + " tokens");
      ids.push_back(id);
    }
    text += tok.decode(reply);
  }
};

std::string_view chat_role_name(ChatRole role) {
  switch (role) {
    case ChatRole::System:
      return "System";
    case ChatRole::User:
      return "User";
    case ChatRole::Assistant:
      return "Assistant";
  }
  return "User";  // unreachable for valid enum values
}

ChatFormat::ChatFormat(ChatFormatKind kind, const Tokenizer& tokenizer, std::string_view chat_template)
    : kind_(kind), tokenizer_(&tokenizer) {
  const bool template_bos = chat_template.find("bos_token") != std::string_view::npos;
  switch (kind) {
    case ChatFormatKind::Base:
      throw std::invalid_argument("a base model has no chat format");
    case ChatFormatKind::Bitnet2B4T:
      bos_ = true;
      // The 2B4T template writes <|eot_id|>; a vocabulary without it ends turns with its EOT (or EOS).
      end_of_turn_ = added_token(tokenizer, "<|eot_id|>").value_or(tokenizer.eot());
      if (end_of_turn_ < 0) throw TokenizerError("the vocabulary has no <|eot_id|>, EOT or EOS to end a turn with");
      break;
    case ChatFormatKind::Falcon3:
      bos_ = template_bos;
      end_of_turn_ = tokenizer.eos();  // a Falcon3 reply ends with EOS (<|endoftext|>)
      if (end_of_turn_ < 0) throw TokenizerError("the vocabulary has no EOS token to end a reply with");
      break;
    case ChatFormatKind::ChatML:
      bos_ = template_bos;
      end_of_turn_ = required_token(tokenizer, "<|im_end|>");
      break;
    case ChatFormatKind::Llama3:
      bos_ = true;
      end_of_turn_ = required_token(tokenizer, "<|eot_id|>");
      break;
  }
  if (bos_ && tokenizer.bos() < 0)
    throw TokenizerError("the " + std::string(chat_format_name(kind)) +
                         " chat format starts with BOS but the vocabulary has none");
}

void ChatFormat::render_into(Renderer& r, std::span<const ChatMessage> messages, bool add_generation_prompt) const {
  const Tokenizer& tok = *tokenizer_;
  // A message's header, written the same way for a reply and for the generation prompt (so a reply's
  // sampled ids follow exactly the ids the generation prompt had).
  auto header = [&](ChatRole role) {
    switch (kind_) {
      case ChatFormatKind::Bitnet2B4T:
        r.literal(chat_role_name(role));
        r.literal(": ");
        break;
      case ChatFormatKind::Falcon3:
        r.markup(role == ChatRole::System ? "<|system|>" : role == ChatRole::User ? "<|user|>" : "<|assistant|>");
        r.literal("\n");
        break;
      case ChatFormatKind::ChatML:
        r.markup("<|im_start|>");
        r.literal(lower_role(role));
        r.literal("\n");
        break;
      case ChatFormatKind::Llama3:
        r.markup("<|start_header_id|>");
        r.literal(lower_role(role));
        r.markup("<|end_header_id|>");
        r.literal("\n\n");
        break;
      case ChatFormatKind::Base:
        break;
    }
  };
  if (bos_) r.special(tok.bos());
  size_t last = messages.size();  // index of the last message written
  for (size_t i = 0; i < messages.size(); ++i)
    if (!(messages[i].role == ChatRole::System && is_blank(messages[i].content))) last = i;
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role == ChatRole::System && is_blank(m.content)) continue;
    // Checked here so the offset is one in what the user wrote, not in the templated text.
    if (auto bad = find_invalid_utf8(m.content))
      throw TokenizerError(describe(i, m.role) + " is not valid UTF-8 at byte " + std::to_string(*bad) + " of its " +
                           std::to_string(m.content.size()) + " bytes");
    r.message = i;
    r.role = m.role;
    header(m.role);
    if (m.role == ChatRole::Assistant && !m.sampled.empty()) {
      // The reply stopped on its end of turn (or was cut short without one): that token is written once.
      std::span<const int32_t> reply(m.sampled);
      while (!reply.empty() && (reply.back() == end_of_turn_ || tok.is_end_of_turn(reply.back())))
        reply = reply.first(reply.size() - 1);
      r.sampled(reply);
    } else {
      r.literal(kind_ == ChatFormatKind::Llama3 ? trimmed(m.content) : std::string_view(m.content));
    }
    switch (kind_) {
      case ChatFormatKind::Falcon3:
        if (m.role == ChatRole::Assistant) {
          r.special(end_of_turn_);
          if (i != last) r.literal("\n");
        } else {
          r.literal("\n");
        }
        break;
      case ChatFormatKind::ChatML:
        r.special(end_of_turn_);
        r.literal("\n");
        break;
      default:
        r.special(end_of_turn_);
        break;
    }
  }
  if (add_generation_prompt) header(ChatRole::Assistant);
  r.flush();
}

std::vector<int32_t> ChatFormat::render(std::span<const ChatMessage> messages, bool add_generation_prompt) const {
  Renderer r(*tokenizer_);
  render_into(r, messages, add_generation_prompt);
  return std::move(r.ids);
}

std::string ChatFormat::render_text(std::span<const ChatMessage> messages, bool add_generation_prompt) const {
  Renderer r(*tokenizer_);
  render_into(r, messages, add_generation_prompt);
  return std::move(r.text);
}

std::vector<int32_t> completion_prompt(const Tokenizer& tokenizer, std::span<const ChatMessage> messages) {
  std::vector<int32_t> ids;
  if (tokenizer.bos() >= 0) ids.push_back(tokenizer.bos());
  for (size_t i = 0; i < messages.size(); ++i) {
    const ChatMessage& m = messages[i];
    if (m.role == ChatRole::System) continue;
    if (m.role == ChatRole::Assistant && !m.sampled.empty()) {
      std::span<const int32_t> reply(m.sampled);
      while (!reply.empty() && tokenizer.is_end_of_turn(reply.back())) reply = reply.first(reply.size() - 1);
      for (int32_t id : reply)
        if (id < 0 || id >= tokenizer.vocab_size())
          throw TokenizerError(describe(i, m.role) + ": sampled token id " + std::to_string(id) +
                               " is outside the vocabulary of " + std::to_string(tokenizer.vocab_size()) + " tokens");
      ids.insert(ids.end(), reply.begin(), reply.end());
      continue;
    }
    if (auto bad = find_invalid_utf8(m.content))
      throw TokenizerError(describe(i, m.role) + " is not valid UTF-8 at byte " + std::to_string(*bad) + " of its " +
                           std::to_string(m.content.size()) + " bytes");
    tokenizer.encode_append(m.content, /*allow_special=*/false, ids);
  }
  return ids;
}

}  // namespace trit
