// Behaviour of CpuForward beyond the golden numbers: block prefill equals token-by-token evaluation,
// a rewind then continuation equals a fresh run, the context limit, bad calls that leave the cache
// intact, thread-count independence, and the backend factory. Uses the small golden-a model.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "golden_support.h"
#include "trit/backend.h"
#include "trit/cpu_forward.h"
#include "trit/model.h"

namespace {

using namespace trit;

class CpuForwardTest : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    golden_ = new test::GoldenCase(test::load_golden("golden-a"));
    model_ = new std::shared_ptr<Model>(Model::open(golden_->gguf));
  }
  static void TearDownTestSuite() {
    delete model_;
    delete golden_;
  }
  static std::shared_ptr<const Model> model() { return *model_; }
  static const std::vector<int32_t>& seq() { return golden_->sequence; }
  static uint32_t vocab() { return golden_->vocab; }

  // All logits of `tokens` evaluated as one block from position 0 on a fresh forward pass.
  static std::vector<float> fresh_run(const std::vector<int32_t>& tokens, KvPrecision kv, unsigned threads = 1) {
    CpuForward f(model(), kv, 0, threads);
    std::vector<float> out(tokens.size() * vocab());
    f.eval(tokens, 0, out, true);
    return out;
  }
  std::vector<float> row(const std::vector<float>& all, std::size_t i) const {
    return {all.begin() + static_cast<std::ptrdiff_t>(i * vocab()),
            all.begin() + static_cast<std::ptrdiff_t>((i + 1) * vocab())};
  }

  static test::GoldenCase* golden_;
  static std::shared_ptr<Model>* model_;
};

test::GoldenCase* CpuForwardTest::golden_ = nullptr;
std::shared_ptr<Model>* CpuForwardTest::model_ = nullptr;

TEST_F(CpuForwardTest, PrefillInOneBlockEqualsTokenByToken) {
  for (KvPrecision kv : {KvPrecision::F16, KvPrecision::F32}) {
    const auto block = fresh_run(seq(), kv);
    CpuForward f(model(), kv, 0, 1);
    std::vector<float> last(vocab());
    for (std::size_t i = 0; i < seq().size(); ++i) {
      f.eval(std::span<const int32_t>(&seq()[i], 1), static_cast<int32_t>(i), last, false);
      ASSERT_EQ(last, row(block, i)) << "position " << i << (kv == KvPrecision::F16 ? " (f16 KV)" : " (f32 KV)");
    }
    EXPECT_EQ(f.cached_positions(), static_cast<int32_t>(seq().size()));
  }
}

TEST_F(CpuForwardTest, UnevenBlocksEqualOneBlock) {
  const auto block = fresh_run(seq(), KvPrecision::F16);
  CpuForward f(model(), KvPrecision::F16, 0, 2);
  const std::vector<std::size_t> cuts = {0, 7, 8, 30, 31, 64};
  for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
    const std::vector<int32_t> part(seq().begin() + static_cast<std::ptrdiff_t>(cuts[c]),
                                    seq().begin() + static_cast<std::ptrdiff_t>(cuts[c + 1]));
    std::vector<float> out(part.size() * vocab());
    f.eval(part, static_cast<int32_t>(cuts[c]), out, true);
    for (std::size_t i = 0; i < part.size(); ++i) ASSERT_EQ(row(out, i), row(block, cuts[c] + i)) << cuts[c] + i;
  }
}

TEST_F(CpuForwardTest, RewindThenContinueEqualsFreshRun) {
  const std::vector<int32_t> alt = {5, 900, 17, 17, 301, 44, 999, 0, 123, 456, 789, 1002, 1000, 8, 9};
  // Fresh: seq[0:25] followed by alt.
  std::vector<int32_t> joined(seq().begin(), seq().begin() + 25);
  joined.insert(joined.end(), alt.begin(), alt.end());
  const auto fresh = fresh_run(joined, KvPrecision::F16);

  CpuForward f(model(), KvPrecision::F16, 0, 1);
  std::vector<float> out(40 * vocab());
  f.eval(std::span<const int32_t>(seq()).subspan(0, 40), 0, out, true);
  ASSERT_EQ(f.cached_positions(), 40);
  // Rewind to 25 and continue in two blocks; positions 35..39 of the old run are overwritten.
  std::vector<float> a(10 * vocab()), b(vocab());
  f.eval(std::span<const int32_t>(alt).subspan(0, 10), 25, a, true);
  EXPECT_EQ(f.cached_positions(), 35);
  f.eval(std::span<const int32_t>(alt).subspan(10, 5), 35, b, false);
  EXPECT_EQ(f.cached_positions(), 40);
  for (std::size_t i = 0; i < 10; ++i) ASSERT_EQ(row(a, i), row(fresh, 25 + i)) << "position " << 25 + i;
  EXPECT_EQ(b, row(fresh, 39));
}

