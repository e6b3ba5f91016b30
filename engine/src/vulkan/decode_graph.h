#pragma once
// What a decoder layer computes, as the one-token kernels (vulkan/fused_decode.h,
// vulkan/persistent_decode.h) take it as specialization constants: the model's architecture
// description (trit/model.h) and whether its matrices carry a scale per 256-element block.
#include <string>

#include "trit/model.h"

namespace trit::vk {

struct DecodeGraph {
  bool silu = false;          // the FFN gate is silu(g) * u, else relu(g)^2 * u
  bool normal_rope = false;   // RoPE pairs 2i with 2i + 1, else i with i + head_dim/2
  bool block_scales = false;  // a float per 256-element block of a row (TQ1_0 / TQ2_0), else one per matrix
  bool sub_norms = true;      // a norm before wo and before down

  static DecodeGraph of(const ModelConfig& cfg) {
    const Architecture& a = cfg.arch;
    return {a.ffn == FfnKind::SiluGated, a.rope == RopeStyle::Normal,
            cfg.weight_format.find("I2_S") == std::string::npos, a.sub_norms};
  }
};

}  // namespace trit::vk
