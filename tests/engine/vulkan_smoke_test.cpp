// Vulkan end to end on whatever device the test environment offers (lavapipe in CI): instance, device,
// an embedded shader with a specialization constant, descriptor set, recorded command buffer replayed,
// timestamps, and the device listing.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "trit/devices.h"
#include "vulkan/context.h"

namespace {

TEST(VulkanSmoke, ListsAtLeastOneDeviceWithFeatures) {
  const auto devices = trit::list_vulkan_devices();
  ASSERT_FALSE(devices.empty());
  const auto& d = trit::choose_device(devices, {});
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.api_version, VK_API_VERSION_1_2);
  EXPECT_GT(d.subgroup_size, 0u);
  EXPECT_GE(d.max_storage_buffer_range, 1u << 20);
  EXPECT_FALSE(d.heaps.empty());
  EXPECT_GT(d.device_local_bytes(), 0u);
  const std::string text = trit::describe_device(d);
  EXPECT_NE(text.find(d.name), std::string::npos);
  EXPECT_NE(text.find("subgroup size"), std::string::npos);
}

// `trit-cli devices` lists the int8 shapes of each cooperative-matrix extension the device has on.
TEST(VulkanSmoke, DescribesBothCooperativeMatrixForms) {
  trit::DeviceInfo d;
  d.name = "a GPU";
  d.cooperative_matrix = d.cooperative_matrix_khr = true;
  d.coop_int8_shapes_khr = {{16, 8, 32}, {16, 16, 32}};
  std::string text = trit::describe_device(d);
  EXPECT_NE(text.find("cooperative matrix yes"), std::string::npos) << text;
  EXPECT_NE(text.find("KHR cooperative matrix, int8 x int8 + int32 (MxNxK): 16x8x32 16x16x32\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("NV cooperative matrix"), std::string::npos) << text;
  d.cooperative_matrix_nv = true;
  d.coop_int8_shapes = {{16, 8, 32}};
  text = trit::describe_device(d);
  EXPECT_NE(text.find("NV cooperative matrix, int8 x int8 + int32 (MxNxK): 16x8x32\n"), std::string::npos) << text;
  EXPECT_NE(text.find("KHR cooperative matrix"), std::string::npos) << text;
}

// The listing names the precision the engine runs (fp32 everywhere) and whether the double-precision
// verification build is available; the multiprocessor count names the extension it came from.
TEST(VulkanSmoke, DescribesThePrecisionAndTheMultiprocessors) {
  trit::DeviceInfo d;
  d.name = "a GPU";
  d.shader_float64 = false;
  std::string text = trit::describe_device(d);
  EXPECT_NE(text.find("precision fp32 activations"), std::string::npos) << text;
  EXPECT_NE(text.find("f64 verification build not available (no shaderFloat64)"), std::string::npos) << text;
  d.shader_float64 = true;
  d.multiprocessors = 96;
  d.multiprocessors_from = "VK_AMD_shader_core_properties2";
  text = trit::describe_device(d);
  EXPECT_NE(text.find("f64 verification build available (--precision f64)"), std::string::npos) << text;
  EXPECT_NE(text.find("96 multiprocessors (VK_AMD_shader_core_properties2)"), std::string::npos) << text;
}

// vendor_neutral() clears what NVIDIA's extensions reported (the NV cooperative matrix, the SM count)
// and keeps everything vendor-neutral, the KHR cooperative matrix and other vendors' counts included.
TEST(VulkanSmoke, VendorNeutralClearsOnlyNvidiasExtensions) {
  trit::DeviceInfo d;
  d.cooperative_matrix_nv = d.cooperative_matrix2_nv = d.cooperative_matrix_khr = true;
  d.coop_int8_shapes = {{16, 8, 32}};
  d.coop_int8_shapes_khr = {{16, 8, 32}};
  d.multiprocessors = 132;
  d.multiprocessors_from = "VK_NV_shader_sm_builtins";
  d.integer_dot_4x8_accelerated = true;
  const trit::DeviceInfo n = trit::vendor_neutral(d);
  EXPECT_FALSE(n.cooperative_matrix_nv);
  EXPECT_FALSE(n.cooperative_matrix2_nv);
  EXPECT_TRUE(n.coop_int8_shapes.empty());
  EXPECT_EQ(n.multiprocessors, 0u);
  EXPECT_TRUE(n.cooperative_matrix_khr);
  EXPECT_EQ(n.coop_int8_shapes_khr.size(), 1u);
  EXPECT_TRUE(n.integer_dot_4x8_accelerated);
  d.multiprocessors_from = "VK_AMD_shader_core_properties2";
  EXPECT_EQ(trit::vendor_neutral(d).multiprocessors, 132u);
}

// The subgroup size of the cooperative-matrix kernels: the device's only one; where it varies, 32 (or
// the nearest size offered), required of the pipeline, and none where a size cannot be required.
TEST(VulkanSmoke, CooperativeKernelsRunAtOneSubgroupSize) {
  trit::DeviceInfo d;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 32;  // NVIDIA
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 32u);
  EXPECT_EQ(trit::required_subgroup_size(d, 32), 0u) << "a fixed size needs no requirement";
  d.subgroup_size = d.max_subgroup_size = 64;  // AMD RDNA (RADV reports 64 of 32 to 64)
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 0u) << "no size control";
  d.subgroup_size_control = true;
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 32u);
  EXPECT_EQ(trit::required_subgroup_size(d, 32), 32u);
  d.subgroup_size = 32;  // Intel (8 to 32)
  d.min_subgroup_size = 8;
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 32u);
  d.subgroup_size = d.max_subgroup_size = 16;  // a range below 32
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 16u);
  d.min_subgroup_size = d.subgroup_size = d.max_subgroup_size = 64;  // only 64
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 64u);
  d.subgroup_size = 0;  // not reported
  EXPECT_EQ(trit::cooperative_subgroup_size(d), 0u);
}

