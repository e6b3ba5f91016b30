// The one-token LM head (shaders/lm_head.glsl, decode_rows) in double, as the engine runs it wherever
// shaderFloat64 exists: the final RMSNorm applied on the fly to the last token's row of x, x * w
// staged in shared memory as four planes, several rows per subgroup at once (Kernels::lm_head_normed).
// Checked against a double reference tightly enough that float accumulation would fail, on chunks
// whose row counts are multiples of neither the rows in flight nor the workgroup's rows (the partial
// groups at a chunk's end), and run twice for bitwise-equal logits. Then the variant that also ends a
// device-side greedy step (ARGMAX): the same logits, and the token, ring slot and position that
// greedy_step would publish, over chunks that may run at once.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "trit/reference_ops.h"
#include "trit/sampler.h"
#include "vulkan/context.h"
#include "vulkan/kernels.h"

namespace {

using trit::vk::Buffer;
using trit::vk::BufferRange;
using trit::vk::CommandSequence;
using trit::vk::MemoryUse;

struct Table {
  uint32_t vocab, dim;
  std::vector<uint16_t> f16;  // vocab x dim
};

Table random_table(uint32_t vocab, uint32_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  Table t{vocab, dim, std::vector<uint16_t>(size_t{vocab} * dim)};
  for (auto& h : t.f16) h = trit::ref::f32_to_f16(d(rng));
  return t;
}

// Values no float holds, so a kernel that narrowed x to float would be caught.
std::vector<double> random_x(uint32_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(-2.0, 2.0);
  std::vector<double> x(dim);
  for (auto& v : x) v = d(rng) * (1.0 + 1e-10);
  return x;
}

constexpr float kEps = 1e-5f;

// The norm's weights (float, as in the file).
std::vector<float> random_w(uint32_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(0.2f, 3.f);
  std::vector<float> w(dim);
  for (auto& v : w) v = d(rng);
  return w;
}

// The logits of the last of x's rows through Kernels::lm_head_normed in double, with the table split
// by max_range.
std::vector<float> gpu_logits(const Table& t, const std::vector<double>& x, const std::vector<float>& w,
                              uint64_t max_range, size_t* chunks_out, uint32_t rows_per_group = 0) {
  trit::vk::ContextOptions o;
  o.max_binding_range = max_range;
  trit::vk::Context ctx(o);
  if (!ctx.info().shader_float64) return {};
  trit::vk::Kernels k(ctx, true, true);
  if (!k.lm_head_norms(t.dim)) return {};
  trit::vk::DescriptorAllocator da(ctx);
  const auto chunks = trit::vk::split_rows(t.vocab, uint64_t{t.dim} * 2, ctx.max_binding_range());
  if (chunks_out) *chunks_out = chunks.size();
  std::vector<Buffer> parts;
  parts.reserve(chunks.size());
  for (const auto& c : chunks) {
    parts.emplace_back(ctx, uint64_t{c.rows} * t.dim * 2, MemoryUse::Device);
    parts.back().upload(t.f16.data() + size_t{c.row0} * t.dim, uint64_t{c.rows} * t.dim * 2);
  }
  Buffer xb(ctx, x.size() * sizeof(double), MemoryUse::Device);
  xb.upload(x.data(), x.size() * sizeof(double));
  Buffer wb(ctx, w.size() * 4, MemoryUse::Device);
  wb.upload(w.data(), w.size() * 4);
  Buffer lb(ctx, uint64_t{t.vocab} * 4, MemoryUse::Device);
  const std::vector<float> nan(t.vocab, std::nanf(""));
  lb.upload(nan.data(), nan.size() * 4);  // every logit must be written
  const trit::vk::Params p{0, static_cast<uint32_t>(x.size() / t.dim)};
  Buffer pb(ctx, sizeof p, MemoryUse::Upload);
  pb.upload(&p, sizeof p);
  CommandSequence cs(ctx);
  cs.begin();
  for (size_t i = 0; i < chunks.size(); ++i)
    k.lm_head_normed(cs, da, BufferRange{&pb, 0, 0}, BufferRange{&parts[i], 0, 0}, BufferRange{&xb, 0, 0},
                     BufferRange{&wb, 0, 0}, kEps, BufferRange{&lb, 0, 0}, chunks[i].rows, t.dim, chunks[i].row0,
                     t.vocab, rows_per_group);
  cs.end();
  cs.run();
  std::vector<float> out(t.vocab);
  lb.download(out.data(), out.size() * 4);
  return out;
}

// x: rows of dim values, the last one normalised (in double) and multiplied with the table.
void expect_double_accuracy(const Table& t, const std::vector<double>& x, const std::vector<float>& w,
                            const std::vector<float>& got) {
  ASSERT_EQ(got.size(), t.vocab);
  const double* last = x.data() + x.size() - t.dim;
  double ss = 0;
  for (uint32_t d = 0; d < t.dim; ++d) ss += last[d] * last[d];
  const double inv = 1.0 / std::sqrt(ss / t.dim + double(kEps));
  for (uint32_t r = 0; r < t.vocab; ++r) {
    double want = 0, mag = 0;
    for (uint32_t d = 0; d < t.dim; ++d) {
      const double p = double(trit::ref::f16_to_f32(t.f16[size_t{r} * t.dim + d])) * (last[d] * inv * double(w[d]));
      want += p;
      mag += std::fabs(p);
    }
    // One rounding to float of a double sum (whose order error is ~dim * 2^-53 of the magnitudes);
    // float accumulation would be off by ~dim * 2^-24 of them.
    ASSERT_NEAR(double(got[r]), want, std::ldexp(std::fabs(want), -24) + 1e-13 * mag) << "row " << r;
  }
}

TEST(LmHeadDecodeF64, MatchesTheDoubleReferenceAcrossChunkEnds) {
  // 528-byte rows under a 100 KiB binding limit: chunks of 193 rows and a last one of 38.
  const Table t = random_table(1003, 264, 5);
  auto x = random_x(264, 6);
  const auto second = random_x(264, 9);
  x.insert(x.end(), second.begin(), second.end());  // two tokens: the last one's logits
  const auto w = random_w(264, 10);
  size_t chunks = 0;
  const auto got = gpu_logits(t, x, w, 100 * 1024, &chunks);
  if (got.empty()) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
  EXPECT_EQ(chunks, 6u);
  expect_double_accuracy(t, x, w, got);
}

TEST(LmHeadDecodeF64, ModelWidthRowsAreAccurateAndDeterministic) {
  // The 2B4T hidden size; 777 rows are a multiple of neither 4 rows in flight nor 64 or 512 rows a workgroup.
  const Table t = random_table(777, 2560, 7);
  const auto x = random_x(2560, 8);
  const auto w = random_w(2560, 11);
  const auto a = gpu_logits(t, x, w, 0, nullptr);
  if (a.empty()) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
  expect_double_accuracy(t, x, w, a);
  const auto b = gpu_logits(t, x, w, 0, nullptr);
  ASSERT_EQ(b.size(), a.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0) << "two runs gave different logits";
}

// Rows per workgroup other than the workgroup size (the H100 takes 488 for the 2B4T vocabulary, so
// that its 132 multiprocessors get two workgroups each), more or fewer than its invocations, with a
// last workgroup that has only some of its rows.
TEST(LmHeadDecodeF64, AnyRowsPerWorkgroupGivesTheSameLogits) {
  const Table t = random_table(777, 2560, 12);
  const auto x = random_x(2560, 13);
  const auto w = random_w(2560, 14);
  const auto want = gpu_logits(t, x, w, 0, nullptr);
  if (want.empty()) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
  for (const uint32_t rpw : {488u, 68u, 1028u}) {
    const auto got = gpu_logits(t, x, w, 0, nullptr, rpw);
    expect_double_accuracy(t, x, w, got);
    // Each row is one subgroup's sum in the same order whatever the workgroup it falls in.
    EXPECT_EQ(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)), 0) << rpw << " rows per workgroup";
  }
}

