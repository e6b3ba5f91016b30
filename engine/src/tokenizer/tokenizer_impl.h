#pragma once
// Tokenizer internals shared by the tokenizer's source files.
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/pretokenizer.h"
#include "trit/tokenizer.h"

namespace trit {

struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using StringIdMap = std::unordered_map<std::string, int32_t, StringHash, std::equal_to<>>;

struct Tokenizer::Impl {
  struct Merge {
    int32_t rank;
    int32_t result;
  };
  // A token matched whole in the input before pre-tokenization.
  struct Special {
    std::string text;
    int32_t id;
    bool control;  // only where the caller allows special tokens; user-defined tokens always match
  };

  std::vector<std::string> spelling;  // vocabulary strings by id
  std::vector<std::string> bytes;     // what each id decodes to
  std::vector<int32_t> types;
  StringIdMap by_spelling;  // every token
  StringIdMap by_bytes;     // normal tokens by their bytes: a piece that is one token
  std::array<int32_t, 256> byte_token{};
  std::unordered_map<uint64_t, Merge> merges;  // (left << 32 | right) -> rank, merged token
  std::vector<Special> specials;               // longest first
  std::array<bool, 256> special_lead{};        // first bytes of specials, to skip most positions fast
  bool has_user_defined = false;               // else, without allow_special, nothing is matched whole
  int32_t bos = -1, eos = -1, eot = -1, eom = -1;
  Pretokenizer pretokenizer;

  // Appends the ids of one pre-tokenized piece.
  void bpe(std::string_view piece, std::vector<int32_t>& out) const;
  // Appends the ids of text that holds no special token.
  void encode_plain(std::string_view text, std::vector<int32_t>& out) const;
  void check_id(int32_t id) const;
};

}  // namespace trit