// vendor_neutral() reports the subgroup range of an RDNA GPU where a size can be required, so the
// cooperative-matrix kernels require theirs on an NVIDIA GPU as they must on AMD's.
TEST(VulkanSmoke, VendorNeutralWidensTheSubgroupRange) {
  trit::DeviceInfo d;
  d.subgroup_size = d.min_subgroup_size = d.max_subgroup_size = 32;
  EXPECT_EQ(trit::vendor_neutral(d).max_subgroup_size, 32u) << "no size control: nothing to require";
  d.subgroup_size_control = true;
  const trit::DeviceInfo n = trit::vendor_neutral(d);
  EXPECT_EQ(n.subgroup_size, 32u);
  EXPECT_EQ(n.min_subgroup_size, 32u);
  EXPECT_EQ(n.max_subgroup_size, 64u);
  EXPECT_EQ(trit::cooperative_subgroup_size(n), 32u);
  EXPECT_EQ(trit::required_subgroup_size(n, 32), 32u);
}

TEST(VulkanSmoke, ChoosingAMissingDeviceNamesTheChoices) {
  const auto devices = trit::list_vulkan_devices();
  try {
    trit::choose_device(devices, {99, ""});
    FAIL() << "device 99 was accepted";
  } catch (const trit::VulkanError& e) {
    EXPECT_NE(std::string(e.what()).find("no Vulkan device 99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(devices[0].name), std::string::npos) << e.what();
  }
  EXPECT_THROW(trit::choose_device(devices, {-1, "no-such-gpu-name"}), trit::VulkanError);
  EXPECT_THROW(trit::choose_device({}, {}), trit::VulkanError);
  // A name substring, case-insensitively, finds the device.
  std::string part = devices[0].name.substr(0, 4);
  for (auto& c : part) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_EQ(trit::choose_device(devices, {-1, part}).index, devices[0].index);
}

// Runs smoke_axpy's pipeline p twice over 1,000 elements (not a multiple of the workgroup size: the
// bounds check matters) and checks y = 2x + (2x + y0).
void expect_axpy_twice(trit::vk::Context& ctx, const trit::vk::Pipeline& p) {
  const uint32_t n = 1000;
  trit::vk::Buffer x(ctx, n * 4, trit::vk::MemoryUse::Device), y(ctx, n * 4, trit::vk::MemoryUse::Device);
  std::vector<float> hx(n), hy(n);
  for (uint32_t i = 0; i < n; ++i) {
    hx[i] = static_cast<float>(i) * 0.5f;
    hy[i] = 1000.f - static_cast<float>(i);
  }
  x.upload(hx.data(), n * 4);
  y.upload(hy.data(), n * 4);

  trit::vk::DescriptorAllocator alloc(ctx);
  const trit::vk::BufferRange ranges[] = {{&x, 0, 0}, {&y, 0, 0}};
  VkDescriptorSet set = alloc.make(p, ranges);
  struct {
    float a;
    uint32_t n;
  } push{2.f, n};

  trit::vk::CommandSequence seq(ctx);
  std::unique_ptr<trit::vk::TimestampPool> ts;
  if (ctx.info().timestamps) ts = std::make_unique<trit::vk::TimestampPool>(ctx, 2);
  seq.begin();
  if (ts) {
    ts->reset(seq.handle());
    seq.timestamp(ts->handle(), 0);
  }
  seq.dispatch(p, set, &push, sizeof push, (n + 63) / 64);
  if (ts) seq.timestamp(ts->handle(), 1);
  seq.end();

  seq.run();
  seq.run();  // replayed: y = 2x + (2x + y0)
  std::vector<float> out(n);
  y.download(out.data(), n * 4);
  for (uint32_t i = 0; i < n; ++i) {
    ASSERT_EQ(out[i], 4.f * hx[i] + hy[i]) << "at " << i;
  }
  if (ts) {
    EXPECT_GE(ts->elapsed_ns(0, 1), 0.0);
  }
}

TEST(VulkanSmoke, AxpyRunsEndToEndAndReplays) {
  trit::vk::Context ctx;
  trit::vk::Pipeline p(ctx, "smoke_axpy", 2, 8, {64});
  expect_axpy_twice(ctx, p);
}

// A pipeline that requires a subgroup size (the cooperative-matrix kernels' on AMD and Intel GPUs) runs
// at one the device offers; one it does not offer is refused by name before the driver sees it.
TEST(VulkanSmoke, APipelineCanRequireASubgroupSize) {
  trit::vk::Context ctx;
  const trit::DeviceInfo& d = ctx.info();
  try {
    trit::vk::Pipeline p(ctx, "smoke_axpy", 2, 8, {64}, d.max_subgroup_size * 2);
    FAIL() << "subgroups of " << d.max_subgroup_size * 2 << " were accepted";
  } catch (const trit::VulkanError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("smoke_axpy needs subgroups of " + std::to_string(d.max_subgroup_size * 2)), std::string::npos)
        << m;
    EXPECT_NE(m.find(d.name + " cannot be asked for"), std::string::npos) << m;
  }
  if (!d.subgroup_size_control) GTEST_SKIP() << d.name << " cannot require a subgroup size";
  for (uint32_t size = d.min_subgroup_size; size <= std::min(64u, d.max_subgroup_size); size *= 2) {
    SCOPED_TRACE("subgroups of " + std::to_string(size));
    trit::vk::Pipeline p(ctx, "smoke_axpy", 2, 8, {64}, size);
    expect_axpy_twice(ctx, p);
  }
}

TEST(VulkanSmoke, BindingLargerThanTheLimitIsRefused) {
  trit::vk::ContextOptions o;
  o.max_binding_range = 1024;
  trit::vk::Context ctx(o);
  EXPECT_EQ(ctx.max_binding_range(), 1024u);
  trit::vk::Buffer x(ctx, 4096, trit::vk::MemoryUse::Device), y(ctx, 1024, trit::vk::MemoryUse::Device);
  trit::vk::Pipeline p(ctx, "smoke_axpy", 2, 8, {64});
  trit::vk::DescriptorAllocator alloc(ctx);
  const trit::vk::BufferRange too_big[] = {{&x, 0, 0}, {&y, 0, 0}};
  EXPECT_THROW(alloc.make(p, too_big), trit::VulkanError);
  const trit::vk::BufferRange fits[] = {{&x, 1024, 1024}, {&y, 0, 0}};
  EXPECT_NO_THROW(alloc.make(p, fits));
}

TEST(VulkanSmoke, MemoryCheckSaysWhatIsNeeded) {
  trit::vk::Context ctx;
  EXPECT_NO_THROW(ctx.check_memory(1 << 20, "a tiny model"));
  try {
    ctx.check_memory(uint64_t{1} << 50, "a huge model");
    FAIL() << "a petabyte fitted";
  } catch (const trit::VulkanError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("a huge model needs 1048576.00 GiB"), std::string::npos) << m;
    EXPECT_NE(m.find("free"), std::string::npos) << m;
  }
}