TEST(LmHeadDecode, RowsPerWorkgroupFillEveryMultiprocessorTwice) {
  using trit::vk::Kernels;
  EXPECT_EQ(Kernels::lm_head_rows_per_group(128256, 0, 512), 512u);  // no multiprocessor count: the workgroup
  EXPECT_EQ(Kernels::lm_head_rows_per_group(128256, 132, 512), 488u);
  EXPECT_EQ(Kernels::lm_head_rows_per_group(1003, 132, 512), 64u);  // at least a pass of every subgroup
  for (const uint32_t vocab : {128256u, 151936u, 32000u, 50257u, 262144u})
    for (const uint32_t sms : {132u, 114u, 108u, 46u, 1u}) {
      const uint32_t rpw = Kernels::lm_head_rows_per_group(vocab, sms, 512);
      EXPECT_EQ(rpw % 4, 0u);
      const uint32_t groups = (vocab + rpw - 1) / rpw;
      EXPECT_LE(groups, 2 * sms) << vocab << " rows, " << sms << " multiprocessors";
      if (rpw > 64) {
        EXPECT_GT(groups, 2 * sms - 2 * sms / 8 - 1) << vocab << " rows, " << sms << " multiprocessors";
      }
    }
}

// Without the staged one-token head (the baseline kernels), or for a width it does not stage (not a
// multiple of 8), the fused norm is not offered, and asking for it anyway is an error rather than
// logits of an unnormalised or partly staged x.
TEST(LmHeadDecodeF64, TheFusedNormNeedsTheStagedHead) {
  trit::vk::Context ctx;
  trit::vk::Kernels staged(ctx, true, false);
  EXPECT_TRUE(staged.lm_head_norms(264));
  EXPECT_FALSE(staged.lm_head_norms(260));
  trit::vk::Kernels k(ctx, true, false, trit::vk::DotProduct::Off, /*staged_lm_head=*/false);
  EXPECT_FALSE(k.lm_head_norms(264));
  trit::vk::DescriptorAllocator da(ctx);
  Buffer b(ctx, 1 << 16, MemoryUse::Device);
  const BufferRange r{&b, 0, 0};
  CommandSequence cs(ctx);
  cs.begin();
  EXPECT_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 10, 264, 0, 10), trit::VulkanError);
  cs.end();
}

