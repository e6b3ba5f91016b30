// Sessions on the Vulkan backend choose tokens on the device, in chains of steps with no host in the
// loop: plain greedy through decode_greedy, sampling through the GPU sampler (decode_sample). Both give
// exactly the reply the CPU reference session gives with host sampling: on the golden models the two
// backends' logits agree to float rounding, and the GPU sampler reproduces the CPU sampler's choice.
// Both run the double-precision build: the tests prove the algorithm (in fp32 the two backends sum in
// other orders, and one int8 rounding that flips moves later logits by tenths).
#include <gtest/gtest.h>
#include <trit/model.h>
#include <trit/session.h>
#include <trit/tokenizer.h>

#include "test_support.h"

namespace {

using namespace trit;

struct Pair {
  std::unique_ptr<Session> cpu, gpu;
  std::vector<int32_t> prompt;
};

// (A context of 128 holds every conversation here that does not choose its own; the model's trained
// length would cost lavapipe more per step: golden_support.h, context_for.)
Pair sessions(const char* golden, const char* text, int32_t context = 128) {
  auto model = Model::open(test::shared_dir() / "golden" / (std::string(golden) + ".gguf"));
  Pair p;
  SessionOptions o;
  o.context = context;
  o.precision = Precision::F64;
  o.backend = "cpu";
  p.cpu = Session::create(model, o);
  o.backend = "vulkan";
  p.gpu = Session::create(model, o);
  p.prompt = p.cpu->tokenizer().encode(text, false, true);
  return p;
}

// Generates on the device, cancelling as the n-th token arrives (as another thread would; cancel() only
// sets a flag): the device loop has steps queued already, and must drop their tokens and stop there.
GenerateResult cancelled_at(Pair& p, GenerateOptions o, int n) {
  int seen = 0;
  o.on_token = [&](int32_t) {
    if (++seen == n) p.gpu->cancel();
  };
  return p.gpu->generate(p.prompt, o);
}

void expect_same_reply(const GenerateResult& a, const GenerateResult& b) {
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.text, b.text);
  EXPECT_EQ(a.reason, b.reason);
}

TEST(SessionOnDevice, GreedyRunsOnTheDeviceAndEqualsTheReference) {
  auto p = sessions("golden-b", "The ternary weights");
  GenerateOptions o;
  o.sampling.temperature = 0.f;
  o.sampling.repeat_penalty = 1.f;
  o.max_tokens = 14;
  const auto cpu = p.cpu->generate(p.prompt, o);
  const auto gpu = p.gpu->generate(p.prompt, o);
  expect_same_reply(cpu, gpu);
  EXPECT_STREQ(gpu.stats.sampled_on, "device-greedy");
  EXPECT_STREQ(cpu.stats.sampled_on, "host");
  EXPECT_EQ(gpu.tokens.size(), 14u);
  EXPECT_EQ(gpu.reason, FinishReason::Length);
  // The cache holds the prompt and every reply token that was fed back, on both.
  EXPECT_EQ(p.gpu->cached_tokens(), p.cpu->cached_tokens());
  // The next turn continues from there identically (prefix reuse on the device's cache).
  std::vector<int32_t> next = p.gpu->cached_tokens();
  next.push_back(p.prompt.back());
  expect_same_reply(p.cpu->generate(next, o), p.gpu->generate(next, o));
}

TEST(SessionOnDevice, SamplingOnTheDeviceEqualsHostSampling) {
  auto p = sessions("golden-a", "Sample me");
  GenerateOptions o;
  o.sampling.temperature = 0.9f;
  o.sampling.top_k = 40;
  o.sampling.top_p = 0.95f;
  o.sampling.min_p = 0.02f;
  o.sampling.repeat_penalty = 1.1f;
  o.sampling.seed = 1234;
  o.max_tokens = 20;
  auto gpu = p.gpu->generate(p.prompt, o);
  EXPECT_STREQ(gpu.stats.sampled_on, "device");
  expect_same_reply(p.cpu->generate(p.prompt, o), gpu);
  // Greedy with a repetition penalty is sampled (argmax after penalties) on the device too.
  o.sampling.temperature = 0.f;
  o.sampling.repeat_penalty = 1.3f;
  gpu = p.gpu->generate(p.prompt, o);
  EXPECT_STREQ(gpu.stats.sampled_on, "device");
  expect_same_reply(p.cpu->generate(p.prompt, o), gpu);
  // top-k 0 with min-p 0 is beyond the GPU sampler: the host samples, still the same reply.
  o.sampling.temperature = 0.7f;
  o.sampling.top_k = 0;
  o.sampling.min_p = 0.f;
  gpu = p.gpu->generate(p.prompt, o);
  EXPECT_STREQ(gpu.stats.sampled_on, "host");
  expect_same_reply(p.cpu->generate(p.prompt, o), gpu);
}

