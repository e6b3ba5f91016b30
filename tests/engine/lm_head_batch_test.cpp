// The head of a batched step from the int8 table (shaders/lm_head_batch.glsl, Kernels::lm_head_batch),
// against the block head it stands in for (Kernels::lm_head with a block of tokens, every row in F16):
// on the same normalized rows (rmsnorm_quant writes h the same with and without its planes) each token's
// written logits are the block head's to the bit or -inf, every penalised row is written, and each
// token's argmax under its penalty (a greedy step) or its best kTopRowsMax, as top_rows lists them (a
// sampled step's passes), are the block head's, ties included. Over chunked tables whose chunks end in
// partial workgroups, steps of 1 to 16 tokens (partial tiles of tokens), both precisions and both int8
// dot products.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "trit/reference_ops.h"
#include "trit/sampler.h"
#include "vulkan/ceil_div.h"
#include "vulkan/context.h"
#include "vulkan/kernels.h"

namespace {

using trit::vk::Buffer;
using trit::vk::BufferRange;
using trit::vk::CommandSequence;
using trit::vk::Kernels;
using trit::vk::MemoryUse;

constexpr float kEps = 1e-5f;
constexpr float kPenalty = 1.3f;
constexpr uint32_t kPenMax = Kernels::kArgmaxPenalisedMax;

BufferRange all(const Buffer& b) {
  return BufferRange{&b, 0, 0};
}

std::vector<uint16_t> random_table(uint32_t vocab, uint32_t dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  std::vector<uint16_t> t(size_t{vocab} * dim);
  for (auto& h : t) h = trit::ref::f32_to_f16(d(rng));
  return t;
}

std::vector<double> random_values(size_t n, uint32_t seed, double lo, double hi) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

// One device's kernels and a table loaded on them, as VulkanForward holds the head (chunks by the
// binding limit, each with its int8 copy).
class Rig {
 public:
  // portable: the variant that sums the bounds on the integer units (else on the tensor cores).
  Rig(bool f64, trit::vk::DotProduct dot, uint64_t max_range, bool portable)
      : ctx_(opts(max_range)), portable_(portable) {
    if ((f64 && !ctx_.info().shader_float64) || (dot == trit::vk::DotProduct::On && !ctx_.info().integer_dot_product))
      return;
    k_ = std::make_unique<Kernels>(ctx_, true, f64, dot);
    f64_ = f64;
  }
  bool usable(uint32_t dim) const { return k_ && k_->batch_head_tokens(dim, portable_) > 0; }
  const Kernels& kernels() const { return *k_; }

  void load(const std::vector<uint16_t>& table, uint32_t vocab, uint32_t dim) {
    vocab_ = vocab;
    dim_ = dim;
    chunks_ = trit::vk::split_rows(vocab, uint64_t{dim} * 2, ctx_.max_binding_range());
    parts_.clear();
    q8_.clear();
    qc_.clear();
    trit::vk::DescriptorAllocator da(ctx_);
    CommandSequence cs(ctx_);
    cs.begin();
    for (const auto& c : chunks_) {
      parts_.emplace_back(ctx_, uint64_t{c.rows} * dim * 2, MemoryUse::Device);
      parts_.back().upload(table.data() + size_t{c.row0} * dim, uint64_t{c.rows} * dim * 2);
      q8_.emplace_back(ctx_, Kernels::head_q8_bytes(c.rows, dim), MemoryUse::Device);
      qc_.emplace_back(ctx_, Kernels::head_q8_consts_bytes(c.rows), MemoryUse::Device);
      k_->build_head_q8(cs, da, all(parts_.back()), all(q8_.back()), all(qc_.back()), c.rows, dim);
    }
    cs.end();
    cs.run();
  }

