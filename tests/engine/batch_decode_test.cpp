// Several sequences in one engine and batched decode steps (Forward::decode_batch), on the test
// environment's device (lavapipe in CI): each sequence's logits through batched steps meet the golden
// files (double: within the tolerance; fp32: the statistical contract) while other sequences decode in
// the same steps, a row is bit for bit the same whatever else its step holds, sequences never see each
// other's caches, and bad batches throw before anything is touched. The CPU backend's sequences (one
// reference pass each) give the rows the reference gives alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "golden_support.h"
#include "kernel_statistics_support.h"
#include "scaled_model_support.h"
#include "test_support.h"
#include "trit/backend.h"
#include "trit/cpu_forward.h"
#include "trit/devices.h"
#include "trit/model.h"
#include "trit/model_generator.h"
#include "trit/reference_ops.h"
#include "trit/sampler.h"
#include "trit/vulkan_forward.h"

namespace {

using namespace trit;

VulkanForwardOptions batch_options(int32_t sequences, Precision precision) {
  VulkanForwardOptions o;
  o.sequences = sequences;
  o.precision = precision;
  o.context = 96;
  return o;
}

std::span<const float> row(const std::vector<float>& v, size_t i, uint32_t vocab) {
  return std::span<const float>(v).subspan(i * vocab, vocab);
}

// Tokens of a sequence other than the golden one: a fixed walk through the vocabulary.
int32_t filler(int32_t seq, int32_t pos, uint32_t vocab) {
  return static_cast<int32_t>((97u * static_cast<uint32_t>(seq) + 31u * static_cast<uint32_t>(pos) + 5u) % vocab);
}

// Sequence seq's prompt of `length` filler tokens.
std::vector<int32_t> filler_prompt(int32_t seq, size_t length, uint32_t vocab) {
  std::vector<int32_t> prompt(length);
  for (size_t i = 0; i < length; ++i) prompt[i] = filler(seq, static_cast<int32_t>(i), vocab);
  return prompt;
}

// Sequences 0 .. 3 of two engines prefilled alike (sequence s: `length(s)` filler tokens), and the step
// that follows: each sequence's argmax after its prompt, at the prompt's end.
std::vector<BatchToken> prefill_alike(VulkanForward& a, VulkanForward& b, uint32_t vocab,
                                      const std::function<size_t(int32_t)>& length) {
  std::vector<float> last(vocab);
  std::vector<BatchToken> batch;
  for (int32_t s = 0; s < 4; ++s) {
    const std::vector<int32_t> prompt = filler_prompt(s, length(s), vocab);
    a.eval_sequence(s, prompt, 0, last, false);
    b.eval_sequence(s, prompt, 0, last, false);
    batch.push_back({s, static_cast<int32_t>(ref::argmax(last)), static_cast<int32_t>(prompt.size())});
  }
  return batch;
}

struct GoldenBatchParam {
  std::string name;
  Precision precision;
};

class BatchDecodeGolden : public testing::TestWithParam<GoldenBatchParam> {};

// The golden sequence in sequence 1: its first 40 tokens prefilled (every row's logits), the rest
// teacher-forced through batched steps beside sequence 0 (decoding from the start) and sequence 2
// (joining at the golden sequence's position 45 with a prompt of its own, leaving at 55).
TEST_P(BatchDecodeGolden, TeacherForcedRowsMatchTheGoldenLogits) {
  const auto& gp = GetParam();
  const auto g = test::load_golden(gp.name);
  auto model = Model::open(g.gguf);
  VulkanForward fwd(*model, batch_options(3, gp.precision));
  ASSERT_EQ(fwd.sequences(), 3);
  const uint32_t vocab = g.vocab;
  const size_t n = g.sequence.size(), first = 40;
  std::vector<float> got(n * vocab);
  fwd.eval_sequence(1, std::span<const int32_t>(g.sequence).first(first), 0, std::span<float>(got).first(first * vocab),
                    true);
  std::vector<float> step_logits(3 * vocab);
  int32_t pos0 = 0, pos2 = 0;
  for (size_t p = first; p < n; ++p) {
    std::vector<BatchToken> batch;
    batch.push_back({0, filler(0, pos0, vocab), pos0});
    batch.push_back({1, g.sequence[p], static_cast<int32_t>(p)});
    if (p == 45) {  // sequence 2 joins: its prompt first
      std::vector<int32_t> prompt(7);
      for (int32_t i = 0; i < 7; ++i) prompt[static_cast<size_t>(i)] = filler(2, i, vocab);
      std::vector<float> last(vocab);
      fwd.eval_sequence(2, prompt, 0, last, false);
      pos2 = 7;
    }
    if (p >= 45 && p < 55) batch.push_back({2, filler(2, pos2, vocab), pos2});
    std::reverse(batch.begin(), batch.end());  // the row order is the caller's, not the sequences'
    fwd.decode_batch(batch, std::span<float>(step_logits).first(batch.size() * vocab));
    const auto it = std::find_if(batch.begin(), batch.end(), [](const BatchToken& b) { return b.seq == 1; });
    const auto r = row(step_logits, static_cast<size_t>(it - batch.begin()), vocab);
    std::copy(r.begin(), r.end(), got.begin() + static_cast<std::ptrdiff_t>(p * vocab));
    ++pos0;
    if (p >= 45 && p < 55) ++pos2;
  }
  EXPECT_EQ(fwd.cached_positions(1), static_cast<int32_t>(n));
  EXPECT_EQ(fwd.cached_positions(0), static_cast<int32_t>(n - first));
  EXPECT_EQ(fwd.cached_positions(2), 17);
  const auto c = test::compare_logits(got, g.logits(KvPrecision::F16), vocab, g.margin_floor);
  if (gp.precision == Precision::F64) {
    EXPECT_LE(c.max_abs_diff, g.max_abs_diff) << c.summary();
    EXPECT_TRUE(c.top1_mismatches.empty()) << c.summary();
  } else {
    EXPECT_TRUE(c.meets_fp32_contract()) << c.summary();
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, BatchDecodeGolden,
                         testing::Values(GoldenBatchParam{"golden-a", Precision::F64},
                                         GoldenBatchParam{"golden-a", Precision::Fp32},
                                         // LLaMA graph with block scales (TQ2_0): SiLU, normal RoPE, no sub-norms.
                                         GoldenBatchParam{"golden-d", Precision::F64}),
                         [](const testing::TestParamInfo<GoldenBatchParam>& p) {
                           std::string s = p.param.name + (p.param.precision == Precision::F64 ? "_f64" : "_fp32");
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

// What ships (fp32): nine sequences decode greedily together, joining and leaving at different steps;
// nine more hold the same prompts and take every step alone. Each row of a shared step equals, bit for
// bit, the row of the same sequence's step alone, so a stream's tokens do not depend on the others; a
// last step of all eighteen gives each pair of twins the same rows. (On devices with the fused kernels,
// steps of three or more tokens run the batched small-matrix kernels (five and more: more tokens than
// a pass takes, so passes side by side), or, where the device offers cooperative matrices (golden-a),
// steps of three and four that kernel and steps of five or more the cooperative-matrix kernel (the last
// step in two tiles of tokens); steps of one and two run the one-token kernels: this proves they
// compute the same bits, with per-matrix scales (golden-a) and with block scales, whose float sums
// depend on the order (golden-d, TQ2_0).) Where the device offers NVIDIA's cooperative matrices, again
// with vendor-neutral features only: the KHR twin of the kernel.
class BatchDecodeRows : public testing::TestWithParam<std::string> {};

void each_row_equals_its_step_alone(const std::string& name, bool vendor_neutral) {
  SCOPED_TRACE(vendor_neutral ? "vendor-neutral" : "every feature");
  const auto g = test::load_golden(name);
  auto model = Model::open(g.gguf);
  constexpr int32_t kShared = 9;
  VulkanForwardOptions o = batch_options(2 * kShared, Precision::Fp32);
  o.vendor_neutral = vendor_neutral;
  VulkanForward fwd(*model, o);
  const uint32_t vocab = g.vocab;
  // Sequence s and its twin s + kShared: prompts of different lengths.
  const int32_t lengths[kShared] = {3, 9, 1, 14, 5, 2, 7, 4, 11};
  std::vector<int32_t> next(2 * kShared), pos(2 * kShared);
  std::vector<float> last(vocab);
  for (int32_t s = 0; s < kShared; ++s) {
    const std::vector<int32_t> prompt = filler_prompt(s, static_cast<size_t>(lengths[s]), vocab);
    for (int32_t twin : {s, s + kShared}) {
      fwd.eval_sequence(twin, prompt, 0, last, false);
      next[static_cast<size_t>(twin)] = static_cast<int32_t>(ref::argmax(last));
      pos[static_cast<size_t>(twin)] = lengths[s];
    }
  }
  // The sequences of each step, in the caller's order (they join and leave): steps of 3, 2, 4, 6, 7, 9,
  // 8 and 5 tokens.
  const std::vector<std::vector<int32_t>> steps = {{3, 0, 1},
                                                   {6, 3},
                                                   {3, 0, 6, 1},
                                                   {3, 0, 7, 2, 1, 6},
                                                   {3, 0, 5, 2, 1, 4, 6},
                                                   {3, 8, 0, 5, 2, 1, 4, 7, 6},
                                                   {8, 0, 5, 2, 1, 4, 7, 6},
                                                   {0, 5, 2, 4, 7}};
  std::vector<float> shared(2 * kShared * vocab), alone(vocab);
  for (size_t ks = 0; ks < steps.size(); ++ks) {
    const auto k = static_cast<int32_t>(ks);
    std::vector<BatchToken> batch;
    for (int32_t s : steps[ks]) batch.push_back({s, next[static_cast<size_t>(s)], pos[static_cast<size_t>(s)]});
    // The same step taken by argmax on the device (it writes the same cache entries again), then with
    // a repetition penalty on each row's winner and two other tokens, then with every row back: each
    // row's token is the host's greedy choice from that row, with and without the penalty.
    std::vector<int32_t> argmax(batch.size()), penalised_argmax(batch.size());
    fwd.decode_batch_argmax(batch, argmax, {});
    std::vector<std::vector<int32_t>> windows(batch.size());
    std::vector<RowPenalty> penalties;
    for (size_t i = 0; i < batch.size(); ++i) {
      windows[i] = {argmax[i], batch[i].token, 7};
      std::sort(windows[i].begin(), windows[i].end());
      windows[i].erase(std::unique(windows[i].begin(), windows[i].end()), windows[i].end());
      penalties.push_back({windows[i], 1.7f});
    }
    fwd.decode_batch_argmax(batch, penalised_argmax, penalties);
    fwd.decode_batch(batch, std::span<float>(shared).first(batch.size() * vocab));
    for (size_t i = 0; i < batch.size(); ++i) {
      ASSERT_EQ(argmax[i], static_cast<int32_t>(ref::argmax(row(shared, i, vocab))))
          << "step " << k << " sequence " << batch[i].seq << " in a step of " << batch.size();
      std::vector<float> penalised(row(shared, i, vocab).begin(), row(shared, i, vocab).end());
      for (int32_t t : windows[i])
        penalised[static_cast<size_t>(t)] = repeat_penalised(penalised[static_cast<size_t>(t)], 1.7f);
      ASSERT_EQ(penalised_argmax[i], static_cast<int32_t>(ref::argmax(penalised)))
          << "step " << k << " sequence " << batch[i].seq << " penalised";
      const int32_t s = batch[i].seq, twin = s + kShared;
      const BatchToken one{twin, next[static_cast<size_t>(twin)], pos[static_cast<size_t>(twin)]};
      ASSERT_EQ(one.token, batch[i].token) << "step " << k << " sequence " << s;
      fwd.decode_batch(std::span<const BatchToken>(&one, 1), alone);
      const auto r = row(shared, i, vocab);
      ASSERT_EQ(0, std::memcmp(r.data(), alone.data(), vocab * sizeof(float)))
          << "step " << k << ": sequence " << s << " in a step of " << batch.size() << " differs from its step alone";
      for (int32_t q : {s, twin}) {
        next[static_cast<size_t>(q)] = static_cast<int32_t>(ref::argmax(alone));
        ++pos[static_cast<size_t>(q)];
      }
    }
  }
  for (int32_t s = 0; s < kShared; ++s) EXPECT_EQ(fwd.cached_positions(s), fwd.cached_positions(s + kShared));
  // Every sequence at once, each beside its twin (the same token at the same position in another cache).
  std::vector<BatchToken> all;
  for (int32_t s = 0; s < kShared; ++s)
    for (int32_t q : {s + kShared, s}) all.push_back({q, next[static_cast<size_t>(q)], pos[static_cast<size_t>(q)]});
  fwd.decode_batch(all, shared);
  for (size_t i = 0; i < all.size(); i += 2)
    ASSERT_EQ(0, std::memcmp(row(shared, i, vocab).data(), row(shared, i + 1, vocab).data(), vocab * sizeof(float)))
        << "sequence " << all[i + 1].seq << " and its twin differ in a step of " << all.size();
  // The steps of three or more tokens ran their products beside their quantizations, and no wait gave up.
  EXPECT_TRUE(fwd.overlapped_batch_steps());
  // The argmax steps took their rows' tokens from the int8 head (the block head's tokens: checked above)
  // where its bounds run on the tensor cores.
  const DeviceInfo& d = fwd.device();
  if (cooperative_subgroup_size(d) == 32 && (d.cooperative_matrix_nv || d.cooperative_matrix_khr)) {
    EXPECT_TRUE(fwd.bounded_batch_head());
  } else {
    EXPECT_FALSE(fwd.bounded_batch_head());
  }
}

TEST_P(BatchDecodeRows, EachRowEqualsItsStepAlone) {
  each_row_equals_its_step_alone(GetParam(), false);
  const auto g = test::load_golden(GetParam());
  auto model = Model::open(g.gguf);
  if (VulkanForward(*model, batch_options(1, Precision::Fp32)).device().cooperative_matrix_nv)
    each_row_equals_its_step_alone(GetParam(), true);
}

INSTANTIATE_TEST_SUITE_P(Golden, BatchDecodeRows, testing::Values("golden-a", "golden-d"),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string s = p.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

// Sampled steps take each row's best k from the device (decode_batch_top: the slices' best 64, merged
// with the penalised tokens on the host): the same logits, bit for bit, and the same ids in the same
// order as the best k of decode_batch's rows after the penalty (Forward's default), with a penalty on
// each row's winner and on tokens around it; k past the slices' 64 takes the default.
class BatchDecodeTop : public testing::TestWithParam<std::string> {};

TEST_P(BatchDecodeTop, TopRowsEqualTheBestOfTheRows) {
  const auto g = test::load_golden(GetParam());
  auto model = Model::open(g.gguf);
  VulkanForward fwd(*model, batch_options(4, Precision::Fp32));
  const uint32_t vocab = g.vocab;
  std::vector<int32_t> next(4), pos(4);
  std::vector<float> last(vocab);
  for (int32_t s = 0; s < 4; ++s) {
    const std::vector<int32_t> prompt = filler_prompt(s, static_cast<size_t>(2 + 3 * s), vocab);
    fwd.eval_sequence(s, prompt, 0, last, false);
    next[static_cast<size_t>(s)] = static_cast<int32_t>(ref::argmax(last));
    pos[static_cast<size_t>(s)] = static_cast<int32_t>(prompt.size());
  }
  size_t compared = 0;
  std::vector<std::vector<TopLogit>> device, host;
  // Steps of 4, 4, 3, 2 and 1 tokens (the last two on the steps recorded for a few tokens).
  auto active = [](int32_t s, int32_t k) {
    return k < 2 || (k == 2 && s != 3) || (k == 3 && s < 2) || (k == 4 && s == 2);
  };
  for (int32_t k = 0; k < 5; ++k) {
    std::vector<BatchToken> batch;
    for (int32_t s : {2, 0, 3, 1})
      if (active(s, k)) batch.push_back({s, next[static_cast<size_t>(s)], pos[static_cast<size_t>(s)]});
    std::vector<std::vector<int32_t>> windows(batch.size());
    std::vector<RowPenalty> penalties;
    for (size_t i = 0; i < batch.size(); ++i) {
      windows[i] = {batch[i].token, static_cast<int32_t>((batch[i].token + 1) % vocab), 3};
      std::sort(windows[i].begin(), windows[i].end());
      windows[i].erase(std::unique(windows[i].begin(), windows[i].end()), windows[i].end());
      penalties.push_back({windows[i], i % 2 ? 1.4f : 1.f});
    }
    for (size_t want : {size_t{1}, size_t{40}, size_t{64}, size_t{65}}) {
      ASSERT_TRUE(fwd.decode_batch_top(batch, penalties, want, device));
      ASSERT_TRUE(fwd.Forward::decode_batch_top(batch, penalties, want, host));
      ASSERT_EQ(device.size(), batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        ASSERT_EQ(device[i].size(), want);
        for (size_t j = 0; j < want; ++j) {
          ASSERT_EQ(device[i][j].id, host[i][j].id) << "step " << k << " row " << i << " rank " << j << " of " << want;
          ASSERT_EQ(std::bit_cast<uint32_t>(device[i][j].logit), std::bit_cast<uint32_t>(host[i][j].logit));
          ++compared;
        }
      }
    }
    for (size_t i = 0; i < batch.size(); ++i) {
      next[static_cast<size_t>(batch[i].seq)] = device[i][0].id;
      ++pos[static_cast<size_t>(batch[i].seq)];
    }
  }
  EXPECT_EQ(compared, (4 + 4 + 3 + 2 + 1) * size_t{1 + 40 + 64 + 65});
  EXPECT_THROW(fwd.decode_batch_top(std::vector<BatchToken>{{0, 1, pos[0]}}, {}, 0, device), std::invalid_argument);
  EXPECT_THROW(fwd.decode_batch_top(std::vector<BatchToken>{{0, 1, pos[0]}}, {}, vocab, device), std::invalid_argument);
}

INSTANTIATE_TEST_SUITE_P(Golden, BatchDecodeTop, testing::Values("golden-a", "golden-d"),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string s = p.param;
                           std::replace(s.begin(), s.end(), '-', '_');
                           return s;
                         });

// A product that gave up waiting for its quantized rows (forced here) leaves garbage: the engine redoes
// the step with a barrier before each product and keeps the barriers. Its steps give the bits of an
// engine that keeps the overlap, that step and the ones after it.
TEST(BatchDecode, AStepWhoseProductGaveUpWaitingIsRedoneWithBarriers) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  VulkanForward a(*model, batch_options(4, Precision::Fp32)), b(*model, batch_options(4, Precision::Fp32));
  ASSERT_TRUE(a.overlapped_batch_steps());
  const uint32_t vocab = g.vocab;
  std::vector<float> la(4 * vocab), lb(4 * vocab);
  std::vector<BatchToken> batch = prefill_alike(a, b, vocab, [](int32_t s) { return static_cast<size_t>(2 + 3 * s); });
  // Each step starts its counts at zero: after two steps of four tokens every count is four.
  for (int32_t k = 0; k < 2; ++k) {
    a.decode_batch(batch, la);
    b.decode_batch(batch, lb);
  }
  const std::vector<uint32_t> counts = a.debug_batch_row_counts();
  ASSERT_EQ(counts.size(), 4u * model->config().layers);
  for (size_t i = 0; i < counts.size(); ++i) EXPECT_EQ(counts[i], 4u) << "count " << i;
  a.debug_fail_batch_overlap();
  for (int32_t k = 0; k < 3; ++k) {
    a.decode_batch(batch, la);
    b.decode_batch(batch, lb);
    EXPECT_FALSE(a.overlapped_batch_steps()) << "the engine must stop overlapping once a wait gave up";
    ASSERT_EQ(0, std::memcmp(la.data(), lb.data(), la.size() * sizeof(float))) << "step " << k;
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i].token = static_cast<int32_t>(ref::argmax(row(la, i, vocab)));
      ++batch[i].pos;
    }
  }
  EXPECT_TRUE(b.overlapped_batch_steps());
}

// Batched steps' products run on the device's int8 cooperative matrices where it offers them, for a
// file without block scales, and on the small-matrix kernel elsewhere: what bench reports, and what an
// NVIDIA GPU must not lose without a word (the rows are the same bits either way, so only this tells).
TEST(BatchDecode, ProductsRunOnCooperativeMatricesWhereOffered) {
  for (const char* name : {"golden-a", "golden-d"})
    for (const bool neutral : {false, true}) {
      if (neutral && std::string(name) == "golden-d") continue;
      SCOPED_TRACE(std::string(name) + (neutral ? " vendor-neutral" : ""));
      const auto g = test::load_golden(name);
      auto model = Model::open(g.gguf);
      VulkanForwardOptions o = batch_options(8, Precision::Fp32);
      o.vendor_neutral = neutral;
      VulkanForward fwd(*model, o);
      ASSERT_TRUE(fwd.fused_decode());
      const DeviceInfo& d = fwd.device();  // (vendor-neutral: without the NVIDIA extensions)
      const std::string ran = fwd.batched_kernels();
      if (std::string(name) == "golden-d" || (!d.cooperative_matrix_nv && !d.cooperative_matrix_khr)) {
        EXPECT_EQ(ran, "small-matrix kernel");  // block scales (TQ2_0), or no cooperative matrices
      } else {
        const char* ext = d.cooperative_matrix_nv ? "VK_NV" : "VK_KHR";
        EXPECT_TRUE(ran.starts_with(std::string("cooperative-matrix (") + ext + "_cooperative_matrix), int8 ")) << ran;
        // Vendor-neutral with size control: the subgroup range of an RDNA GPU, so a required size.
        EXPECT_EQ(ran.ends_with(", subgroups of 32 required"), neutral && d.subgroup_size_control) << ran;
      }
    }
  // One sequence: no batched steps.
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  VulkanForward one(*model, batch_options(1, Precision::Fp32));
  EXPECT_EQ(one.batched_kernels(), "");
}

// A generated model of the 2B4T shape with a small vocabulary (what these tests check is not the head's
// size), in the test's scratch directory `dir`; `shape` another generator shape.
auto full_shape_model(const char* dir, uint64_t seed, const char* shape = "2b4t") {
  GeneratorOptions go;
  go.out = test::scratch_dir(dir) / "2b4t.gguf";
  go.shape = parse_generator_shape(shape);
  go.vocab = "bytes:300";
  go.seed = seed;
  generate_model(go);
  return Model::open(go.out);
}

// At the 2B4T widths, with the device's compiler, each row of a step of two tokens has the bits of its
// step alone (two sequences beside twins with the same prompts). Steps of one run the one-token kernels
// compiled for one token and steps of two those compiled for two, and their final norms share one
// pipeline (Kernels::rmsnorm_quant `batched`): this is what proves those pipelines sum alike. (The
// golden files' widths cannot: at 256 or 512 a row's sum of squares takes the same order in a workgroup
// of 256 or of 1,024 invocations, where at 2,560 it does not; with the one-token final norm's wider
// workgroup a step of one differed here from the second step on, on an H200; lavapipe's two norm
// pipelines sum alike.) The full model where the device reports pipeline statistics (NVIDIA); on
// lavapipe two layers of its widths, for its compiler's one-token kernels.
TEST(BatchDecode, AStepOfOneMatchesAStepOfTwoAtTheFullShape) {
  auto model = test::device_reports_local_memory() ? full_shape_model("batch_one", 5)
                                                   : full_shape_model("batch_one", 5, "2560,20,5,6912,2");
  VulkanForward fwd(*model, batch_options(4, Precision::Fp32));
  const uint32_t vocab = model->config().vocab;
  std::vector<float> last(vocab), two(2 * vocab), alone(vocab);
  std::vector<int32_t> next(4), pos(4);
  for (int32_t s = 0; s < 2; ++s) {
    const std::vector<int32_t> prompt = filler_prompt(s, static_cast<size_t>(5 + 7 * s), vocab);
    for (int32_t twin : {s, s + 2}) {
      fwd.eval_sequence(twin, prompt, 0, last, false);
      next[static_cast<size_t>(twin)] = static_cast<int32_t>(ref::argmax(last));
      pos[static_cast<size_t>(twin)] = static_cast<int32_t>(prompt.size());
    }
  }
  for (int step = 0; step < 4; ++step) {
    const std::vector<BatchToken> both = {{0, next[0], pos[0]}, {1, next[1], pos[1]}};
    fwd.decode_batch(both, two);
    for (int32_t s = 0; s < 2; ++s) {
      const BatchToken one{s + 2, next[static_cast<size_t>(s + 2)], pos[static_cast<size_t>(s + 2)]};
      fwd.decode_batch(std::span<const BatchToken>(&one, 1), alone);
      ASSERT_EQ(0, std::memcmp(row(two, static_cast<size_t>(s), vocab).data(), alone.data(), vocab * sizeof(float)))
          << "step " << step << ": sequence " << s << " in a step of two differs from its step alone";
      for (int32_t q : {s, s + 2}) {
        next[static_cast<size_t>(q)] = static_cast<int32_t>(ref::argmax(alone));
        ++pos[static_cast<size_t>(q)];
      }
    }
  }
}

// Where the driver reports what it compiled (VK_KHR_pipeline_executable_properties with a local-memory
// statistic: NVIDIA), the batched steps' products (both kernels), the one-token kernels their steps of
// one or two tokens run, and their greedy LM head from the int8 table keep everything in registers and
// shared memory at the 2B4T shape, in fp32 (what runs): an array the driver moves to local memory
// costs these latency-bound steps far more than its arithmetic (an indexed pair of sums in the batched
// attention once made one-token decode 18-28% slower; the one-token kernels compiled for two tokens
// spilled 64 to 192 bytes while their loops had early exits, and a step of one ran 6% slower). Steps of
// one run those kernels compiled for one token, steps of two compiled for two: both are read here, and
// the grouped attention every batched step runs.
// Skipped where the device reports no such statistic (lavapipe).
TEST(BatchDecode, TheStepsKernelsSpillNoRegisters) {
  if (!test::device_reports_local_memory())
    GTEST_SKIP() << "the device reports no local-memory statistic of its pipelines";
  auto model = full_shape_model("batch_spills", 3);
  // 16 sequences: steps of 1 and 2 tokens (the one-token kernels), of 3 to 6 (the small-matrix kernel)
  // and of more (the cooperative-matrix kernel where the device offers one), each class recorded.
  VulkanForwardOptions o = batch_options(16, Precision::Fp32);
  o.pipeline_statistics = true;
  VulkanForward f(*model, o);
  size_t products = 0, heads = 0, few = 0, attentions = 0;
  for (const auto& line : f.kernel_statistics()) {
    const auto bytes = test::local_memory_bytes(line);
    const bool product = line.starts_with("bitlinear_batch"), head = line.starts_with("lm_head_batch");
    const bool attention = line.starts_with("attention_gqa");
    // (the one-token kernels compiled for steps of one and of two tokens: " tokens 0" is one token's decode)
    const bool one_token = line.starts_with("bitlinear_decode") && line.find(" tokens 0:") == std::string::npos;
    if (!bytes || !(product || head || one_token || attention)) continue;
    std::printf("[ measured ] %s\n", line.c_str());
    products += product ? 1 : 0;
    heads += head ? 1 : 0;
    few += one_token ? 1 : 0;
    attentions += attention ? 1 : 0;
    EXPECT_EQ(*bytes, 0u) << line;
  }
  EXPECT_GE(products, 3u) << "each product (QKV, residual, gate) reports its local memory";
  EXPECT_GE(few, 3u) << "each one-token kernel of the few-token steps reports its local memory";
  EXPECT_EQ(attentions, 1u) << "the grouped attention reports its local memory";
  EXPECT_EQ(heads, f.bounded_batch_head() ? 4u : 0u)
      << "the int8 head (a greedy step's, a sampled step's three passes) reports its local memory";
}

// The batched steps' kernels against the unfused kernels, in double, on a shape whose rows split
// unevenly over a lane group's 8 lanes (1,280 and 1,792 inputs: 20 and 28 code uvec4s a row) with steps
// of 3 and 4 tokens (the small-matrix kernels) and of 7 and 8 (the cooperative-matrix kernel where the
// device offers one and the file has no block scales; its subgroups then take 5 and 7 chunks of K): the
// 2B4T graph (ReLU^2, sub-norms, NeoX RoPE) with per-matrix scales and an
// F16 cache, LLaMA's (SiLU, normal RoPE) with block scales and a full-precision cache; one sequence past
// its first 64-key chunk (the grouped attention's second chunk in the same work item). And the 2B4T
// graph 256 wide, where a lane group is one lane (4 code uvec4s a row) and a workgroup's QKV epilogue
// has more (token, pair quad) items than invocations.
// The integer sums are exact and double keeps every float step the same, so the rows are equal bit for
// bit.
TEST(BatchDecode, BatchedKernelsEqualTheUnfusedOnUnevenShapes) {
  const auto dir = test::scratch_dir("BatchUneven");
  struct Variant {
    const char* arch;
    WeightFormat format;
    KvPrecision kv;
    const char* shape;
  };
  const Variant variants[] = {{"bitnet-25", WeightFormat::I2_S, KvPrecision::F16, "1280,10,2,1792,1"},
                              {"llama", WeightFormat::TQ2_0, KvPrecision::F32, "1280,10,2,1792,1"},
                              {"bitnet-25", WeightFormat::I2_S, KvPrecision::F16, "256,2,2,512,1"}};
  for (const auto& [arch, f, kv, shape] : variants) {
    SCOPED_TRACE(std::string(arch) + " " + weight_format_name(f) + " " + shape);
    GeneratorOptions go;
    go.out = dir / (std::string(arch) + "-" + weight_format_name(f) + "-" + shape + ".gguf");
    go.shape = parse_generator_shape(shape);
    go.arch = arch;
    go.format = f;
    go.context = 128;
    generate_model(go);
    auto model = Model::open(go.out);
    const uint32_t vocab = model->config().vocab;
    std::vector<std::vector<float>> runs;
    constexpr int32_t kSeqs = 8;
    for (const bool tuned : {true, false}) {
      VulkanForwardOptions o = batch_options(kSeqs, Precision::F64);
      o.context = 80;
      o.kv = kv;
      o.tuned_kernels = tuned;
      VulkanForward fwd(*model, o);
      ASSERT_EQ(fwd.fused_decode(), tuned);
      std::vector<float> last(vocab), rows;
      std::vector<int32_t> pos(kSeqs);
      for (int32_t s = 0; s < kSeqs; ++s) {
        const std::vector<int32_t> prompt = filler_prompt(s, static_cast<size_t>(s == 3 ? 70 : 2 + s), vocab);
        fwd.eval_sequence(s, prompt, 0, last, false);
        pos[static_cast<size_t>(s)] = static_cast<int32_t>(prompt.size());
      }
      // Steps of 4, 3, 4, 8 and 7 tokens.
      const std::vector<std::vector<int32_t>> steps = {
          {0, 1, 2, 3}, {0, 1, 3}, {0, 1, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7}, {7, 6, 4, 3, 2, 1, 0}};
      for (size_t k = 0; k < steps.size(); ++k) {
        std::vector<BatchToken> batch;
        for (int32_t s : steps[k])
          batch.push_back({s, filler(s, 10 + static_cast<int32_t>(k), vocab), pos[static_cast<size_t>(s)]++});
        std::vector<float> step(batch.size() * vocab);
        fwd.decode_batch(batch, step);
        rows.insert(rows.end(), step.begin(), step.end());
      }
      runs.push_back(std::move(rows));
    }
    ASSERT_EQ(runs[0].size(), runs[1].size());
    for (size_t i = 0; i < runs[0].size(); ++i)
      ASSERT_EQ(runs[0][i], runs[1][i]) << "logit " << i % vocab << " of row " << i / vocab;
  }
}

// A batched step's attention runs grouped by KV head with the persistent kernel's arithmetic
// (vk::GroupedAttention), checked against the unfused kernels: contexts past 128 keys, which split over
// several work items whose partials the last to finish merges (the splits follow the persistent grid:
// 16 workgroups over 2 KV heads, up to 8 a token), beside a short one that stays in one item; and
// the same with q and k scaled until the unshifted softmax weights overflow or underflow, so work
// items are redone with the running maximum; steps of all three beside steps of the short one alone, so
// the launched grid (the step's, GroupedAttention::grid) changes from step to step. Four query heads a
// KV head (the scores' shuffle tree) and one (its plain reductions). In double every row within 1e-4 of
// the unfused kernels', in fp32 (where an int8 rounding may flip between two summation orders) within
// the fp32 contract's cosine; nothing infinite.
TEST(BatchDecode, GroupedAttentionMatchesTheUnfusedPastSplitsAndExtremeScores) {
  const auto dir = test::scratch_dir("BatchGrouped");
  // The shapes, and the splits a (token, KV head) gets at most: 16 workgroups over the KV heads.
  const std::pair<const char*, int> shapes[] = {{"512,8,2,512,1", 8}, {"512,4,4,512,1", 4}};
  for (size_t sh = 0; sh < 2; ++sh)
    for (const float qk : {1.f, 200.f}) {
      const std::string shape = shapes[sh].first;
      const auto path = dir / ("shape" + std::to_string(sh) + "_qk" + std::to_string(static_cast<int>(qk)) + ".gguf");
      test::write_scaled_model(path, shape, qk);
      auto model = Model::open(path);
      const uint32_t vocab = model->config().vocab;
      for (const Precision precision : {Precision::F64, Precision::Fp32}) {
        SCOPED_TRACE(shape + ", q and k times " + std::to_string(qk) +
                     (precision == Precision::F64 ? ", double" : ", fp32"));
        VulkanForwardOptions go = batch_options(3, precision);
        go.context = 256;
        go.persistent_groups = 16;
        VulkanForward grouped(*model, go);
        ASSERT_EQ(grouped.batched_attention(),
                  "grouped by KV head, up to " + std::to_string(shapes[sh].second) + " splits");
        VulkanForwardOptions uo = go;
        uo.tuned_kernels = false;
        VulkanForward unfused(*model, uo);
        ASSERT_EQ(unfused.batched_attention(), "");
        std::vector<float> last(vocab);
        std::vector<int32_t> pos(3);
        const size_t lengths[3] = {150, 40, 200};
        for (int32_t s = 0; s < 3; ++s) {
          const std::vector<int32_t> prompt = filler_prompt(s, lengths[s], vocab);
          grouped.eval_sequence(s, prompt, 0, last, false);
          unfused.eval_sequence(s, prompt, 0, last, false);
          pos[static_cast<size_t>(s)] = static_cast<int32_t>(prompt.size());
        }
        // Steps of the three, of the short one alone, of the three, of two: each step's grid is its own
        // (a lone short sequence needs one split, the three after it up to 8).
        const std::vector<std::vector<int32_t>> steps = {{2, 1, 0}, {1}, {2, 1, 0}, {1, 0}};
        for (int32_t k = 0; k < 4 && !HasFatalFailure(); ++k) {
          std::vector<BatchToken> batch;
          for (const int32_t s : steps[static_cast<size_t>(k)])
            batch.push_back({s, filler(s, 300 + k, vocab), pos[static_cast<size_t>(s)]++});
          std::vector<float> a(batch.size() * vocab), b(batch.size() * vocab);
          grouped.decode_batch(batch, a);
          unfused.decode_batch(batch, b);
          for (size_t r = 0; r < batch.size(); ++r) {
            const auto ra = row(a, r, vocab), rb = row(b, r, vocab);
            for (float v : ra) ASSERT_TRUE(std::isfinite(v)) << "step " << k << ", row " << r;
            double ab = 0, aa = 0, bb = 0, worst = 0;
            for (size_t i = 0; i < vocab; ++i) {
              ab += double{ra[i]} * rb[i], aa += double{ra[i]} * ra[i], bb += double{rb[i]} * rb[i];
              worst = std::max(worst, std::abs(double{ra[i]} - rb[i]));
            }
            if (precision == Precision::F64)
              EXPECT_LE(worst, 1e-4) << "step " << k << ", row " << r;
            else
              EXPECT_GE(ab / std::sqrt(aa * bb), test::kFp32MinMeanCosine) << "step " << k << ", row " << r;
          }
        }
      }
    }
}

// A batched step of one token (a lone stream among several sequences) runs on the persistent kernel's
// step-bits pipeline once the engine uses that kernel (decode_layer.glsl STEP_BITS): each row equals the
// one-token kernels' bit for bit (an engine without the persistent kernel), over steps of one beside
// steps of two (the one-token kernels in both engines) and of four (the batched products), so each path
// reads cache rows the other wrote; sequences past the first (their own cache rows and positions). The
// 2B4T graph in fp32 (golden-a: what ships) and LLaMA's with two heads of 256 a KV head in double
// (golden-c; on an H200 this caught the scores' clustered sums, ordered otherwise than the grouped
// attention's shuffles, in fp32); both in both precisions pass there. On a CPU device the kernel
// runs at one workgroup (the grouped attention's splits follow that grid too). Then a lone step whose
// wait gives up is redone on the one-token kernels, which take the steps of one from then on. (Each
// configuration compiles two engines' pipelines: about a minute of lavapipe's time without its shader
// cache.)
TEST(BatchDecode, ALoneStepOnThePersistentKernelHasTheBatchedStepsBits) {
  const bool cpu = choose_device(list_vulkan_devices(), {}).type == "cpu";
  const std::pair<const char*, Precision> configs[] = {{"golden-a", Precision::Fp32}, {"golden-c", Precision::F64}};
  for (const auto& [name, precision] : configs) {
    SCOPED_TRACE(std::string(name) + (precision == Precision::F64 ? ", double" : ", fp32"));
    const auto g = test::load_golden(name);
    auto model = Model::open(g.gguf);
    VulkanForwardOptions po = batch_options(4, precision);
    po.persistent_groups = cpu ? 1 : 0;
    VulkanForward pers(*model, po);
    pers.persistent_groups();  // (waits for the kernel, which then takes the steps of one)
    ASSERT_EQ(pers.batched_lone_steps(), "persistent kernel, the batched steps' bits");
    VulkanForwardOptions fo = po;
    fo.persistent_groups = -1;
    VulkanForward fused(*model, fo);
    ASSERT_EQ(fused.batched_lone_steps(), "one-token kernels");
    const uint32_t vocab = g.vocab;
    std::vector<BatchToken> next =
        prefill_alike(pers, fused, vocab, [](int32_t s) { return static_cast<size_t>(2 + 3 * s); });
    // Steps: sequence 2 alone, 0 alone, 1 and 3, all four, 3 alone, 1 alone, all four.
    const std::vector<std::vector<int32_t>> steps = {{2}, {0}, {1, 3}, {0, 1, 2, 3}, {3}, {1}, {3, 2, 1, 0}};
    for (size_t k = 0; k < steps.size() && !HasFatalFailure(); ++k) {
      std::vector<BatchToken> batch;
      for (const int32_t s : steps[k]) batch.push_back(next[static_cast<size_t>(s)]);
      std::vector<float> a(batch.size() * vocab), b(a.size());
      pers.decode_batch(batch, a);
      fused.decode_batch(batch, b);
      for (size_t r = 0; r < batch.size(); ++r) {
        ASSERT_EQ(0, std::memcmp(row(a, r, vocab).data(), row(b, r, vocab).data(), vocab * sizeof(float)))
            << "step " << k << ", sequence " << batch[r].seq << " at " << batch[r].pos;
        BatchToken& t = next[static_cast<size_t>(batch[r].seq)];
        t.token = static_cast<int32_t>(ref::argmax(row(a, r, vocab)));
        ++t.pos;
      }
    }
    EXPECT_EQ(pers.batched_lone_steps(), "persistent kernel, the batched steps' bits");  // no wait gave up
    // A lone step whose wait gave up is redone on the one-token kernels, which then take such steps:
    // the same row either way.
    pers.debug_fail_persistent_decode();
    const std::vector<BatchToken> lone = {next[2]};
    std::vector<float> a(vocab), b(vocab);
    pers.decode_batch(lone, a);
    fused.decode_batch(lone, b);
    EXPECT_EQ(0, std::memcmp(a.data(), b.data(), vocab * sizeof(float))) << "the step redone";
    EXPECT_EQ(pers.batched_lone_steps(), "one-token kernels");
  }
}

// Nothing a bad batch names is touched: each error is specific and the caches keep their positions.
TEST(BatchDecode, BadBatchesThrowAndTouchNothing) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  VulkanForwardOptions o = batch_options(3, Precision::Fp32);
  o.context = 8;
  VulkanForward fwd(*model, o);
  const uint32_t vocab = g.vocab;
  std::vector<float> last(vocab), two(2 * vocab);
  const std::vector<int32_t> prompt{1, 2, 3, 4, 5, 6, 7, 8};
  fwd.eval_sequence(0, std::span<const int32_t>(prompt).first(3), 0, last, false);
  fwd.eval_sequence(1, prompt, 0, last, false);  // full
  auto expect_untouched = [&] {
    EXPECT_EQ(fwd.cached_positions(0), 3);
    EXPECT_EQ(fwd.cached_positions(1), 8);
    EXPECT_EQ(fwd.cached_positions(2), 0);
  };
  auto bad = [&](std::vector<BatchToken> b, size_t rows) {
    std::vector<float> out(rows * vocab);
    fwd.decode_batch(b, out);
  };
  EXPECT_THROW(bad({}, 0), std::invalid_argument);
  EXPECT_THROW(bad({{0, 1, 3}, {3, 1, 0}}, 2), std::out_of_range);      // no sequence 3
  EXPECT_THROW(bad({{0, 1, 3}, {0, 1, 3}}, 2), std::invalid_argument);  // twice in one step
  EXPECT_THROW(bad({{0, 1, 3}, {2, 1, 1}}, 2), std::invalid_argument);  // a hole in sequence 2
  EXPECT_THROW(bad({{0, 1, 3}, {2, static_cast<int32_t>(vocab), 0}}, 2), std::out_of_range);
  EXPECT_THROW(bad({{0, 1, 3}, {1, 1, 8}}, 2), ContextFullError);                             // sequence 1 is full
  EXPECT_THROW(bad({{0, 1, 3}, {1, 1, 7}, {2, 1, 0}, {2, 1, 0}}, 4), std::invalid_argument);  // more than 3
  EXPECT_THROW(bad({{0, 1, 3}}, 2), std::invalid_argument);  // logits of the wrong size
  std::vector<int32_t> tokens(2);
  EXPECT_THROW(fwd.decode_batch_argmax(std::vector<BatchToken>{{0, 1, 3}}, tokens, {}), std::invalid_argument);
  EXPECT_THROW(fwd.decode_batch_argmax(std::vector<BatchToken>{{0, 1, 3}, {1, 1, 8}}, tokens, {}), ContextFullError);
  const std::vector<int32_t> outside{static_cast<int32_t>(vocab)};
  const std::vector<RowPenalty> bad_penalty{{outside, 1.5f}, {}};
  EXPECT_THROW(fwd.decode_batch_argmax(std::vector<BatchToken>{{0, 1, 3}, {2, 1, 0}}, tokens, bad_penalty),
               std::out_of_range);
  EXPECT_THROW(fwd.decode_batch_argmax(std::vector<BatchToken>{{0, 1, 3}, {2, 1, 0}}, tokens,
                                       std::span<const RowPenalty>(bad_penalty).first(1)),
               std::invalid_argument);  // a penalty for one entry of two
  const std::vector<int32_t> twice{5, 9, 5};
  EXPECT_THROW(fwd.decode_batch_argmax(std::vector<BatchToken>{{0, 1, 3}, {2, 1, 0}}, tokens,
                                       std::vector<RowPenalty>{{}, {twice, 1.5f}}),
               std::invalid_argument);  // a token penalised twice
  EXPECT_THROW(fwd.eval_sequence(3, prompt, 0, last, false), std::out_of_range);
  EXPECT_THROW(fwd.cached_positions(-1), std::out_of_range);
  expect_untouched();
  // A good step still runs after them: sequence 1 rewritten at its last position, 2 from its start.
  const std::vector<BatchToken> ok{{1, 9, 7}, {2, 9, 0}};
  fwd.decode_batch(ok, two);
  EXPECT_EQ(fwd.cached_positions(1), 8);
  EXPECT_EQ(fwd.cached_positions(2), 1);
  EXPECT_EQ(fwd.cached_positions(0), 3);
}