// ---- The head that ends a greedy step (lm_head.glsl ARGMAX) -----------------------------------------

constexpr uint32_t kRing = 8;

// One device's kernels (float or double) and a head loaded on them, run with or without the greedy tail
// on the same buffers, so a later run finds the scratch and the position an earlier one left.
class HeadRig {
 public:
  HeadRig(bool f64, uint64_t max_range, trit::vk::DotProduct dot = trit::vk::DotProduct::Auto) : ctx_(opts(max_range)) {
    const bool dot_ok = dot != trit::vk::DotProduct::On || ctx_.info().integer_dot_product;
    if ((!f64 || ctx_.info().shader_float64) && dot_ok) k_ = std::make_unique<trit::vk::Kernels>(ctx_, true, f64, dot);
    f64_ = f64;
  }

  // False where the device cannot run the staged head in this precision (then the test skips).
  bool usable(uint32_t dim) const { return k_ && k_->lm_head_norms(dim); }
  // False where the device cannot run the bounded greedy head for this shape (or this dot product).
  bool usable_bounded(uint32_t dim, uint32_t vocab) const { return k_ && k_->lm_head_bounds(dim, vocab); }
  size_t chunks() const { return chunks_.size(); }

  // The table split by the binding limit, x (one row of t.dim values), the norm's weights, the step
  // parameters (pos0, 1); next token and ring hold junk, the scratch zeros.
  void load(const Table& t, uint32_t rows_per_group, const std::vector<double>& x, const std::vector<float>& w,
            uint32_t pos0) {
    t_ = &t;
    rpw_ = rows_per_group;
    chunks_ = trit::vk::split_rows(t.vocab, uint64_t{t.dim} * 2, ctx_.max_binding_range());
    parts_.clear();
    groups_ = 0;
    for (const auto& c : chunks_) {
      parts_.emplace_back(ctx_, uint64_t{c.rows} * t.dim * 2, MemoryUse::Device);
      parts_.back().upload(t.f16.data() + size_t{c.row0} * t.dim, uint64_t{c.rows} * t.dim * 2);
      groups_ += k_->lm_head_groups(c.rows, t.vocab, rpw_);
    }
    set_x(x);
    wb_ = Buffer(ctx_, w.size() * 4, MemoryUse::Device);
    wb_.upload(w.data(), w.size() * 4);
    lb_ = Buffer(ctx_, uint64_t{t.vocab} * 4, MemoryUse::Device);
    step_ = Buffer(ctx_, 8, MemoryUse::Readback);
    const trit::vk::Params p{pos0, 1};
    step_.upload(&p, sizeof p);
    next_ = Buffer(ctx_, 4, MemoryUse::Readback);
    ring_ = Buffer(ctx_, kRing * 4, MemoryUse::Readback);
    const std::vector<uint32_t> junk(kRing, 0xdeadbeefu);  // every slot read must have been written
    next_.upload(junk.data(), 4);
    ring_.upload(junk.data(), kRing * 4);
    scratch_ = Buffer(ctx_, trit::vk::Kernels::head_argmax_scratch_bytes(groups_), MemoryUse::Readback);
    const std::vector<uint32_t> zeros(scratch_.size() / 4, 0u);
    scratch_.upload(zeros.data(), scratch_.size());
    // The bounded head's int8 copy, built on the device as VulkanForward does at load.
    q8_.clear();
    qc_.clear();
    if (!k_->lm_head_bounds(t.dim, t.vocab)) return;
    trit::vk::DescriptorAllocator da(ctx_);
    CommandSequence cs(ctx_);
    cs.begin();
    for (size_t i = 0; i < chunks_.size(); ++i) {
      q8_.emplace_back(ctx_, trit::vk::Kernels::head_q8_bytes(chunks_[i].rows, t.dim), MemoryUse::Device);
      qc_.emplace_back(ctx_, trit::vk::Kernels::head_q8_consts_bytes(chunks_[i].rows), MemoryUse::Device);
      k_->build_head_q8(cs, da, BufferRange{&parts_[i], 0, 0}, BufferRange{&q8_[i], 0, 0}, BufferRange{&qc_[i], 0, 0},
                        chunks_[i].rows, t.dim);
    }
    cs.end();
    cs.run();
  }

