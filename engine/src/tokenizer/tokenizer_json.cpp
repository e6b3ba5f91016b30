// Reads a Hugging Face tokenizer.json (BPE) into the GGUF-shaped TokenizerVocab.
#include "trit/tokenizer_json.h"

#include <array>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace trit {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& what) {
  throw std::runtime_error("tokenizer.json '" + path.string() + "': " + what);
}

json read_json(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open the file");
  try {
    return json::parse(in);
  } catch (const json::exception& e) {
    fail(path, std::string("not valid JSON: ") + e.what());
  }
}

// tokenizer_config.json names BOS/EOS either as a string or as {"content": "..."}.
std::string config_token(const json& config, const char* key) {
  auto it = config.find(key);
  if (it == config.end() || it->is_null()) return {};
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object() && it->contains("content") && (*it)["content"].is_string())
    return (*it)["content"].get<std::string>();
  return {};
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace

const std::string& byte_to_unicode(uint8_t b) {
  // GPT-2's bytes_to_unicode(): printable Latin-1 bytes stand for themselves, the other 68 bytes are
  // shifted to U+0100.. in byte order, so every byte has a visible, non-space character.
  static const std::array<std::string, 256> table = [] {
    std::array<std::string, 256> t;
    uint32_t next = 256;
    for (uint32_t byte = 0; byte < 256; ++byte) {
      bool printable = (byte >= 33 && byte <= 126) || (byte >= 161 && byte <= 172) || (byte >= 174 && byte <= 255);
      append_utf8(t[byte], printable ? byte : next++);
    }
    return t;
  }();
  return table[b];
}

