// Byte-level BPE vocabulary learned on a built-in text: what "--vocab bytes:N" writes into a model.
#include "modelgen/byte_vocab.h"

#include <map>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace trit::modelgen {
namespace {

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_newline(char c) {
  return c == '\n' || c == '\r';
}
bool is_space(char c) {
  return c == ' ' || c == '\t' || is_newline(c);
}
bool is_other(char c) {
  return !is_letter(c) && !is_digit(c) && !is_space(c);
}

// An ASCII rendering of the LLaMA 3 pre-tokenizer split (shared/docs/bitnet-b158.md), so the merges are
// the kind the real tokenizer can apply: words keep their leading space, digits go in runs of up to 3.
std::vector<std::string> split_words(std::string_view t) {
  std::vector<std::string> out;
  size_t i = 0;
  auto at = [&](size_t k) { return k < t.size() ? t[k] : '\0'; };
  while (i < t.size()) {
    size_t j = i;
    const char c = t[i];
    if (c == '\'') {
      for (const char* s : {"ll", "re", "ve", "s", "t", "m", "d"}) {
        std::string_view suf(s);
        if (t.substr(i + 1, suf.size()) == suf) {
          j = i + 1 + suf.size();
          break;
        }
      }
    }
    if (j == i && (is_letter(c) || (!is_newline(c) && !is_letter(c) && !is_digit(c) && is_letter(at(i + 1))))) {
      j = is_letter(c) ? i : i + 1;
      while (j < t.size() && is_letter(t[j])) ++j;
    } else if (j == i && is_digit(c)) {
      while (j < t.size() && j - i < 3 && is_digit(t[j])) ++j;
    } else if (j == i && (is_other(c) || (c == ' ' && is_other(at(i + 1))))) {
      j = c == ' ' ? i + 1 : i;
      while (j < t.size() && is_other(t[j])) ++j;
      while (j < t.size() && is_newline(t[j])) ++j;
    } else if (j == i) {  // whitespace
      while (j < t.size() && is_space(t[j])) ++j;
      size_t last_nl = std::string_view::npos;
      for (size_t k = i; k < j; ++k)
        if (is_newline(t[k])) last_nl = k;
      if (last_nl != std::string_view::npos) {
        j = last_nl + 1;
      } else if (j < t.size() && j - i > 1) {
        --j;  // \s+(?!\S): leave the last space to prefix the next word
      }
    }
    out.emplace_back(t.substr(i, j - i));
    i = j;
  }
  return out;
}

// GPT-2's byte order: the printable bytes (33..126, 161..172, 174..255) first, then the other 68 in order.
std::vector<uint8_t> gpt2_byte_order() {
  std::vector<uint8_t> order;
  auto printable = [](int b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255); };
  for (int b = 0; b < 256; ++b)
    if (printable(b)) order.push_back(static_cast<uint8_t>(b));
  for (int b = 0; b < 256; ++b)
    if (!printable(b)) order.push_back(static_cast<uint8_t>(b));
  return order;
}

struct Word {
  std::vector<std::string> symbols;
  int64_t count = 0;
};

}  // namespace

TokenizerVocab byte_vocab(uint32_t n) {
  if (n < kMinByteVocab || n > kMaxByteVocab)
    throw std::invalid_argument("a byte vocabulary needs between " + std::to_string(kMinByteVocab) + " and " +
                                std::to_string(kMaxByteVocab) +
                                " tokens (256 bytes + 3 control tokens at least), not " + std::to_string(n));
  TokenizerVocab v;
  std::unordered_set<std::string> known;
  for (uint8_t b : gpt2_byte_order()) {
    v.tokens.push_back(byte_to_unicode(b));
    v.token_types.push_back(kTokenNormal);
    known.insert(v.tokens.back());
  }
  const size_t merged_limit = n - 3;

  // Unique words with their counts; std::map keeps the order (and so the merges) deterministic.
  std::map<std::string, int64_t> counts;
  for (auto& w : split_words(byte_vocab_corpus())) ++counts[w];
  std::vector<Word> words;
  for (const auto& [text, count] : counts) {
    Word w{{}, count};
    for (char c : text) w.symbols.push_back(byte_to_unicode(static_cast<uint8_t>(c)));
    words.push_back(std::move(w));
  }

  while (v.tokens.size() < merged_limit) {
    std::map<std::pair<std::string, std::string>, int64_t> pairs;
    for (const auto& w : words)
      for (size_t k = 0; k + 1 < w.symbols.size(); ++k) pairs[{w.symbols[k], w.symbols[k + 1]}] += w.count;
    // Most frequent pair first, ties to the lexicographically first; a pair whose concatenation is
    // already a token (reached by another merge) would duplicate it, so it is never chosen.
    const std::pair<std::string, std::string>* best = nullptr;
    int64_t best_count = 1;  // a merge must occur at least twice to be worth a token
    for (const auto& [pair, count] : pairs)
      if (count > best_count && !known.contains(pair.first + pair.second)) {
        best = &pair;
        best_count = count;
      }
    if (!best) break;
    const std::string left = best->first, right = best->second, joined = left + right;
    v.merges.push_back(left + " " + right);
    v.tokens.push_back(joined);
    v.token_types.push_back(kTokenNormal);
    known.insert(joined);
    for (auto& w : words) {
      std::vector<std::string> merged;
      merged.reserve(w.symbols.size());
      for (size_t k = 0; k < w.symbols.size(); ++k) {
        if (k + 1 < w.symbols.size() && w.symbols[k] == left && w.symbols[k + 1] == right) {
          merged.push_back(joined);
          ++k;
        } else {
          merged.push_back(std::move(w.symbols[k]));
        }
      }
      w.symbols = std::move(merged);
    }
  }

  for (uint32_t k = 0; v.tokens.size() < merged_limit; ++k) {
    v.tokens.push_back("<|reserved_special_token_" + std::to_string(k) + "|>");
    v.token_types.push_back(kTokenControl);
  }
  for (const char* s : {"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"}) {
    v.tokens.emplace_back(s);
    v.token_types.push_back(kTokenControl);
  }
  v.bos = static_cast<int32_t>(n - 3);
  v.eos = static_cast<int32_t>(n - 2);
  v.eot = static_cast<int32_t>(n - 1);
  return v;
}

}  // namespace trit::modelgen
