// trit-cli make-model: writes a synthetic BitNet b1.58 model (random weights, exact 2B4T file format).
#include <charconv>
#include <cstdio>
#include <string>
#include <vector>

#include "command.h"
#include "trit/model_generator.h"

namespace {

constexpr const char* kUsage =
    "make-model OUT --shape tiny|small|2b4t|DIM,HEADS,KV,FFN,LAYERS [--vocab bytes:N|llama3:PATH] [--seed S] "
    "[--context N] [--name NAME]";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "trit-cli make-model: %s\nusage: trit-cli %s\n", what.c_str(), kUsage);
  return 2;
}

template <typename T>
bool parse_uint(const std::string& s, T& out) {
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && end == s.data() + s.size();
}

std::string human_bytes(uint64_t b) {
  char buf[64];
  if (b >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(b) / (1 << 30));
  else if (b >= (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / (1 << 20));
  else
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024);
  return buf;
}

int run_make_model(const std::vector<std::string>& args) {
  trit::GeneratorOptions o;
  bool have_out = false, have_shape = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> const std::string* { return i + 1 < args.size() ? &args[++i] : nullptr; };
    if (a == "--shape" || a == "--vocab" || a == "--seed" || a == "--context" || a == "--name") {
      const std::string* v = value();
      if (!v) return usage_error(a + " needs a value");
      if (a == "--shape") {
        o.shape = trit::parse_generator_shape(*v);
        have_shape = true;
      } else if (a == "--vocab") {
        o.vocab = *v;
      } else if (a == "--seed") {
        if (!parse_uint(*v, o.seed)) return usage_error("--seed '" + *v + "' is not a non-negative integer");
      } else if (a == "--context") {
        if (!parse_uint(*v, o.context) || o.context == 0)
          return usage_error("--context '" + *v + "' is not a positive integer");
      } else {
        o.name = *v;
      }
    } else if (a.starts_with("--")) {
      return usage_error("unknown option '" + a + "'");
    } else if (!have_out) {
      o.out = a;
      have_out = true;
    } else {
      return usage_error("more than one output path ('" + o.out.string() + "' and '" + a + "')");
    }
  }
  if (!have_out) return usage_error("no output path given");
  if (!have_shape) return usage_error("--shape is required");

  const auto r = trit::generate_model(o);
  const double mb = static_cast<double>(r.bytes) / 1e6;
  std::printf("wrote %s: %s (%llu bytes), shape %s, %zu tensors, %zu metadata keys, vocab %u (%s), seed %llu\n",
              r.path.string().c_str(), human_bytes(r.bytes).c_str(), static_cast<unsigned long long>(r.bytes),
              o.shape.label.c_str(), r.tensors, r.metadata, r.vocab, r.vocab_source.c_str(),
              static_cast<unsigned long long>(o.seed));
  std::printf("took %.2f s (%.0f MB/s)\n", r.seconds, r.seconds > 0 ? mb / r.seconds : 0.0);
  return 0;
}

trit::cli::Registration reg{{"make-model", kUsage, "write a synthetic BitNet b1.58 model with random weights",
                             run_make_model}};

}  // namespace
