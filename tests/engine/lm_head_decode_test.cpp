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
#include <iterator>
#include <memory>
#include <random>
#include <vector>

#include "trit/reference_ops.h"
#include "trit/sampler.h"
#include "vulkan/context.h"
#include "vulkan/gpu_sampler.h"
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
    step_ = Buffer(ctx_, sizeof(trit::vk::Params), MemoryUse::Readback);
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
    // A sampled step's bounds, scratch (zero, as at load) and list, and the sampler's state and draws.
    bounds_ = Buffer(ctx_, trit::vk::Kernels::head_topk_bounds_bytes(t.vocab), MemoryUse::Device);
    tscratch_ = Buffer(ctx_, trit::vk::Kernels::head_topk_scratch_bytes(t.vocab), MemoryUse::Readback);
    const std::vector<uint32_t> tzeros(tscratch_.size() / 4, 0u);
    tscratch_.upload(tzeros.data(), tscratch_.size());
    list_ = Buffer(ctx_, trit::vk::GpuSampler::list_bytes(t.vocab), MemoryUse::Readback);
    list_.upload(tzeros.data(), 4);
    state_ = Buffer(ctx_, trit::vk::GpuSampler::kStateBytes, MemoryUse::Readback);
    draws_ = Buffer(ctx_, kRing * sizeof(trit::vk::GpuSamplerDraw), MemoryUse::Upload);
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
      const trit::vk::HeadBound hb =
          bounded ? trit::vk::HeadBound{BufferRange{&q8_.at(i), 0, 0}, BufferRange{&qc_.at(i), 0, 0}}
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

  // The head of a device-sampled step from the int8 table (lm_head.glsl TOPK: the bounds pass over every
  // chunk, a barrier, the rows pass over every chunk) with the sampler's state `st` at position pos, and
  // with `draw` the GPU sampler reading the list after it; returns the logits (NaN where not written).
  std::vector<float> run_topk(const trit::vk::GpuSamplerState& st, uint32_t pos,
                              const trit::vk::GpuSamplerDraw* draw = nullptr) {
    const std::vector<float> nan(t_->vocab, std::nanf(""));
    lb_.upload(nan.data(), nan.size() * 4);
    state_.upload(&st, sizeof st);
    const trit::vk::Params p{pos, 1};
    step_.upload(&p, sizeof p);
    if (draw) draws_.upload(draw, sizeof *draw, uint64_t{pos % kRing} * sizeof *draw);
    if (draw && (!sampler_ || sampler_->max_vocab() < t_->vocab))
      sampler_ = std::make_unique<trit::vk::GpuSampler>(ctx_, t_->vocab);
    trit::vk::HeadTopK tk{BufferRange{&state_, 0, 0},
                          BufferRange{&bounds_, 0, 0},
                          BufferRange{&tscratch_, 0, 0},
                          BufferRange{&list_, 0, 0},
                          0,
                          groups_};
    trit::vk::DescriptorAllocator da(ctx_);
    CommandSequence cs(ctx_);
    cs.begin();
    for (const auto pass : {trit::vk::TopKPass::Bounds, trit::vk::TopKPass::Rows}) {
      tk.group0 = 0;
      for (size_t i = 0; i < chunks_.size(); ++i) {
        const trit::vk::HeadBound hb{BufferRange{&q8_.at(i), 0, 0}, BufferRange{&qc_.at(i), 0, 0}};
        k_->lm_head_topk(cs, da, BufferRange{&step_, 0, 0}, BufferRange{&parts_[i], 0, 0}, BufferRange{&xb_, 0, 0},
                         BufferRange{&wb_, 0, 0}, kEps, BufferRange{&lb_, 0, 0}, chunks_[i].rows, t_->dim,
                         chunks_[i].row0, t_->vocab, pass, hb, tk, rpw_);
        tk.group0 += k_->lm_head_groups(chunks_[i].rows, t_->vocab, rpw_);
      }
      cs.barrier();
    }
    if (draw) {
      const BufferRange list{&list_, 0, 0};
      sampler_->record(cs, da, BufferRange{&lb_, 0, 0}, t_->vocab, BufferRange{&state_, 0, 0},
                       trit::vk::GpuSamplerChain{BufferRange{&step_, 0, 0}, BufferRange{&draws_, 0, 0},
                                                 BufferRange{&next_, 0, 0}, BufferRange{&ring_, 0, 0}, kRing},
                       &list);
    }
    cs.end();
    cs.run();
    std::vector<float> out(t_->vocab);
    lb_.download(out.data(), out.size() * 4);
    return out;
  }
  // The last sampled step's candidate list: its entries (row ids, bit 31 on the penalised ones).
  std::vector<uint32_t> list() const {
    const uint32_t n = word(list_, 0);
    std::vector<uint32_t> e(n);
    if (n) list_.download(e.data(), uint64_t{n} * 4, 4);
    return e;
  }
  // The sampled steps' scratch as a step must leave it: no arrivals, no posts.
  bool topk_scratch_clean() const { return word(tscratch_, 0) == 0 && word(tscratch_, 4) == 0; }
  uint32_t topk_threshold() const { return word(tscratch_, 1); }
  bool sampler_f64() const { return ctx_.info().shader_float64; }
  // Rows the sampled steps computed in F16 before the last one (VulkanForward::sampled_head_f16_rows).
  uint64_t f16_rows_before() const { return uint64_t{word(tscratch_, 3)} << 32 | word(tscratch_, 2); }
  trit::vk::GpuSamplerState sampler_state() const {
    trit::vk::GpuSamplerState st;
    state_.download(&st, sizeof st);
    return st;
  }

  uint32_t next_token() const { return word(next_, 0); }
  uint32_t ring_slot(uint32_t pos) const { return word(ring_, pos % kRing); }
  uint32_t pos0() const { return word(step_, 0); }
  uint32_t arrivals() const { return word(scratch_, 0); }   // the count, zero between steps
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
  Buffer bounds_, tscratch_, list_, state_, draws_;
  std::unique_ptr<trit::vk::GpuSampler> sampler_;
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
  uint64_t max_range;       // 0: one chunk
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
          t.f16[size_t{rows[i]} * dim + 17 * i] =
              top[17 * i] == trit::ref::f32_to_f16(1.f) ? uint16_t{0x3bff} : uint16_t{0xbbff};
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

