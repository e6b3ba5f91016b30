// The GPU sampler (engine/src/vulkan/gpu_sampler.h) against trit::Sampler on the test device (lavapipe):
// for several vocabulary sizes (the 128,256 of Llama 3 down to 1), logit distributions (normal, many
// exact ties, one dominant logit, -inf entries), parameter sets and seeds, the GPU picks exactly the
// CPU's token given the same uniform (both samplers seeded alike; the GPU side draws its uniform with
// Sampler::draw_uniform). Greedy equals trit::argmax of the penalised logits. Each draw ends a decode
// step as on the device: the token lands in the ring slot of its position and in the next input, the
// position advances, and the penalty window slides, so steps replayed back to back without the host
// choose what the CPU sampler chooses with the growing history. Parameters the GPU does not take are
// reported by supports() and, if recorded anyway, by the status the shader writes.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "trit/sampler.h"
#include "vulkan/context.h"
#include "vulkan/gpu_sampler.h"

namespace {

using trit::SamplingParams;
using trit::vk::Buffer;
using trit::vk::BufferRange;
using trit::vk::CommandSequence;
using trit::vk::GpuSampler;
using trit::vk::GpuSamplerChain;
using trit::vk::GpuSamplerDraw;
using trit::vk::GpuSamplerState;
using trit::vk::MemoryUse;

constexpr uint32_t kMaxVocab = 128256;

constexpr uint32_t kRing = 8;  // ring slots of the chain (as VulkanForward's)

// What a step left: the state, the token in the ring slot of its position, the next input, the position.
struct StepOut {
  GpuSamplerState state;
  uint32_t ring = 0, next = 0, pos = 0;
};

// One context and sampler for the whole binary: pipelines are built once.
struct Rig {
  explicit Rig(bool f64)
      : ctx(),
        sampler(ctx, kMaxVocab, f64),
        da(ctx),
        logits(ctx, uint64_t{kMaxVocab} * 4, MemoryUse::Device),
        state(ctx, GpuSampler::kStateBytes, MemoryUse::Readback),
        step(ctx, 8, MemoryUse::Readback),
        draws(ctx, kRing * sizeof(GpuSamplerDraw), MemoryUse::Upload),
        next(ctx, 4, MemoryUse::Readback),
        ring(ctx, kRing * 4, MemoryUse::Readback),
        list(ctx, GpuSampler::list_bytes(kMaxVocab), MemoryUse::Readback) {}
  trit::vk::Context ctx;
  GpuSampler sampler;
  trit::vk::DescriptorAllocator da;
  Buffer logits, state, step, draws, next, ring, list;
  // Logits in device memory, as the LM head leaves them (host-visible memory would time PCIe reads).
  // One recorded sequence per vocabulary size (and reading the candidate list or not), replayed for
  // every draw.
  std::vector<std::pair<uint32_t, std::unique_ptr<CommandSequence>>> recorded;
  bool use_list = false;  // record with the candidate list

  GpuSamplerChain chain() {
    return {BufferRange{&step, 0, 0}, BufferRange{&draws, 0, 0}, BufferRange{&next, 0, 0}, BufferRange{&ring, 0, 0},
            kRing};
  }
  void record(CommandSequence& cs, uint32_t vocab) {
    const BufferRange l{&list, 0, 0};
    sampler.record(cs, da, BufferRange{&logits, 0, uint64_t{vocab} * 4}, vocab, BufferRange{&state, 0, 0}, chain(),
                   use_list ? &l : nullptr);
  }
  CommandSequence& sequence(uint32_t vocab) {
    const uint32_t key = vocab | (use_list ? 0x80000000u : 0u);
    for (auto& [v, cs] : recorded)
      if (v == key) return *cs;
    auto cs = std::make_unique<CommandSequence>(ctx);
    cs->begin();
    record(*cs, vocab);
    cs->end();
    recorded.emplace_back(key, std::move(cs));
    return *recorded.back().second;
  }