TEST_F(CpuForwardTest, ContextFullAtTheLimit) {
  CpuForward f(model(), KvPrecision::F16, 8, 1);
  EXPECT_EQ(f.context_length(), 8);
  std::vector<float> out(vocab());
  EXPECT_THROW(f.eval(std::span<const int32_t>(seq()).subspan(0, 9), 0, out, false), ContextFullError);
  f.eval(std::span<const int32_t>(seq()).subspan(0, 8), 0, out, false);  // exactly full is fine
  EXPECT_THROW(f.eval(std::span<const int32_t>(seq()).subspan(8, 1), 8, out, false), ContextFullError);
  EXPECT_THROW(f.eval(std::span<const int32_t>(seq()).subspan(0, 3), 6, out, false), ContextFullError);
  EXPECT_EQ(f.cached_positions(), 8);
  try {
    f.eval(std::span<const int32_t>(seq()).subspan(8, 1), 8, out, false);
  } catch (const ContextFullError& e) {
    EXPECT_NE(std::string(e.what()).find("context length of 8"), std::string::npos) << e.what();
  }
  // After the refusals the cache still holds the 8 positions: rewinding the last one reproduces it.
  f.eval(std::span<const int32_t>(seq()).subspan(7, 1), 7, out, false);
  EXPECT_EQ(out, row(fresh_run(std::vector<int32_t>(seq().begin(), seq().begin() + 8), KvPrecision::F16), 7));

  EXPECT_EQ(CpuForward(model(), KvPrecision::F16).context_length(), static_cast<int32_t>(model()->config().context));
  EXPECT_THROW(CpuForward(model(), KvPrecision::F16, static_cast<int32_t>(model()->config().context) + 1),
               std::invalid_argument);
  EXPECT_THROW(CpuForward(model(), KvPrecision::F16, -1), std::invalid_argument);
  EXPECT_THROW(CpuForward(nullptr, KvPrecision::F16), std::invalid_argument);
}

TEST_F(CpuForwardTest, BadCallsThrowAndLeaveTheCacheIntact) {
  CpuForward f(model(), KvPrecision::F32, 0, 1);
  std::vector<float> out(vocab());
  f.eval(std::span<const int32_t>(seq()).subspan(0, 5), 0, out, false);
  const std::vector<int32_t> bad_token = {3, static_cast<int32_t>(vocab())};
  const std::vector<int32_t> negative = {-1};
  std::vector<float> short_out(vocab() - 1), two_rows(2 * vocab());
  EXPECT_THROW(f.eval(std::span<const int32_t>(), 5, out, false), std::invalid_argument);
  EXPECT_THROW(f.eval(std::span<const int32_t>(seq()).subspan(5, 1), -1, out, false), std::invalid_argument);
  EXPECT_THROW(f.eval(std::span<const int32_t>(seq()).subspan(5, 1), 6, out, false), std::invalid_argument);  // hole
  EXPECT_THROW(f.eval(bad_token, 5, two_rows, true), std::out_of_range);
  EXPECT_THROW(f.eval(negative, 5, out, false), std::out_of_range);
  EXPECT_THROW(f.eval(std::span<const int32_t>(seq()).subspan(5, 1), 5, short_out, false), std::invalid_argument);
  EXPECT_THROW(f.eval(std::span<const int32_t>(seq()).subspan(5, 1), 5, two_rows, true), std::invalid_argument);
  EXPECT_EQ(f.cached_positions(), 5);
  f.eval(std::span<const int32_t>(seq()).subspan(5, 3), 5, out, false);
  EXPECT_EQ(out, row(fresh_run(std::vector<int32_t>(seq().begin(), seq().begin() + 8), KvPrecision::F32), 7));
}