// ---- The head of a sampled step from the int8 table (lm_head.glsl TOPK) -----------------------------

using trit::SamplingParams;

SamplingParams sampling(float temperature, int32_t top_k, float top_p, float min_p, float penalty, int32_t last_n) {
  SamplingParams p;
  p.temperature = temperature;
  p.top_k = top_k;
  p.top_p = top_p;
  p.min_p = min_p;
  p.repeat_penalty = penalty;
  p.repeat_last_n = last_n;
  return p;
}

// Settings the GPU sampler takes: the defaults, top-k 1, 2, 40 and 1024, greedy with a penalty, a penalty
// below 1 (it raises the logits of repeats), hot and cold, top-p and min-p cuts.
const SamplingParams kTopKSettings[] = {
    sampling(0.6f, 40, 0.95f, 0.05f, 1.1f, 64),    sampling(1.5f, 2, 1.f, 0.f, 1.f, 64),
    sampling(0.f, 40, 0.95f, 0.05f, 1.3f, 64),     sampling(1.f, 1, 1.f, 0.f, 1.f, 0),
    sampling(0.3f, 1024, 0.99f, 0.1f, 1.05f, 256), sampling(2.f, 40, 1.f, 0.01f, 0.8f, 32),
};

// The penalty window as trit::Sampler takes it: the distinct ids in the vocabulary among the last
// repeat_last_n of the history, where the penalty is on.
std::vector<int32_t> penalty_window(const SamplingParams& p, const std::vector<int32_t>& history, uint32_t vocab) {
  std::vector<int32_t> w;
  if (p.repeat_penalty == 1.f || p.repeat_last_n <= 0) return w;
  const size_t n = std::min(history.size(), static_cast<size_t>(p.repeat_last_n));
  for (size_t i = history.size() - n; i < history.size(); ++i)
    if (history[i] >= 0 && static_cast<uint32_t>(history[i]) < vocab) w.push_back(history[i]);
  std::sort(w.begin(), w.end());
  w.erase(std::unique(w.begin(), w.end()), w.end());
  return w;
}

