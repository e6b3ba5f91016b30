#pragma once
// A tokenizer vocabulary in the shape GGUF stores it (tokenizer.ggml.tokens / token_type / merges), and
// loaders that produce one from a Hugging Face tokenizer.json or from nothing (a byte-level vocabulary).
// The model generator writes these into synthetic GGUF files; the Tokenizer is built from them.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace trit {

// GGUF token types (llama.cpp's llama_token_type numbering).
enum TokenType : int32_t {
  kTokenNormal = 1,
  kTokenUnknown = 2,
  kTokenControl = 3,      // special tokens: <|begin_of_text|>, <|eot_id|>, ...
  kTokenUserDefined = 4,  // added tokens that are not special
  kTokenUnused = 5,
  kTokenByte = 6,
};

struct TokenizerVocab {
  // By id. Byte-level BPE strings in the GPT-2 byte alphabet exactly as tokenizer.json spells them
  // ("Ġthe" for " the"); special tokens are their literal text ("<|eot_id|>").
  std::vector<std::string> tokens;
  std::vector<int32_t> token_types;  // same length as tokens, TokenType values
  std::vector<std::string> merges;   // "left right" in rank order (rank 0 first)
  int32_t bos = -1;                  // <|begin_of_text|>
  int32_t eos = -1;                  // <|end_of_text|>
  int32_t eot = -1;                  // <|eot_id|>: ends an assistant turn (== eos where there is none)
  int32_t eom = -1;                  // <|eom_id|> (Llama 3.1): also ends generation; -1 if none
};

// Loads model.vocab, model.merges (either "a b" strings or ["a","b"] pairs) and added_tokens from a
// Hugging Face tokenizer.json of type BPE. BOS/EOS come from tokenizer_config.json beside it when present
// (bos_token / eos_token), otherwise from the LLaMA 3 names; EOT is <|eot_id|> when present, else EOS.
// Throws std::runtime_error naming the file and the problem (missing key, id gap, duplicate id, ...).
TokenizerVocab load_tokenizer_json(const std::filesystem::path& path);

// The GPT-2 byte alphabet: the printable code point (as UTF-8) that byte b stands for in token strings.
const std::string& byte_to_unicode(uint8_t b);

// A minimal byte-level vocabulary: the 256 byte tokens (id = byte value, in the GPT-2 alphabet), then the
// given pieces, each built by merges from the bytes (e.g. "the", " and"; a piece adds one token per new
// prefix, so every piece is reachable by merges), then <|begin_of_text|>, <|end_of_text|>, <|eot_id|>
// as control tokens at the end. Useful for small synthetic models and tests.
TokenizerVocab byte_level_vocab(const std::vector<std::string>& pieces = {});

}  // namespace trit