  // Starts a chain at position pos with this state (uploads flush where the memory is not coherent).
  void begin(const GpuSamplerState& in, uint32_t pos) {
    state.upload(&in, sizeof in);
    const uint32_t params[2] = {pos, 1};
    step.upload(params, sizeof params);
  }
  // The next step of the chain: these logits, this draw in the slot of the device's position.
  StepOut next_step(const std::vector<float>& row, const GpuSamplerDraw& draw) {
    const auto vocab = static_cast<uint32_t>(row.size());
    logits.upload(row.data(), row.size() * 4);
    uint32_t pos = 0;
    step.download(&pos, 4);
    draws.upload(&draw, sizeof draw, uint64_t{pos % kRing} * sizeof draw);
    const uint32_t poison = 0xdeadbeefu;  // so a step that writes nothing is seen
    ring.upload(&poison, 4, uint64_t{pos % kRing} * 4);
    next.upload(&poison, 4);
    sequence(vocab).run();
    StepOut out;
    state.download(&out.state, sizeof out.state);
    ring.download(&out.ring, 4, uint64_t{pos % kRing} * 4);
    next.download(&out.next, 4);
    step.download(&out.pos, 4);
    return out;
  }
  // One step on its own: these logits with this state at position pos.
  StepOut run(const std::vector<float>& row, const GpuSamplerState& in, const GpuSamplerDraw& draw, uint32_t pos) {
    begin(in, pos);
    return next_step(row, draw);
  }
};

std::unique_ptr<Rig>& rig_slot(bool f64) {
  static std::unique_ptr<Rig> r64, r32;
  return f64 ? r64 : r32;
}
Rig& rig(bool f64 = true) {
  auto& r = rig_slot(f64);
  if (!r) r = std::make_unique<Rig>(f64);
  return *r;
}
// The rigs go when the tests end, not among the statics at exit: these statics exist before the first
// rig loads the driver, so a driver that registers its own teardown at exit then (NVIDIA's does) is torn
// down before them, and their vkDestroy calls crashed the run after every test had passed.
struct RigTeardown : testing::Environment {
  void TearDown() override {
    rig_slot(true).reset();
    rig_slot(false).reset();
  }
};
testing::Environment* const kRigTeardown = testing::AddGlobalTestEnvironment(new RigTeardown);

enum class Dist { Normal, Ties, Dominant, NegInf, Flat };
const char* name(Dist d) {
  switch (d) {
    case Dist::Normal:
      return "normal";
    case Dist::Ties:
      return "ties";
    case Dist::Dominant:
      return "dominant";
    case Dist::NegInf:
      return "-inf";
    case Dist::Flat:
      return "flat";
  }
  return "?";
}

std::vector<float> make_logits(uint32_t vocab, Dist d, std::mt19937& rng) {
  std::normal_distribution<float> normal(0.f, 3.f);
  std::vector<float> l(vocab);
  for (auto& x : l) x = normal(rng);
  switch (d) {
    case Dist::Normal:
      break;
    case Dist::Ties:  // a handful of values, each shared by many ids (positive, negative and zero)
      for (auto& x : l) x = std::round(x / 2.f) * 0.5f;
      break;
    case Dist::Dominant:
      l[rng() % vocab] = 40.f;
      break;
    case Dist::NegInf:  // a third of the vocabulary masked out, never the whole of it
      for (uint32_t i = 0; i < vocab; ++i)
        if (rng() % 3 == 0) l[i] = -std::numeric_limits<float>::infinity();
      l[rng() % vocab] = 1.f;
      break;
    case Dist::Flat:
      std::fill(l.begin(), l.end(), 0.25f);
      break;
  }
  return l;
}

// A context of recent tokens, including repeats and ids outside the vocabulary (both samplers skip those).
std::vector<int32_t> make_history(uint32_t vocab, std::mt19937& rng) {
  std::vector<int32_t> h(rng() % 90);
  for (auto& t : h) {
    const uint32_t r = rng() % 20;
    t = r == 0 ? -1 : r == 1 ? static_cast<int32_t>(vocab) + 3 : static_cast<int32_t>(rng() % std::min(vocab, 300u));
  }
  return h;
}

std::vector<SamplingParams> param_sets() {
  std::vector<SamplingParams> v;
  auto add = [&](float t, int32_t k, float p, float minp, float rp, int32_t last) {
    SamplingParams s;
    s.temperature = t;
    s.top_k = k;
    s.top_p = p;
    s.min_p = minp;
    s.repeat_penalty = rp;
    s.repeat_last_n = last;
    v.push_back(s);
  };
  add(0.6f, 40, 0.95f, 0.05f, 1.1f, 64);    // the defaults (BitNet 2B4T chat)
  add(0.f, 40, 0.95f, 0.05f, 1.1f, 64);     // greedy with penalty
  add(0.f, 0, 1.f, 0.f, 1.f, 64);           // greedy, nothing else
  add(1.f, 1, 1.f, 0.f, 1.f, 0);            // top-1
  add(1.f, 5, 1.f, 0.f, 1.3f, 256);         // top-k alone, the longest penalty window
  add(1.5f, 200, 0.5f, 0.f, 0.8f, 32);      // penalty below 1 (favours repeats), tight nucleus
  add(0.3f, 1024, 0.99f, 0.1f, 1.05f, 64);  // the largest top-k
  add(2.f, 700, 1.f, 0.01f, 1.f, 64);       // hot, min-p only (and the prefilter where top-k >= vocab)
  add(0.9f, 64, 0.9f, 0.f, 1.2f, 16);
  return v;
}

std::string describe(const SamplingParams& p) {
  char b[160];
  std::snprintf(b, sizeof b, "T=%g top_k=%d top_p=%g min_p=%g penalty=%g last_n=%d seed=%llu", p.temperature, p.top_k,
                p.top_p, p.min_p, p.repeat_penalty, p.repeat_last_n, static_cast<unsigned long long>(p.seed));
  return b;
}

// Draws `draws` tokens per (vocab, distribution, parameter set) on both samplers; returns mismatches.
const std::vector<Dist> kAllDists = {Dist::Normal, Dist::Ties, Dist::Dominant, Dist::NegInf, Dist::Flat};

void compare(bool f64, const std::vector<uint32_t>& vocabs, int draws, uint32_t seed,
             const std::vector<Dist>& dists = kAllDists) {
  Rig& r = rig(f64);
  std::mt19937 rng(seed);
  int checked = 0;
  for (uint32_t vocab : vocabs)
    for (Dist d : dists) {
      for (SamplingParams p : param_sets()) {
        p.seed = rng();
        ASSERT_TRUE(GpuSampler::supports(p)) << describe(p);
        trit::Sampler cpu(p), gpu_rng(p);
        for (int i = 0; i < draws; ++i) {
          const auto logits = make_logits(vocab, d, rng);
          auto history = make_history(vocab, rng);
          // Any position at least as far as the history reaches (the window's slots depend on it).
          const auto pos = static_cast<uint32_t>(history.size() + rng() % 5000);
          GpuSamplerState s;
          GpuSampler::prepare(s, p, history, pos);
          const GpuSamplerDraw draw = GpuSampler::draw(gpu_rng);
          const StepOut out = r.run(logits, s, draw, pos);
          auto cpu_logits = logits;
          const int32_t want = cpu.sample(cpu_logits, history);
          ASSERT_EQ(out.state.status, 0u) << describe(p);
          ASSERT_EQ(out.state.token, want)
              << "vocab " << vocab << ", " << name(d) << " logits, draw " << i << ", " << describe(p)
              << ", uniform bits " << draw.hi << ":" << draw.lo << ", GPU kept " << out.state.kept;
          // The step's outputs, and the window as the host would set it for the next position.
          ASSERT_EQ(out.ring, static_cast<uint32_t>(want));
          ASSERT_EQ(out.next, static_cast<uint32_t>(want));
          ASSERT_EQ(out.pos, pos + 1);
          history.push_back(want);
          GpuSamplerState slid;
          GpuSampler::prepare(slid, p, history, pos + 1);
          ASSERT_EQ(out.state.penalty_count, slid.penalty_count);
          for (uint32_t j = 0; j < slid.penalty_count; ++j)
            ASSERT_EQ(out.state.penalty_ids[j], slid.penalty_ids[j]) << "window slot " << j << ", " << describe(p);
          ++checked;
        }
      }
    }
  std::printf("[ measured ] %d draws equal to trit::Sampler (%s)\n", checked, f64 ? "fp64" : "fp32");
}

TEST(GpuSampler, MatchesCpuSamplerOnLlama3Vocabulary) {
  compare(true, {128256}, 3, 1);
}
TEST(GpuSampler, MatchesCpuSamplerOnGpt2Vocabulary) {
  compare(true, {50257}, 3, 2);
}
TEST(GpuSampler, MatchesCpuSamplerOnSmallVocabularies) {
  compare(true, {1000, 7, 1}, 8, 3);
}

// The fp32 variant (devices without shaderFloat64) rounds its softmax and cumulative sums in float, not
// the CPU's double, so it is only close: where many candidates share one probability (flat or tied
// logits) a top-p cut or the draw can land within float rounding of a boundary and move by one
// candidate. On distinct logits it picks the CPU's token unless the uniform falls within float rounding
// of a boundary, which none of these fixed draws does.
TEST(GpuSampler, Fp32VariantMatchesCpuSamplerOnDistinctLogits) {
  compare(false, {50257, 1000, 7}, 2, 4, {Dist::Normal, Dist::Dominant, Dist::NegInf});
}

// The candidate list (what the bounded head of a sampled step hands over, shaders/lm_head.glsl TOPK):
// only the listed rows' logits are read, in the list's order (any), the flagged ones penalised. Every
// other logit holds a value that would win were it read (or NaN), so a read past the list shows. The
// list holds the CPU's top k after the penalty, every penalised id, and other rows, shuffled; the
// token is the CPU sampler's from all the logits, and the list is left as it was (the head resets it).
TEST(GpuSampler, ReadsOnlyTheListedRows) {
  for (const bool f64 : {true, false}) {
    Rig& r = rig(f64);
    std::mt19937 rng(11);
    int checked = 0;
    for (const uint32_t vocab : {128256u, 50257u, 1000u, 7u})
      for (SamplingParams p : param_sets()) {
        p.seed = rng();
        trit::Sampler cpu(p), gpu_rng(p);
        for (int i = 0; i < 2; ++i) {
          // (Ties: equal logits in the list, which the sampler orders by id.)
          const auto logits = make_logits(vocab, i == 0 ? Dist::Normal : Dist::Ties, rng);
          auto history = make_history(vocab, rng);
          history.push_back(static_cast<int32_t>(trit::argmax(logits)));  // the penalty meets the top
          const auto pos = static_cast<uint32_t>(history.size() + rng() % 100);
          // The CPU's penalised logits and their top k in the sampler's order.
          std::vector<int32_t> window;
          if (p.repeat_penalty != 1.f && p.repeat_last_n > 0) {
            const size_t n = std::min(history.size(), static_cast<size_t>(p.repeat_last_n));
            for (size_t j = history.size() - n; j < history.size(); ++j)
              if (history[j] >= 0 && history[j] < static_cast<int32_t>(vocab)) window.push_back(history[j]);
          }
          auto penalised = logits;
          std::sort(window.begin(), window.end());
          window.erase(std::unique(window.begin(), window.end()), window.end());
          for (const int32_t t : window) {
            float& l = penalised[static_cast<size_t>(t)];
            l = l > 0.f ? l / p.repeat_penalty : l * p.repeat_penalty;
          }
          std::vector<uint32_t> order(vocab);
          for (uint32_t j = 0; j < vocab; ++j) order[j] = j;
          std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            return penalised[a] > penalised[b] || (penalised[a] == penalised[b] && a < b);
          });
          const uint32_t k = p.temperature <= 0.f ? 1u : std::min<uint32_t>(static_cast<uint32_t>(p.top_k), vocab);
          std::vector<char> listed(vocab, 0);
          for (uint32_t j = 0; j < k; ++j) listed[order[j]] = 1;
          for (const int32_t t : window) listed[static_cast<size_t>(t)] = 1;
          for (uint32_t j = 0; j < vocab / 50; ++j) listed[rng() % vocab] = 1;
          std::vector<uint32_t> entries = {0};
          auto row = logits;
          for (uint32_t j = 0; j < vocab; ++j) {
            if (listed[j]) {
              const bool pen = std::binary_search(window.begin(), window.end(), static_cast<int32_t>(j));
              entries.push_back(j | (pen ? GpuSampler::kListPenalised : 0u));
            } else {
              row[j] = j % 2 ? 1e30f : std::nanf("");
            }
          }
          std::shuffle(entries.begin() + 1, entries.end(), rng);
          entries[0] = static_cast<uint32_t>(entries.size() - 1);
          r.list.upload(entries.data(), entries.size() * 4);
          GpuSamplerState s;
          GpuSampler::prepare(s, p, history, pos);
          const GpuSamplerDraw draw = GpuSampler::draw(gpu_rng);
          r.use_list = true;
          const StepOut out = r.run(row, s, draw, pos);
          r.use_list = false;
          auto cpu_logits = logits;
          const int32_t want = cpu.sample(cpu_logits, history);
          ASSERT_EQ(out.state.status, 0u) << describe(p);
          if (f64) {
            ASSERT_EQ(out.state.token, want)
                << "vocab " << vocab << ", draw " << i << ", " << describe(p) << ", listed " << entries[0];
          } else {  // (fp32 softmax: only close to the CPU's double one; see the test above)
            ASSERT_GE(out.state.token, 0);
            ASSERT_TRUE(listed[static_cast<size_t>(out.state.token)]) << describe(p);
          }
          ASSERT_EQ(out.ring, static_cast<uint32_t>(out.state.token));
          ASSERT_EQ(out.pos, pos + 1);
          uint32_t count = 0;
          r.list.download(&count, 4);
          ASSERT_EQ(count, entries[0]) << "the sampler changed the list";
          ++checked;
        }
      }
    std::printf("[ measured ] %d draws from candidate lists (%s)\n", checked, f64 ? "fp64" : "fp32");
  }
}

