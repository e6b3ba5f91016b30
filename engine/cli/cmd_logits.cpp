// trit-cli logits MODEL --tokens 1,2,3 --out FILE [--backend cpu|vulkan] [--kv f16|f32] [--threads N] [--device N]
// Teacher-forced: evaluates the tokens as one block from position 0 and writes every position's logits
// as little-endian float32 rows of `vocab` values (the layout of shared/golden), so any backend can be
// diffed against the golden files or against another backend.
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "command.h"
#include "trit/backend.h"
#include "trit/model.h"

namespace {

std::vector<int32_t> parse_tokens(const std::string& s) {
  std::vector<int32_t> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    const std::string item = s.substr(start, comma - start);
    int32_t v = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      throw std::invalid_argument("--tokens: '" + item + "' (item " + std::to_string(out.size() + 1) +
                                  ") is not a token id; expected comma-separated integers like 1,2,3");
    out.push_back(v);
    start = comma + 1;
  }
  return out;
}

unsigned parse_unsigned(const std::string& flag, const std::string& s) {
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    throw std::invalid_argument(flag + ": '" + s + "' is not a non-negative integer");
  return v;
}

void write_le_f32(const std::string& path, const std::vector<float>& values) {
  std::vector<unsigned char> bytes(values.size() * 4);
  for (std::size_t i = 0; i < values.size(); ++i) {
    uint32_t b;
    std::memcpy(&b, &values[i], 4);
    for (int k = 0; k < 4; ++k) bytes[4 * i + k] = static_cast<unsigned char>(b >> (8 * k));
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot open '" + path + "' for writing: " + std::strerror(errno));
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw std::runtime_error("writing '" + path + "' failed: " + std::strerror(errno));
}

int run_logits(const std::vector<std::string>& args) {
  std::string model_path, tokens_arg, out_path, backend = "cpu", kv = "f16";
  bool have_tokens = false;
  unsigned threads = 0;
  int device = -1;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string& {
      if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
      return args[++i];
    };
    if (a == "--tokens") {
      tokens_arg = value();
      have_tokens = true;
    } else if (a == "--out") {
      out_path = value();
    } else if (a == "--backend") {
      backend = value();
    } else if (a == "--kv") {
      kv = value();
    } else if (a == "--threads") {
      threads = parse_unsigned(a, value());
    } else if (a == "--device") {
      device = static_cast<int>(parse_unsigned(a, value()));
    } else if (a.starts_with("--")) {
      throw std::invalid_argument("unknown option '" + a + "'");
    } else if (model_path.empty()) {
      model_path = a;
    } else {
      throw std::invalid_argument("unexpected argument '" + a + "' (the model is '" + model_path + "')");
    }
  }
  if (model_path.empty()) throw std::invalid_argument("no MODEL given");
  if (!have_tokens) throw std::invalid_argument("--tokens is required (comma-separated token ids)");
  if (out_path.empty()) throw std::invalid_argument("--out is required (the file to write the logits to)");
  trit::ForwardOptions opts;
  if (kv == "f16") opts.kv = trit::KvPrecision::F16;
  else if (kv == "f32") opts.kv = trit::KvPrecision::F32;
  else throw std::invalid_argument("--kv: '" + kv + "' is not f16 or f32");
  opts.threads = threads;
  opts.device = device;
  const std::vector<int32_t> tokens = parse_tokens(tokens_arg);

  std::shared_ptr<const trit::Model> model = trit::Model::open(model_path);
  const uint32_t vocab = model->config().vocab;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || static_cast<uint32_t>(tokens[i]) >= vocab)
      throw std::invalid_argument("--tokens: token " + std::to_string(tokens[i]) + " (item " + std::to_string(i + 1) +
                                  ") is outside the model's vocabulary of " + std::to_string(vocab));
  if (tokens.size() > model->config().context)
    throw std::invalid_argument("--tokens: " + std::to_string(tokens.size()) + " tokens exceed the model's context of " +
                                std::to_string(model->config().context));
  opts.context = static_cast<int32_t>(tokens.size());  // the cache never needs more

  auto forward = trit::make_forward(backend, model, opts);
  std::vector<float> logits(tokens.size() * vocab);
  forward->eval(tokens, 0, logits, /*all_logits=*/true);
  write_le_f32(out_path, logits);
  std::fprintf(stderr, "wrote %zu x %u logits (%s backend, %s KV cache) to %s\n", tokens.size(), vocab, backend.c_str(),
               kv.c_str(), out_path.c_str());
  return 0;
}

const trit::cli::Registration reg{{"logits",
                                   "logits MODEL --tokens 1,2,3 --out FILE [--backend cpu|vulkan] [--kv f16|f32] [--threads N] [--device N]",
                                   "write every position's logits (teacher-forced) as float32 rows", run_logits}};

}  // namespace
