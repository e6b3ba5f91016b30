// trit-cli detokenize: token ids on stdin (whitespace/comma separated, or a JSON array) -> UTF-8 text.
#include <cctype>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "command.h"
#include "read_stdin.h"
#include "trit/tokenizer.h"

namespace {

std::vector<int32_t> parse_ids(const std::string& in) {
  std::vector<int32_t> ids;
  size_t first = in.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && in[first] == '[') {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      throw std::invalid_argument(std::string("the input starts with '[' but is not a JSON array: ") + e.what());
    }
    if (!j.is_array()) throw std::invalid_argument("the JSON input is not an array of token ids");
    for (size_t i = 0; i < j.size(); ++i) {
      if (!j[i].is_number_integer() || j[i].get<int64_t>() < 0 || j[i].get<int64_t>() > 0x7FFFFFFF)
        throw std::invalid_argument("element " + std::to_string(i) + " of the JSON array (" + j[i].dump() +
                                    ") is not a token id");
      ids.push_back(static_cast<int32_t>(j[i].get<int64_t>()));
    }
    return ids;
  }
  size_t i = 0;
  while (i < in.size()) {
    unsigned char c = static_cast<unsigned char>(in[i]);
    if (std::isspace(c) || c == ',') {
      ++i;
      continue;
    }
    size_t end = i;
    while (end < in.size() && !std::isspace(static_cast<unsigned char>(in[end])) && in[end] != ',') ++end;
    std::string word = in.substr(i, end - i);
    bool digits = word.size() <= 10 && word.find_first_not_of("0123456789") == std::string::npos;
    if (!digits || std::stoll(word) > 0x7FFFFFFF)
      throw std::invalid_argument("'" + word + "' at byte " + std::to_string(i) + " of the input is not a token id");
    ids.push_back(static_cast<int32_t>(std::stoll(word)));
    i = end;
  }
  return ids;
}

int run(const std::vector<std::string>& args) {
  std::string model;
  bool skip_special = false;
  for (const auto& a : args) {
    if (a == "--skip-special")
      skip_special = true;
    else if (!a.empty() && a[0] == '-')
      throw std::invalid_argument("unknown option '" + a + "'");
    else if (model.empty())
      model = a;
    else
      throw std::invalid_argument("more than one MODEL given ('" + model + "', '" + a + "')");
  }
  if (model.empty()) throw std::invalid_argument("no MODEL given (a .gguf file, or a tokenizer.json)");
  const trit::Tokenizer tok = trit::Tokenizer::from_file(model);
  std::string in = trit::cli::read_stdin();
  std::string text = tok.decode(parse_ids(in), skip_special);
  std::fwrite(text.data(), 1, text.size(), stdout);  // exactly the text: no newline added
  return 0;
}

const trit::cli::Registration reg{{"detokenize", "detokenize MODEL [--skip-special]",
                                   "token ids on stdin (space/comma separated or a JSON array) -> text", run}};

}  // namespace