// How many candidates the sampler keeps (GpuSampler's select_count).
uint32_t sampler_k(const SamplingParams& p, uint32_t vocab) {
  if (p.temperature <= 0.f) return 1;
  return p.top_k > 0 && static_cast<uint32_t>(p.top_k) < vocab ? static_cast<uint32_t>(p.top_k) : vocab;
}

// The k rows the sampler takes from every logit: the penalty as trit::Sampler applies it, then the
// largest, the lower id first among equals.
std::vector<uint32_t> exact_top_k(const std::vector<float>& logits, const SamplingParams& p,
                                  const std::vector<int32_t>& window) {
  auto l = logits;
  for (const int32_t t : window) {
    float& v = l[static_cast<size_t>(t)];
    v = v > 0.f ? v / p.repeat_penalty : v * p.repeat_penalty;
  }
  std::vector<uint32_t> order(l.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  const uint32_t k = sampler_k(p, static_cast<uint32_t>(l.size()));
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](uint32_t a, uint32_t b) { return l[a] > l[b] || (l[a] == l[b] && a < b); });
  order.resize(k);
  return order;
}

// A history whose window holds some of the best rows (so the penalty decides), repeats and ids outside
// the vocabulary (which both samplers skip).
std::vector<int32_t> make_history(const std::vector<float>& plain, uint32_t seed) {
  std::mt19937 rng(seed);
  const auto vocab = static_cast<uint32_t>(plain.size());
  std::vector<uint32_t> order(vocab);
  for (uint32_t i = 0; i < vocab; ++i) order[i] = i;
  std::partial_sort(order.begin(), order.begin() + 8, order.end(),
                    [&](uint32_t a, uint32_t b) { return plain[a] > plain[b]; });
  std::vector<int32_t> h;
  for (int i = 0; i < 40; ++i) h.push_back(static_cast<int32_t>(rng() % vocab));
  h.push_back(-1);
  h.push_back(static_cast<int32_t>(vocab) + 3);
  for (int i = 0; i < 8; i += 2) h.push_back(static_cast<int32_t>(order[static_cast<size_t>(i)]));
  h.push_back(static_cast<int32_t>(order[0]));
  return h;
}

