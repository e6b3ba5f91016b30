// trit-cli make-model: writes a synthetic ternary model (random weights, the exact file formats).
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "trit/model_generator.h"

namespace {

constexpr const char* kUsage =
    "make-model OUT --shape tiny|small|2b4t|falcon3-1b|falcon3-3b|falcon3-7b|falcon3-10b|DIM,HEADS,KV,FFN,LAYERS "
    "[--arch bitnet-25|llama] [--format i2_s|tq2_0|tq1_0] [--vocab bytes:N|llama3:PATH] [--seed S] [--context N] "
    "[--name NAME]";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "trit-cli make-model: %s\nusage: trit-cli %s\n", what.c_str(), kUsage);
  return 2;
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
  const trit::cli::Args a(args, {"--shape", "--arch", "--format", "--vocab", "--seed", "--context", "--name"}, {});
  if (a.positional().empty()) return usage_error("no output path given");
  if (a.positional().size() > 1)
    return usage_error("more than one output path ('" + a.positional()[0] + "' and '" + a.positional()[1] + "')");
  if (!a.has("--shape")) return usage_error("--shape is required");
  trit::GeneratorOptions o;
  o.out = a.positional()[0];
  o.shape = trit::parse_generator_shape(a.get("--shape", ""));
  o.arch = a.get("--arch", o.arch);
  if (!o.arch.empty() && o.arch != "bitnet-25" && o.arch != "llama")
    return usage_error("--arch: '" + o.arch + "' is not bitnet-25 or llama");
  const std::string format = a.get("--format", "i2_s");
  if (format == "i2_s")
    o.format = trit::WeightFormat::I2_S;
  else if (format == "tq2_0")
    o.format = trit::WeightFormat::TQ2_0;
  else if (format == "tq1_0")
    o.format = trit::WeightFormat::TQ1_0;
  else
    return usage_error("--format: '" + format + "' is not i2_s, tq2_0 or tq1_0");
  o.vocab = a.get("--vocab", o.vocab);
  o.seed = static_cast<uint64_t>(a.get_int("--seed", 0, 0, INT64_MAX));
  o.context = static_cast<uint32_t>(a.get_int("--context", 0, 1, trit::kMaxGeneratorContext));
  o.name = a.get("--name", o.name);

  const auto r = trit::generate_model(o);
  const double mb = static_cast<double>(r.bytes) / 1e6;
  std::printf("wrote %s: %s (%llu bytes), shape %s, %zu tensors, %zu metadata keys, vocab %u (%s), seed %llu\n",
              r.path.string().c_str(), human_bytes(r.bytes).c_str(), static_cast<unsigned long long>(r.bytes),
              o.shape.label.c_str(), r.tensors, r.metadata, r.vocab, r.vocab_source.c_str(),
              static_cast<unsigned long long>(o.seed));
  std::printf("took %.2f s (%.0f MB/s)\n", r.seconds, r.seconds > 0 ? mb / r.seconds : 0.0);
  return 0;
}

trit::cli::Registration reg{
    {"make-model", kUsage, "write a synthetic ternary model with random weights", run_make_model}};

}  // namespace
