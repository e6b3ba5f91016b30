// The persistent decode kernel, one dispatch per layer group (vulkan/persistent_decode.h): every golden
// position decoded alone against the golden logits and against the fused kernels, synthetic shapes and
// extreme attention scores against the fused kernels, device-side greedy decoding against the fused
// path, and the recovery onto the fused kernels when a grid barrier gives up.
//
// The grid: one workgroup per multiprocessor where the device reports them (the H100: the path users
// get, 132 workgroups), else one workgroup (lavapipe: it computes wrong results with a forced grid of two
// or more, which the engine never uses there). On the H100 all of these pass at 132 workgroups, and
// those run with forced grids too (golden-a, long context, extreme scores, greedy at 2 and 3; the
// shapes at 2, 6 and 8). One workgroup still runs every step, every row distribution and split and
// every grid barrier of the kernel. golden-b is left out: at one workgroup its layers need more
// registers per invocation than the plan allows (the H100 runs it through vulkan_forward_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "golden_support.h"
#include "kernel_statistics_support.h"
#include "scaled_model_support.h"
#include "test_support.h"
#include "trit/devices.h"
#include "trit/gguf.h"
#include "trit/model.h"
#include "trit/model_generator.h"
#include "trit/reference_ops.h"
#include "trit/sampler.h"
#include "trit/vulkan_forward.h"
#include "vulkan/persistent_decode.h"