// A sequence's cache is its own: sequence 0 decodes to the same logits whether or not sequences 1 and 2
// were filled with other tokens in between (their rows lie after sequence 0's in the same buffers).
TEST(BatchDecode, SequencesDoNotSeeEachOthersCaches) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  VulkanForward fwd(*model, batch_options(3, Precision::Fp32));
  const uint32_t vocab = g.vocab;
  std::vector<float> a(vocab), b(vocab), last(vocab);
  const std::span<const int32_t> prompt = std::span<const int32_t>(g.sequence).first(12);
  fwd.eval_sequence(0, prompt, 0, last, false);
  const BatchToken step{0, g.sequence[12], 12};
  fwd.decode_batch(std::span<const BatchToken>(&step, 1), a);
  std::vector<int32_t> other(40);
  for (int32_t i = 0; i < 40; ++i) other[static_cast<size_t>(i)] = filler(1, i, vocab);
  fwd.eval_sequence(1, other, 0, last, false);
  fwd.eval_sequence(2, std::span<const int32_t>(other).first(13), 0, last, false);
  fwd.decode_batch(std::span<const BatchToken>(&step, 1), b);  // position 12 of sequence 0 again
  EXPECT_EQ(0, std::memcmp(a.data(), b.data(), vocab * sizeof(float)));
}