TokenizerVocab load_tokenizer_json(const std::filesystem::path& path) {
  json root = read_json(path);
  if (!root.is_object() || !root.contains("model") || !root["model"].is_object()) fail(path, "no \"model\" object");
  const json& model = root["model"];
  if (model.contains("type") && model["type"] != "BPE")
    fail(path, "model.type is " + model["type"].dump() + ", only BPE is supported");
  if (!model.contains("vocab") || !model["vocab"].is_object()) fail(path, "model.vocab is missing or not an object");
  if (!model.contains("merges") || !model["merges"].is_array()) fail(path, "model.merges is missing or not an array");

  // id -> (text, type); filled from the vocabulary, then the added tokens (which may override types).
  std::unordered_map<int64_t, std::pair<std::string, int32_t>> by_id;
  int64_t max_id = -1;
  auto put = [&](int64_t id, const std::string& text, int32_t type, bool may_exist) {
    if (id < 0 || id > 0x7FFFFFFF) fail(path, "token '" + text + "' has id " + std::to_string(id) + " out of range");
    auto [it, inserted] = by_id.try_emplace(id, text, type);
    if (!inserted) {
      if (!may_exist || it->second.first != text)
        fail(path, "id " + std::to_string(id) + " is used by both '" + it->second.first + "' and '" + text + "'");
      it->second.second = type;
    }
    max_id = std::max(max_id, id);
  };
  for (const auto& [text, id] : model["vocab"].items()) {
    if (!id.is_number_integer()) fail(path, "model.vocab['" + text + "'] is not an integer id");
    put(id.get<int64_t>(), text, kTokenNormal, false);
  }
  std::unordered_map<std::string, int32_t> added;  // content -> id, for BOS/EOS/EOT lookup
  if (root.contains("added_tokens")) {
    if (!root["added_tokens"].is_array()) fail(path, "added_tokens is not an array");
    for (const auto& t : root["added_tokens"]) {
      if (!t.is_object() || !t.contains("id") || !t["id"].is_number_integer() || !t.contains("content") ||
          !t["content"].is_string())
        fail(path, "an added_tokens entry lacks an integer \"id\" or a string \"content\": " + t.dump());
      bool special = t.value("special", false);
      auto id = t["id"].get<int64_t>();
      auto content = t["content"].get<std::string>();
      put(id, content, special ? kTokenControl : kTokenUserDefined, true);
      added[content] = static_cast<int32_t>(id);
    }
  }

  TokenizerVocab v;
  v.tokens.resize(static_cast<size_t>(max_id + 1));
  v.token_types.resize(static_cast<size_t>(max_id + 1));
  for (int64_t id = 0; id <= max_id; ++id) {
    auto it = by_id.find(id);
    if (it == by_id.end())
      fail(path,
           "no token has id " + std::to_string(id) + " (ids must be 0.." + std::to_string(max_id) + " without gaps)");
    v.tokens[static_cast<size_t>(id)] = std::move(it->second.first);
    v.token_types[static_cast<size_t>(id)] = it->second.second;
  }

  v.merges.reserve(model["merges"].size());
  size_t rank = 0;
  for (const auto& m : model["merges"]) {
    if (m.is_string()) {
      const auto& s = m.get_ref<const std::string&>();
      auto sp = s.find(' ');
      if (sp == std::string::npos || sp == 0 || sp + 1 == s.size() || s.find(' ', sp + 1) != std::string::npos)
        fail(path, "merge " + std::to_string(rank) + " '" + s + "' is not two tokens separated by one space");
      v.merges.push_back(s);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      v.merges.push_back(m[0].get<std::string>() + " " + m[1].get<std::string>());
    } else {
      fail(path, "merge " + std::to_string(rank) + " is neither \"a b\" nor [\"a\", \"b\"]: " + m.dump());
    }
    ++rank;
  }

  // Which added tokens are BOS/EOS: tokenizer_config.json knows; tokenizer.json alone does not.
  std::string bos_text = "<|begin_of_text|>", eos_text = "<|end_of_text|>";
  auto config_path = path.parent_path() / "tokenizer_config.json";
  if (std::filesystem::exists(config_path)) {
    json config = read_json(config_path);
    if (auto s = config_token(config, "bos_token"); !s.empty()) bos_text = s;
    if (auto s = config_token(config, "eos_token"); !s.empty()) eos_text = s;
  }
  auto find = [&](const std::string& text) -> int32_t {
    auto it = added.find(text);
    return it == added.end() ? -1 : it->second;
  };
  v.bos = find(bos_text);
  v.eos = find(eos_text);
  v.eot = find("<|eot_id|>");
  if (v.eot < 0) v.eot = v.eos;
  return v;
}

TokenizerVocab byte_level_vocab(const std::vector<std::string>& pieces) {
  TokenizerVocab v;
  std::unordered_set<std::string> known;
  for (int b = 0; b < 256; ++b) {
    v.tokens.push_back(byte_to_unicode(static_cast<uint8_t>(b)));
    v.token_types.push_back(kTokenNormal);
    known.insert(v.tokens.back());
  }
  for (const auto& piece : pieces) {
    if (piece.empty()) throw std::invalid_argument("byte_level_vocab: empty piece");
    // Build the piece left to right: prefix + next byte, one merge per new prefix.
    std::string prefix = byte_to_unicode(static_cast<uint8_t>(piece[0]));
    for (size_t i = 1; i < piece.size(); ++i) {
      const std::string& next = byte_to_unicode(static_cast<uint8_t>(piece[i]));
      std::string joined = prefix + next;
      if (known.insert(joined).second) {
        v.merges.push_back(prefix + " " + next);
        v.tokens.push_back(joined);
        v.token_types.push_back(kTokenNormal);
      }
      prefix = std::move(joined);
    }
  }
  for (const char* s : {"<|begin_of_text|>", "<|end_of_text|>", "<|eot_id|>"}) {
    v.tokens.emplace_back(s);
    v.token_types.push_back(kTokenControl);
  }
  auto n = static_cast<int32_t>(v.tokens.size());
  v.bos = n - 3;
  v.eos = n - 2;
  v.eot = n - 1;
  return v;
}

}  // namespace trit