  void set_x(const std::vector<double>& x) {
    if (f64_) {
      xb_ = Buffer(ctx_, x.size() * 8, MemoryUse::Device);
      xb_.upload(x.data(), x.size() * 8);
    } else {
      const std::vector<float> xf(x.begin(), x.end());
      xb_ = Buffer(ctx_, xf.size() * 4, MemoryUse::Device);
      xb_.upload(xf.data(), xf.size() * 4);
    }
  }

  // Records every chunk's dispatch (no barrier between them, as VulkanForward records the head), with
  // the greedy tail or without, runs it and returns the logits (poisoned with NaN before, so every one
  // must be written).
  std::vector<float> run(bool argmax, bool bounded = false) {
    const std::vector<float> nan(t_->vocab, std::nanf(""));
    lb_.upload(nan.data(), nan.size() * 4);
    trit::vk::HeadArgmax am{BufferRange{&next_, 0, 0}, BufferRange{&ring_, 0, 0}, BufferRange{&scratch_, 0, 0}, kRing};
    am.groups = groups_;
    trit::vk::DescriptorAllocator da(ctx_);
    CommandSequence cs(ctx_);
    cs.begin();
    for (size_t i = 0; i < chunks_.size(); ++i) {
      const trit::vk::HeadBound hb = bounded ? trit::vk::HeadBound{BufferRange{&q8_.at(i), 0, 0}, BufferRange{&qc_.at(i), 0, 0}}
                                             : trit::vk::HeadBound{};
      k_->lm_head_normed(cs, da, BufferRange{&step_, 0, 0}, BufferRange{&parts_[i], 0, 0}, BufferRange{&xb_, 0, 0},
                         BufferRange{&wb_, 0, 0}, kEps, BufferRange{&lb_, 0, 0}, chunks_[i].rows, t_->dim,
                         chunks_[i].row0, t_->vocab, rpw_, argmax ? &am : nullptr, bounded ? &hb : nullptr);
      am.group0 += k_->lm_head_groups(chunks_[i].rows, t_->vocab, rpw_);
    }
    cs.end();
    cs.run();
    std::vector<float> out(t_->vocab);
    lb_.download(out.data(), out.size() * 4);
    return out;
  }