  // The residual rows x (n tokens of dim), the final norm's weights and each token's penalised ids.
  void set_step(const std::vector<double>& x, const std::vector<float>& w,
                const std::vector<std::vector<int32_t>>& windows) {
    n_ = static_cast<uint32_t>(windows.size());
    const uint32_t rb = f64_ ? 8 : 4;
    xb_ = Buffer(ctx_, x.size() * rb, MemoryUse::Device);
    if (f64_) {
      xb_.upload(x.data(), x.size() * 8);
    } else {
      const std::vector<float> xf(x.begin(), x.end());
      xb_.upload(xf.data(), xf.size() * 4);
    }
    wb_ = Buffer(ctx_, w.size() * 4, MemoryUse::Device);
    wb_.upload(w.data(), w.size() * 4);
    std::vector<uint32_t> lists(size_t{n_} * (kPenMax + 1), 0u);
    for (uint32_t t = 0; t < n_; ++t) {
      lists[size_t{t} * (kPenMax + 1)] = static_cast<uint32_t>(windows[t].size());
      for (size_t j = 0; j < windows[t].size(); ++j)
        lists[size_t{t} * (kPenMax + 1) + 1 + j] = static_cast<uint32_t>(windows[t][j]);
    }
    pen_ = Buffer(ctx_, lists.size() * 4, MemoryUse::Device);
    pen_.upload(lists.data(), lists.size() * 4);
    const trit::vk::Params p{0, n_};
    pb_ = Buffer(ctx_, sizeof p, MemoryUse::Upload);
    pb_.upload(&p, sizeof p);
  }

  // Every token's logits from the block head (int8 false) or the int8 head (poisoned with NaN before, so
  // each must be written), a greedy step's or (top) a sampled step's two passes, and the normalized rows
  // h they were computed from.
  std::vector<float> run(bool int8, std::vector<uint8_t>* h_out = nullptr, uint32_t max_tokens = 0, bool top = false) {
    if (max_tokens == 0) max_tokens = n_;
    const uint32_t rb = f64_ ? 8 : 4;
    Buffer h(ctx_, uint64_t{max_tokens} * dim_ * rb, MemoryUse::Readback);
    Buffer planes(ctx_, Kernels::head_planes_bytes(trit::vk::ceil_div(max_tokens, 8) * 8, dim_), MemoryUse::Device);
    Buffer consts(ctx_, k_->head_plane_consts_bytes(max_tokens), MemoryUse::Device);
    uint32_t groups = 0;
    for (const auto& c : chunks_) groups += k_->batch_head_groups(c.rows, dim_, portable_);
    Buffer thr(ctx_, top ? 4 * Kernels::batch_head_top_words(max_tokens, groups) : uint64_t{max_tokens} * 4,
               MemoryUse::Device);
    Buffer upper(ctx_, top ? Kernels::batch_head_upper_bytes(max_tokens, vocab_) : 4, MemoryUse::Device);
    Buffer lb(ctx_, uint64_t{max_tokens} * vocab_ * 4, MemoryUse::Readback);
    const std::vector<float> nan(size_t{max_tokens} * vocab_, std::nanf(""));
    lb.upload(nan.data(), nan.size() * 4);
    trit::vk::DescriptorAllocator da(ctx_);
    CommandSequence cs(ctx_);
    cs.begin();
    cs.fill(thr, 0, thr.size(), 0);
    cs.barrier(true);
    const BufferRange P = all(pb_), H = all(h), HP = all(planes), HC = all(consts), W = all(wb_);
    k_->rmsnorm_quant(cs, da, P, all(xb_), &W, &H, int8 ? &HP : nullptr, int8 ? &HC : nullptr, dim_, kEps, max_tokens);
    cs.barrier();
    using Pass = Kernels::BatchHeadTop::Pass;
    for (const Pass pass : {Pass::Bounds, Pass::Select, Pass::Rows}) {
      if (pass != Pass::Bounds && !top) break;
      if (pass != Pass::Bounds) cs.barrier();
      uint32_t group0 = 0;
      for (size_t i = 0; i < (pass == Pass::Select ? 1 : chunks_.size()); ++i) {
        const auto& c = chunks_[i];
        const Kernels::BatchHeadTop tk{pass, all(upper), group0, groups, max_tokens};
        if (int8)
          k_->lm_head_batch(cs, da, P, all(parts_[i]), H, trit::vk::HeadBound{all(q8_[i]), all(qc_[i])}, HP, HC,
                            all(pen_), all(thr), all(lb), c.rows, dim_, c.row0, vocab_, max_tokens, portable_,
                            top ? &tk : nullptr);
        else
          k_->lm_head(cs, da, P, all(parts_[i]), H, all(lb), c.rows, dim_, c.row0, vocab_, max_tokens);
        group0 += k_->batch_head_groups(c.rows, dim_, portable_);
      }
    }
    // A sampled step's lists: each slice's best kTopRowsMax of the int8 head's logits (top_rows).
    const uint32_t slices = k_->argmax_slices(vocab_);
    Buffer lists(ctx_, uint64_t{max_tokens} * k_->top_row_bytes(vocab_), MemoryUse::Readback);
    Buffer nans(ctx_, uint64_t{max_tokens} * slices * 4, MemoryUse::Readback);
    Buffer gathered(ctx_, uint64_t{max_tokens} * kPenMax * 4, MemoryUse::Readback);
    if (top) {
      cs.barrier();
      k_->top_rows(cs, da, P, all(lb), all(lists), all(pen_), all(gathered), all(nans), vocab_, max_tokens);
    }
    cs.end();
    cs.run();
    if (top) {
      top_pairs_.resize(lists.size() / 4);
      lists.download(top_pairs_.data(), lists.size());
      top_nan_.resize(nans.size() / 4);
      nans.download(top_nan_.data(), nans.size());
      top_gathered_.resize(gathered.size() / 4);
      gathered.download(top_gathered_.data(), gathered.size());
    }
    std::vector<float> out(size_t{n_} * vocab_);
    lb.download(out.data(), out.size() * 4);
    if (h_out) {
      h_out->resize(size_t{n_} * dim_ * rb);
      h.download(h_out->data(), h_out->size());
    }
    return out;
  }

