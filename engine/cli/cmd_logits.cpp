// trit-cli logits MODEL --tokens 1,2,3 --out FILE [--backend cpu|vulkan] [--precision fp32|f64] [--kv f16|f32]
// [--threads N] [--device N]
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

#include "args.h"
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

int run_logits(const std::vector<std::string>& argv) {
  trit::cli::Args a(argv, {"--tokens", "--out", "--backend", "--kv", "--threads", "--device", "--precision"}, {});
  const std::string& model_path = a.single_positional("MODEL");
  if (!a.has("--tokens")) throw std::invalid_argument("--tokens is required (comma-separated token ids)");
  const std::string out_path = a.get("--out", "");
  if (out_path.empty()) throw std::invalid_argument("--out is required (the file to write the logits to)");
  const std::string backend = a.get("--backend", "cpu"), kv = a.get("--kv", "f16");
  trit::ForwardOptions opts;
  opts.kv = trit::cli::kv_precision(kv);
  opts.threads = static_cast<unsigned>(a.get_int("--threads", 0, 0, 4096));
  opts.device = static_cast<int>(a.get_int("--device", -1, -1, 1024));
  opts.precision = trit::parse_precision(a.get("--precision", "fp32"));
  const std::string tokens_arg = a.get("--tokens", "");
  const std::vector<int32_t> tokens = parse_tokens(tokens_arg);

  std::shared_ptr<const trit::Model> model = trit::Model::open(model_path);
  const uint32_t vocab = model->config().vocab;
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || static_cast<uint32_t>(tokens[i]) >= vocab)
      throw std::invalid_argument("--tokens: token " + std::to_string(tokens[i]) + " (item " + std::to_string(i + 1) +
                                  ") is outside the model's vocabulary of " + std::to_string(vocab));
  if (tokens.size() > model->config().context)
    throw std::invalid_argument("--tokens: " + std::to_string(tokens.size()) +
                                " tokens exceed the model's context of " + std::to_string(model->config().context));
  opts.context = static_cast<int32_t>(tokens.size());  // the cache never needs more

  auto forward = trit::make_forward(backend, model, opts);
  std::vector<float> logits(tokens.size() * vocab);
  forward->eval(tokens, 0, logits, /*all_logits=*/true);
  write_le_f32(out_path, logits);
  std::fprintf(stderr, "wrote %zu x %u logits (%s backend, %s activations, %s KV cache) to %s\n", tokens.size(), vocab,
               backend.c_str(), trit::to_string(opts.precision), kv.c_str(), out_path.c_str());
  return 0;
}

const trit::cli::Registration reg{
    {"logits",
     "logits MODEL --tokens 1,2,3 --out FILE [--backend cpu|vulkan] [--precision fp32|f64] [--kv f16|f32] "
     "[--threads N] [--device N]",
     "write every position's logits (teacher-forced) as float32 rows", run_logits}};

}  // namespace