  uint32_t next_token() const { return word(next_, 0); }
  uint32_t ring_slot(uint32_t pos) const { return word(ring_, pos % kRing); }
  uint32_t pos0() const { return word(step_, 0); }
  uint32_t arrivals() const { return word(scratch_, 0); }  // the count, zero between steps
  uint32_t threshold() const { return word(scratch_, 1); }  // the bounded head's, zero between steps

 private:
  static trit::vk::ContextOptions opts(uint64_t max_range) {
    trit::vk::ContextOptions o;
    o.max_binding_range = max_range;
    return o;
  }
  static uint32_t word(const Buffer& b, uint32_t i) {
    uint32_t v = 0;
    b.download(&v, 4, uint64_t{i} * 4);
    return v;
  }
  trit::vk::Context ctx_;
  bool f64_ = false;
  std::unique_ptr<trit::vk::Kernels> k_;
  const Table* t_ = nullptr;
  uint32_t rpw_ = 0, groups_ = 0;
  std::vector<trit::vk::RowChunk> chunks_;
  std::vector<Buffer> parts_, q8_, qc_;
  Buffer xb_, wb_, lb_, step_, next_, ring_, scratch_;
};

// Bit for bit, NaN (a NaN row of the table) matching any NaN.
bool same_logits(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(std::isnan(a[i]) && std::isnan(b[i])) && std::memcmp(&a[i], &b[i], 4) != 0) return false;
  return true;
}

struct Shape {
  const char* what;
  uint32_t vocab, dim;
  uint64_t max_range;  // 0: one chunk
  uint32_t rows_per_group;  // 0: the device's choice
};

// 1003 rows of 528 bytes under a 100 KiB binding limit: 5 chunks of 193 rows and one of 38, so with 68
// rows a workgroup every chunk ends in a partial workgroup, and with 64 (lavapipe's) in one of 1 row.
const Shape kShapes[] = {
    {"one chunk", 777, 2560, 0, 0},
    {"6 chunks, 68 rows a workgroup", 1003, 264, 100 * 1024, 68},
    {"6 chunks, the device's rows a workgroup", 1003, 264, 100 * 1024, 0},
    {"13 chunks of 41 rows, 8 a workgroup", 521, 512, 41 * 1024, 8},
};

// The same logits as the plain head, the token trit::argmax picks from them published to the next
// input and the ring slot of the position, the position advanced, the count back at zero; then again
// from the position the device left, with another x (a step that found the scratch dirty would
// publish nothing).
TEST(LmHeadArgmax, PublishesTheArgmaxOfTheSameLogits) {
  for (const bool f64 : {false, true})
    for (const Shape& sh : kShapes) {
      SCOPED_TRACE(std::string(sh.what) + (f64 ? ", double" : ", float"));
      const Table t = random_table(sh.vocab, sh.dim, 21 + sh.vocab);
      const auto w = random_w(sh.dim, 22);
      const std::vector<double> xs[] = {random_x(sh.dim, 23), random_x(sh.dim, 24)};
      HeadRig rig(f64, sh.max_range);
      if (!rig.usable(sh.dim)) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
      rig.load(t, sh.rows_per_group, xs[0], w, 61);
      if (sh.max_range) {
        EXPECT_GT(rig.chunks(), 1u);
      }
      uint32_t tokens[2] = {};
      for (uint32_t i = 0; i < 2; ++i) {
        rig.set_x(xs[i]);
        const auto plain = rig.run(false);
        EXPECT_EQ(rig.pos0(), 61 + i) << "the plain head moved the position";
        const auto got = rig.run(true);
        ASSERT_TRUE(same_logits(got, plain)) << "step " << i << ": the argmax variant changed the logits";
        tokens[i] = static_cast<uint32_t>(trit::argmax(plain));
        EXPECT_EQ(rig.next_token(), tokens[i]) << "step " << i;
        EXPECT_EQ(rig.ring_slot(61 + i), tokens[i]) << "step " << i;
        EXPECT_EQ(rig.pos0(), 62 + i) << "step " << i;
        EXPECT_EQ(rig.arrivals(), 0u) << "step " << i;
      }
      EXPECT_NE(tokens[0], tokens[1]) << "both x pick the same row: the second step shows little";
    }
}

