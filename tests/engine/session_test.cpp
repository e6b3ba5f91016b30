// Session: prefix reuse, the decode loop's stop conditions, streaming text, cancellation and the
// context limit, on a scripted forward pass (the real forward passes have their own golden tests).
#include <gtest/gtest.h>
#include <trit/model.h>
#include <trit/session.h>
#include <trit/tokenizer.h>

#include <chrono>
#include <thread>

#include "test_support.h"

namespace {

// A forward pass whose greedy continuation is a script: after the token at position p, the most likely
// next token is script[p + 1] (positions beyond the script predict `fallback`). Counts processed tokens.
class ScriptedForward : public trit::Forward {
 public:
  ScriptedForward(std::vector<int32_t> script, int32_t vocab, int32_t context, int32_t fallback)
      : script_(std::move(script)), vocab_(vocab), context_(context), fallback_(fallback) {}

  void eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) override {
    if (pos + static_cast<int32_t>(tokens.size()) > context_) throw trit::ContextFullError("scripted context full");
    EXPECT_FALSE(all_logits);
    processed += static_cast<int32_t>(tokens.size());
    ++calls;
    if (delay.count() > 0) std::this_thread::sleep_for(delay);
    const int32_t last = pos + static_cast<int32_t>(tokens.size()) - 1;
    filled_ = last + 1;
    const size_t next = static_cast<size_t>(last) + 1;
    const int32_t want = next < script_.size() ? script_[next] : fallback_;
    std::fill(logits.begin(), logits.end(), 0.f);
    logits[static_cast<size_t>(want)] = 10.f;
  }
  int32_t context_length() const override { return context_; }
  int32_t vocab_size() const override { return vocab_; }
  int32_t cached_positions(int32_t) const override { return filled_; }

  int32_t processed = 0;
  int32_t calls = 0;
  std::chrono::milliseconds delay{0};

 private:
  std::vector<int32_t> script_;
  int32_t vocab_, context_, fallback_;
  int32_t filled_ = 0;
};

class SessionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    model_ = trit::Model::open(trit::test::shared_dir() / "golden" / "golden-a.gguf");
    tok_ = std::make_unique<trit::Tokenizer>(trit::Tokenizer::from_gguf(model_->file()));
  }
  // A session whose greedy reply to `prompt` is `reply` (then end of turn unless open_ended).
  std::unique_ptr<trit::Session> scripted(const std::vector<int32_t>& prompt, const std::string& reply,
                                          int32_t context = 512, bool open_ended = false) {
    std::vector<int32_t> script = prompt;
    auto r = tok_->encode(reply);
    script.insert(script.end(), r.begin(), r.end());
    const int32_t filler = tok_->encode("z")[0];
    if (!open_ended) script.push_back(tok_->eot());
    auto fwd = std::make_unique<ScriptedForward>(script, static_cast<int32_t>(model_->config().vocab), context,
                                                 open_ended ? filler : tok_->eot());
    forward_ = fwd.get();
    return std::make_unique<trit::Session>(model_, std::move(fwd));
  }
  trit::GenerateOptions greedy() {
    trit::GenerateOptions o;
    o.sampling.temperature = 0.f;
    o.max_tokens = 200;
    return o;
  }

  std::shared_ptr<trit::Model> model_;
  std::unique_ptr<trit::Tokenizer> tok_;
  ScriptedForward* forward_ = nullptr;
};

TEST_F(SessionTest, StreamsTheReplyAndStopsAtEndOfTurn) {
  const auto prompt = tok_->encode("Hello there", false, true);
  auto s = scripted(prompt, "General Kenobi! 👋 ünïcödé");
  std::string streamed;
  auto opts = greedy();
  opts.on_text = [&](std::string_view piece) { streamed += piece; };
  auto r = s->generate(prompt, opts);
  EXPECT_EQ(r.reason, trit::FinishReason::Stop);
  EXPECT_EQ(r.text, "General Kenobi! 👋 ünïcödé");
  EXPECT_EQ(streamed, r.text);
  EXPECT_EQ(r.tokens.back(), tok_->eot());
  EXPECT_EQ(r.stats.prompt_tokens, static_cast<int32_t>(prompt.size()));
  EXPECT_EQ(r.stats.generated_tokens, static_cast<int32_t>(r.tokens.size()));
  EXPECT_GE(r.stats.ttft_ms, 0.0);
  EXPECT_EQ(s->cached_tokens().size(), prompt.size() + r.tokens.size() - 1) << "all but the final EOT are cached";
}

