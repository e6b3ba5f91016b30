#pragma once
// The block path of the ternary matrix kernels (prefill, max_tokens > 1) as a real GEMM: a workgroup
// owns a tile of rows x tokens, decodes each weight once per tile of tokens into int8 in shared memory
// and multiplies with the packed int8 dot product (Kind::Dot, shaders/ternary_gemm*.comp) or with
// int8 cooperative matrices on the tensor cores (shaders/ternary_gemm_coop*.comp, shape chosen from the
// device's query): Kind::Coop through VK_NV_cooperative_matrix, Kind::CoopKhr through
// VK_KHR_cooperative_matrix (the same shader's KHR twin, ternary_gemm_coop*_khr, rewritten from its NV
// SPIR-V at build time by shaders/tools/). Same modes, same exact integer sums and the same float
// epilogue as the block kernel (ternary_matmul.glsl), so the outputs are bit-identical to it.
#include <cstdint>
#include <memory>
#include <string>

#include "vulkan/context.h"

namespace trit::vk {

enum class TernaryMode : uint32_t;  // kernels.h: Store, Accumulate, Gate

class TernaryGemm {
 public:
  enum class Kind { Dot, Coop, CoopKhr };  // Coop: VK_NV_cooperative_matrix

  // The cooperative-matrix tiling for one mode: fragment shape (from the device's query) and how many
  // subgroups and fragments per subgroup cover the workgroup's tile.
  struct CoopPlan {
    uint32_t cm = 0, cn = 0, ck = 0;  // fragment M x N x K
    uint32_t wr = 0, wc = 0;          // subgroups along rows, along tokens
    uint32_t fm = 0, fn = 0;          // fragments per subgroup along rows, along tokens
    uint32_t rows() const { return wr * fm * cm; }
    uint32_t tokens() const { return wc * fn * cn; }
    uint32_t shared_bytes(bool gate) const;
  };

  // The cooperative-matrix plan for this device, extension (kind Coop or CoopKhr: its feature and
  // shapes) and mode, or false when none fits (no int8 shape, a K that does not divide 128, subgroups
  // of varying size that no pipeline can require, too little shared memory).
  static bool coop_plan(const DeviceInfo& d, Kind kind, bool gate, CoopPlan& plan);
  // Whether the device has what `kind` needs: the integer dot product (Dot), a plan for every mode
  // (Coop, CoopKhr).
  static bool available(const DeviceInfo& d, Kind kind);
  // Coop where available, else CoopKhr where available, else Dot: from the queried features alone. The
  // caller decides whether to use a GEMM at all (it needs the integer dot product for Dot).
  static Kind choose(const DeviceInfo& d);

  // Throws VulkanError when the device lacks what `kind` needs.
  TernaryGemm(const Context& ctx, bool f64, Kind kind);

  // As Kernels::ternary for a block of up to max_tokens tokens (the caller has checked the arguments),
  // with block scales d, d2 for TQ files. The SiLU gate's and the block-scaled pipelines are made on
  // first use.
  void record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, TernaryMode mode,
              const BufferRange& w, float scale, const BufferRange* w2, float scale2, const BufferRange& xq,
              const BufferRange& s, const BufferRange& y, uint32_t rows, uint32_t k, uint32_t max_tokens,
              const BufferRange* d = nullptr, const BufferRange* d2 = nullptr);

  Kind kind() const { return kind_; }
  // "dot-product GEMM, ..." or "cooperative-matrix GEMM (VK_KHR_cooperative_matrix), int8 16x8x32, ...".
  std::string describe() const;

 private:
  Kind kind_;
  std::unique_ptr<Pipeline> pipe_[4];    // per mode; the SiLU gate's (LLaMA files) on first use
  std::unique_ptr<Pipeline> scaled_[4];  // with block scales (TQ files), per mode, on first use
  uint32_t tile_rows_[4] = {}, tile_tokens_[4] = {};
  CoopPlan plan_[4];
  const Context& ctx_;
  bool f64_;
  void make_pipeline(uint32_t mode, bool scaled);
};

}  // namespace trit::vk
