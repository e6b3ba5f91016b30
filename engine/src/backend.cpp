// Backend factory (trit/backend.h). New backends add a branch here and a name to backend_names().
#include "trit/backend.h"

#include <stdexcept>

#include "trit/cpu_forward.h"
#include "trit/vulkan_forward.h"

namespace trit {

const char* to_string(Precision p) { return p == Precision::F64 ? "f64" : "fp32"; }

bool Forward::samples_on_device(const SamplingParams&) const { return false; }

int32_t Forward::decode_greedy(int32_t, int32_t, int32_t, const std::function<bool(int32_t)>&) {
  throw std::logic_error("Forward::decode_greedy: this backend decodes through eval only (decodes_on_device() is false)");
}

int32_t Forward::decode_sample(int32_t, int32_t, int32_t, Sampler&, std::span<const int32_t>,
                               const std::function<bool(int32_t)>&) {
  throw std::logic_error("Forward::decode_sample: this backend samples on the host only (samples_on_device() is false)");
}

Precision parse_precision(const std::string& name) {
  if (name == "fp32" || name == "f32") return Precision::Fp32;
  if (name == "f64" || name == "fp64" || name == "double") return Precision::F64;
  throw std::invalid_argument("unknown precision '" + name + "' (expected fp32, or f64 for the double-precision verification build)");
}

std::vector<std::string> backend_names() { return {"cpu", "vulkan"}; }

std::unique_ptr<Forward> make_forward(const std::string& backend, std::shared_ptr<const Model> model,
                                      ForwardOptions options) {
  if (backend == "cpu")
    return std::make_unique<CpuForward>(std::move(model), options.kv, options.context, options.threads, options.precision);
  if (backend == "vulkan") {
    if (!model) throw std::invalid_argument("make_forward: no model");
    VulkanForwardOptions vo;
    vo.kv = options.kv;
    vo.context = options.context;
    vo.device.index = options.device;
    vo.precision = options.precision;
    vo.vendor_neutral = options.vendor_neutral;
    return std::make_unique<VulkanForward>(*model, vo);  // VulkanError (a runtime_error) if it cannot run here
  }
  std::string known;
  for (const auto& n : backend_names()) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument("unknown backend '" + backend + "' (expected one of: " + known + ")");
}

}  // namespace trit