TEST(GpuSampler, GreedyIsArgmaxOfPenalisedLogits) {
  Rig& r = rig();
  std::mt19937 rng(5);
  for (uint32_t vocab : {128256u, 50257u, 1000u, 7u, 1u})
    for (Dist d : {Dist::Normal, Dist::Ties, Dist::Dominant, Dist::NegInf, Dist::Flat}) {
      SamplingParams p;
      p.temperature = 0.f;
      p.repeat_penalty = 1.5f;
      p.repeat_last_n = 64;
      trit::Sampler s(p);
      auto logits = make_logits(vocab, d, rng);
      // Put a repeated token on top so the penalty decides.
      std::vector<int32_t> history = make_history(vocab, rng);
      const auto top = static_cast<int32_t>(trit::argmax(logits));
      history.push_back(top);
      history.push_back(top);
      GpuSamplerState st;
      const auto pos = static_cast<uint32_t>(history.size() - 1);
      GpuSampler::prepare(st, p, history, pos);
      const GpuSamplerDraw draw = GpuSampler::draw(s);
      EXPECT_EQ(draw.lo | draw.hi, 0u);  // greedy draws no uniform, as on the CPU
      const auto out = r.run(logits, st, draw, pos).state;
      auto penalised = logits;
      std::vector<int32_t> seen(
          history.end() - std::min<std::ptrdiff_t>(64, static_cast<std::ptrdiff_t>(history.size())), history.end());
      std::sort(seen.begin(), seen.end());
      seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
      for (int32_t t : seen)
        if (t >= 0 && t < static_cast<int32_t>(vocab)) {
          float& l = penalised[static_cast<size_t>(t)];
          l = l > 0.f ? l / 1.5f : l * 1.5f;
        }
      EXPECT_EQ(out.token, trit::argmax(penalised)) << "vocab " << vocab << ", " << name(d);
      EXPECT_EQ(out.status, 0u);
    }
}