// Ties: identical maximal rows (bit-identical logits: a row's sum does not depend on the workgroup it
// falls in) in different subgroups, workgroups and chunks, at a chunk's first and last row: the lowest
// index wins, whichever workgroup arrives last. A NaN row (before or after the winner) is never chosen.
TEST(LmHeadArgmax, TiesGoToTheLowestRowAcrossWorkgroupsAndChunks) {
  // 1003 rows of 264 under 100 KiB: chunks from rows 0, 193, 386, 579, 772 and 965 (38 rows).
  struct Tie {
    std::vector<uint32_t> rows;
    uint32_t nan_row;
  };
  const Tie ties[] = {
      {{141, 130, 300, 420, 1002}, 128},  // two workgroups of chunk 0 at 68 rows (one at 64), chunks 1, 2, 5
      {{1002, 999, 965}, 980},            // the last chunk only, from its first row
      {{386, 385}, 200},                  // the last row of chunk 1 (a workgroup of one row at 64) and the first of 2
      {{4, 0}, 1},                        // the first rows, in two subgroups
  };
  const uint32_t dim = 264;
  for (const bool f64 : {false, true}) {
    HeadRig rig(f64, 100 * 1024);
    if (!rig.usable(dim)) GTEST_SKIP() << "the device has no shaderFloat64 or no staged one-token head";
    for (const uint32_t rpw : {68u, 0u})
      for (const Tie& tie : ties) {
        SCOPED_TRACE(testing::Message() << (f64 ? "double" : "float") << ", " << rpw << " rows a workgroup, tie at "
                                        << tie.rows[0] << "...");
        Table t = random_table(1003, dim, 31);
        const auto x = random_x(dim, 32);
        const auto w = random_w(dim, 33);
        // sign(x * w) in every column: the largest logit any row with entries in [-1, 1] can have.
        std::vector<uint16_t> top(dim);
        for (uint32_t d = 0; d < dim; ++d) top[d] = trit::ref::f32_to_f16(x[d] * w[d] < 0 ? -1.f : 1.f);
        for (const uint32_t r : tie.rows) std::copy(top.begin(), top.end(), t.f16.begin() + size_t{r} * dim);
        std::fill_n(t.f16.begin() + size_t{tie.nan_row} * dim, dim, uint16_t{0x7e00});
        rig.load(t, rpw, x, w, 5);
        ASSERT_EQ(rig.chunks(), 6u);
        const auto got = rig.run(true);
        ASSERT_TRUE(std::isnan(got[tie.nan_row]));
        const uint32_t lowest = *std::min_element(tie.rows.begin(), tie.rows.end());
        for (const uint32_t r : tie.rows)
          ASSERT_EQ(std::memcmp(&got[r], &got[lowest], 4), 0) << "rows " << r << " and " << lowest;
        ASSERT_EQ(static_cast<uint32_t>(trit::argmax(got)), lowest);
        EXPECT_EQ(rig.next_token(), lowest);
        EXPECT_EQ(rig.ring_slot(5), lowest);
        EXPECT_EQ(rig.pos0(), 6u);
        EXPECT_EQ(rig.arrivals(), 0u);
      }
  }
}

// ---- The greedy head from the int8 table (lm_head.glsl BOUNDED) -------------------------------------

size_t written(const std::vector<float>& logits) {
  return static_cast<size_t>(std::count_if(logits.begin(), logits.end(), [](float v) { return !std::isnan(v); }));
}

// One bounded greedy step against the plain head's logits: the token trit::argmax picks from them, its
// logit bit for bit, the rows it did compute bit for bit, and the step's count, threshold and position.
void expect_bounded_step(HeadRig& rig, uint32_t pos0, size_t& computed) {
  const auto plain = rig.run(false);
  const auto got = rig.run(true, true);
  const auto want = static_cast<uint32_t>(trit::argmax(plain));
  EXPECT_EQ(rig.next_token(), want);
  EXPECT_EQ(rig.ring_slot(pos0), want);
  EXPECT_EQ(rig.pos0(), pos0 + 1);
  EXPECT_EQ(rig.arrivals(), 0u);
  EXPECT_EQ(rig.threshold(), 0u) << "the step must leave its threshold at zero for the next one";
  ASSERT_FALSE(std::isnan(got[want])) << "the winning row was not computed in F16";
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isnan(got[i])) {
      ASSERT_EQ(std::memcmp(&got[i], &plain[i], 4), 0) << "row " << i;
    }
  }
  computed += written(got);
}

