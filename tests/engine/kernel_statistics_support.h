#pragma once
// Reading the driver's statistics of the engine's kernels in tests (VulkanForward::kernel_statistics,
// VK_KHR_pipeline_executable_properties), for the tests that keep kernels out of local memory.
#include <cstdint>
#include <optional>
#include <string>

namespace trit::test {

// Whether the test device's driver reports a local-memory statistic of its pipelines (NVIDIA's does;
// lavapipe reports none), asked of an engine of several sequences on golden-a with statistics kept.
bool device_reports_local_memory();

// The bytes of local memory a kernel_statistics() line reports, where it is a "Local Memory Size" line.
std::optional<uint64_t> local_memory_bytes(const std::string& line);

}  // namespace trit::test
