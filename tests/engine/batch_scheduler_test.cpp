// The server's continuous batching (engine/server/batch_scheduler.h): requests decode together in the
// same steps, join as sequences free up, leave when they end or their client goes, and get what they
// get alone. The lifecycle runs on scripted forward passes (fast, exact timing); the equality of
// batched and one-by-one greedy requests on the Vulkan engine (lavapipe in CI) with a golden model.
#include <gtest/gtest.h>

#include <functional>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "batch_scheduler.h"
#include "sequence_set.h"
#include "slow_forward.h"
#include "test_support.h"
#include "trit/model.h"
#include "trit/tokenizer.h"
#include "trit/vulkan_forward.h"

namespace {

using Admission = trit::server::Scheduler::Admission;

class BatchSchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override { model_ = trit::Model::open(trit::test::shared_dir() / "golden" / "golden-a.gguf"); }
  std::unique_ptr<trit::server::BatchScheduler> scheduler(int32_t sequences, size_t queue) {
    return std::make_unique<trit::server::BatchScheduler>(
        model_,
        [this, sequences] {
          std::vector<std::unique_ptr<trit::Forward>> each;
          const auto& tok = model_->tokenizer();
          for (int32_t s = 0; s < sequences; ++s)
            each.push_back(std::make_unique<trit::test::SlowForward>(tok.vocab_size(), tok.encode("a")[0], 64));
          return std::make_unique<trit::SequenceSet>(std::move(each));
        },
        queue);
  }
  // temperature 0: greedy; else sampled with the engine's other defaults and `seed`.
  std::shared_ptr<trit::server::Job> job(int32_t max_tokens, const std::string& prompt = "Hello", float temperature = 0,
                                         uint64_t seed = 0) {
    trit::server::GenerationRequest g;
    g.prompt = model_->tokenizer().encode(prompt, false, true);
    g.sampling.temperature = temperature;
    g.sampling.seed = seed;
    g.max_tokens = max_tokens;
    return std::make_shared<trit::server::Job>(std::move(g));
  }
  std::shared_ptr<trit::Model> model_;
};

TEST_F(BatchSchedulerTest, SequencesRunTogetherAndTheQueueHoldsTheRest) {
  auto s = scheduler(2, 1);
  EXPECT_EQ(s->parallel(), 2);
  EXPECT_EQ(s->context_length(), 64);
  auto a = job(1000), b = job(1000), waiting = job(3), refused = job(3);
  EXPECT_EQ(s->submit(a), Admission::Accepted);
  EXPECT_EQ(s->submit(b), Admission::Accepted);
  EXPECT_EQ(s->submit(waiting), Admission::Accepted);
  EXPECT_EQ(s->submit(refused), Admission::QueueFull);  // however fast the engine takes the first ones
  EXPECT_EQ(s->load(), 3u);
  std::string ta, tb;
  while (ta.size() < 3) a->wait(ta, std::chrono::seconds(5));
  while (tb.size() < 3) b->wait(tb, std::chrono::seconds(5));  // both stream at once
  a->cancel();
  EXPECT_EQ(a->wait_all(ta).reason, trit::FinishReason::Cancelled);
  std::string tw;
  const auto rw = waiting->wait_all(tw);  // it took a's sequence while b still decodes
  EXPECT_EQ(rw.reason, trit::FinishReason::Length);
  EXPECT_EQ(tw, "aaa");
  std::string more;
  EXPECT_FALSE(b->wait(more, std::chrono::milliseconds(50)).has_value()) << "b is still decoding";
  b->cancel();
  EXPECT_EQ(b->wait_all(tb).reason, trit::FinishReason::Cancelled);
}

TEST_F(BatchSchedulerTest, ACancelledJobLeavesWithinOneStepOrNeverStarts) {
  auto s = scheduler(2, 4);
  auto first = job(1000), other = job(1000), queued = job(5);
  s->submit(first);
  s->submit(other);
  s->submit(queued);
  std::string text;
  while (text.size() < 3) first->wait(text, std::chrono::seconds(5));
  queued->cancel();
  first->cancel();
  const size_t at_cancel = text.size();
  EXPECT_EQ(first->wait_all(text).reason, trit::FinishReason::Cancelled);
  EXPECT_LE(text.size(), at_cancel + 1);  // at most the step in flight
  std::string none;
  const auto q = queued->wait_all(none);
  EXPECT_EQ(q.reason, trit::FinishReason::Cancelled);
  EXPECT_EQ(q.completion_tokens, 0);
  EXPECT_TRUE(none.empty());
  other->cancel();
  other->wait_all(text);
}