TEST_F(CpuForwardTest, ThreadCountDoesNotChangeResults) {
  const std::vector<int32_t> part(seq().begin(), seq().begin() + 20);
  EXPECT_EQ(fresh_run(part, KvPrecision::F16, 1), fresh_run(part, KvPrecision::F16, 3));
}

TEST_F(CpuForwardTest, KvPrecisionMatters) {
  // The two caches must differ somewhere (F16 rounding is really applied), yet agree closely.
  const auto a = fresh_run(seq(), KvPrecision::F16), b = fresh_run(seq(), KvPrecision::F32);
  EXPECT_NE(a, b);
  const auto c = test::compare_logits(a, b, vocab(), 1e9);
  EXPECT_LT(c.max_abs_diff, 2.0) << c.summary();
}

TEST_F(CpuForwardTest, BackendFactory) {
  ForwardOptions o;
  o.kv = KvPrecision::F32;
  o.context = 16;
  o.threads = 1;
  auto f = make_forward("cpu", model(), o);
  ASSERT_NE(dynamic_cast<CpuForward*>(f.get()), nullptr);
  EXPECT_EQ(f->context_length(), 16);
  EXPECT_EQ(f->vocab_size(), static_cast<int32_t>(vocab()));
  EXPECT_EQ(dynamic_cast<CpuForward*>(f.get())->kv_precision(), KvPrecision::F32);
  const auto names = backend_names();
  EXPECT_NE(std::find(names.begin(), names.end(), "vulkan"), names.end());
  try {
    // Until the Vulkan forward pass is wired in, this must fail with a clear message, not as unknown.
    EXPECT_NE(make_forward("vulkan", model(), o), nullptr);
  } catch (const std::invalid_argument&) {
    ADD_FAILURE() << "vulkan is a known backend name";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("Vulkan"), std::string::npos) << e.what();
  }
  try {
    make_forward("tpu", model(), o);
    ADD_FAILURE() << "unknown backend accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'tpu'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
  }
}

}  // namespace

namespace trit {
namespace {

// What a backend offers beyond eval is asked through Forward (Session and the bench never cast): the
// CPU does everything through eval, the Vulkan engine decodes on the device.
TEST(BackendCapabilities, AreAskedThroughForward) {
  const auto g = test::load_golden("golden-a");
  std::shared_ptr<const Model> model = Model::open(g.gguf);
  ForwardOptions o;
  o.context = 32;
  o.threads = 1;
  auto cpu = make_forward("cpu", model, o);
  EXPECT_EQ(cpu->prefill_block(), 128);
  EXPECT_FALSE(cpu->decodes_on_device());
  EXPECT_FALSE(cpu->samples_on_device(SamplingParams{}));
  EXPECT_EQ(cpu->decode_kernels(), "");
  EXPECT_THROW(cpu->decode_greedy(1, 0, 1, [](int32_t) { return true; }), std::logic_error);
  auto gpu = make_forward("vulkan", model, o);
  EXPECT_TRUE(gpu->decodes_on_device());
  EXPECT_GE(gpu->prefill_block(), 1);
  EXPECT_NE(gpu->decode_kernels(), "");
  // The device greedy chain through the interface: the same tokens as the host's argmax.
  std::vector<float> logits(static_cast<size_t>(gpu->vocab_size()));
  gpu->eval(std::span<const int32_t>(g.prompt.data(), 4), 0, logits, false);
  std::vector<int32_t> device_tokens;
  gpu->decode_greedy(g.prompt[4], 4, 3, [&](int32_t t) {
    device_tokens.push_back(t);
    return true;
  });
  auto host = make_forward("vulkan", model, o);
  host->eval(std::span<const int32_t>(g.prompt.data(), 5), 0, logits, false);
  std::vector<int32_t> host_tokens;
  for (int i = 0; i < 3; ++i) {
    const auto t = static_cast<int32_t>(std::max_element(logits.begin(), logits.end()) - logits.begin());
    host_tokens.push_back(t);
    if (i < 2) host->eval(std::span<const int32_t>(&t, 1), 5 + i, logits, false);
  }
  EXPECT_EQ(device_tokens, host_tokens);
}

}  // namespace
}  // namespace trit