namespace {

using namespace trit;

struct Param {
  std::string name;
  KvPrecision kv;
  bool f64 = true;
  bool dot = false;      // force the packed int8 dot product variant (the one NVIDIA runs) where not accelerated
  size_t positions = 0;  // the first positions of the golden sequence decoded (0: all)
};

std::string param_name(const testing::TestParamInfo<Param>& info) {
  std::string n = info.param.name + (info.param.kv == KvPrecision::F16 ? "_f16kv" : "_f32kv") +
                  (info.param.f64 ? "" : "_fp32") + (info.param.dot ? "_dot" : "");
  for (auto& c : n)
    if (c == '-') c = '_';
  return n;
}

// Options for the persistent kernel with the grid this device runs (see the file comment), and for
// the fused kernels.
VulkanForwardOptions persistent_options(KvPrecision kv = KvPrecision::F16, bool f64 = true, bool dot = false) {
  VulkanForwardOptions o;
  o.kv = kv;
  o.precision = f64 ? Precision::F64 : Precision::Fp32;
  o.force_dot_product = dot;
  o.persistent_groups = 0;
  return o;
}

// A CPU device (lavapipe) never runs the kernel at its own grid (persistent_groups 0; VulkanForward
// keeps the fused kernels there), so on one the engine is opened at one workgroup straight away rather
// than after an engine built only to find that out (about a second of lavapipe's time each).
bool cpu_device() {
  static const bool cpu = choose_device(list_vulkan_devices(), {}).type == "cpu";
  return cpu;
}

std::unique_ptr<VulkanForward> open_persistent(const Model& model, VulkanForwardOptions o) {
  if (o.persistent_groups == 0 && cpu_device()) o.persistent_groups = 1;
  auto f = std::make_unique<VulkanForward>(model, o);
  if (f->persistent_groups() == 0 && o.persistent_groups == 0) {
    o.persistent_groups = 1;  // the device does not report its multiprocessors
    f = std::make_unique<VulkanForward>(model, o);
  }
  return f;
}

VulkanForwardOptions fused_options(KvPrecision kv = KvPrecision::F16, bool f64 = true) {
  VulkanForwardOptions o;
  o.kv = kv;
  o.precision = f64 ? Precision::F64 : Precision::Fp32;
  o.persistent_groups = -1;
  return o;
}

// `o` with a cache of a golden sequence's length (golden_support.h: what the model's trained length
// would cost lavapipe).
VulkanForwardOptions for_golden(VulkanForwardOptions o, const test::GoldenCase& g) {
  o.context = test::context_for(g.sequence.size());
  return o;
}

// Every position of the golden sequence decoded alone (one-token submits).
std::vector<float> decode_alone(VulkanForward& fwd, const test::GoldenCase& g, size_t positions = 0) {
  const size_t n = positions ? std::min(positions, g.sequence.size()) : g.sequence.size();
  std::vector<float> logits(n * g.vocab);
  for (size_t t = 0; t < n; ++t)
    fwd.eval(std::span<const int32_t>(&g.sequence[t], 1), static_cast<int32_t>(t),
             std::span<float>(logits).subspan(t * g.vocab, g.vocab), false);
  return logits;
}

float max_abs_diff(std::span<const float> a, std::span<const float> b) {
  float worst = 0.f;
  for (size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::fabs(a[i] - b[i]));
  return worst;
}

class PersistentDecode : public testing::TestWithParam<Param> {};

TEST_P(PersistentDecode, TokenByTokenMatchesGoldenAndTheFusedKernels) {
  const Param& p = GetParam();
  if (p.dot && !choose_device(list_vulkan_devices(), {}).integer_dot_product)
    GTEST_SKIP() << "no integer dot product on this device";
  const auto g = test::load_golden(p.name);
  auto model = Model::open(g.gguf);
  auto fwd = open_persistent(*model, for_golden(persistent_options(p.kv, p.f64, p.dot), g));
  ASSERT_GT(fwd->persistent_groups(), 0u) << "the persistent kernel must be the one tested";
  VulkanForward fused(*model, for_golden(fused_options(p.kv, p.f64), g));
  ASSERT_EQ(fused.persistent_groups(), 0u);
  ASSERT_TRUE(fused.fused_decode());

  const auto got = decode_alone(*fwd, g, p.positions);
  const auto want = decode_alone(fused, g, p.positions);
  const auto c =
      test::compare_logits(got, std::span<const float>(g.logits(p.kv)).first(got.size()), g.vocab, g.margin_floor);
  const float vs_fused = max_abs_diff(got, want);
  std::printf("[ measured ] persistent decode %s (%u workgroups): %s; vs fused kernels max |diff| %.3g\n",
              param_name({p, 0}).c_str(), fwd->persistent_groups(), c.summary().c_str(), vs_fused);
  // Only the order of double operations differs from the fused kernels (the attention split, one
  // reduction for norm and absmax, Newton steps for 1/sqrt): far below any int8 or F16 rounding step.
  // In float a rounding step may flip, which moves logits by more: there the fp32 contract.
  if (p.f64) {
    EXPECT_LE(c.max_abs_diff, g.max_abs_diff) << c.summary();
    EXPECT_TRUE(c.top1_mismatches.empty()) << c.summary();
    EXPECT_LE(vs_fused, 1e-4f);
  } else {
    EXPECT_TRUE(c.meets_fp32_contract()) << c.summary();
  }
}

INSTANTIATE_TEST_SUITE_P(Golden, PersistentDecode,
                         testing::Values(Param{"golden-a", KvPrecision::F16},
                                         // The variants of the kernel's reads (an F32 cache, in fp32:
                                         // the double build's full-precision one keeps the fused
                                         // kernels; the packed dot product) over the first 32 positions:
                                         // every step of theirs runs there, in half of lavapipe's time.
                                         Param{"golden-a", KvPrecision::F32, false, false, 32},
                                         Param{"golden-a", KvPrecision::F16, false},
                                         Param{"golden-a", KvPrecision::F16, true, true, 32},
                                         // The llama graph: SiLU gate, normal RoPE, no sub-norms, heads of
                                         // 256, an untied head after the layers. In double only, its first
                                         // 32 positions (one chunk of keys, as all 64 are at one workgroup:
                                         // the rest took another half minute on lavapipe); on the H100,
                                         // vulkan_forward_test's fp32 greedy runs golden-c on this kernel too.
                                         Param{"golden-c", KvPrecision::F16, true, false, 32},
                                         // Block scales: TQ2_0 in the llama graph, the first 32 positions
                                         // likewise. (TQ1_0 reaches the kernel as the same codes and block
                                         // scales; golden-e's TQ1_0 in the 2B4T graph passed here too, but
                                         // each variant of this kernel takes lavapipe ~50 s to compile.)
                                         Param{"golden-d", KvPrecision::F16, true, false, 32}),
                         param_name);

// The double build's full-precision cache (four words a key or value pair) decodes on the fused kernels,
// and says so: the persistent kernel holds a chunk's pairs in two words (decode_layer.glsl).
TEST(PersistentDecodePlan, TheDoubleBuildsFullPrecisionCacheKeepsTheFusedKernels) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  for (const KvPrecision kv : {KvPrecision::F32, KvPrecision::F16}) {
    VulkanForwardOptions o = for_golden(persistent_options(kv, true), g);
    if (cpu_device()) o.persistent_groups = 1;
    VulkanForward f(*model, o);
    if (kv == KvPrecision::F32) {
      EXPECT_EQ(f.persistent_groups(), 0u);
      EXPECT_NE(f.decode_kernels().find("full-precision KV cache"), std::string::npos) << f.decode_kernels();
    } else {
      EXPECT_GT(f.persistent_groups(), 0u) << f.decode_kernels();
    }
  }
}