TEST(GpuSampler, ConsumesTheRandomStreamLikeTheCpuSampler) {
  SamplingParams p;
  p.seed = 99;
  trit::Sampler a(p), b(p);
  std::vector<float> logits = {0.f, 1.f, 2.f};
  for (int i = 0; i < 5; ++i) {
    auto l = logits;
    a.sample(l, {});
    GpuSampler::draw(b);
  }
  // After five draws each, both streams are at the same place.
  EXPECT_EQ(a.draw_uniform(), b.draw_uniform());
}

TEST(GpuSampler, SupportsOnlyWhatItSamplesExactly) {
  SamplingParams p;
  EXPECT_TRUE(GpuSampler::supports(p));  // the defaults: top_k 40
  p.top_k = 0;
  EXPECT_FALSE(GpuSampler::supports(p));  // no top-k: the candidates are unbounded
  p.min_p = 0.f;
  EXPECT_FALSE(GpuSampler::supports(p));
  p.temperature = 0.f;
  EXPECT_TRUE(GpuSampler::supports(p));  // greedy needs no top-k
  p.temperature = 0.8f;
  p.top_k = static_cast<int32_t>(GpuSampler::kMaxTopK);
  EXPECT_TRUE(GpuSampler::supports(p));
  p.top_k = static_cast<int32_t>(GpuSampler::kMaxTopK) + 1;
  EXPECT_FALSE(GpuSampler::supports(p));
  p.top_k = 40;
  p.repeat_last_n = static_cast<int32_t>(GpuSamplerState::kMaxPenalised) + 1;
  EXPECT_FALSE(GpuSampler::supports(p));  // more penalised ids than the state holds
  p.repeat_penalty = 1.f;
  EXPECT_TRUE(GpuSampler::supports(p));  // ... unless the penalty is off
  p.temperature = -1.f;
  EXPECT_FALSE(GpuSampler::supports(p));  // invalid parameters
  p.temperature = 0.8f;
  p.top_k = 0;
  GpuSamplerState st;
  EXPECT_THROW(GpuSampler::prepare(st, p, {}, 0), std::invalid_argument);
}