// One sampled step's head against the plain head (whose logits are `plain`): each row listed once,
// flagged exactly where it is in the penalty window, every row of the window listed, the exact top k
// after the penalty listed (a skipped row of it fails here), at least k rows listed, every listed row's
// logit the plain head's bit for bit and no other row written, the scratch left clean; and the GPU
// sampler's token from the list is trit::Sampler's from every logit (same stream). Returns the rows listed.
size_t expect_topk_step(HeadRig& rig, const std::vector<float>& plain, const SamplingParams& p,
                        const std::vector<int32_t>& history, uint32_t pos) {
  const auto vocab = static_cast<uint32_t>(plain.size());
  trit::vk::GpuSamplerState st;
  trit::vk::GpuSampler::prepare(st, p, history, pos);
  trit::Sampler cpu(p), gpu_rng(p);
  const trit::vk::GpuSamplerDraw draw = trit::vk::GpuSampler::draw(gpu_rng);
  const auto got = rig.run_topk(st, pos, &draw);
  const auto entries = rig.list();
  const auto window = penalty_window(p, history, vocab);
  std::vector<char> listed(vocab, 0);
  for (const uint32_t e : entries) {
    const uint32_t id = e & ~trit::vk::GpuSampler::kListPenalised;
    EXPECT_LT(id, vocab);
    if (id >= vocab) return entries.size();
    EXPECT_FALSE(listed[id]) << "row " << id << " listed twice";
    listed[id] = 1;
    const bool pen = std::binary_search(window.begin(), window.end(), static_cast<int32_t>(id));
    EXPECT_EQ((e & trit::vk::GpuSampler::kListPenalised) != 0, pen) << "row " << id << "'s penalty flag";
    EXPECT_EQ(std::memcmp(&got[id], &plain[id], 4), 0) << "row " << id << ": " << got[id] << " vs " << plain[id];
  }
  for (uint32_t i = 0; i < vocab; ++i)
    if (!listed[i]) {
      EXPECT_TRUE(std::isnan(got[i])) << "row " << i << " written but not listed";
    }
  for (const int32_t t : window) EXPECT_TRUE(listed[static_cast<size_t>(t)]) << "penalised row " << t << " not listed";
  const auto top = exact_top_k(plain, p, window);
  for (size_t r = 0; r < top.size(); ++r)
    EXPECT_TRUE(listed[top[r]]) << "row " << top[r] << ", rank " << r << " of the top " << top.size() << ", not listed";
  EXPECT_GE(entries.size(), top.size());
  EXPECT_TRUE(rig.topk_scratch_clean()) << "the step left arrivals or posted bounds behind";
  // The token (where the sampler's arithmetic is the CPU's: double).
  auto cpu_logits = plain;
  const int32_t want = cpu.sample(cpu_logits, history);
  const auto out = rig.sampler_state();
  EXPECT_EQ(out.status, 0u);
  if (out.status == 0 && rig.sampler_f64()) {
    EXPECT_EQ(out.token, want);
  }
  EXPECT_EQ(rig.ring_slot(pos), static_cast<uint32_t>(out.token));
  EXPECT_EQ(rig.pos0(), pos + 1);
  return entries.size();
}

// Every row the sampler could take is listed and computed exactly, over one chunk and many, workgroups
// of several sizes (8 rows: fewer than each workgroup posts, so all of its rows are posted), float and
// double, with and without the packed dot product, for each setting in turn; and where k is small next
// to the vocabulary, most rows are never read in F16.
TEST(LmHeadTopK, ListsEveryRowTheSamplerCanTake) {
  struct BShape {
    const char* what;
    uint32_t vocab, dim;
    uint64_t max_range;
    uint32_t rows_per_group;
  };
  // 488 rows a workgroup: the H100's for the 2B4T vocabulary (more rows than a workgroup's invocations
  // on lavapipe, fewer on the H100).
  const BShape shapes[] = {
      {"one chunk, the model's width", 2003, 2560, 0, 0},
      {"11 chunks of 100 rows, 68 a workgroup", 1003, 512, 100 * 1024, 68},
      {"13 chunks of 41 rows, 8 a workgroup", 521, 512, 41 * 1024, 8},
      {"one chunk, 488 rows a workgroup", 1003, 512, 0, 488},
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
        const Table t = random_table(sh.vocab, sh.dim, 71 + sh.vocab);
        const auto w = random_w(sh.dim, 72);
        rig.load(t, sh.rows_per_group, random_x(sh.dim, 73), w, 9);
        size_t listed = 0, listed_small_k = 0, small_k_steps = 0;
        const uint32_t steps = std::size(kTopKSettings);
        for (uint32_t i = 0; i < steps; ++i) {
          const SamplingParams& p = kTopKSettings[i];
          SCOPED_TRACE(testing::Message() << "setting " << i);
          rig.set_x(random_x(sh.dim, 80 + i));
          const auto plain = rig.run(false);
          const size_t n = expect_topk_step(rig, plain, p, make_history(plain, 90 + i), 100 + i);
          listed += n;
          if (sampler_k(p, sh.vocab) <= 40) {
            listed_small_k += n;
            ++small_k_steps;
          }
        }
        const uint64_t before = rig.f16_rows_before();
        EXPECT_EQ(before + rig.list().size(), listed) << "the running count of rows computed in F16";
        const double share = double(listed_small_k) / (double(small_k_steps) * sh.vocab);
        std::printf("[ measured ] %s%s%s: %.1f%% of rows read in F16 at top-k <= 40, %.1f%% over all settings\n",
                    sh.what, f64 ? ", double" : ", float", dot == trit::vk::DotProduct::On ? ", dot" : "",
                    100.0 * share, 100.0 * double(listed) / (double(steps) * sh.vocab));
        // Against the bound's worst case (every row listed), on the wide shape whose workgroups post
        // enough of their rows for the threshold to prune.
        if (sh.dim == 2560) {
          EXPECT_LT(share, 0.25);
        }
      }
  if (!ran) GTEST_SKIP() << "the device runs no bounded head";
}