// Layers in groups smaller than the model (devices whose storage bindings cannot hold every layer's
// weights, or caches, at once): one dispatch per group, each group with its own barrier count. Bindings
// of 1.5 MiB hold two of golden-a's three layers (~0.7 MB each): groups of two and one. The caches
// for a context of 64 are small.
TEST(PersistentDecodeGroups, LayerGroupsMatchTheFusedKernels) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  VulkanForwardOptions po = persistent_options(), fo = fused_options();
  po.max_binding_range = fo.max_binding_range = 1536 * 1024;
  po.context = fo.context = 64;  // the RoPE table fits the binding
  auto fwd = open_persistent(*model, po);
  ASSERT_GT(fwd->persistent_groups(), 0u);
  EXPECT_EQ(fwd->layer_groups(), 2u);
  VulkanForward fused(*model, fo);
  const auto got = decode_alone(*fwd, g);
  const auto want = decode_alone(fused, g);
  const auto c = test::compare_logits(got, g.logits(KvPrecision::F16), g.vocab, g.margin_floor);
  EXPECT_LE(c.max_abs_diff, g.max_abs_diff) << c.summary();
  EXPECT_LE(max_abs_diff(got, want), 1e-4f);
  EXPECT_GT(fwd->persistent_groups(), 0u) << "no grid barrier gave up";
}

// fp32 activations with an F16 cache (what runs). Against the fused kernels in fp32 too, over the first positions only:
// with fp32 activations an int8 rounding step flips within a few tokens in any pair of kernels that order their float
// sums differently (engine/src/vulkan/README.md, Numerics; on lavapipe at position 9, moving logits by 0.05), while
// before it they agree to float rounding (~4e-6).
TEST(PersistentDecodeFloat, MatchesTheFusedKernelsInFloat) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  auto fwd = open_persistent(*model, for_golden(persistent_options(KvPrecision::F16, false), g));
  ASSERT_GT(fwd->persistent_groups(), 0u);
  VulkanForward fused(*model, for_golden(fused_options(KvPrecision::F16, false), g));
  const size_t vocab = g.vocab;
  std::vector<float> lp(vocab), lf(vocab);
  float worst = 0.f;
  const int32_t n = 6;
  for (int32_t t = 0; t < n; ++t) {
    fwd->eval(std::span<const int32_t>(&g.sequence[static_cast<size_t>(t)], 1), t, lp, false);
    fused.eval(std::span<const int32_t>(&g.sequence[static_cast<size_t>(t)], 1), t, lf, false);
    worst = std::max(worst, max_abs_diff(lp, lf));
  }
  std::printf("[ measured ] fp32: %d positions, max |logit diff| to the fused kernels %.3g\n", n, worst);
  EXPECT_LE(worst, 1e-4f);
}

// The persistent engine (at the grid this device runs) and the fused one on the same model, both after
// the golden prompt, with the prompt's last logits. `fused`, if given, is a fused engine used before: the
// prompt, evaluated from position 0, replaces whatever its cache held.
struct PrimedPair {
  std::unique_ptr<VulkanForward> pers, fused;
  std::vector<float> lp, lf;
  int32_t first = 0, pos = 0;  // the greedy next token, its position
};

PrimedPair prime(const Model& model, const test::GoldenCase& g, std::unique_ptr<VulkanForward> fused = nullptr) {
  PrimedPair p;
  p.pers = open_persistent(model, for_golden(persistent_options(), g));
  p.fused = fused ? std::move(fused) : std::make_unique<VulkanForward>(model, for_golden(fused_options(), g));
  p.lp.resize(g.vocab);
  p.lf.resize(g.vocab);
  p.pers->eval(g.prompt, 0, p.lp, false);
  p.fused->eval(g.prompt, 0, p.lf, false);
  p.first = static_cast<int32_t>(ref::argmax(p.lp));
  p.pos = static_cast<int32_t>(g.prompt.size());
  return p;
}