TEST_F(SessionTest, StopsAtMaxTokens) {
  const auto prompt = tok_->encode("count", false, true);
  auto s = scripted(prompt, "one two three four five six");
  auto opts = greedy();
  opts.max_tokens = 5;
  auto r = s->generate(prompt, opts);
  EXPECT_EQ(r.reason, trit::FinishReason::Length);
  EXPECT_EQ(r.tokens.size(), 5u);
}

TEST_F(SessionTest, StopStringEndsTheReplyAndIsNeverShown) {
  const auto prompt = tok_->encode("q", false, true);
  auto s = scripted(prompt, "answer<STOP>more text");
  std::string streamed;
  auto opts = greedy();
  opts.stop_strings = {"<STOP>", "never"};
  opts.on_text = [&](std::string_view piece) { streamed += piece; };
  auto r = s->generate(prompt, opts);
  EXPECT_EQ(r.reason, trit::FinishReason::Stop);
  EXPECT_EQ(r.text, "answer");
  EXPECT_EQ(streamed, "answer") << "held-back text that became a stop string must not be streamed";
}

TEST_F(SessionTest, PartialStopStringIsReleasedWhenItDoesNotComplete) {
  const auto prompt = tok_->encode("q", false, true);
  auto s = scripted(prompt, "a <ST and more");
  std::string streamed;
  auto opts = greedy();
  opts.stop_strings = {"<STOP>"};
  opts.on_text = [&](std::string_view piece) { streamed += piece; };
  auto r = s->generate(prompt, opts);
  EXPECT_EQ(r.text, "a <ST and more");
  EXPECT_EQ(streamed, r.text);
}

TEST_F(SessionTest, NextTurnReusesTheCachedPrefix) {
  const auto turn1 = tok_->encode("User: hi\nAssistant:", false, true);
  auto s = scripted(turn1, " hello");
  auto r1 = s->generate(turn1, greedy());
  ASSERT_EQ(r1.reason, trit::FinishReason::Stop);
  const int32_t processed_before = forward_->processed;

  std::vector<int32_t> turn2 = s->cached_tokens();
  auto more = tok_->encode("\nUser: and now?\nAssistant:");
  turn2.insert(turn2.end(), more.begin(), more.end());
  auto r2 = s->generate(turn2, greedy());
  EXPECT_EQ(r2.stats.reused_tokens, static_cast<int32_t>(turn1.size() + r1.tokens.size() - 1));
  // Only the new tokens were processed for the prompt (plus the reply's own decode steps).
  EXPECT_EQ(forward_->processed - processed_before,
            static_cast<int32_t>(more.size()) + static_cast<int32_t>(r2.tokens.size()) - 1);
}

TEST_F(SessionTest, EditingAnEarlierMessageRewindsToTheDivergence) {
  const auto a = tok_->encode("shared prefix, then version A", false, true);
  auto b = tok_->encode("shared prefix, then version B", false, true);
  auto s = scripted(a, "x");
  s->prefill(a);
  const int32_t before = forward_->processed;
  s->prefill(b);
  size_t common = 0;
  while (a[common] == b[common]) ++common;
  EXPECT_EQ(forward_->processed - before, static_cast<int32_t>(b.size() - common));
  EXPECT_EQ(s->cached_tokens(), b);
}

TEST_F(SessionTest, SamePromptAgainReprocessesOnlyTheLastToken) {
  const auto p = tok_->encode("regenerate me", false, true);
  auto s = scripted(p, "x");
  s->prefill(p);
  const int32_t before = forward_->processed;
  auto logits = s->prefill(p);
  EXPECT_EQ(forward_->processed - before, 1);
  EXPECT_EQ(logits.size(), model_->config().vocab);
}