// The same token as the F16 head, over shapes of one and many chunks and workgroups of several sizes,
// in float and double, with the packed dot product and without; and most rows never read in F16.
TEST(LmHeadBounded, PicksTheF16HeadsTokenFromTheInt8Table) {
  struct BShape {
    const char* what;
    uint32_t vocab, dim;
    uint64_t max_range;
    uint32_t rows_per_group;
  };
  const BShape shapes[] = {
      {"one chunk, the model's width", 2003, 2560, 0, 0},
      {"11 chunks of 100 rows, 68 a workgroup", 1003, 512, 100 * 1024, 68},
      {"13 chunks of 41 rows, 8 a workgroup", 521, 512, 41 * 1024, 8},
  };
  bool ran = false;
  for (const auto dot : {trit::vk::DotProduct::Off, trit::vk::DotProduct::On})
    for (const bool f64 : {false, true})
      for (const BShape& sh : shapes) {
        SCOPED_TRACE(std::string(sh.what) + (f64 ? ", double" : ", float") +
                     (dot == trit::vk::DotProduct::On ? ", dot product" : ""));
        HeadRig rig(f64, sh.max_range, dot);
        if (!rig.usable_bounded(sh.dim, sh.vocab)) continue;
        ran = true;
        const Table t = random_table(sh.vocab, sh.dim, 41 + sh.vocab);
        const auto w = random_w(sh.dim, 42);
        rig.load(t, sh.rows_per_group, random_x(sh.dim, 43), w, 7);
        size_t computed = 0;
        const uint32_t steps = 6;
        for (uint32_t i = 0; i < steps; ++i) {
          rig.set_x(random_x(sh.dim, 50 + i));
          expect_bounded_step(rig, 7 + i, computed);
        }
        const double share = double(computed) / (double(steps) * sh.vocab);
        std::printf("[ measured ] %s%s: %.1f%% of rows read in F16\n", sh.what, f64 ? ", double" : ", float",
                    100.0 * share);
        // Against the bound's worst case (every row a candidate), on the wide shape whose workgroups hold
        // enough rows for their own threshold to prune.
        if (sh.max_range == 0) {
          EXPECT_LT(share, 0.25);
        }
      }
  if (!ran) GTEST_SKIP() << "the device runs no bounded head";
}

// Exact ties (the lowest row wins, across workgroups and chunks), rows a single F16 step below the
// maximum in one element (whose logits may round to the maximum's or fall just under it), and x = 0
// (every logit 0: row 0): the same token as the F16 head each time.
TEST(LmHeadBounded, TiesAndNearTiesGoWhereTheF16HeadSendsThem) {
  const uint32_t dim = 512, vocab = 1003;
  for (const bool f64 : {false, true}) {
    HeadRig rig(f64, 100 * 1024);
    if (!rig.usable_bounded(dim, vocab)) GTEST_SKIP() << "the device runs no bounded head";
    for (const uint32_t rpw : {68u, 0u}) {
      const auto x = random_x(dim, 62);
      const auto w = random_w(dim, 63);
      std::vector<uint16_t> top(dim);
      for (uint32_t d = 0; d < dim; ++d) top[d] = trit::ref::f32_to_f16(x[d] * w[d] < 0 ? -1.f : 1.f);
      const std::vector<std::vector<uint32_t>> ties = {{141, 130, 300, 420, 1002}, {1002, 999, 965}, {4, 0}};
      uint32_t pos = 3;
      size_t computed = 0;
      for (const auto& rows : ties) {
        SCOPED_TRACE(testing::Message() << (f64 ? "double" : "float") << ", " << rpw << " rows a workgroup, tie at "
                                        << rows[0] << "...");
        Table t = random_table(vocab, dim, 61);
        for (const uint32_t r : rows) std::copy(top.begin(), top.end(), t.f16.begin() + size_t{r} * dim);
        rig.load(t, rpw, x, w, pos);
        expect_bounded_step(rig, pos, computed);
        EXPECT_EQ(rig.next_token(), *std::min_element(rows.begin(), rows.end()));
        // The same rows, each but the last a step lower in one element (1.0 to the next half below).
        for (size_t i = 0; i + 1 < rows.size(); ++i)
          t.f16[size_t{rows[i]} * dim + 17 * i] = top[17 * i] == trit::ref::f32_to_f16(1.f) ? uint16_t{0x3bff} : uint16_t{0xbbff};
        rig.load(t, rpw, x, w, pos);
        expect_bounded_step(rig, pos, computed);
      }
      SCOPED_TRACE("x = 0");
      const Table zero_x = random_table(vocab, dim, 64);  // (the rig keeps a pointer to its table)
      rig.load(zero_x, rpw, std::vector<double>(dim, 0.0), w, pos);
      expect_bounded_step(rig, pos, computed);
      EXPECT_EQ(rig.next_token(), 0u);
    }
  }
}

