#include "kernel_statistics_support.h"

#include "golden_support.h"
#include "trit/model.h"
#include "trit/vulkan_forward.h"

namespace trit::test {

bool device_reports_local_memory() {
  const auto g = load_golden("golden-a");
  auto model = Model::open(g.gguf);
  VulkanForwardOptions o;
  o.sequences = 8;  // (the batched steps' kernels too)
  o.context = context_for(16);
  o.pipeline_statistics = true;
  VulkanForward f(*model, o);
  for (const auto& line : f.kernel_statistics())
    if (local_memory_bytes(line)) return true;
  return false;
}

std::optional<uint64_t> local_memory_bytes(const std::string& line) {
  const std::string key = "Local Memory Size: ";
  const auto at = line.find(key);
  if (at == std::string::npos) return std::nullopt;
  // (NVIDIA's driver sets bit 36 of the value; the bytes are the low word.)
  return std::stoull(line.substr(at + key.size())) & 0xffffffffull;
}

}  // namespace trit::test