// A batched step's set-up (its counts zeroed, the rows' penalty lists in device memory) is written by
// the host where it sees the device's buffers (lavapipe, a BAR, an integrated GPU) and by transfers in
// the step where it does not (a discrete GPU without a host-visible BAR): the same steps either way,
// argmax and best rows with penalties, over steps that overlap their products and steps that do not.
TEST(BatchDecode, TheStepsSetUpByTheHostOrByTransfersAreTheSame) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  VulkanForwardOptions hidden = batch_options(4, Precision::Fp32);
  hidden.map_device_memory = false;
  VulkanForward host(*model, batch_options(4, Precision::Fp32)), transfers(*model, hidden);
  const uint32_t vocab = g.vocab;
  std::vector<BatchToken> batch =
      prefill_alike(host, transfers, vocab, [](int32_t s) { return static_cast<size_t>(3 + 2 * s); });
  std::vector<std::vector<int32_t>> windows(4);
  std::vector<RowPenalty> penalties;
  for (int32_t s = 0; s < 4; ++s) {
    for (int32_t k = 0; k < 3 + s; ++k) windows[static_cast<size_t>(s)].push_back(filler(s + 7, k, vocab));
    std::sort(windows[static_cast<size_t>(s)].begin(), windows[static_cast<size_t>(s)].end());
    windows[static_cast<size_t>(s)].erase(
        std::unique(windows[static_cast<size_t>(s)].begin(), windows[static_cast<size_t>(s)].end()),
        windows[static_cast<size_t>(s)].end());
    penalties.push_back({windows[static_cast<size_t>(s)], 1.3f});
  }
  for (const size_t n : {size_t{4}, size_t{2}, size_t{4}}) {  // (two tokens: the one-token kernels, no counts)
    SCOPED_TRACE(testing::Message() << "steps of " << n);
    const std::span<const BatchToken> step = std::span<const BatchToken>(batch).first(n);
    const std::span<const RowPenalty> pen = std::span<const RowPenalty>(penalties).first(n);
    std::vector<int32_t> a(n), b(n);
    host.decode_batch_argmax(step, a, pen);
    transfers.decode_batch_argmax(step, b, pen);
    EXPECT_EQ(a, b);
    if (n == 4) {
      EXPECT_EQ(host.debug_batch_row_counts(), transfers.debug_batch_row_counts());
      for (const uint32_t c : transfers.debug_batch_row_counts()) EXPECT_EQ(c, 4u);
    }
    std::vector<std::vector<TopLogit>> ta, tb;
    ASSERT_TRUE(host.decode_batch_top(step, pen, 6, ta));
    ASSERT_TRUE(transfers.decode_batch_top(step, pen, 6, tb));
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < 6; ++j) {
        EXPECT_EQ(ta[i][j].id, tb[i][j].id) << "row " << i;
        EXPECT_EQ(ta[i][j].logit, tb[i][j].logit) << "row " << i;
      }
    for (size_t i = 0; i < n; ++i) {
      batch[i].token = a[i];
      ++batch[i].pos;
    }
  }
}