// Device-side greedy decoding through the persistent kernel picks what the fused path picks.
TEST(PersistentDecodeGreedy, DeviceGreedyEqualsTheFusedPath) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  PrimedPair p = prime(*model, g);
  ASSERT_GT(p.pers->persistent_groups(), 0u);
  ASSERT_EQ(p.first, static_cast<int32_t>(ref::argmax(p.lf)));
  std::vector<int32_t> a, b;
  p.pers->decode_greedy(p.first, p.pos, 12, [&](int32_t t) { return a.push_back(t), true; });
  p.fused->decode_greedy(p.first, p.pos, 12, [&](int32_t t) { return b.push_back(t), true; });
  EXPECT_EQ(a, b);
  EXPECT_EQ(p.pers->cached_positions(), p.pos + 12);
  EXPECT_GT(p.pers->persistent_groups(), 0u) << "nothing failed, so the persistent kernel stays in use";
}

// A grid barrier that gave up (a workgroup that never became resident) leaves garbage: the engine must
// notice after the submit, recompute that token on the fused kernels and keep using them. Nothing is
// lost: logits, greedy tokens and sampled tokens equal the fused path's.
TEST(PersistentDecodeFallback, EvalRecomputesTheTokenOnTheFusedKernels) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  auto pers = open_persistent(*model, for_golden(persistent_options(), g));
  ASSERT_GT(pers->persistent_groups(), 0u);
  VulkanForward fused(*model, for_golden(fused_options(), g));
  std::vector<float> lp(g.vocab), lf(g.vocab);
  const size_t n = 20;
  pers->eval(std::span<const int32_t>(g.sequence.data(), n), 0, lp, false);
  fused.eval(std::span<const int32_t>(g.sequence.data(), n), 0, lf, false);
  pers->debug_fail_persistent_decode();
  pers->eval(std::span<const int32_t>(&g.sequence[n], 1), static_cast<int32_t>(n), lp, false);
  fused.eval(std::span<const int32_t>(&g.sequence[n], 1), static_cast<int32_t>(n), lf, false);
  EXPECT_EQ(pers->persistent_groups(), 0u) << "the engine must stop using a kernel that gave up";
  EXPECT_LE(max_abs_diff(lp, lf), 0.f);
  for (size_t t = n + 1; t < n + 6; ++t) {
    pers->eval(std::span<const int32_t>(&g.sequence[t], 1), static_cast<int32_t>(t), lp, false);
    fused.eval(std::span<const int32_t>(&g.sequence[t], 1), static_cast<int32_t>(t), lf, false);
    EXPECT_LE(max_abs_diff(lp, lf), 0.f) << "position " << t;
  }
}

TEST(PersistentDecodeFallback, DeviceGreedyRedoesTheQueuedSteps) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  PrimedPair p = prime(*model, g);
  ASSERT_GT(p.pers->persistent_groups(), 0u);
  std::vector<int32_t> a, b;
  // Fail after a few steps, with two steps queued: both are redone from the right input.
  int32_t seen = 0;
  p.pers->decode_greedy(p.first, p.pos, 10, [&](int32_t t) {
    a.push_back(t);
    if (++seen == 3) p.pers->debug_fail_persistent_decode();
    return true;
  });
  p.fused->decode_greedy(p.first, p.pos, 10, [&](int32_t t) { return b.push_back(t), true; });
  EXPECT_EQ(p.pers->persistent_groups(), 0u);
  EXPECT_EQ(a, b);
  EXPECT_EQ(p.pers->cached_positions(), p.pos + 10);
}

TEST(PersistentDecodeFallback, DeviceSamplingRedoesTheQueuedStepsWithTheirDraws) {
  const auto g = test::load_golden("golden-a");
  auto model = Model::open(g.gguf);
  // Sampled with a penalty, and greedy with a penalty strong enough that the window decides the token;
  // short windows, so the steps queued past the failure have overwritten every slot of it. Each run needs
  // a persistent engine that has not given up yet; the fused one serves both.
  std::unique_ptr<VulkanForward> fused;
  for (const auto& [temperature, penalty] : {std::pair{1.5f, 1.3f}, std::pair{0.f, 8.f}}) {
    PrimedPair p = prime(*model, g, std::move(fused));
    ASSERT_GT(p.pers->persistent_groups(), 0u);
    SamplingParams sp;
    sp.seed = 7;
    sp.temperature = temperature;
    sp.repeat_penalty = penalty;
    sp.repeat_last_n = 3;
    Sampler sa(sp), sb(sp);
    ASSERT_TRUE(p.pers->samples_on_device(sp));
    std::vector<int32_t> a, b;
    // Fail after a few steps, with steps queued: they are redone from the right input, with the same
    // draws and the window as it stood at the step redone.
    int32_t seen = 0;
    p.pers->decode_sample(p.first, p.pos, 14, sa, g.prompt, [&](int32_t t) {
      a.push_back(t);
      if (++seen == 3) p.pers->debug_fail_persistent_decode();
      return true;
    });
    p.fused->decode_sample(p.first, p.pos, 14, sb, g.prompt, [&](int32_t t) { return b.push_back(t), true; });
    EXPECT_EQ(p.pers->persistent_groups(), 0u);
    EXPECT_EQ(a, b) << "T=" << temperature << ", penalty " << penalty;
    EXPECT_EQ(p.pers->cached_positions(), p.pos + 14);
    fused = std::move(p.fused);
  }
}

