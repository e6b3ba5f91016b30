#pragma once
// The model a server answers for: its API id, the names it also answers to, its chat format, and how a
// request becomes the engine's prompt (the one place where messages or a prompt text become token ids).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "openai_request.h"
#include "trit/chat.h"
#include "trit/model.h"

namespace trit::server {

class ServedModel {
 public:
  // id: the file's general.name, or else its file name without ".gguf"; the file name is an alias.
  ServedModel(std::shared_ptr<const Model> model, const std::filesystem::path& path);

  const std::string& id() const { return id_; }
  bool answers_to(std::string_view name) const;
  int64_t created() const { return created_; }  // the file's modification time (OpenAI's "created")
  const Model& model() const { return *model_; }
  std::shared_ptr<const Model> shared_model() const { return model_; }
  bool is_chat_model() const { return chat_.has_value(); }

  // The prompt of a request as token ids: chat messages through the model's chat format (a base model
  // refuses chat with a 400 that points to /v1/completions), a completion prompt with BOS first where
  // the vocabulary has one. Throws ApiError.
  std::vector<int32_t> prompt_tokens(const CompletionRequest& request) const;
  // Tokens that end a reply besides EOS/EOT: the chat format's end of turn for chat requests.
  std::vector<int32_t> stop_tokens(const CompletionRequest& request) const;

 private:
  std::shared_ptr<const Model> model_;
  std::optional<ChatFormat> chat_;
  std::string id_;
  std::vector<std::string> aliases_;
  int64_t created_ = 0;
};

// The model a server answers for at the moment of a request: always the same one for `trit-cli serve`;
// in the app, whichever model its window has loaded, and null while none is. Called from the HTTP
// threads for every request (so it must be thread-safe); the request keeps what it got until it ends.
using ModelSource = std::function<std::shared_ptr<const ServedModel>()>;

}  // namespace trit::server