TEST(VulkanSmoke, UnknownShaderIsAClearError) {
  trit::vk::Context ctx;
  try {
    trit::vk::Pipeline p(ctx, "no_such_shader", 1, 0, {});
    FAIL();
  } catch (const trit::VulkanError& e) {
    EXPECT_NE(std::string(e.what()).find("no_such_shader"), std::string::npos);
  }
}

// A long chain of dependent dispatches that adds x to y `steps` times (lavapipe takes milliseconds),
// submitted with `fence`; what y must hold after `runs` such submissions.
struct AxpyChain {
  static constexpr uint32_t n = 1u << 18, steps = 48;
  trit::vk::Context& ctx;
  trit::vk::Pipeline p{ctx, "smoke_axpy", 2, 8, {64}};
  trit::vk::Buffer x{ctx, n * 4, trit::vk::MemoryUse::Device}, y{ctx, n * 4, trit::vk::MemoryUse::Device};
  trit::vk::DescriptorAllocator alloc{ctx};
  trit::vk::CommandSequence seq{ctx};
  std::vector<float> hx = std::vector<float>(n);

  explicit AxpyChain(trit::vk::Context& c) : ctx(c) {
    for (uint32_t i = 0; i < n; ++i) hx[i] = static_cast<float>(i % 7);
    x.upload(hx.data(), n * 4);
    const std::vector<float> zero(n, 0.f);
    y.upload(zero.data(), n * 4);
    const trit::vk::BufferRange ranges[] = {{&x, 0, 0}, {&y, 0, 0}};
    VkDescriptorSet set = alloc.make(p, ranges);
    const struct {
      float a;
      uint32_t n;
    } push{1.f, n};
    seq.begin();
    for (uint32_t s = 0; s < steps; ++s) {
      seq.dispatch(p, set, &push, sizeof push, n / 64);
      seq.barrier();
    }
    seq.end();
  }
  // y after `runs` chains: every element x * steps * runs, exact in floats.
  void expect_runs(uint32_t runs) {
    std::vector<float> out(n);
    y.download(out.data(), n * 4);
    for (uint32_t i = 0; i < n; i += 997) {
      ASSERT_EQ(out[i], hx[i] * static_cast<float>(steps * runs)) << "at " << i << " after " << runs << " run(s)";
    }
    ASSERT_EQ(out[n - 1], hx[n - 1] * static_cast<float>(steps * runs)) << "after " << runs << " run(s)";
  }
};