// Long contexts: a synthetic model with one KV head, so on the H100 a head's keys spread over many
// splits (at 660 keys its merge sums dozens of partials); on one workgroup a single split walks 11
// chunks of keys. Each decoded position after a long prompt must equal the fused kernels' (whose
// attention splits its keys differently).
TEST(PersistentDecodeLongContext, MatchesTheFusedKernelsPastManySplits) {
  GeneratorOptions go;
  go.out = test::scratch_dir("persistent_long") / "long.gguf";
  go.shape = parse_generator_shape("512,4,1,512,1");
  go.vocab = "bytes:300";
  go.seed = 11;
  go.context = 700;
  generate_model(go);
  auto model = Model::open(go.out);
  auto pers = open_persistent(*model, persistent_options());
  ASSERT_GT(pers->persistent_groups(), 0u);
  VulkanForward fused(*model, fused_options());
  const int32_t vocab = static_cast<int32_t>(model->config().vocab);
  std::vector<int32_t> tokens(660);
  uint32_t state = 12345;
  for (auto& t : tokens) {
    state = state * 1664525u + 1013904223u;
    t = static_cast<int32_t>((state >> 8) % static_cast<uint32_t>(vocab));
  }
  const size_t prompt = 650;
  std::vector<float> lp(static_cast<size_t>(vocab)), lf(lp.size());
  pers->eval(std::span<const int32_t>(tokens.data(), prompt), 0, lp, false);
  fused.eval(std::span<const int32_t>(tokens.data(), prompt), 0, lf, false);
  for (size_t t = prompt; t < tokens.size(); ++t) {
    pers->eval(std::span<const int32_t>(&tokens[t], 1), static_cast<int32_t>(t), lp, false);
    fused.eval(std::span<const int32_t>(&tokens[t], 1), static_cast<int32_t>(t), lf, false);
    EXPECT_LE(max_abs_diff(lp, lf), 1e-4f) << "position " << t;
  }
  EXPECT_GT(pers->persistent_groups(), 0u);
}

// A normal decode never takes the fallback: device greedy chains and single steps, past the first
// 128 positions (where a second attention path for short contexts used to hand over), keep the
// persistent kernel (a wait that gave up would have switched to the fused kernels for good), and in
// double the tokens and logits are the fused kernels'.
TEST(PersistentDecodeNoFallback, DecodePastTheFirstPositionsKeepsTheKernel) {
  GeneratorOptions go;
  go.out = test::scratch_dir("persistent_no_fallback") / "m.gguf";
  go.shape = parse_generator_shape("512,4,2,512,1");
  go.vocab = "bytes:300";
  go.seed = 13;
  go.context = 160;
  generate_model(go);
  auto model = Model::open(go.out);
  for (const Precision precision : {Precision::Fp32, Precision::F64}) {
    auto po = persistent_options(KvPrecision::F16, precision == Precision::F64);
    auto fo = fused_options(KvPrecision::F16, precision == Precision::F64);
    auto pers = open_persistent(*model, po);
    ASSERT_GT(pers->persistent_groups(), 0u);
    VulkanForward fused(*model, fo);
    const int32_t vocab = static_cast<int32_t>(model->config().vocab);
    std::vector<int32_t> prompt(123);
    for (size_t i = 0; i < prompt.size(); ++i)
      prompt[i] = static_cast<int32_t>((i * 37 + 11) % static_cast<size_t>(vocab));
    std::vector<float> lp(static_cast<size_t>(vocab)), lf(lp.size());
    pers->eval(prompt, 0, lp, false);
    fused.eval(prompt, 0, lf, false);
    const auto first = static_cast<int32_t>(ref::argmax(lp));
    std::vector<int32_t> a, b;
    pers->decode_greedy(first, 123, 8, [&](int32_t t) { return a.push_back(t), true; });
    fused.decode_greedy(first, 123, 8, [&](int32_t t) { return b.push_back(t), true; });
    EXPECT_GT(pers->persistent_groups(), 0u) << "device greedy decoding fell back to the fused kernels";
    // (fp32: the persistent and fused kernels sum in other orders; the tokens may part after a
    // rounding flip, so they are compared in double only.)
    if (precision == Precision::F64) {
      EXPECT_EQ(a, b);
    }
    // One token at a time, against the fused kernels.
    pers->eval(prompt, 0, lp, false);
    fused.eval(prompt, 0, lf, false);
    for (int32_t t = 123; t < 131; ++t) {
      const int32_t tok = static_cast<int32_t>((t * 7) % vocab);
      pers->eval(std::span<const int32_t>(&tok, 1), t, lp, false);
      fused.eval(std::span<const int32_t>(&tok, 1), t, lf, false);
      if (precision == Precision::F64) {
        EXPECT_LE(max_abs_diff(lp, lf), 1e-4f) << "position " << t;
      }
    }
    EXPECT_GT(pers->persistent_groups(), 0u) << "a decode step fell back to the fused kernels";
  }
}