TEST_F(SessionTest, CancelFromAnotherThreadStopsWithinOneToken) {
  const auto prompt = tok_->encode("go", false, true);
  auto s = scripted(prompt, "", 4096, /*open_ended=*/true);
  forward_->delay = std::chrono::milliseconds(5);
  std::atomic<int> pieces{0};
  auto opts = greedy();
  opts.max_tokens = 3000;
  opts.on_text = [&](std::string_view) { pieces++; };
  std::thread canceller([&] {
    while (pieces.load() < 10) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    s->cancel();
  });
  auto r = s->generate(prompt, opts);
  canceller.join();
  forward_->delay = std::chrono::milliseconds(0);
  EXPECT_EQ(r.reason, trit::FinishReason::Cancelled);
  EXPECT_LE(r.tokens.size(), 12u) << "cancel must take effect within one token";
  EXPECT_EQ(s->generate(prompt, greedy()).reason, trit::FinishReason::Length)
      << "a cancel does not stick to the next generation";
}

TEST_F(SessionTest, RunningOutOfContextIsReportedNotTruncated) {
  const auto prompt = tok_->encode("0123456789", false, true);
  auto s = scripted(prompt, "", static_cast<int32_t>(prompt.size()) + 5, /*open_ended=*/true);
  auto r = s->generate(prompt, greedy());
  EXPECT_EQ(r.reason, trit::FinishReason::ContextFull);
  EXPECT_EQ(s->cached_tokens().size(), prompt.size() + 5);

  EXPECT_THROW(s->prefill(std::vector<int32_t>(prompt.size() + 6, prompt[1])), trit::ContextFullError);
}

// A prompt longer than the whole context is an error with the figures and the remedy, not a "full
// context" finish with empty statistics (issue 30 #9: "prompt 601 tokens ... in 0.0 ms = 16059213.3 t/s").
TEST_F(SessionTest, PromptLongerThanTheContextIsAnErrorWithTheFigures) {
  const auto prompt = tok_->encode("0123456789", false, true);
  const auto context = static_cast<int32_t>(prompt.size()) + 5;
  auto s = scripted(prompt, "", context, /*open_ended=*/true);
  std::vector<int32_t> too_long(static_cast<size_t>(context) + 7, prompt[1]);
  try {
    s->generate(too_long, greedy());
    FAIL() << "a prompt longer than the context was accepted";
  } catch (const trit::PromptTooLongError& e) {
    EXPECT_EQ(e.prompt_tokens(), context + 7);
    EXPECT_EQ(e.context(), context);
    EXPECT_EQ(e.excess(), 7);
    EXPECT_EQ(std::string(e.what()), "the prompt is " + std::to_string(context + 7) + " tokens but the context holds " +
                                         std::to_string(context) +
                                         ": it is 7 tokens too long. Shorten the prompt or use a longer context");
  }
  EXPECT_TRUE(s->cached_tokens().empty()) << "nothing of a prompt that cannot fit is processed";
  // One token over: the singular, and a prompt of exactly the context still runs.
  EXPECT_THROW(s->generate(std::vector<int32_t>(static_cast<size_t>(context) + 1, prompt[1]), greedy()),
               trit::PromptTooLongError);
  EXPECT_NO_THROW(s->generate(std::vector<int32_t>(static_cast<size_t>(context), prompt[1]), greedy()));
}

TEST_F(SessionTest, EmptyStopStringIsRefused) {
  auto s = scripted({1}, "x");
  auto o = greedy();
  o.stop_strings = {"\n", ""};
  EXPECT_EQ(o.validate(),
            "stop string 2 is empty; an empty stop string would end every reply before its first character");
  try {
    s->generate(std::vector<int32_t>{1}, o);
    FAIL() << "an empty stop string was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), o.validate());
  }
}

TEST_F(SessionTest, RejectsTokensOutsideTheVocabulary) {
  auto s = scripted({1}, "x");
  const std::vector<int32_t> bad{1, static_cast<int32_t>(model_->config().vocab)};
  EXPECT_THROW(s->prefill(bad), std::invalid_argument);
  EXPECT_THROW(s->prefill(std::vector<int32_t>{}), std::invalid_argument);
}

}  // namespace