TEST(GpuSampler, ShaderReportsUnsupportedParameters) {
  Rig& r = rig();
  std::mt19937 rng(6);
  const auto logits = make_logits(50257, Dist::Normal, rng);
  GpuSamplerState st;
  st.temperature = 1.f;
  st.top_k = 0;  // the whole vocabulary: more than kMaxTopK candidates
  st.inv_temperature = 1.0;
  GpuSamplerDraw draw;
  draw.hi = 0x3fe00000u;  // 0.5
  draw.f = 0.5f;
  const auto out = r.run(logits, st, draw, 3);
  EXPECT_EQ(out.state.status, 1u);
  EXPECT_EQ(out.state.token, -1);
  // The host sees an id outside any vocabulary in the ring; the next step gets a valid input.
  EXPECT_EQ(out.ring, 0xffffffffu);
  EXPECT_EQ(out.next, 0u);
  EXPECT_EQ(out.pos, 4u);
}

TEST(GpuSampler, RecordRejectsBadRanges) {
  Rig& r = rig();
  CommandSequence cs(r.ctx);
  cs.begin();
  const BufferRange logits{&r.logits, 0, 400};
  const BufferRange state{&r.state, 0, 0};
  const GpuSamplerChain chain = r.chain();
  EXPECT_THROW(r.sampler.record(cs, r.da, logits, 101, state, chain), trit::VulkanError);  // 100 floats, 101 needed
  EXPECT_THROW(r.sampler.record(cs, r.da, logits, kMaxVocab + 1, state, chain), trit::VulkanError);
  EXPECT_THROW(r.sampler.record(cs, r.da, logits, 0, state, chain), trit::VulkanError);
  EXPECT_THROW(r.sampler.record(cs, r.da, logits, 100, BufferRange{&r.state, 0, 64}, chain), trit::VulkanError);
  GpuSamplerChain bad = chain;
  bad.ring_size = 0;
  EXPECT_THROW(r.sampler.record(cs, r.da, logits, 100, state, bad), trit::VulkanError);
  bad = chain;
  bad.ring_size = kRing + 1;  // more slots than the draws and ring buffers hold
  EXPECT_THROW(r.sampler.record(cs, r.da, logits, 100, state, bad), trit::VulkanError);
  bad = chain;
  bad.step = BufferRange{&r.step, 4, 0};
  EXPECT_THROW(r.sampler.record(cs, r.da, logits, 100, state, bad), trit::VulkanError);
  cs.end();
}