// The bounded head is a greedy step only, over its own int8 chunk.
TEST(LmHeadBounded, ChecksItsTableAndTail) {
  trit::vk::Context ctx;
  trit::vk::Kernels k(ctx, true, false);
  if (!k.lm_head_bounds(512, 200)) GTEST_SKIP() << "no bounded head";
  EXPECT_FALSE(k.lm_head_bounds(264, 200)) << "264 is not a multiple of 16";
  trit::vk::DescriptorAllocator da(ctx);
  Buffer b(ctx, 1 << 20, MemoryUse::Device), small(ctx, trit::vk::Kernels::head_q8_bytes(199, 512), MemoryUse::Device);
  const BufferRange r{&b, 0, 0};
  CommandSequence cs(ctx);
  cs.begin();
  trit::vk::HeadArgmax am{r, r, r, kRing, 0, k.lm_head_groups(200, 200, 64)};
  trit::vk::HeadBound hb{r, r};
  EXPECT_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 200, 512, 0, 200, 64, nullptr, &hb), trit::VulkanError);
  hb.q8 = BufferRange{&small, 0, 0};
  EXPECT_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 200, 512, 0, 200, 64, &am, &hb), trit::VulkanError);
  hb.q8 = r;
  EXPECT_NO_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 200, 512, 0, 200, 64, &am, &hb));
  EXPECT_THROW(k.build_head_q8(cs, da, r, r, r, 200, 264), trit::VulkanError);
  cs.end();
}

// A chunk's workgroups must fit the head's count, and the scratch must hold a slot for each.
TEST(LmHeadArgmax, ChecksItsCountAndScratch) {
  trit::vk::Context ctx;
  trit::vk::Kernels k(ctx, true, false);
  if (!k.lm_head_norms(264)) GTEST_SKIP() << "no staged one-token head";
  trit::vk::DescriptorAllocator da(ctx);
  Buffer b(ctx, 1 << 16, MemoryUse::Device), small(ctx, trit::vk::Kernels::head_argmax_scratch_bytes(3), MemoryUse::Device);
  const BufferRange r{&b, 0, 0};
  CommandSequence cs(ctx);
  cs.begin();
  // 200 rows at 64 a workgroup: 4 workgroups.
  EXPECT_EQ(k.lm_head_groups(200, 200, 64), 4u);
  trit::vk::HeadArgmax am{r, r, r, kRing, 1, 4};
  EXPECT_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 200, 264, 0, 200, 64, &am), trit::VulkanError);
  am.group0 = 0;
  am.scratch = BufferRange{&small, 0, 0};
  EXPECT_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 200, 264, 0, 200, 64, &am), trit::VulkanError);
  am.scratch = r;
  am.ring_size = 0;
  EXPECT_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 200, 264, 0, 200, 64, &am), trit::VulkanError);
  am.ring_size = kRing;
  EXPECT_NO_THROW(k.lm_head_normed(cs, da, r, r, r, r, kEps, r, 200, 264, 0, 200, 64, &am));
  cs.end();
}

}  // namespace