TEST_F(BatchSchedulerTest, ShutdownEndsRunningAndQueuedJobsAndRefusesNewOnes) {
  auto s = scheduler(2, 4);
  auto a = job(100000), b = job(100000), c = job(5);
  s->submit(a);
  s->submit(b);
  s->submit(c);
  s->shutdown();
  std::string text;
  for (auto& j : {a, b, c}) EXPECT_EQ(j->wait_all(text).reason, trit::FinishReason::Cancelled);
  EXPECT_EQ(s->submit(job(1)), Admission::ShuttingDown);
}

// A new request takes the free sequence whose cache shares the longest prefix with its prompt, but not
// one whose history it shares a token or two with while an empty sequence is free (b may come in after
// a has ended: it must not overwrite a's cache for the one token they share).
TEST_F(BatchSchedulerTest, ReusesTheLongestCachedPrefix) {
  auto s = scheduler(3, 4);
  std::string text;
  auto a = job(2, "Hello there"), b = job(2, "Goodbye now");
  s->submit(a);
  EXPECT_EQ(a->wait_all(text).cached_tokens, 0);
  s->submit(b);  // after a ended: a's sequence is free, shares the first token, and is not taken
  EXPECT_EQ(b->wait_all(text).cached_tokens, 0);
  auto c = job(2, "Goodbye now");
  s->submit(c);
  EXPECT_EQ(c->wait_all(text).cached_tokens, static_cast<int32_t>(c->request().prompt.size()) - 1);
  auto d = job(2, "Hello there, again");
  s->submit(d);
  EXPECT_EQ(d->wait_all(text).cached_tokens, static_cast<int32_t>(a->request().prompt.size()));
}

// A prompt longer than the context and an engine that fails end their job with an error, nothing else.
TEST_F(BatchSchedulerTest, AFailedJobEndsWithItsErrorAndTheOthersGoOn) {
  auto s = scheduler(2, 4);
  std::string long_prompt;
  for (int i = 0; i < 100; ++i) long_prompt += "word ";
  auto bad = job(3, long_prompt), good = job(3);
  s->submit(bad);
  s->submit(good);
  std::string text;
  const auto rb = bad->wait_all(text);
  EXPECT_NE(rb.error.find("too long"), std::string::npos) << rb.error;
  std::string tg;
  EXPECT_EQ(good->wait_all(tg).reason, trit::FinishReason::Length);
  EXPECT_EQ(tg, "aaa");
}

// Requests through four sequences of the Vulkan engine (eight greedy ones join as others leave; four
// sampled ones, each with its seed, run in steps of four whose rows are sampled on threads of their own)
// give the tokens each gives when the requests run one by one.
void expect_together_equals_one_by_one(const std::shared_ptr<trit::Model>& model, size_t n,
                                       const std::function<std::shared_ptr<trit::server::Job>(size_t)>& job_of) {
  auto make = [&] {
    return std::make_unique<trit::server::BatchScheduler>(
        model,
        [&] {
          trit::VulkanForwardOptions o;
          o.sequences = 4;
          o.context = 64;
          return std::make_unique<trit::VulkanForward>(*model, o);
        },
        8);
  };
  std::vector<std::string> together(n), alone(n);
  {
    auto s = make();
    std::vector<std::shared_ptr<trit::server::Job>> js;
    for (size_t i = 0; i < n; ++i) js.push_back(job_of(i));
    for (auto& j : js) ASSERT_EQ(s->submit(j), Admission::Accepted);
    for (size_t i = 0; i < js.size(); ++i) EXPECT_TRUE(js[i]->wait_all(together[i]).error.empty());
  }
  {
    auto s = make();
    for (size_t i = 0; i < n; ++i) {
      auto j = job_of(i);
      ASSERT_EQ(s->submit(j), Admission::Accepted);
      const auto r = j->wait_all(alone[i]);
      EXPECT_TRUE(r.error.empty()) << r.error;
      EXPECT_EQ(r.completion_tokens, 3 + static_cast<int32_t>(i % 3) * 2);
    }
  }
  for (size_t i = 0; i < n; ++i) EXPECT_EQ(together[i], alone[i]) << "request " << i;
}

const std::vector<std::string> kPrompts{"The sun", "A cat sat on",       "Why",    "Numbers: 1, 2,", "Once upon a time",
                                        "x",       "Hello world, hello", "Tell me"};

TEST_F(BatchSchedulerTest, ConcurrentGreedyRequestsEqualOneByOneOnVulkan) {
  expect_together_equals_one_by_one(model_, 8,
                                    [&](size_t i) { return job(3 + static_cast<int32_t>(i % 3) * 2, kPrompts[i]); });
}

TEST_F(BatchSchedulerTest, ConcurrentSampledRequestsEqualOneByOneOnVulkan) {
  expect_together_equals_one_by_one(
      model_, 4, [&](size_t i) { return job(3 + static_cast<int32_t>(i % 3) * 2, kPrompts[i], 1.5f, 1000 + i); });
}

}  // namespace