 private:
  static trit::vk::ContextOptions opts(uint64_t max_range) {
    trit::vk::ContextOptions o;
    o.max_binding_range = max_range;
    return o;
  }
  trit::vk::Context ctx_;
  std::unique_ptr<Kernels> k_;

 public:
  // After run(.., top): token t's best k under its window from the lists top_rows left
  // (Kernels::top_of_slices, as decode_batch_top takes them); false where a slice holds a NaN.
  bool top_of(uint32_t t, const std::vector<int32_t>& window, size_t k, std::vector<trit::TopLogit>& out) const {
    const size_t per_row = k_->top_row_bytes(vocab_) / 4, slices = k_->argmax_slices(vocab_);
    return Kernels::top_of_slices(std::span<const uint32_t>(top_pairs_).subspan(t * per_row, per_row),
                                  std::span<const uint32_t>(top_nan_).subspan(t * slices, slices), window,
                                  std::span<const float>(top_gathered_).subspan(size_t{t} * kPenMax, window.size()),
                                  kPenalty, k, out);
  }

 private:
  std::vector<uint32_t> top_pairs_, top_nan_;
  std::vector<float> top_gathered_;
  bool portable_ = true;
  bool f64_ = false;
  uint32_t vocab_ = 0, dim_ = 0, n_ = 0;
  std::vector<trit::vk::RowChunk> chunks_;
  std::vector<Buffer> parts_, q8_, qc_;
  Buffer xb_, wb_, pen_, pb_;
};

// A row under its penalty window, as the host penalises it.
std::vector<float> penalised(std::vector<float> row, const std::vector<int32_t>& window) {
  for (const int32_t i : window)
    row[static_cast<size_t>(i)] = trit::repeat_penalised(row[static_cast<size_t>(i)], kPenalty);
  return row;
}

// The token the host picks from a row under its penalty window (VulkanForward's decode_batch_argmax).
int32_t penalised_argmax(const std::vector<float>& row, const std::vector<int32_t>& window) {
  return trit::argmax(penalised(row, window));
}

// Token t's row from the int8 head (g) against the block head's (w): every written logit the block
// head's to the bit (-inf: not computed), every penalised row written. Adds the written rows to
// `computed`; false at the first logit that differs.
bool expect_written_rows(const std::vector<float>& w, const std::vector<float>& g, size_t t,
                         const std::vector<int32_t>& window, size_t& computed) {
  for (uint32_t i = 0; i < g.size(); ++i) {
    if (std::isinf(g[i]) && g[i] < 0 && !(std::isinf(w[i]) && w[i] < 0)) continue;  // not computed
    ++computed;
    if (std::memcmp(&g[i], &w[i], 4) != 0) {
      ADD_FAILURE() << "token " << t << " row " << i << ": " << g[i] << " against the block head's " << w[i];
      return false;
    }
  }
  for (const int32_t i : window)
    EXPECT_EQ(std::memcmp(&g[static_cast<size_t>(i)], &w[static_cast<size_t>(i)], 4), 0)
        << "token " << t << ": penalised row " << i << " not computed";
  return true;
}

// Runs both heads on the rig's step and checks the int8 head against the block head; returns the rows
// the int8 head computed in F16 and adds each token's pick to `picks`.
size_t expect_same_picks(Rig& rig, uint32_t vocab, const std::vector<std::vector<int32_t>>& windows,
                         std::vector<int32_t>* picks = nullptr) {
  std::vector<uint8_t> h_block, h_int8;
  const auto want = rig.run(false, &h_block);
  const auto got = rig.run(true, &h_int8);
  EXPECT_EQ(h_block, h_int8) << "the final norm writes h differently beside its planes";
  size_t computed = 0;
  for (size_t t = 0; t < windows.size(); ++t) {
    const std::vector<float> w(want.begin() + t * vocab, want.begin() + (t + 1) * vocab);
    const std::vector<float> g(got.begin() + t * vocab, got.begin() + (t + 1) * vocab);
    if (!expect_written_rows(w, g, t, windows[t], computed)) return computed;
    const int32_t pick = penalised_argmax(w, windows[t]);
    EXPECT_EQ(penalised_argmax(g, windows[t]), pick) << "token " << t;
    if (picks) picks->push_back(pick);
  }
  return computed;
}

// A token's best kTopRowsMax rows under its penalty window in the host's order (larger first, then the
// lower row): (row, value) pairs.
std::vector<std::pair<int32_t, float>> best_rows(const std::vector<float>& logits, const std::vector<int32_t>& window) {
  const std::vector<float> row = penalised(logits, window);
  std::vector<int32_t> ids(row.size());
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>(i);
  const size_t k = std::min<size_t>(Kernels::kTopRowsMax, ids.size());
  std::partial_sort(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end(), [&](int32_t a, int32_t b) {
    const float va = row[static_cast<size_t>(a)], vb = row[static_cast<size_t>(b)];
    return va > vb || (va == vb && a < b);
  });
  std::vector<std::pair<int32_t, float>> out;
  for (size_t i = 0; i < k; ++i) out.emplace_back(ids[i], row[static_cast<size_t>(ids[i])]);
  return out;
}

// Runs the block head and a sampled step's int8 head on the rig's step: every written logit is the block
// head's to the bit, every penalised row is written, and each token's best kTopRowsMax under its window
// are the block head's. Returns the rows computed in F16; adds each token's best row to `picks`.
size_t expect_same_tops(Rig& rig, uint32_t vocab, const std::vector<std::vector<int32_t>>& windows,
                        std::vector<int32_t>* picks = nullptr) {
  const auto want = rig.run(false);
  const auto got = rig.run(true, nullptr, 0, true);
  size_t computed = 0;
  for (size_t t = 0; t < windows.size(); ++t) {
    const std::vector<float> w(want.begin() + t * vocab, want.begin() + (t + 1) * vocab);
    const std::vector<float> g(got.begin() + t * vocab, got.begin() + (t + 1) * vocab);
    if (!expect_written_rows(w, g, t, windows[t], computed)) return computed;
    const auto best = best_rows(w, windows[t]);
    EXPECT_EQ(best_rows(g, windows[t]), best) << "token " << t;
    // What decode_batch_top takes: the first k of top_rows' lists of these logits under the window.
    std::vector<trit::TopLogit> top;
    EXPECT_TRUE(rig.top_of(static_cast<uint32_t>(t), windows[t], best.size(), top)) << "token " << t;
    std::vector<std::pair<int32_t, float>> listed;
    for (const trit::TopLogit& l : top) listed.emplace_back(l.id, l.logit);
    EXPECT_EQ(listed, best) << "token " << t << ": top_rows' lists";
    if (picks) picks->push_back(best.front().first);
  }
  return computed;
}

struct Shape {
  const char* what;
  uint32_t vocab, dim;
  uint64_t max_range;  // 0: one chunk
};

TEST(LmHeadBatch, PicksTheBlockHeadsTokens) {
  const Shape shapes[] = {
      {"one chunk, the model's width", 2003, 2560, 0},
      {"11 chunks of 100 rows, the last of 19", 1019, 512, 100 * 1024},
      {"13 chunks of 41 rows", 521, 512, 41 * 1024},
  };
  bool ran = false;
  // The tensor cores' variant, then the portable one with and without the packed dot product.
  struct Variant {
    bool portable;
    trit::vk::DotProduct dot;
    const char* what;
  };
  const Variant variants[] = {{false, trit::vk::DotProduct::Auto, ", tensor cores"},
                              {true, trit::vk::DotProduct::Off, ""},
                              {true, trit::vk::DotProduct::On, ", dot product"}};
  for (const Variant& v : variants)
    for (const bool f64 : {false, true})
      for (const Shape& sh : shapes) {
        Rig rig(f64, v.dot, sh.max_range, v.portable);
        if (!rig.usable(sh.dim)) continue;
        ran = true;
        rig.load(random_table(sh.vocab, sh.dim, 7 + sh.vocab), sh.vocab, sh.dim);
        const auto w = random_values(sh.dim, 8, 0.2, 3.0);
        const std::vector<float> wf(w.begin(), w.end());
        size_t computed = 0, rows = 0;
        for (const uint32_t n : {1u, 5u, 9u, 16u}) {
          if (sh.max_range != 0 && uint64_t{n} * sh.dim * 8 > sh.max_range) continue;  // (x in one binding)
          SCOPED_TRACE(std::string(sh.what) + (f64 ? ", double" : ", float") + v.what + ", " + std::to_string(n) +
                       " tokens");
          const auto x = random_values(size_t{n} * sh.dim, 20 + n, -2.0, 2.0);
          // First each token's best rows without a penalty, then the same step with each token's winner,
          // its neighbours and a row of another chunk in its window (each token its own).
          std::vector<std::vector<int32_t>> windows(n);
          std::vector<int32_t> picks;
          rig.set_step(x, wf, windows);
          computed += expect_same_picks(rig, sh.vocab, windows, &picks);
          for (uint32_t t = 0; t < n; ++t) {
            const int32_t p = picks[t];
            windows[t] = {p, std::max(p - 1, 0), std::min(p + 1, static_cast<int32_t>(sh.vocab) - 1),
                          static_cast<int32_t>((p + sh.vocab / 2 + t) % sh.vocab)};
            std::sort(windows[t].begin(), windows[t].end());
            windows[t].erase(std::unique(windows[t].begin(), windows[t].end()), windows[t].end());
          }
          rig.set_step(x, wf, windows);
          computed += expect_same_picks(rig, sh.vocab, windows);
          rows += 2ull * n * sh.vocab;
        }
        const double share = double(computed) / double(rows);
        std::printf("[ measured ] %s%s%s: %.1f%% of rows read in F16\n", sh.what, f64 ? ", double" : ", float", v.what,
                    100.0 * share);
        // Against the bound's worst case (every row computed), where workgroups hold enough rows to prune.
        if (sh.max_range == 0) {
          EXPECT_LT(share, 0.25);
        }
      }
  if (!ran) GTEST_SKIP() << "the device runs no int8 head for batched steps";
}

// A sampled step's two passes keep every token's best kTopRowsMax: on chunked tables, on the LLaMA 3
// vocabulary's row count (enough workgroups that the posts set a threshold: a share of the rows is
// computed), with and without each token's best rows in its window, steps of 1 to 16 tokens.
TEST(LmHeadBatch, SampledStepsKeepTheBlockHeadsBestRows) {
  const Shape shapes[] = {
      {"the LLaMA 3 vocabulary's rows, narrow, in 2 chunks", 128256, 64, 64128 * 128},
      {"16,411 rows of 256 (the tensor cores' variant sets a threshold)", 16411, 256, 0},
      {"one chunk, the model's width", 2003, 2560, 0},
      {"11 chunks of 100 rows, the last of 19", 1019, 512, 100 * 1024},
  };
  bool ran = false;
  for (const bool portable : {false, true})
    for (const bool f64 : {false, true})
      for (const Shape& sh : shapes) {
        if (f64 && sh.vocab > 100000) continue;       // (the double head on lavapipe: many seconds)
        if (portable && sh.vocab == 16411) continue;  // (for the tensor cores' variant; 33 posts a token here)
        Rig rig(f64, trit::vk::DotProduct::Auto, sh.max_range, portable);
        if (!rig.usable(sh.dim)) continue;
        ran = true;
        rig.load(random_table(sh.vocab, sh.dim, 9 + sh.vocab), sh.vocab, sh.dim);
        const auto w = random_values(sh.dim, 10, 0.2, 3.0);
        const std::vector<float> wf(w.begin(), w.end());
        size_t computed = 0, rows = 0;
        for (const uint32_t n : {1u, 5u, 16u}) {
          if (sh.max_range != 0 && uint64_t{n} * sh.dim * 8 > sh.max_range) continue;  // (x in one binding)
          SCOPED_TRACE(std::string(sh.what) + (f64 ? ", double" : ", float") + (portable ? "" : ", tensor cores") +
                       ", " + std::to_string(n) + " tokens");
          const auto x = random_values(size_t{n} * sh.dim, 30 + n, -2.0, 2.0);
          std::vector<std::vector<int32_t>> windows(n);
          std::vector<int32_t> picks;
          rig.set_step(x, wf, windows);
          computed += expect_same_tops(rig, sh.vocab, windows, &picks);
          // Each token's best row and a row of the other half in its window: the penalty moves them down
          // the list, and a row it lowers below the threshold must still be listed.
          for (uint32_t t = 0; t < n; ++t)
            windows[t] = {std::min(picks[t], static_cast<int32_t>((picks[t] + sh.vocab / 2) % sh.vocab)),
                          std::max(picks[t], static_cast<int32_t>((picks[t] + sh.vocab / 2) % sh.vocab))};
          rig.set_step(x, wf, windows);
          computed += expect_same_tops(rig, sh.vocab, windows);
          rows += 2ull * n * sh.vocab;
        }
        const double share = double(computed) / double(rows);
        std::printf("[ measured ] %s%s%s: %.2f%% of rows read in F16\n", sh.what, f64 ? ", double" : ", float",
                    portable ? "" : ", tensor cores", 100.0 * share);
        // Where a token has K_TOP posts or more (one a workgroup), its threshold prunes.
        uint32_t groups = 0;
        for (const auto& c :
             trit::vk::split_rows(sh.vocab, uint64_t{sh.dim} * 2, sh.max_range ? sh.max_range : uint64_t{1} << 40))
          groups += rig.kernels().batch_head_groups(c.rows, sh.dim, portable);
        if (groups >= Kernels::kTopRowsMax) {
          EXPECT_LT(share, 0.25) << "the posts set no threshold";
        }
      }
  if (!ran) GTEST_SKIP() << "the device runs no int8 head for batched steps";
}

// Equal rows at the top of a sampled step's lists, across slices, workgroups and the chunks' boundary:
// top_rows places them by row, as the block head's order has them (a slice's few numbers are placed by
// count there, its rounds elsewhere).
TEST(LmHeadBatch, SampledListsOrderTiedRowsByRow) {
  const uint32_t dim = 64, vocab = 128256, n = 3;
  for (const bool portable : {false, true}) {
    Rig rig(false, trit::vk::DotProduct::Auto, 64128 * 128, portable);
    if (!rig.usable(dim)) continue;
    SCOPED_TRACE(portable ? "portable" : "tensor cores");
    const auto w = random_values(dim, 83, 0.2, 3.0);
    const std::vector<float> wf(w.begin(), w.end());
    // Every token's x the same signs, so a row of +-1 by those signs is each token's largest.
    auto x = random_values(size_t{n} * dim, 82, 0.5, 2.0);
    for (size_t i = 0; i < x.size(); ++i)
      if (i % dim % 3 == 0) x[i] = -x[i];
    std::vector<uint16_t> top(dim);
    for (uint32_t d = 0; d < dim; ++d) top[d] = trit::ref::f32_to_f16(x[d] < 0 ? -1.f : 1.f);
    auto t = random_table(vocab, dim, 81);
    for (const uint32_t r : {141u, 130u, 2047u, 2048u, 64127u, 64128u, 100001u})
      std::copy(top.begin(), top.end(), t.begin() + size_t{r} * dim);
    rig.load(t, vocab, dim);
    std::vector<std::vector<int32_t>> windows(n);
    std::vector<int32_t> picks;
    rig.set_step(x, wf, windows);
    expect_same_tops(rig, vocab, windows, &picks);
    for (const int32_t p : picks) EXPECT_EQ(p, 130);
    windows[1] = {130, 2048};  // two of the tie penalised: the others keep their order above them
    rig.set_step(x, wf, windows);
    expect_same_tops(rig, vocab, windows);
  }
}

// Exact ties across workgroups and chunks (the lowest row wins), the same rows a step lower in one element
// (their logits may round to the maximum's or just under), a tie whose lowest row is penalised, and x = 0
// (every logit 0, penalised or not: row 0).
TEST(LmHeadBatch, TiesAndNearTiesGoWhereTheBlockHeadSendsThem) {
  const uint32_t dim = 512, vocab = 1019, n = 3;
  for (const bool portable : {false, true})
    for (const bool f64 : {false, true}) {
      Rig rig(f64, trit::vk::DotProduct::Auto, 100 * 1024, portable);
      if (!rig.usable(dim)) continue;
      SCOPED_TRACE(portable ? "portable" : "tensor cores");
      const auto w = random_values(dim, 63, 0.2, 3.0);
      const std::vector<float> wf(w.begin(), w.end());
      // Every token's x the same signs, so one row of +-1 is each token's largest.
      auto x = random_values(size_t{n} * dim, 62, 0.5, 2.0);
      for (size_t i = 0; i < x.size(); ++i)
        if (i % 3 == 0) x[i] = -x[i];
      std::vector<uint16_t> top(dim);
      for (uint32_t d = 0; d < dim; ++d) top[d] = trit::ref::f32_to_f16(x[d] < 0 ? -1.f : 1.f);
      const std::vector<std::vector<uint32_t>> ties = {{141, 130, 300, 420, 1018}, {1018, 999, 965}, {4, 0}};
      for (const auto& rows : ties) {
        SCOPED_TRACE(testing::Message() << (f64 ? "double" : "float") << ", tie at " << rows[0] << "...");
        auto t = random_table(vocab, dim, 61);
        for (const uint32_t r : rows) std::copy(top.begin(), top.end(), t.begin() + size_t{r} * dim);
        rig.load(t, vocab, dim);
        const int32_t lowest = static_cast<int32_t>(*std::min_element(rows.begin(), rows.end()));
        std::vector<std::vector<int32_t>> windows = {{}, {lowest}, {}};
        std::vector<int32_t> picks;
        rig.set_step(x, wf, windows);
        expect_same_picks(rig, vocab, windows, &picks);
        EXPECT_EQ(picks[0], lowest);
        for (size_t i = 0; i + 1 < rows.size(); ++i)
          t[size_t{rows[i]} * dim + 17 * i] =
              top[17 * i] == trit::ref::f32_to_f16(1.f) ? uint16_t{0x3bff} : uint16_t{0xbbff};
        rig.load(t, vocab, dim);
        expect_same_picks(rig, vocab, windows);
      }
      SCOPED_TRACE("x = 0");
      rig.load(random_table(vocab, dim, 64), vocab, dim);
      const std::vector<std::vector<int32_t>> windows = {{}, {0, 1}, {}};
      std::vector<int32_t> picks;
      rig.set_step(std::vector<double>(size_t{n} * dim, 0.0), wf, windows);
      expect_same_picks(rig, vocab, windows, &picks);
      EXPECT_EQ(picks[0], 0);
      EXPECT_EQ(picks[1], 0) << "a penalised 0 is still 0";
    }
}

// A row whose int8 copy is coarse (one large element: its other elements quantize to zero, so its
// approximate logit is far below its logit) is the argmax, above rows the int8 copy holds well: only
// its bound brings it among the candidates.
TEST(LmHeadBatch, ARowTheInt8CopyHoldsBadlyStillWins) {
  const uint32_t dim = 512, vocab = 1019, n = 2;
  for (const bool portable : {false, true})
    for (const bool f64 : {false, true}) {
      Rig rig(f64, trit::vk::DotProduct::Auto, 0, portable);
      if (!rig.usable(dim)) continue;
      SCOPED_TRACE(portable ? "portable" : "tensor cores");
      SCOPED_TRACE(f64 ? "double" : "float");
      auto x = random_values(size_t{n} * dim, 72, 0.5, 2.0);
      auto w = random_values(dim, 73, 0.5, 2.0);
      x[0] = 0.5;
      w[0] = 0.2;
      // h as the norm makes it (to a factor: only its signs and proportions matter here).
      double sum_abs = 0;
      for (uint32_t d = 0; d < dim; ++d) sum_abs += x[d] * w[d];
      const double h0 = x[0] * w[0];
      auto t = random_table(vocab, dim, 71);
      // Good rows: every element 1 (logit sum h); the coarse row: 0.9 each and h_0's element large enough
      // to add half of sum h (logit 1.4 sum h), its int8 approximation about half of sum h.
      const uint32_t coarse = 600;
      for (const uint32_t r : {5u, 300u, 900u})
        std::fill(t.begin() + size_t{r} * dim, t.begin() + size_t{r + 1} * dim, trit::ref::f32_to_f16(1.f));
      std::fill(t.begin() + size_t{coarse} * dim, t.begin() + size_t{coarse + 1} * dim, trit::ref::f32_to_f16(0.9f));
      t[size_t{coarse} * dim] = trit::ref::f32_to_f16(static_cast<float>(0.5 * sum_abs / h0));
      rig.load(t, vocab, dim);
      const std::vector<float> wf(w.begin(), w.end());
      const std::vector<std::vector<int32_t>> windows(n);
      std::vector<int32_t> picks;
      rig.set_step(x, wf, windows);
      expect_same_picks(rig, vocab, windows, &picks);
      EXPECT_EQ(picks[0], static_cast<int32_t>(coarse));
    }
}

// Its ranges are checked: a hidden size that is not a multiple of 16 has no int8 head, and buffers
// smaller than the step's tokens are refused before anything is recorded.
TEST(LmHeadBatch, ChecksItsShapeAndBuffers) {
  trit::vk::Context ctx;
  Kernels k(ctx, true, false);
  if (k.batch_head_tokens(512, true) == 0) GTEST_SKIP() << "no int8 head for batched steps";
  EXPECT_EQ(k.batch_head_tokens(264, true), 0u) << "264 is not a multiple of 16";
  EXPECT_EQ(k.batch_head_tokens(264), 0u);
  trit::vk::DescriptorAllocator da(ctx);
  Buffer b(ctx, 1 << 20, MemoryUse::Device), small(ctx, 64, MemoryUse::Device);
  const BufferRange r = all(b), s = all(small);
  CommandSequence cs(ctx);
  cs.begin();
  const trit::vk::HeadBound hb{r, r};
  EXPECT_THROW(k.lm_head_batch(cs, da, r, r, r, hb, r, r, r, r, r, 100, 264, 0, 100, 4, true), trit::VulkanError);
  EXPECT_THROW(k.lm_head_batch(cs, da, r, r, r, hb, s, r, r, r, r, 100, 512, 0, 100, 4, true), trit::VulkanError);
  EXPECT_THROW(k.lm_head_batch(cs, da, r, r, r, hb, r, r, r, s, r, 100, 512, 0, 100, 32, true), trit::VulkanError);
  EXPECT_THROW(k.lm_head_batch(cs, da, r, r, r, trit::vk::HeadBound{s, r}, r, r, r, r, r, 100, 512, 0, 100, 4, true),
               trit::VulkanError);
  if (k.batch_head_tokens(512) > 0) {  // the tensor cores' variant takes tiles of 16 rows
    EXPECT_THROW(k.lm_head_batch(cs, da, r, r, r, hb, r, r, r, r, r, 15, 512, 0, 100, 4), trit::VulkanError);
  }
  cs.end();
}

}  // namespace
