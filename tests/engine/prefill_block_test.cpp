// Prefill in large blocks (VulkanForwardOptions::block, 512 by default): a whole prompt in one submit,
// and all-logits evaluations capped at 64 tokens per submit whatever the block (their logits buffers do
// not grow with the block), against the golden logits and against each other.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "golden_support.h"
#include "trit/model.h"
#include "trit/vulkan_forward.h"

namespace {

using namespace trit;

TEST(PrefillBlock, DefaultBlockTakesAWholePromptAndCapsAllLogitSubmits) {
  const auto g = test::load_golden("golden-b");
  auto model = Model::open(g.gguf);
  VulkanForwardOptions o;
  EXPECT_EQ(o.block, 512u);
  o.precision = Precision::F64;  // (the golden tolerance: the double build)
  o.profile = true;              // counts the submits per pass (and changes no logit)
  o.context = 256;               // a block of 256, still more than the prompt (golden_support.h, context_for)
  VulkanForward fwd(*model, o);
  // The first 80 positions (teacher-forced logits of a prefix depend on the prefix only): more than
  // one all-logits submit, yet one prefill block.
  const uint32_t n = 80;
  ASSERT_GE(g.sequence.size(), n);
  const std::span<const int32_t> seq(g.sequence.data(), n);
  EXPECT_EQ(fwd.block_size(), std::min<uint32_t>(512, static_cast<uint32_t>(fwd.context_length())));
  ASSERT_GE(fwd.block_size(), n);

  // Every token's logits: submits of at most 64 tokens, each row within the golden tolerance.
  std::vector<float> all(size_t{n} * g.vocab);
  fwd.eval(seq, 0, all, /*all_logits=*/true);
  const auto c = test::compare_logits(
      all, std::span<const float>(g.logits(KvPrecision::F16)).subspan(0, size_t{n} * g.vocab), g.vocab, g.margin_floor);
  EXPECT_LE(c.max_abs_diff, g.max_abs_diff) << c.summary();
  EXPECT_TRUE(c.top1_mismatches.empty()) << c.summary();
  EXPECT_EQ(fwd.cached_positions(), static_cast<int32_t>(n));
  auto block_submits = [&] {
    for (const KernelTime& k : fwd.profile())
      if (k.pass == "block" && k.kernel == "qkv") return k.submits;
    return uint64_t{0};
  };
  EXPECT_EQ(block_submits(), 2u) << "80 tokens with all logits: submits of 64 and 16";
  fwd.reset_profile();

  // The same sequence as one prefill block with only the last logits: the same last row.
  std::vector<float> last(g.vocab);
  fwd.eval(seq, 0, last, /*all_logits=*/false);
  float worst = 0.f;
  for (uint32_t i = 0; i < g.vocab; ++i) worst = std::max(worst, std::fabs(last[i] - all[size_t{n - 1} * g.vocab + i]));
  EXPECT_LE(worst, 0.02f);
  EXPECT_EQ(block_submits(), 1u) << "80 tokens without all logits: one block";
}

}  // namespace