// Exact ties across the k-th row (identical maximal rows in different workgroups and chunks: the lower
// ids are taken), the same rows a single F16 step lower in one element each (near-ties whose logits may
// round to the maximum's or just under it), the penalty moving tied rows out of the top k, and x = 0
// (every logit 0: the first k rows): each time the top k after the penalty is listed and the token is
// trit::Sampler's.
TEST(LmHeadTopK, TiesAndNearTiesAtTheKthRow) {
  const uint32_t dim = 512, vocab = 1003;
  bool ran = false;
  for (const bool f64 : {false, true}) {
    HeadRig rig(f64, 100 * 1024);
    if (!rig.usable_bounded(dim, vocab)) continue;
    ran = true;
    const auto x = random_x(dim, 62);
    const auto w = random_w(dim, 63);
    std::vector<uint16_t> top(dim);
    for (uint32_t d = 0; d < dim; ++d) top[d] = trit::ref::f32_to_f16(x[d] * w[d] < 0 ? -1.f : 1.f);
    const std::vector<std::vector<uint32_t>> ties = {{141, 130, 300, 420, 1002, 7}, {1002, 999, 965, 386, 385}};
    for (const uint32_t rpw : {68u, 0u})
      for (const auto& rows : ties)
        for (const int32_t k : {1, 2, 3, 4, 40}) {
          SCOPED_TRACE(testing::Message() << (f64 ? "double" : "float") << ", " << rpw << " rows a workgroup, top-" << k
                                          << ", tie at " << rows[0] << "...");
          Table t = random_table(vocab, dim, 61);
          for (const uint32_t r : rows) std::copy(top.begin(), top.end(), t.f16.begin() + size_t{r} * dim);
          rig.load(t, rpw, x, w, 0);
          SamplingParams p = sampling(0.9f, k, 1.f, 0.f, 1.f, 64);
          p.seed = static_cast<uint64_t>(k);
          auto plain = rig.run(false);
          expect_topk_step(rig, plain, p, {}, 5);
          // Penalise the two lowest tied rows: the next ones of the tie move up.
          p.repeat_penalty = 1.5f;
          std::vector<uint32_t> sorted = rows;
          std::sort(sorted.begin(), sorted.end());
          expect_topk_step(rig, plain, p, {static_cast<int32_t>(sorted[0]), static_cast<int32_t>(sorted[1])}, 6);
          // Greedy with the penalty.
          p.temperature = 0.f;
          expect_topk_step(rig, plain, p, {static_cast<int32_t>(sorted[0])}, 7);
          // Near-ties: every tied row but the last a step lower in one element.
          for (size_t i = 0; i + 1 < rows.size(); ++i)
            t.f16[size_t{rows[i]} * dim + 17 * i] =
                top[17 * i] == trit::ref::f32_to_f16(1.f) ? uint16_t{0x3bff} : uint16_t{0xbbff};
          rig.load(t, rpw, x, w, 0);
          plain = rig.run(false);
          p.temperature = 1.2f;
          p.repeat_penalty = 1.f;
          expect_topk_step(rig, plain, p, {}, 8);
        }
    SCOPED_TRACE("x = 0");
    const Table t0 = random_table(vocab, dim, 64);  // (the rig keeps a pointer to its table)
    rig.load(t0, 0, std::vector<double>(dim, 0.0), w, 0);
    const auto plain = rig.run(false);
    expect_topk_step(rig, plain, sampling(1.f, 5, 1.f, 0.f, 1.f, 64), {}, 3);
  }
  if (!ran) GTEST_SKIP() << "the device runs no bounded head";
}

