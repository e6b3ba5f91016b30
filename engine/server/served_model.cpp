#include "served_model.h"

#include <chrono>
#include <system_error>

#include "trit/tokenizer.h"

namespace trit::server {

ServedModel::ServedModel(std::shared_ptr<const Model> model, const std::filesystem::path& path)
    : model_(std::move(model)), chat_(ChatFormat::for_model(*model_)) {
  std::string stem = path.filename().string();
  if (stem.size() > 5 && stem.ends_with(".gguf")) stem.resize(stem.size() - 5);
  id_ = model_->config().name.empty() ? stem : model_->config().name;
  for (const std::string& alias : {stem, path.filename().string()})
    if (alias != id_ && !alias.empty()) aliases_.push_back(alias);
  std::error_code ec;
  const auto mtime = std::filesystem::last_write_time(path, ec);
  if (!ec) {
    const auto sys = std::chrono::file_clock::to_sys(mtime);
    created_ = std::chrono::duration_cast<std::chrono::seconds>(sys.time_since_epoch()).count();
  }
}

bool ServedModel::answers_to(std::string_view name) const {
  if (name == id_) return true;
  for (const auto& a : aliases_)
    if (name == a) return true;
  return false;
}

std::vector<int32_t> ServedModel::prompt_tokens(const CompletionRequest& request) const {
  const Tokenizer& tok = model_->tokenizer();
  try {
    if (request.endpoint == Endpoint::ChatCompletions) {
      if (!chat_)
        throw invalid_request("the model '" + id_ +
                                  "' is a base model: it has no chat format (no recognised "
                                  "tokenizer.chat_template), so it cannot answer chat completions; continue a text "
                                  "with POST /v1/completions instead",
                              "messages", "model_not_chat");
      return chat_->render(request.messages, /*add_generation_prompt=*/true);
    }
    std::vector<int32_t> ids = tok.encode(request.prompt, /*allow_special=*/false, /*add_bos=*/tok.bos() >= 0);
    if (ids.empty()) throw invalid_request("'prompt' is empty and the model has no BOS token to start from", "prompt");
    return ids;
  } catch (const TokenizerError& e) {
    throw invalid_request(e.what(), request.endpoint == Endpoint::ChatCompletions ? "messages" : "prompt");
  }
}

std::vector<int32_t> ServedModel::stop_tokens(const CompletionRequest& request) const {
  if (request.endpoint == Endpoint::ChatCompletions && chat_) return chat_->stop_tokens();
  return {};
}

}  // namespace trit::server