// A long reply with a short penalty window: the device slides the window (a ring of repeat_last_n
// slots) over the prompt and the reply, wrapping many times, and every draw equals the host's.
TEST(SessionOnDevice, SampledChainsKeepThePenaltyWindowOfTheHost) {
  auto p = sessions("golden-a", "The ternary weights", 160);
  GenerateOptions o;
  o.sampling.temperature = 0.8f;
  o.sampling.top_k = 20;
  o.sampling.top_p = 1.f;
  o.sampling.min_p = 0.f;
  o.sampling.repeat_penalty = 2.f;
  o.sampling.repeat_last_n = 3;
  o.sampling.seed = 99;
  o.max_tokens = 70;
  const auto gpu = p.gpu->generate(p.prompt, o);
  EXPECT_STREQ(gpu.stats.sampled_on, "device");
  expect_same_reply(p.cpu->generate(p.prompt, o), gpu);
  EXPECT_EQ(p.gpu->cached_tokens(), p.cpu->cached_tokens());
  // Greedy with a penalty: the window alone moves the choice off the argmax.
  o.sampling.temperature = 0.f;
  o.sampling.repeat_last_n = 5;
  o.max_tokens = 40;
  expect_same_reply(p.cpu->generate(p.prompt, o), p.gpu->generate(p.prompt, o));
  // A window longer than the whole context so far.
  o.sampling.temperature = 1.1f;
  o.sampling.repeat_last_n = 256;
  expect_same_reply(p.cpu->generate(p.prompt, o), p.gpu->generate(p.prompt, o));
}

TEST(SessionOnDevice, DeviceSamplingCancelsAndLeavesACacheThatContinuesExactly) {
  auto p = sessions("golden-a", "Sample me", 96);
  GenerateOptions o;
  o.sampling.temperature = 0.9f;
  o.sampling.top_k = 40;
  o.sampling.repeat_penalty = 1.2f;
  o.sampling.seed = 5;
  o.max_tokens = 40;
  const auto r = cancelled_at(p, o, 6);
  EXPECT_EQ(r.reason, FinishReason::Cancelled);
  EXPECT_EQ(r.tokens.size(), 6u);
  EXPECT_STREQ(r.stats.sampled_on, "device");
  // The six tokens are the host's first six; the next generation is exactly the reference's.
  const auto ref = p.cpu->generate(p.prompt, o);
  ASSERT_GE(ref.tokens.size(), 6u);
  EXPECT_EQ(r.tokens, std::vector<int32_t>(ref.tokens.begin(), ref.tokens.begin() + 6));
  o.max_tokens = 8;
  expect_same_reply(p.cpu->generate(p.prompt, o), p.gpu->generate(p.prompt, o));
  // To the end of the context (or an end-of-turn token), as the host samples it.
  o.max_tokens = 100000;
  expect_same_reply(p.cpu->generate(p.prompt, o), p.gpu->generate(p.prompt, o));
  EXPECT_EQ(p.gpu->cached_tokens(), p.cpu->cached_tokens());
}

TEST(SessionOnDevice, DeviceGreedyCancelsAndLeavesACacheThatContinuesExactly) {
  // (The golden vocabularies decode to no visible text, so stop strings are tested on the scripted
  // forward pass in session_test; here the device loop's own ways out: cancel, length, context.)
  // A context of 40: room for the prompt and both replies, and the run into its end is short (golden-b
  // decodes ~10 steps a second on lavapipe; 96 took twice as many steps, with the same remainder of
  // chained submits of four).
  auto p = sessions("golden-b", "The ternary weights", 40);
  GenerateOptions o;
  o.sampling.temperature = 0.f;
  o.sampling.repeat_penalty = 1.f;
  o.max_tokens = 60;
  const auto r = cancelled_at(p, o, 5);
  EXPECT_EQ(r.reason, FinishReason::Cancelled);
  EXPECT_EQ(r.tokens.size(), 5u);
  EXPECT_STREQ(r.stats.sampled_on, "device-greedy");
  // Whatever the cancel left in the cache, the next generation is exactly the reference's.
  o.max_tokens = 6;
  expect_same_reply(p.cpu->generate(p.prompt, o), p.gpu->generate(p.prompt, o));
  // Running into the context limit on the device is reported, not truncated.
  o.max_tokens = 100000;
  const auto full = p.gpu->generate(p.prompt, o);
  EXPECT_EQ(full.reason, FinishReason::ContextFull);
  EXPECT_EQ(static_cast<int32_t>(p.gpu->cached_tokens().size()), p.gpu->context_length());
}

}  // namespace