// The CPU backend's sequences: one reference pass each, so every row is what that pass gives alone.
TEST(BatchDecodeCpu, RowsEqualTheReferenceAlone) {
  const auto g = test::load_golden("golden-a");
  std::shared_ptr<const Model> model = Model::open(g.gguf);
  ForwardOptions o;
  o.sequences = 2;
  o.context = 32;
  o.threads = 1;
  auto set = make_forward("cpu", model, o);
  ASSERT_EQ(set->sequences(), 2);
  CpuForward alone(model, KvPrecision::F16, 32, 1, Precision::Fp32);
  const uint32_t vocab = g.vocab;
  std::vector<float> last(vocab), rows(2 * vocab), want(vocab);
  set->eval_sequence(0, std::span<const int32_t>(g.sequence).first(6), 0, last, false);
  set->eval_sequence(1, std::span<const int32_t>(g.sequence).first(3), 0, last, false);
  alone.eval(std::span<const int32_t>(g.sequence).first(6), 0, last, false);
  const std::vector<BatchToken> batch{{1, 50, 3}, {0, g.sequence[6], 6}};
  set->decode_batch(batch, rows);
  alone.eval(std::span<const int32_t>(&g.sequence[6], 1), 6, want, false);
  EXPECT_EQ(0, std::memcmp(rows.data() + vocab, want.data(), vocab * sizeof(float)));
  // The default argmax step (the same positions again): the rows' argmax.
  std::vector<int32_t> tokens(2);
  set->decode_batch_argmax(batch, tokens, {});
  for (size_t i = 0; i < 2; ++i)
    EXPECT_EQ(tokens[i], static_cast<int32_t>(ref::argmax(std::span<const float>(rows).subspan(i * vocab, vocab))));
  // Its penalties are checked before anything runs.
  const std::vector<int32_t> outside{-1};
  EXPECT_THROW(set->decode_batch_argmax(batch, tokens, std::vector<RowPenalty>{{outside, 1.2f}, {}}),
               std::out_of_range);
  EXPECT_EQ(set->cached_positions(0), 7);
  EXPECT_EQ(set->cached_positions(1), 4);
  EXPECT_THROW(set->eval_sequence(2, std::span<const int32_t>(g.sequence).first(1), 0, last, false), std::out_of_range);
}

}  // namespace