// Rows in the penalty window never count toward the threshold: here the best row A is penalised (1.5)
// below B and C (0.8 and 0.7 of A, far apart next to their bounds), so the top 1 and 2 are B and C, whose
// upper bounds lie below A's lower bound. Had A's bound been counted, B and C would not be listed.
TEST(LmHeadTopK, ThePenaltyNeverRaisesTheThreshold) {
  const uint32_t dim = 512, vocab = 1003;
  bool ran = false;
  for (const bool f64 : {false, true}) {
    HeadRig rig(f64, 100 * 1024);
    if (!rig.usable_bounded(dim, vocab)) continue;
    ran = true;
    const auto x = random_x(dim, 75);
    const auto w = random_w(dim, 76);
    Table t = random_table(vocab, dim, 77);
    const uint32_t a = 500, b = 20, c = 900;  // (three chunks)
    for (uint32_t d = 0; d < dim; ++d) {
      const float sgn = x[d] * w[d] < 0 ? -1.f : 1.f;
      t.f16[size_t{a} * dim + d] = trit::ref::f32_to_f16(sgn);
      t.f16[size_t{b} * dim + d] = trit::ref::f32_to_f16(0.8f * sgn);
      t.f16[size_t{c} * dim + d] = trit::ref::f32_to_f16(0.7f * sgn);
    }
    for (const uint32_t rpw : {68u, 0u}) {
      SCOPED_TRACE(testing::Message() << (f64 ? "double" : "float") << ", " << rpw << " rows a workgroup");
      rig.load(t, rpw, x, w, 0);
      const auto plain = rig.run(false);
      ASSERT_GT(plain[c], 0.f);
      ASSERT_GT(plain[c], plain[a] / 1.5f);
      const std::vector<int32_t> history = {static_cast<int32_t>(a)};
      for (const auto& p : {sampling(0.f, 40, 1.f, 0.f, 1.5f, 64), sampling(1.f, 2, 1.f, 0.f, 1.5f, 64)}) {
        const auto top = exact_top_k(plain, p, penalty_window(p, history, vocab));
        ASSERT_EQ(top[0], b);
        if (top.size() > 1) {
          ASSERT_EQ(top[1], c);
        }
        expect_topk_step(rig, plain, p, history, 1);
        // B and C are listed because the threshold ignored A, not because every row is.
        EXPECT_LT(rig.list().size(), vocab / 4);
      }
    }
  }
  if (!ran) GTEST_SKIP() << "the device runs no bounded head";
}

// Settings that need every logit (top-k at least the vocabulary) list every row; settings the sampler
// rejects (here top-k 0 over more than 1024 rows) list every row too, and the sampler reports them.
TEST(LmHeadTopK, SettingsThatNeedEveryRowListEveryRow) {
  const uint32_t dim = 512, vocab = 1003;
  HeadRig rig(false, 100 * 1024);
  if (!rig.usable_bounded(dim, vocab)) GTEST_SKIP() << "the device runs no bounded head";
  const Table t = random_table(vocab, dim, 65);  // (the rig keeps a pointer to its table)
  rig.load(t, 0, random_x(dim, 66), random_w(dim, 67), 0);
  const auto plain = rig.run(false);
  // top-k 1024 over 1003 rows: the sampler takes every row (and the min-p prefilter applies).
  EXPECT_EQ(expect_topk_step(rig, plain, sampling(0.7f, 1024, 0.9f, 0.05f, 1.1f, 64), make_history(plain, 3), 4),
            vocab);
  HeadRig wide(false, 0);
  const uint32_t big = 2003;
  if (!wide.usable_bounded(dim, big)) GTEST_SKIP() << "no bounded head for " << big << " rows";
  const Table tw = random_table(big, dim, 68);
  wide.load(tw, 0, random_x(dim, 69), random_w(dim, 70), 0);
  trit::vk::GpuSamplerState st;
  trit::vk::GpuSampler::prepare(st, sampling(0.7f, 40, 1.f, 0.f, 1.f, 64), {}, 0);
  st.top_k = 0;  // the whole vocabulary: more candidates than the sampler takes
  trit::vk::GpuSamplerDraw draw;
  const auto got = wide.run_topk(st, 0, &draw);
  EXPECT_EQ(wide.list().size(), big);
  EXPECT_EQ(std::count_if(got.begin(), got.end(), [](float v) { return std::isnan(v); }), 0);
  EXPECT_EQ(wide.sampler_state().status, 1u);
  EXPECT_TRUE(wide.topk_scratch_clean());
}