// Where the driver reports what it compiled (VK_KHR_pipeline_executable_properties with a local-memory
// statistic: NVIDIA), the persistent kernel of the shapes it runs at the device's own grid spills no
// registers in fp32 (what runs): a spill in this kernel multiplies the time of every step it touches (a
// second attention path for short contexts spilled 736-864 bytes an invocation in fp32 and decoded 3.6x
// slower; Falcon3-3B's steps, 24 uvec4s a lane, spilled 4.5 KB and decoded 23x slower). The layers of
// 2B4T and of Falcon3-1B (the llama graph, heads of 256) with a small vocabulary (the head is not in the
// kernel); 2B4T's in double too (the verification build: Falcon3-1B's heads of 256 spill 1.2 KB there, which
// costs that build time, not results). In fp32 the step's head from the int8 table spills nothing either,
// nor the GPU sampler's kernels (measured: none on an H200). Two sequences, so the kernel's step-bits
// pipeline (a lone batched step's) is built and checked too where the engine offers it, in fp32 (on an
// H200 it sits at 127-128 registers; in double it spills 672 bytes, the verification build's time
// again). Skipped where the device reports no such statistic (lavapipe).
TEST(PersistentDecodeKernels, TheShapesItRunsSpillNoRegisters) {
  if (!test::device_reports_local_memory())
    GTEST_SKIP() << "the device reports no local-memory statistic of its pipelines";
  for (const char* shape : {"2b4t", "falcon3-1b"}) {
    SCOPED_TRACE(shape);
    GeneratorOptions go;
    go.out = test::scratch_dir("persistent_spills") / (std::string(shape) + ".gguf");
    go.shape = parse_generator_shape(shape);
    go.vocab = "bytes:300";
    go.seed = 3;
    go.context = 4096;
    generate_model(go);
    auto model = Model::open(go.out);
    for (const bool f64 : {false, true}) {
      if (f64 && std::string(shape) != "2b4t") continue;
      VulkanForwardOptions o = persistent_options(KvPrecision::F16, f64, false);
      o.pipeline_statistics = true;
      o.sequences = 2;
      VulkanForward f(*model, o);
      ASSERT_GT(f.persistent_groups(), 0u)
          << "the device's grid runs the persistent kernel for this shape: " << f.decode_kernels();
      const bool step_bits = f.batched_lone_steps() == "persistent kernel, the batched steps' bits";
      std::printf("[ measured ] %s %s: lone batched steps on %s\n", shape, f64 ? "f64" : "fp32",
                  f.batched_lone_steps().c_str());
      size_t seen = 0, bounded_heads = 0, samplers = 0;
      for (const auto& line : f.kernel_statistics()) {
        std::printf("[ measured ] %s %s: %s\n", shape, f64 ? "f64" : "fp32", line.c_str());
        const auto bytes = test::local_memory_bytes(line);
        if (!bytes) continue;
        // The step's LM head from the int8 table, greedy or the sampled step's bounds (its accumulators
        // in local memory made it 25% slower on an H200: 0.135 against 0.102 ms a token).
        if (!f64 && line.starts_with("lm_head") && line.find(" bounded") != std::string::npos) {
          ++bounded_heads;
          EXPECT_EQ(*bytes, 0u) << line;
        }
        if (line.starts_with("sample_token")) {  // the sampled steps' last kernel (both forms)
          ++samplers;
          EXPECT_EQ(*bytes, 0u) << line;
        }
        if (line.find("decode_layer") == std::string::npos) continue;
        if (f64 && line.find(" step bits") != std::string::npos) continue;
        ++seen;
        EXPECT_EQ(*bytes, 0u) << line;
      }
      if (f.samples_on_device(SamplingParams{})) {
        EXPECT_EQ(samplers, 2u) << "the GPU sampler's kernels report their local memory";
      }
      EXPECT_EQ(seen, step_bits && !f64 ? 2u : 1u)
          << "the kernel (and its step-bits pipeline) report their local memory";
      if (!f64 && f.bounded_head()) {
        EXPECT_GE(bounded_heads, 1u) << "the int8 head reports its local memory";
      }
    }
  }
}