// Fences are polled near a submission's end on GPUs, never on a CPU device (lavapipe's workers need the
// cores), unless the options say otherwise.
TEST(FenceWait, PollsOnGpusAndAsTheOptionsSay) {
  {
    trit::vk::Context ctx;
    EXPECT_EQ(ctx.fence_wait().poll, ctx.info().type != "cpu") << ctx.info().type;
  }
  trit::vk::ContextOptions o;
  o.poll_fences = true;
  EXPECT_TRUE(trit::vk::Context(o).fence_wait().poll);
  o.poll_fences = false;
  EXPECT_FALSE(trit::vk::Context(o).fence_wait().poll);
}

// A wait returns only once the submission is done, whichever way it ends: blocked from the start (no
// estimate, or one past the longest polled), woken by the fence while it sleeps (an estimate far too
// long), its sleep timed out and then the fence polled (an estimate of half the duration the first
// run took: the sleep ends at 3/8 of it, the polling at 3/4), or polling that never starts (an
// estimate far too short) and a block. Each submission is a chain of milliseconds, so a wait that
// returned on its timeout or on VK_NOT_READY would leave y short.
TEST(FenceWait, ReturnsOnlyOnceTheSubmissionIsDone) {
  trit::vk::ContextOptions o;
  o.poll_fences = true;
  trit::vk::Context ctx(o);
  AxpyChain chain(ctx);
  VkFenceCreateInfo fci{};
  fci.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  VkFence fence = VK_NULL_HANDLE;
  trit::vk::check(vkCreateFence(ctx.device(), &fci, nullptr, &fence), "vkCreateFence");
  using std::chrono::nanoseconds;
  const trit::vk::FenceWaitPolicy polled{true, std::chrono::seconds(100)};
  struct Case {
    const char* what;
    nanoseconds expected;
    trit::vk::FenceWaitPolicy policy;
  };
  std::vector<Case> cases = {
      {"no estimate", nanoseconds(0), polled},
      {"not polled", nanoseconds(1000), {false, std::chrono::seconds(100)}},
      {"longer than the longest polled", std::chrono::seconds(50), {true, std::chrono::milliseconds(1)}},
      {"an estimate far too long", std::chrono::seconds(60), polled},
      {"half the first run's duration", nanoseconds(0), polled},  // (set after the first run)
      {"an estimate far too short", nanoseconds(1000), polled},
  };
  uint32_t runs = 0;
  for (Case& c : cases) {
    SCOPED_TRACE(c.what);
    VkCommandBuffer cb = chain.seq.handle();
    VkSubmitInfo si{};
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    const auto submitted = std::chrono::steady_clock::now();
    trit::vk::check(vkQueueSubmit(ctx.queue(), 1, &si, fence), "vkQueueSubmit");
    const nanoseconds took = trit::vk::wait_for_fence(ctx.device(), fence, submitted, c.expected, c.policy);
    EXPECT_EQ(vkGetFenceStatus(ctx.device(), fence), VK_SUCCESS);
    EXPECT_GT(took.count(), 0);
    if (runs == 0) cases[4].expected = took / 2;
    trit::vk::check(vkResetFences(ctx.device(), 1, &fence), "vkResetFences");
    chain.expect_runs(++runs);
  }
  vkDestroyFence(ctx.device(), fence, nullptr);
}

// A replayed sequence learns how long it takes and still returns only once its work is done.
TEST(FenceWait, ReplayedSequencesRememberTheirDuration) {
  trit::vk::ContextOptions o;
  o.poll_fences = true;
  trit::vk::Context ctx(o);
  AxpyChain chain(ctx);
  EXPECT_EQ(chain.seq.last_run().count(), 0);
  for (uint32_t r = 1; r <= 4; ++r) {
    chain.seq.run();
    EXPECT_GT(chain.seq.last_run().count(), 0);
    chain.expect_runs(r);
  }
}

}  // namespace
