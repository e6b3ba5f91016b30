#include "scaled_model_support.h"

#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "trit/gguf.h"
#include "trit/model_generator.h"

namespace trit::test {

void write_scaled_model(const std::filesystem::path& path, const std::string& shape, float qk_scale, float norm_scale) {
  GeneratorOptions go;
  go.out = path;
  go.shape = parse_generator_shape(shape);
  go.vocab = "bytes:300";
  go.seed = 5;
  go.context = 256;
  generate_model(go);
  if (qk_scale != 1.f || norm_scale != 1.f) {
    const auto f = GgufFile::open(go.out);
    std::vector<std::pair<uint64_t, float>> patches;
    // Floats [at, at + 4 n) of the file times factor.
    auto scale_floats = [&](uint64_t at, uint64_t n, float factor) {
      for (uint64_t i = 0; i < n; ++i) {
        float v;
        std::memcpy(&v, f->bytes().data() + at + 4 * i, sizeof v);
        patches.emplace_back(at + 4 * i, v * factor);
      }
    };
    // Each matrix's I2_S scale, after its codes.
    for (const std::string role : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
      const GgufTensorInfo* t = f->find_tensor("blk.0." + role + ".weight");
      if (t == nullptr) throw std::runtime_error(path.string() + " has no tensor blk.0." + role + ".weight");
      const float qk = role == "attn_q" || role == "attn_k" ? qk_scale : 1.f;
      scale_floats(t->offset + t->n_elements() / 4, 1, qk / norm_scale);
    }
    if (norm_scale != 1.f)
      for (const char* tensor : {"blk.0.attn_norm.weight", "blk.0.attn_sub_norm.weight", "blk.0.ffn_norm.weight",
                                 "blk.0.ffn_sub_norm.weight"}) {
        const GgufTensorInfo* t = f->find_tensor(tensor);
        if (t == nullptr || t->type != GgmlType::F32)
          throw std::runtime_error(path.string() + ": no F32 tensor " + tensor);
        scale_floats(t->offset, t->n_elements(), norm_scale);
      }
    std::fstream out(go.out, std::ios::in | std::ios::out | std::ios::binary);
    for (const auto& [at, scale] : patches) {
      out.seekp(static_cast<std::streamoff>(at));
      out.write(reinterpret_cast<const char*>(&scale), sizeof scale);
    }
    if (!out.good()) throw std::runtime_error("could not patch " + path.string());
  }
}

}  // namespace trit::test
