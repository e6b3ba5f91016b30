// trit-cli generate MODEL (--prompt TEXT | --chat TEXT) [--system TEXT] [sampling flags] ...
// Streams the reply to stdout as it is generated and prints the statistics to stderr.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "command.h"
#include "trit/chat.h"
#include "trit/model.h"
#include "trit/session.h"
#include "trit/tokenizer.h"

namespace {

trit::SamplingParams sampling_from(const trit::cli::Args& a) {
  trit::SamplingParams p;
  p.temperature = static_cast<float>(a.get_double("--temp", p.temperature));
  p.top_k = static_cast<int32_t>(a.get_int("--top-k", p.top_k, 0, 1 << 20));
  p.top_p = static_cast<float>(a.get_double("--top-p", p.top_p));
  p.min_p = static_cast<float>(a.get_double("--min-p", p.min_p));
  p.repeat_penalty = static_cast<float>(a.get_double("--repeat-penalty", p.repeat_penalty));
  p.repeat_last_n = static_cast<int32_t>(a.get_int("--repeat-last-n", p.repeat_last_n, 0, 1 << 20));
  p.seed = static_cast<uint64_t>(a.get_int("--seed", 0, 0, INT64_MAX));
  return p;
}

int run_generate(const std::vector<std::string>& argv) {
  trit::cli::Args a(
      argv,
      {"--prompt", "--chat", "--system", "--backend", "--device", "--ctx", "--kv", "--max-tokens", "--temp", "--top-k",
       "--top-p", "--min-p", "--repeat-penalty", "--repeat-last-n", "--seed", "--stop", "--precision"},
      {"--stdin", "--quiet-stats", "--generic"});
  const std::string& path = a.single_positional("MODEL");
  const int modes = a.has("--prompt") + a.has("--chat") + a.has("--stdin");
  if (modes != 1) throw std::invalid_argument("give exactly one of --prompt TEXT, --chat TEXT or --stdin");
  // Every option is checked (by the engine's own rules) before the model is loaded.
  trit::GenerateOptions go;
  go.sampling = sampling_from(a);
  go.max_tokens = static_cast<int32_t>(a.get_int("--max-tokens", 256, 1, 1 << 24));
  go.stop_strings = a.get_all("--stop");
  if (auto e = go.validate(); !e.empty()) throw std::invalid_argument(e);

  auto model = trit::Model::open(path);
  // Before the session is built (seconds on a GPU): a base model has nothing to chat with.
  std::optional<trit::ChatFormat> format;
  if (a.has("--chat")) {
    format = trit::ChatFormat::for_model(*model);
    if (!format)
      throw std::invalid_argument("'" + path +
                                  "' is a base model: it has no chat format (no recognised "
                                  "tokenizer.chat_template), so --chat cannot be used; continue a text with "
                                  "--prompt TEXT or --stdin instead");
  }
  const trit::SessionOptions so = trit::cli::session_options(a, "--ctx");
  auto session = trit::Session::create(model, so);
  const trit::Tokenizer& tok = session->tokenizer();

  std::vector<int32_t> prompt;
  if (a.has("--chat")) {
    std::vector<trit::ChatMessage> messages;
    if (a.has("--system")) messages.push_back({trit::ChatRole::System, a.get("--system", "")});
    messages.push_back({trit::ChatRole::User, a.get("--chat", "")});
    prompt = format->render(messages, /*add_generation_prompt=*/true);
    go.stop_tokens = format->stop_tokens();
  } else {
    std::string text =
        a.has("--stdin") ? std::string(std::istreambuf_iterator<char>(std::cin), {}) : a.get("--prompt", "");
    prompt = tok.encode(text, /*allow_special=*/false, /*add_bos=*/tok.bos() >= 0);
  }

  go.on_text = [](std::string_view piece) {
    std::fwrite(piece.data(), 1, piece.size(), stdout);
    std::fflush(stdout);
  };
  trit::GenerateResult r;
  try {
    r = session->generate(prompt, go);
  } catch (const trit::PromptTooLongError& e) {
    // No reply and no statistics: there is nothing to measure.
    const auto model_ctx = static_cast<int32_t>(std::min<uint32_t>(model->config().context, INT32_MAX));
    std::fprintf(stderr, "trit-cli generate: error: %s%s\n", e.what(),
                 e.context() < model_ctx
                     ? (" (--ctx, up to the model's " + std::to_string(model_ctx) + " tokens)").c_str()
                     : " (this is the model's whole context)");
    return 1;
  }
  std::printf("\n");
  if (!a.has("--quiet-stats")) {
    const auto& s = r.stats;
    std::fprintf(stderr,
                 "[%s, %s] prompt %d tokens (%d reused) in %.1f ms = %.1f t/s | first token after %.1f ms | "
                 "generated %d tokens in %.1f ms = %.1f t/s (tokens chosen on: %s%s%s) | finish: %s\n",
                 so.backend.c_str(), trit::to_string(so.precision), s.prompt_tokens, s.reused_tokens, s.prefill_ms,
                 s.prompt_tokens_per_s(), s.ttft_ms, s.generated_tokens, s.decode_ms, s.generation_tokens_per_s(),
                 s.sampled_on, s.decode_kernels.empty() ? "" : "; decode kernels: ", s.decode_kernels.c_str(),
                 trit::to_string(r.reason));
  }
  if (r.reason == trit::FinishReason::ContextFull) {
    std::fprintf(stderr, "trit-cli generate: the context of %d tokens is full\n", session->context_length());
    return 3;
  }
  return 0;
}

const trit::cli::Registration reg{
    {"generate",
     "generate MODEL (--prompt T | --chat T [--system S] | --stdin) [--backend cpu|vulkan] "
     "[--temp --top-k --top-p --min-p --repeat-penalty --seed --max-tokens --stop S --ctx --kv] "
     "[--precision fp32|f64] [--generic]",
     "generate text, streaming it, and print the statistics", run_generate}};

}  // namespace
