// trit-cli inspect MODEL: what a GGUF file holds (metadata, tensor table, totals) and whether this engine
// can load it (Model::from_file, the validation Model::open runs), with the precise reason when it
// cannot. Exit 0 if loadable, 1 if not.
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "trit/gguf.h"
#include "trit/model.h"

namespace {

std::string shape_str(const std::vector<uint64_t>& s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

std::string human_bytes(uint64_t n) {
  char buf[32];
  if (n >= (uint64_t{1} << 30))
    std::snprintf(buf, sizeof buf, "%.2f GiB", static_cast<double>(n) / (1 << 30));
  else if (n >= (uint64_t{1} << 20))
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(n) / (1 << 20));
  else if (n >= 1024)
    std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(n) / 1024);
  else
    std::snprintf(buf, sizeof buf, "%" PRIu64 " B", n);
  return buf;
}

void print_file(const trit::GgufFile& f) {
  std::printf("GGUF version %u, %zu bytes (%s), alignment %" PRIu64 ", data section at offset %" PRIu64 "\n",
              f.version(), f.file_size(), human_bytes(f.file_size()).c_str(), f.alignment(), f.data_offset());
  const auto& md = f.metadata().entries();
  std::printf("\nmetadata (%zu keys):\n", md.size());
  for (const auto& kv : md) {
    std::string type = trit::gguf_value_type_name(kv.value.type());
    if (const auto* a = kv.value.as_array()) type = "array of " + trit::gguf_value_type_name(a->elem_type());
    std::printf("  %-45s %-16s %s\n", kv.key.c_str(), type.c_str(), kv.value.to_string(6).c_str());
  }
  std::printf("\ntensors (%zu):\n", f.tensors().size());
  std::printf("  %-34s %-6s %-20s %12s %12s\n", "name", "type", "shape", "bytes", "offset");
  std::map<std::string, std::pair<uint64_t, uint64_t>> by_type;  // type -> (count, bytes)
  uint64_t total_bytes = 0, total_elements = 0;
  for (const auto& t : f.tensors()) {
    std::string type = trit::ggml_type_name(t.type);
    std::printf("  %-34s %-6s %-20s %12" PRIu64 " %12" PRIu64 "\n", t.name.c_str(), type.c_str(),
                shape_str(t.shape).c_str(), t.size_bytes, t.offset);
    by_type[type].first++;
    by_type[type].second += t.size_bytes;
    total_bytes += t.size_bytes;
    total_elements += t.n_elements();
  }
  std::printf("\ntotals: %zu tensors, %" PRIu64 " elements, %s of tensor data", f.tensors().size(), total_elements,
              human_bytes(total_bytes).c_str());
  for (const auto& [type, cb] : by_type)
    std::printf("; %s: %" PRIu64 " tensors, %s", type.c_str(), cb.first, human_bytes(cb.second).c_str());
  std::printf("\n");
}

int run_inspect(const std::vector<std::string>& args) {
  if (args.size() != 1) {
    std::fprintf(stderr, "usage: trit-cli inspect MODEL\n");
    return 2;
  }
  std::printf("file: %s\n", args[0].c_str());
  std::unique_ptr<trit::GgufFile> f;
  try {
    f = trit::GgufFile::open(args[0]);
  } catch (const trit::ModelError& e) {
    std::printf("verdict: not loadable: %s\n", e.what());
    return 1;
  }
  print_file(*f);
  try {
    // The verdict is Model's own validation: exactly what every other part of the engine loads.
    auto t0 = std::chrono::steady_clock::now();
    auto m = trit::Model::from_file(std::move(f));
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto& c = m->config();
    std::printf(
        "\nvalidated the hyper-parameters, every tensor (shapes, types, finite norms and embedding, I2_S "
        "scales and codes) and the tokenizer in %.1f ms\n",
        ms);
    std::printf(
        "verdict: loadable (%s, %u layers, dim %u, heads %u/%u, head_dim %u, ffn %u, vocab %u, context %u, "
        "rms_eps %g, rope_base %g, bos %d, eos %d, eot %d)\n",
        c.architecture.c_str(), c.layers, c.dim, c.heads, c.kv_heads, c.head_dim, c.ffn, c.vocab, c.context,
        static_cast<double>(c.rms_eps), static_cast<double>(c.rope_base), c.bos, c.eos, c.eot);
    return 0;
  } catch (const trit::ModelError& e) {
    std::printf("\nverdict: not loadable: %s\n", e.what());
    return 1;
  }
}

trit::cli::Registration reg{{"inspect", "inspect MODEL",
                             "show a GGUF file's metadata and tensors, and whether the engine can load it",
                             run_inspect}};

}  // namespace