// Which shapes the engine runs on the persistent kernel at an H100's grid (132 multiprocessors, 32-wide
// subgroups): those whose steps' weights stay in registers. The larger Falcon3 shapes would hold two or
// three row chunks of every step at once (24 to 36 uvec4s a lane) and decode on the fused kernels.
TEST(PersistentDecodePlan, RunsOnlyTheShapesWhoseWeightsFitItsRegisters) {
  DeviceInfo d;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 32;
  d.subgroup_shuffle = d.subgroup_arithmetic = d.subgroup_ballot = true;
  d.max_workgroup_invocations = 1024;
  d.max_shared_memory = 48 * 1024;
  auto shape_of = [](const char* name, bool llama) {
    const GeneratorShape g = parse_generator_shape(name);
    vk::DecodeGraph graph;
    graph.silu = graph.normal_rope = llama;
    graph.sub_norms = !llama;
    return vk::PersistentDecode::Shape{g.dim, g.ffn, g.heads, g.kv_heads, g.head_dim(), g.layers, graph};
  };
  struct Case {
    const char* shape;
    bool llama, fits;
  };
  for (const Case c : {Case{"2b4t", false, true}, Case{"falcon3-1b", true, true}, Case{"falcon3-3b", true, false},
                       Case{"falcon3-7b", true, false}, Case{"falcon3-10b", true, false}}) {
    SCOPED_TRACE(c.shape);
    std::string why;
    const auto layout = vk::PersistentDecode::plan(d, shape_of(c.shape, c.llama), false, 132, &why);
    ASSERT_TRUE(layout) << why << ": every shape has a layout (a forced grid runs it, spilling or not)";
    EXPECT_EQ(vk::PersistentDecode::fits_registers(*layout, &why), c.fits) << layout->prefetch << " uvec4s a lane";
    if (!c.fits) {
      EXPECT_NE(why.find(std::to_string(layout->prefetch) + " uvec4s a lane at 132 workgroups"), std::string::npos)
          << why;
    }
  }
}

// A synthetic model of `shape` (DIM,HEADS,KV_HEADS,FFN,LAYERS) with its first layer's q and k scales
// times qk_scale and its first layer's four norms' weights times norm_scale (and then its seven matrix
// scales divided by it, so that the layer's outputs keep their size), decoded by the persistent
// kernel and by the fused kernels: positions 0-39 one at a time, 40-149 as one prompt block (the same
// kernels in both), 150-169 one at a time (more keys, more splits). Every decoded position's logits
// must be finite and the fused kernels': in double to 1e-4, in fp32 (where an int8 rounding may flip
// between two summation orders) with a cosine similarity of at least the fp32 contract's (golden
// README). worst: the largest difference.
void decode_against_fused(const std::string& name, const std::string& shape, float qk_scale, float& worst,
                          bool f64 = true, float norm_scale = 1.f) {
  const auto path = test::scratch_dir("persistent_" + name) / (name + ".gguf");
  test::write_scaled_model(path, shape, qk_scale, norm_scale);
  auto model = Model::open(path);
  auto pers = open_persistent(*model, persistent_options(KvPrecision::F16, f64));
  ASSERT_GT(pers->persistent_groups(), 0u);
  VulkanForward fused(*model, fused_options(KvPrecision::F16, f64));
  const int32_t vocab = static_cast<int32_t>(model->config().vocab);
  std::vector<float> lp(static_cast<size_t>(vocab)), lf(lp.size());
  worst = 0.f;
  auto token_at = [&](int32_t t) { return (t * 37 + 11) % vocab; };
  auto decode = [&](int32_t t) {
    const int32_t token = token_at(t);
    pers->eval(std::span<const int32_t>(&token, 1), t, lp, false);
    fused.eval(std::span<const int32_t>(&token, 1), t, lf, false);
    for (float v : lp) ASSERT_TRUE(std::isfinite(v)) << "position " << t;
    if (f64) {
      EXPECT_LE(max_abs_diff(lp, lf), 1e-4f) << shape << ", position " << t;
    } else {
      double pf = 0, pp = 0, ff = 0;
      for (size_t i = 0; i < lp.size(); ++i)
        pf += double{lp[i]} * lf[i], pp += double{lp[i]} * lp[i], ff += double{lf[i]} * lf[i];
      EXPECT_GE(pf / std::sqrt(pp * ff), test::kFp32MinMeanCosine) << shape << ", position " << t;
    }
    worst = std::max(worst, max_abs_diff(lp, lf));
  };
  for (int32_t t = 0; t < 40 && !testing::Test::HasFatalFailure(); ++t) decode(t);
  std::vector<int32_t> block;
  for (int32_t t = 40; t < 150; ++t) block.push_back(token_at(t));
  pers->eval(block, 40, lp, false);
  fused.eval(block, 40, lf, false);
  for (int32_t t = 150; t < 170 && !testing::Test::HasFatalFailure(); ++t) decode(t);
  EXPECT_GT(pers->persistent_groups(), 0u);  // no barrier gave up
}

