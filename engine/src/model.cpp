// Model::open: map and parse the GGUF file, then validate and bind the BitNet weights (gguf/model_loader)
// and build the tokenizer: a file that opens is a file every part of the engine can run.
#include "trit/model.h"

#include "gguf/model_loader.h"
#include "trit/gguf.h"
#include "trit/tokenizer.h"

namespace trit {

std::shared_ptr<Model> Model::open(const std::filesystem::path& path) {
  auto file = GgufFile::open(path);  // its errors already name the file
  auto m = from_file(std::move(file));
  m->path_ = path;
  return m;
}

std::shared_ptr<Model> Model::from_file(std::unique_ptr<GgufFile> file) {
  std::shared_ptr<Model> m(new Model);
  m->file_ = std::move(file);
  m->path_ = m->file_->source_name();
  const std::string name = m->file_->source_name();
  gguf_detail::LoadedModel loaded;
  try {
    loaded = gguf_detail::load_model(*m->file_);
  } catch (const ModelError& e) {  // also GgufError from the metadata getters (missing key, wrong type)
    throw ModelError(name + ": " + e.what());
  }
  try {
    m->tokenizer_ = std::make_unique<Tokenizer>(Tokenizer::from_gguf(*m->file_));
  } catch (const TokenizerError& e) {  // its messages already name the file
    throw ModelError(e.what());
  } catch (const ModelError& e) {  // a tokenizer key of the wrong type
    throw ModelError(name + ": " + e.what());
  }
  m->config_ = std::move(loaded.config);
  m->weights_ = std::move(loaded.weights);  // views into owned_norms stay valid: the inner vectors move intact
  m->owned_norms_ = std::move(loaded.owned_norms);
  return m;
}

Model::~Model() = default;

}  // namespace trit
