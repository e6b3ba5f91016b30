// Resident workgroups measured with the probe kernel (vulkan/occupancy.h), and the persistent decode
// kernel's own residency check (PersistentDecode::record residency_check), on the test device (lavapipe
// in CI: its workgroups run on a few threads, so only a few of them are resident at once; a wave that
// cannot start must make the resident ones give up, not hang).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "test_support.h"
#include "trit/devices.h"
#include "trit/model.h"
#include "trit/vulkan_forward.h"
#include "vulkan/context.h"
#include "vulkan/decode_graph.h"
#include "vulkan/occupancy.h"
#include "vulkan/persistent_decode.h"

namespace {

using namespace trit;

TEST(Occupancy, OneWorkgroupIsResidentAndTooManyAreNot) {
  vk::Context ctx;
  vk::OccupancyProbe probe(ctx, 64, 4096);
  EXPECT_TRUE(probe.resident(1));
  // Far more workgroups than any device keeps resident at once: the first wave gives up (bounded).
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(probe.resident(4096));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
}

// (On a CPU device, how many workgroups are resident depends on the threads the OS gives lavapipe at
// the moment, so only the bounds are checked; the engine never sizes a grid from it there.)
TEST(Occupancy, TheMeasurementIsWithinItsBounds) {
  vk::Context ctx;
  const uint32_t n = vk::resident_workgroups(ctx, 64, 4096, 256);
  std::printf("[ measured ] %u resident workgroups of 64 invocations on %s\n", n, ctx.info().name.c_str());
  EXPECT_GE(n, 1u);
  EXPECT_LE(n, 256u);
  // Shared memory beyond the device's: nothing can be resident.
  EXPECT_EQ(vk::resident_workgroups(ctx, 64, ctx.info().max_shared_memory + 4, 16), 0u);
}

// A grid forced larger than the device keeps resident: the residency check fails at once and decode
// stays on the fused kernels, instead of the first grid barrier waiting until its bound (seconds).
TEST(Occupancy, AGridThatIsNotResidentIsNeverUsed) {
  auto model = Model::open(test::shared_dir() / "golden" / "golden-a.gguf");
  VulkanForwardOptions o;
  // (Four per multiprocessor where they are known: the kernel fills a multiprocessor with one.)
  o.persistent_groups =
      static_cast<int32_t>(std::max(64u, 4 * choose_device(list_vulkan_devices(), {}).multiprocessors));
  const auto t0 = std::chrono::steady_clock::now();
  VulkanForward f(*model, o);
  EXPECT_EQ(f.persistent_groups(), 0u);
  std::vector<float> logits(static_cast<size_t>(f.vocab_size()));
  const int32_t tok = 1;
  f.eval(std::span<const int32_t>(&tok, 1), 0, logits, false);
  EXPECT_TRUE(f.fused_decode());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 120.0);
  // One workgroup is resident everywhere: that grid is used.
  o.persistent_groups = 1;
  VulkanForward one(*model, o);
  EXPECT_EQ(one.persistent_groups(), 1u);
}

}  // namespace

namespace {

// On a GPU that reports its multiprocessors, the vendor-neutral path (the extension ignored: grid
// measured with the probe, then checked and if need be corrected with the kernel itself) must arrive at
// the same grid: one workgroup per multiprocessor. So must the probe alone, with the kernel's workgroup
// for the shape: its count also sizes, at load, the batched steps' products and attention splits,
// which the kernel's own check does not correct (a probe that counted two a multiprocessor, 264 on an
// H200, gave the batched attention other splits than the kernel's, so a lone batched step lost the
// persistent kernel: 752 against 1,059-1,091 tokens/s). Skipped on CPU devices (never a persistent grid)
// and where no extension reports the count to compare with.
TEST(Occupancy, TheMeasuredGridIsOneWorkgroupPerMultiprocessor) {
  const auto dev = choose_device(list_vulkan_devices(), {});
  if (dev.type == "cpu" || dev.multiprocessors == 0 || dev.multiprocessors_from != "VK_NV_shader_sm_builtins")
    GTEST_SKIP() << "needs a GPU whose NVIDIA extension reports its multiprocessors, to compare with";
  auto model = Model::open(test::shared_dir() / "golden" / "golden-b.gguf");
  const ModelConfig& cfg = model->config();
  const vk::PersistentDecode::Shape shape{
      cfg.dim, cfg.ffn, cfg.heads, cfg.kv_heads, cfg.head_dim, cfg.layers, vk::DecodeGraph::of(cfg)};
  vk::ContextOptions co;
  co.vendor_neutral = true;
  vk::Context ctx(co);
  for (const Precision precision : {Precision::Fp32, Precision::F64}) {
    VulkanForwardOptions o;
    o.precision = precision;
    const uint32_t reported = VulkanForward(*model, o).persistent_groups();
    o.vendor_neutral = true;
    VulkanForward neutral(*model, o);
    const uint32_t measured = neutral.persistent_groups();
    const auto wg = vk::PersistentDecode::plan(ctx.info(), shape, precision == Precision::F64, 0);
    ASSERT_TRUE(wg.has_value());
    const uint32_t probed = vk::resident_workgroups(ctx, wg->wg, wg->shared_bytes);
    std::printf("[ measured ] %s: reported grid %u, vendor-neutral grid %u (%s), probe %u\n", to_string(precision),
                reported, measured, neutral.decode_kernels().c_str(), probed);
    EXPECT_EQ(measured, reported) << neutral.decode_kernels();
    EXPECT_EQ(probed, dev.multiprocessors)
        << wg->wg << " invocations, " << wg->shared_bytes << " bytes of shared memory";
  }
}

}  // namespace