// The attention step takes softmax weights without a shift where every sum of them stays inside
// [1e-250, 1e250] (double), and redoes a work item with the running maximum where one does not. Scaling q and k
// up (their I2_S scales times 200 each) gives scores of thousands, both signs: e^s overflows or every
// weight of a head underflows, so items take the exact pass; its logits must still be the fused
// kernels' (which always shift by the maximum), with nothing infinite or NaN.
TEST(PersistentDecodeExtremeScores, RedoesWithTheMaximumWhereUnshiftedWeightsLeaveTheRange) {
  float worst = 0.f;
  decode_against_fused("extreme", "256,2,1,256,1", 200.f, worst);
  if (HasFatalFailure()) return;
  std::printf("[ measured ] extreme scores: max |logit diff| to the fused kernels %.3g\n", worst);
}

// The same in fp32, whose range is [1e-30, 1e30]: overflowing e^s is inf there, which the range check
// must catch before it becomes a NaN.
TEST(PersistentDecodeExtremeScores, RedoesInFp32Too) {
  float worst = 0.f;
  decode_against_fused("extreme_fp32", "256,2,1,256,1", 200.f, worst, false);
  if (HasFatalFailure()) return;
  std::printf("[ measured ] extreme scores, fp32: max |logit diff| to the fused kernels %.3g\n", worst);
}

// Every quantization of the first layer below the 1e-5 floor on max |x nw| / rms(x): its norm weights
// times 1e-7 (the generator's are of order 1; its matrix scales times 1e7). The persistent kernel's
// quantization takes the floor's scale for such a row instead of 127 / absmax (decode_layer.glsl
// quantize_input); with the absmax's the layer's outputs would be off by a factor of ten or more.
TEST(PersistentDecodeQuantFloor, RowsBelowTheFloorMatchTheFusedKernels) {
  for (const bool f64 : {true, false}) {
    SCOPED_TRACE(f64 ? "double" : "fp32");
    float worst = 0.f;
    decode_against_fused(f64 ? "floor" : "floor_fp32", "256,2,1,256,1", 1.f, worst, f64, 1e-7f);
    if (HasFatalFailure()) return;
    std::printf("[ measured ] norms below the floor, %s: max |logit diff| to the fused kernels %.3g\n",
                f64 ? "double" : "fp32", worst);
  }
}

// Shapes whose steps divide differently over the grid: one and two query heads per KV head, head sizes
// 128 and 256. On the H100 (132 workgroups) each decoded wrong logits at every position of one path or
// both while a grid barrier's wait was polled by invocation 0 alone (decode_layer.glsl wait_count); the
// four and five heads per KV head of the golden and 2B4T shapes never did. One workgroup (lavapipe) ran
// them right either way: this guards the GPU runs.
class PersistentDecodeShapes : public testing::TestWithParam<const char*> {};

std::string shape_label(const char* shape) {  // "256,2,1,256,1" -> "256_2_1_256_1"
  std::string n = shape;
  std::replace(n.begin(), n.end(), ',', '_');
  return n;
}

TEST_P(PersistentDecodeShapes, MatchTheFusedKernels) {
  float worst = 0.f;
  decode_against_fused("shape_" + shape_label(GetParam()), GetParam(), 1.f, worst);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PersistentDecodeShapes,
                         testing::Values("256,2,1,256,1", "256,2,2,256,1", "512,2,1,512,1"),
                         [](const testing::TestParamInfo<const char*>& p) { return shape_label(p.param); });

}  // namespace