// Steps replayed one after another without the host touching the state (it only writes each step's
// logits and draw, as the LM head and decode_sample do; several steps in one submit are covered end to
// end by session_device_test): the device keeps the position, the ring and the penalty window, and every token equals
// the CPU sampler's with the history growing by the tokens chosen. A short window on a small vocabulary with a strong
// penalty, so the window decides many draws and wraps often.
TEST(GpuSampler, ChainedStepsSlideThePenaltyWindow) {
  Rig& r = rig();
  std::mt19937 rng(8);
  for (const auto& [t, last_n, penalty] :
       {std::tuple{0.8f, 3, 4.f}, std::tuple{0.f, 5, 3.f}, std::tuple{1.2f, 64, 2.f}}) {
    SamplingParams p;
    p.seed = rng();
    p.temperature = t;
    p.top_k = 8;
    p.top_p = 0.9f;
    p.min_p = 0.f;
    p.repeat_penalty = penalty;
    p.repeat_last_n = last_n;
    trit::Sampler cpu(p), gpu_rng(p);
    std::vector<int32_t> history = {4, 9, 4, 1};
    GpuSamplerState st;
    const auto pos0 = static_cast<uint32_t>(history.size() - 1 + 37);  // positions need not start at 0
    GpuSampler::prepare(st, p, history, pos0);
    r.begin(st, pos0);
    int penalised_top = 0;
    for (uint32_t i = 0; i < 40; ++i) {
      // A few strong logits among 12 ids: the recent ones are the likely choices until penalised.
      std::vector<float> logits(12);
      for (auto& l : logits) l = std::normal_distribution<float>(0.f, 0.5f)(rng);
      for (int id : {1, 4, 9}) logits[static_cast<size_t>(id)] += 3.f;
      // Whether the penalty hits the top logit this step (its id is in the window).
      const auto window_start = history.end() - std::min<std::ptrdiff_t>(last_n, std::ssize(history));
      penalised_top += std::find(window_start, history.end(), trit::argmax(logits)) != history.end();
      auto cpu_logits = logits;
      const int32_t want = cpu.sample(cpu_logits, history);
      const StepOut out = r.next_step(logits, GpuSampler::draw(gpu_rng));
      ASSERT_EQ(out.state.token, want) << "step " << i << ", T=" << t << ", last_n " << last_n;
      ASSERT_EQ(out.ring, static_cast<uint32_t>(want));
      ASSERT_EQ(out.pos, pos0 + i + 1);
      history.push_back(want);
    }
    EXPECT_GT(penalised_top, 5) << "the window must penalise the top logit often for this test to mean anything";
  }
}

