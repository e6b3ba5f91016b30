#pragma once
// Turns a parsed GGUF file into a validated BitNet b1.58 model: ModelConfig from metadata only, and
// zero-copy weight views. Model::from_file (behind Model::open and `trit-cli inspect`'s verdict) runs it
// and then builds the tokenizer; the fuzzer runs it on in-memory files.
#include <vector>

#include "trit/gguf.h"
#include "trit/model.h"

namespace trit::gguf_detail {

struct LoadedModel {
  ModelConfig config;
  ModelWeights weights;                         // views into the GgufFile's bytes and into owned_norms
  std::vector<std::vector<float>> owned_norms;  // norms that had to be widened (F16) or realigned
};

// Reads and checks the hyper-parameters. Throws ModelError naming the key and the problem.
ModelConfig read_model_config(const GgufFile& f);

// read_model_config, then every tensor: presence, type, shape, finite norms and embedding, I2_S scales
// and codes. Throws ModelError.
// The result's views stay valid while `f` lives (moving the LoadedModel keeps them valid).
LoadedModel load_model(const GgufFile& f);

}  // namespace trit::gguf_detail
