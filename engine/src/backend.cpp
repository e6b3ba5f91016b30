// Backend factory (trit/backend.h). New backends add a branch here and a name to backend_names().
#include "trit/backend.h"

#include <stdexcept>

#include "trit/cpu_forward.h"
#include "trit/vulkan_forward.h"

namespace trit {

std::vector<std::string> backend_names() { return {"cpu", "vulkan"}; }

std::unique_ptr<Forward> make_forward(const std::string& backend, std::shared_ptr<const Model> model,
                                      ForwardOptions options) {
  if (backend == "cpu") return std::make_unique<CpuForward>(std::move(model), options.kv, options.context, options.threads);
  if (backend == "vulkan") {
    if (!model) throw std::invalid_argument("make_forward: no model");
    VulkanForwardOptions vo;
    vo.kv = options.kv;
    vo.context = options.context;
    vo.device.index = options.device;
    return std::make_unique<VulkanForward>(*model, vo);  // VulkanError (a runtime_error) if it cannot run here
  }
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown backend '" + backend + "' (expected one of: " + known + ")");
}

}  // namespace trit