// GPU time of one draw (timestamps around the two dispatches) over the Llama 3 vocabulary, and over one
// slice (2048) and one logit to show the passes' fixed costs, with the default parameters and greedy;
// printed, not asserted (lavapipe's figure says nothing about a GPU).
TEST(GpuSampler, TimeOfOneDraw) {
  Rig& r = rig();
  if (!r.ctx.info().timestamps) GTEST_SKIP() << "the device has no timestamp queries";
  std::mt19937 rng(7);
  const auto logits = make_logits(kMaxVocab, Dist::Normal, rng);
  r.logits.upload(logits.data(), logits.size() * 4);
  for (uint32_t vocab : {kMaxVocab, GpuSampler::kSlice, 1u})
    for (float temperature : {0.6f, 0.f}) {
      SamplingParams p;
      p.temperature = temperature;
      trit::Sampler s(p);
      trit::vk::TimestampPool ts(r.ctx, 2);
      CommandSequence cs(r.ctx);
      cs.begin();
      ts.reset(cs.handle());
      cs.timestamp(ts.handle(), 0);
      r.record(cs, vocab);
      cs.timestamp(ts.handle(), 1);
      cs.end();
      const int runs = 20;
      std::vector<double> us;
      for (int i = 0; i < runs; ++i) {
        GpuSamplerState st;
        GpuSampler::prepare(st, p, std::vector<int32_t>{1, 2, 3}, 2);
        r.begin(st, 2);
        const GpuSamplerDraw draw = GpuSampler::draw(s);
        r.draws.upload(&draw, sizeof draw, 2 * sizeof draw);
        cs.run();
        us.push_back(ts.elapsed_ns(0, 1) / 1000.0);
        GpuSamplerState out;
        r.state.download(&out, sizeof out);
        ASSERT_EQ(out.status, 0u);
        ASSERT_GE(out.token, 0);
      }
      std::sort(us.begin(), us.end());
      std::printf("[ measured ] GPU sampler, vocab %u, %s: median %.1f us, min %.1f us (%s)\n", vocab,
                  temperature > 0 ? "T=0.6 top_k=40 top_p=0.95 min_p=0.05 penalty=1.1" : "greedy", us[runs / 2], us[0],
                  r.ctx.info().name.c_str());
    }
}

}  // namespace