// Each pass checks its ranges (the sampler's state, the bounds, scratch and list, the int8 chunk) and
// that the chunk's workgroups fit the head's count.
TEST(LmHeadTopK, ChecksItsRanges) {
  trit::vk::Context ctx;
  trit::vk::Kernels k(ctx, true, false);
  if (!k.lm_head_bounds(512, 200)) GTEST_SKIP() << "no bounded head";
  trit::vk::DescriptorAllocator da(ctx);
  Buffer b(ctx, 1 << 20, MemoryUse::Device), small(ctx, 64, MemoryUse::Device);
  const BufferRange r{&b, 0, 0}, s{&small, 0, 0};
  const uint32_t groups = k.lm_head_groups(200, 200, 64);
  CommandSequence cs(ctx);
  cs.begin();
  const trit::vk::HeadBound hb{r, r};
  const trit::vk::HeadTopK ok{r, r, r, r, 0, groups};
  using trit::vk::TopKPass;
  for (const auto pass : {TopKPass::Bounds, TopKPass::Rows}) {
    EXPECT_NO_THROW(k.lm_head_topk(cs, da, r, r, r, r, kEps, r, 200, 512, 0, 200, pass, hb, ok, 64));
    for (int which = 0; which < 4; ++which) {
      trit::vk::HeadTopK bad = ok;
      (which == 0 ? bad.state : which == 1 ? bad.bounds : which == 2 ? bad.scratch : bad.list) = s;
      EXPECT_THROW(k.lm_head_topk(cs, da, r, r, r, r, kEps, r, 200, 512, 0, 200, pass, hb, bad, 64), trit::VulkanError)
          << which;
    }
    trit::vk::HeadTopK bad = ok;
    bad.group0 = 1;
    EXPECT_THROW(k.lm_head_topk(cs, da, r, r, r, r, kEps, r, 200, 512, 0, 200, pass, hb, bad, 64), trit::VulkanError);
    EXPECT_THROW(k.lm_head_topk(cs, da, r, r, r, r, kEps, r, 200, 264, 0, 200, pass, hb, ok, 64), trit::VulkanError);
  }
  EXPECT_THROW(k.lm_head_topk(cs, da, r, r, r, r, kEps, r, 200, 512, 0, 200, TopKPass::Bounds, {s, r}, ok, 64),
               trit::VulkanError);
  cs.end();
}

// A chunk's workgroups must fit the head's count, and the scratch must hold a slot for each.
TEST(LmHeadArgmax, ChecksItsCountAndScratch) {
  trit::vk::Context ctx;
  trit::vk::Kernels k(ctx, true, false);
  if (!k.lm_head_norms(264)) GTEST_SKIP() << "no staged one-token head";
  trit::vk::DescriptorAllocator da(ctx);
  Buffer b(ctx, 1 << 16, MemoryUse::Device),
      small(ctx, trit::vk::Kernels::head_argmax_scratch_bytes(3), MemoryUse::Device);
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
