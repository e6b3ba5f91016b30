#pragma once
// Byte-level BPE exactly as LLaMA 3 / BitNet b1.58 2B4T tokenizes (tiktoken style, as llama.cpp's
// "llama-bpe"): special tokens split off first (only where the caller allows them), the LLaMA 3 split
// regex (PCRE2, Unicode), then each piece as bytes: a piece that is itself a vocabulary token is that token
// (HF "ignore_merges"), otherwise merges apply in rank order.
//
// Text in and out is UTF-8. encode() rejects invalid UTF-8 with a TokenizerError naming the byte offset
// (callers holding untrusted bytes can pass them through sanitize_utf8() first); decode() and the
// streaming decoder always return valid UTF-8, with U+FFFD for each maximal ill-formed subsequence.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "trit/tokenizer_json.h"

namespace trit {

class GgufFile;
struct VocabView;

// Bad vocabulary, bad input text, or an id outside the vocabulary.
class TokenizerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Tokenizer {
 public:
  // Validates the vocabulary (every normal token spelled in the GPT-2 byte alphabet, a token for every
  // byte, every merge naming existing tokens whose concatenation is a token). Throws TokenizerError.
  explicit Tokenizer(const TokenizerVocab& vocab);
  // Reads tokenizer.ggml.{model,pre,tokens,token_type,merges,bos,eos,eot,eom_token_id}. Accepts model
  // "gpt2" with a pre-tokenizer that splits as LLaMA 3 does (is_llama3_pretokenizer) or none named.
  // Without eot_token_id, EOT is the control token <|eot_id|> where the vocabulary has one, else EOS.
  static Tokenizer from_gguf(const GgufFile& file);
  // The vocabulary a GGUF file stores, without building a tokenizer (trit-cli inspect, tests).
  static TokenizerVocab vocab_from_gguf(const GgufFile& file);
  // A GGUF model file, or a Hugging Face tokenizer.json (a path ending in ".json").
  static Tokenizer from_file(const std::filesystem::path& path);

  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;
  ~Tokenizer();

  // Token ids of UTF-8 text. allow_special: control tokens written literally in the text
  // ("<|eot_id|>") become their ids; otherwise they are ordinary text. User-defined tokens (type 4) are
  // always matched whole, as Hugging Face does for added tokens. add_bos: prepend bos().
  // Throws TokenizerError for invalid UTF-8. Thread-safe (const).
  std::vector<int32_t> encode(std::string_view text, bool allow_special = false, bool add_bos = false) const;
  // The same, appending to out (no BOS).
  void encode_append(std::string_view text, bool allow_special, std::vector<int32_t>& out) const;

  // Text of ids: the concatenated token bytes made valid UTF-8 (U+FFFD for ill-formed sequences).
  // Control tokens give their literal text unless skip_special. Throws TokenizerError for an id out of range.
  std::string decode(std::span<const int32_t> ids, bool skip_special = false) const;
  // The exact bytes token id stands for (possibly an incomplete UTF-8 sequence), valid as long as the
  // tokenizer. Throws if out of range.
  std::string_view token_bytes(int32_t id) const;
  // The token's vocabulary spelling (GPT-2 byte alphabet for normal tokens), valid as long as the tokenizer.
  std::string_view token_text(int32_t id) const;
  int32_t token_type(int32_t id) const;
  // Id of a vocabulary spelling ("Ġthe", "<|eot_id|>"), if present.
  std::optional<int32_t> find_token(std::string_view spelling) const;

  int32_t vocab_size() const;
  int32_t bos() const;  // -1 where the vocabulary has none
  int32_t eos() const;
  int32_t eot() const;
  int32_t eom() const;  // end of message (Llama 3.1 tool calls), -1 where the file names none
  // True for EOS, EOT and EOM: generation stops there.
  bool is_end_of_turn(int32_t id) const;
  bool is_control(int32_t id) const;

 private:
  explicit Tokenizer(const VocabView& vocab);  // from_gguf: the file's strings, not copies
  struct Impl;
  std::unique_ptr<Impl> impl_;
  friend class StreamingDecoder;
};

// Turns a stream of token ids into text piece by piece: a multi-byte UTF-8 character split across tokens
// is held back until complete; ill-formed bytes become U+FFFD as soon as they are known to be ill-formed.
// The concatenation of every push() and the final flush() equals Tokenizer::decode of all ids.
class StreamingDecoder {
 public:
  explicit StreamingDecoder(const Tokenizer& tokenizer, bool skip_special = false);
  // Text that became complete with this token (may be empty). Throws TokenizerError for a bad id.
  std::string push(int32_t id);
  // Whatever is still held back (an incomplete sequence becomes U+FFFD); the decoder is then empty.
  std::string flush();
  // Bytes held back right now.
  size_t pending() const { return pending_.size(); }

 private:
  const Tokenizer* tokenizer_;
  bool skip_special_;
  std::string pending_;
};

// True for the tokenizer.ggml.pre names whose text splitting is LLaMA 3's: "llama-bpe", "llama3",
// "llama-v3", "falcon3", "falcon_e".
bool is_llama3_pretokenizer(std::string_view pre);

// UTF-8 helpers shared by the tokenizer, the CLI and the app.
// Offset of the first ill-formed byte sequence, or nullopt if the text is valid UTF-8.
std::optional<size_t> find_invalid_utf8(std::string_view text);
// Text with each maximal ill-formed subsequence replaced by U+FFFD (Unicode's recommended practice).
std::string sanitize_utf8(std::string_view text);

}  // namespace trit
