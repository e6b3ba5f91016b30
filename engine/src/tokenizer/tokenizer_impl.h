#pragma once
// Tokenizer internals shared by the tokenizer's source files.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/pretokenizer.h"
#include "tokenizer/string_index.h"
#include "trit/tokenizer.h"

namespace trit {

// A vocabulary as views: of a TokenizerVocab's strings, or of a GGUF file's metadata (no copy of its
// 400,000 strings before the tokenizer stores them once).
struct VocabView {
  std::span<const std::string_view> tokens;
  std::span<const int32_t> token_types;
  std::span<const std::string_view> merges;
  int32_t bos = -1, eos = -1, eot = -1, eom = -1;
};

struct Tokenizer::Impl {
  // A token matched whole in the input before pre-tokenization.
  struct Special {
    std::string text;
    int32_t id;
    bool control;  // only where the caller allows special tokens; user-defined tokens always match
  };

  StringTable spelling;       // vocabulary strings by id
  StringTable bytes;          // what each id decodes to
  std::vector<int8_t> types;  // TokenType values (1..6)
  StringIdIndex by_spelling;  // every token
  StringIdIndex by_bytes;     // normal tokens by their bytes: a piece that is one token
  std::array<int32_t, 256> byte_token{};
  MergeTable merges;                     // (left, right) -> rank, merged token
  std::vector<Special> specials;         // longest first
  std::array<bool, 256> special_lead{};  // first bytes of specials, to skip most positions fast
  bool has_user_defined = false;         // else, without allow_special, nothing is matched whole
  int32_t bos = -1, eos = -1, eot = -1, eom = -1;
  Pretokenizer pretokenizer;

  // Validates the vocabulary and stores it (Tokenizer's constructors). Throws TokenizerError.
  void build(const VocabView& v);
  // Appends the ids of one pre-tokenized piece.
  void bpe(std::string_view piece, std::vector<int32_t>& out) const;
  // Appends the ids of text that holds no special token.
  void encode_plain(std::string_view text, std::vector<int32_t>& out) const;
  void check_id(int32_t id) const;
};

}  // namespace trit
