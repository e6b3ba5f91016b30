// Model::open: map and parse the GGUF file, then validate and bind the BitNet weights (gguf/model_loader).
#include "trit/model.h"

#include "gguf/model_loader.h"
#include "trit/gguf.h"

namespace trit {

std::shared_ptr<Model> Model::open(const std::filesystem::path& path) {
  std::shared_ptr<Model> m(new Model);
  m->path_ = path;
  m->file_ = GgufFile::open(path);  // its errors already name the file
  gguf_detail::LoadedModel loaded;
  try {
    loaded = gguf_detail::load_model(*m->file_);
  } catch (const ModelError& e) {  // also GgufError from the metadata getters (missing key, wrong type)
    throw ModelError(path.string() + ": " + e.what());
  }
  m->config_ = std::move(loaded.config);
  m->weights_ = std::move(loaded.weights);  // views into owned_norms stay valid: the inner vectors move intact
  m->owned_norms_ = std::move(loaded.owned_norms);
  return m;
}

Model::~Model() = default;

}  // namespace trit
