// The tokenizer's vocabulary from GGUF metadata (tokenizer.ggml.*), as llama.cpp writes it.
#include <string>

#include "tokenizer/tokenizer_impl.h"
#include "trit/gguf.h"
#include "trit/tokenizer.h"

namespace trit {

bool is_llama3_pretokenizer(std::string_view pre) {
  for (std::string_view name : {"llama-bpe", "llama3", "llama-v3", "falcon3", "falcon_e"})
    if (pre == name) return true;
  return false;
}

namespace {

// The tokenizer keys of a GGUF file, its strings as views of the file's metadata.
struct GgufVocab {
  std::span<const std::string_view> tokens, merges;
  std::vector<int32_t> types;
  int32_t bos = -1, eos = -1, eot = -1, eom = -1;
  VocabView view() const { return VocabView{tokens, types, merges, bos, eos, eot, eom}; }
};

GgufVocab read_vocab(const GgufFile& file) {
  const GgufMetadata& md = file.metadata();
  const std::string where = "'" + file.source_name() + "': ";
  auto model = md.find_string("tokenizer.ggml.model");
  if (!model) throw TokenizerError(where + "metadata key 'tokenizer.ggml.model' is missing: the file has no tokenizer");
  if (*model != "gpt2")
    throw TokenizerError(where + "tokenizer.ggml.model is '" + std::string(*model) +
                         "'; only byte-level BPE ('gpt2', as in LLaMA 3 and BitNet b1.58) is supported");
  // The pre-tokenizer decides how text is split before BPE; running the LLaMA 3 regex on a vocabulary
  // trained with another would give plausible-looking but wrong ids, so refuse other names outright.
  // Falcon3 and Falcon-E use LLaMA 3's split (and its "ignore merges"); an absent name is what some
  // 2B4T fine-tunes carry.
  if (auto pre = md.find_string("tokenizer.ggml.pre"); pre && !is_llama3_pretokenizer(*pre))
    throw TokenizerError(where + "tokenizer.ggml.pre is '" + std::string(*pre) +
                         "'; only the LLaMA 3 pre-tokenizer is supported ('llama-bpe', 'llama3', 'llama-v3', "
                         "'falcon3', 'falcon_e')");

  GgufVocab v;
  v.tokens = md.get_string_array("tokenizer.ggml.tokens");
  if (md.contains("tokenizer.ggml.token_type")) {
    v.types = md.get_i32_array("tokenizer.ggml.token_type");
    if (v.types.size() != v.tokens.size())
      throw TokenizerError(where + "tokenizer.ggml.token_type has " + std::to_string(v.types.size()) +
                           " entries but tokenizer.ggml.tokens has " + std::to_string(v.tokens.size()));
  } else {
    v.types.assign(v.tokens.size(), kTokenNormal);
  }
  if (md.contains("tokenizer.ggml.merges")) v.merges = md.get_string_array("tokenizer.ggml.merges");
  v.bos = md.find_i32("tokenizer.ggml.bos_token_id").value_or(-1);
  v.eos = md.find_i32("tokenizer.ggml.eos_token_id").value_or(-1);
  v.eom = md.find_i32("tokenizer.ggml.eom_token_id").value_or(-1);
  if (auto eot = md.find_i32("tokenizer.ggml.eot_token_id")) {
    v.eot = *eot;
  } else {
    // A LLaMA 3 vocabulary whose file lacks the key (some 2B4T conversions): its control token
    // <|eot_id|> ends a turn. Only a control token counts, never text that happens to be spelled so.
    for (size_t i = 0; i < v.tokens.size() && v.eot < 0; ++i)
      if (v.tokens[i] == "<|eot_id|>" && v.types[i] == kTokenControl) v.eot = static_cast<int32_t>(i);
    if (v.eot < 0) v.eot = v.eos;
  }
  return v;
}

}  // namespace

TokenizerVocab Tokenizer::vocab_from_gguf(const GgufFile& file) {
  const GgufVocab g = read_vocab(file);
  TokenizerVocab v;
  v.tokens.assign(g.tokens.begin(), g.tokens.end());
  v.token_types = g.types;
  v.merges.assign(g.merges.begin(), g.merges.end());
  v.bos = g.bos;
  v.eos = g.eos;
  v.eot = g.eot;
  v.eom = g.eom;
  return v;
}

Tokenizer Tokenizer::from_gguf(const GgufFile& file) {
  const GgufVocab g = read_vocab(file);
  try {
    return Tokenizer(g.view());
  } catch (const TokenizerError& e) {
    throw TokenizerError("'" + file.source_name() + "': bad tokenizer vocabulary: " + e.what());
  }
}

Tokenizer Tokenizer::from_file(const std::filesystem::path& path) {
  if (path.extension() == ".json") return Tokenizer(load_tokenizer_json(path));
  auto file = GgufFile::open(path);
  return from_gguf(*file);
}

}  // namespace trit
