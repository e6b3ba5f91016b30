#pragma once
// The byte-level BPE vocabulary of synthetic models ("--vocab bytes:N").
#include <cstdint>
#include <string_view>

#include "trit/tokenizer_json.h"  // TokenizerVocab

namespace trit::modelgen {

constexpr uint32_t kMinByteVocab = 259;       // 256 byte tokens + 3 control tokens
constexpr uint32_t kMaxByteVocab = 1u << 22;  // far above any real vocabulary; keeps files sane

// Exactly n tokens: the 256 byte tokens in the GPT-2 byte alphabet, in the order GPT-2 and LLaMA 3 give
// them (printable bytes first: id 0 is "!"); then tokens learned by byte-pair merges on a built-in English
// text (so common words like " the" encode to one token and every merge is consistent: both parts and the
// result are tokens); then "<|reserved_special_token_K|>" control tokens filling up to n-3; and the last
// three ids <|begin_of_text|> (BOS), <|end_of_text|> (EOS), <|eot_id|> (EOT), control tokens.
// Throws std::invalid_argument if n is outside [kMinByteVocab, kMaxByteVocab].
TokenizerVocab byte_vocab(uint32_t n);

// The built-in text the merges are learned from (plain ASCII English).
std::string_view byte_vocab_corpus();

}  // namespace trit::modelgen
