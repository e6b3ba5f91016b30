#pragma once
// Picks a forward-pass implementation by name, so the CLI and the app choose a backend with one string
// ("cpu", "vulkan") and never name a concrete class.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trit/forward.h"
#include "trit/model.h"

namespace trit {

struct ForwardOptions {
  KvPrecision kv = KvPrecision::F16;
  int32_t context = 0;                    // session context length; 0: the model's trained length
  unsigned threads = 0;                   // CPU backend: threads per matrix product; 0: all hardware threads
  int device = -1;                        // Vulkan backend: device index; -1: the best device (discrete first)
  Precision precision = Precision::Fp32;  // of the activations (trit/forward.h)
  bool vendor_neutral = false;            // Vulkan backend: ignore vendor-specific extensions (VulkanForwardOptions)
  // Sequences with a KV cache each (Forward::sequences; a server's parallel streams), each of `context`
  // positions.
  int32_t sequences = 1;
};

// The names make_forward accepts, in the order a user would try them.
std::vector<std::string> backend_names();

// A new forward pass over `model` on `backend`. Throws std::invalid_argument naming the accepted
// backends for an unknown name, and std::runtime_error when a known backend cannot be used here.
std::unique_ptr<Forward> make_forward(const std::string& backend, std::shared_ptr<const Model> model,
                                      ForwardOptions options);

}  // namespace trit
