// The prefill GEMM's pipelines and dispatch (vulkan/ternary_gemm.h).
#include "vulkan/ternary_gemm.h"

#include <algorithm>
#include <bit>

#include "vulkan/ceil_div.h"
#include "vulkan/kernels.h"

namespace trit::vk {
namespace {

// shaders/ternary_gemm.glsl: 256 threads, 64 rows x 64 tokens per workgroup.
constexpr uint32_t kDotRows = 64, kDotTokens = 64;
// Tile targets of the cooperative-matrix kernel: 64 rows x 64 tokens over 8 subgroups. 64 rows rather
// than 128 for the single-matrix modes: twice the workgroups for the 2560-row matrices of 2B4T (320
// per 512-token block instead of 160 on 132 SMs); measured on the H100 with the prefetch in place,
// pp512 19,842 -> 20,260 tokens/s.
constexpr uint32_t kCoopRows = 64, kCoopGateRows = 64, kCoopTokens = 64, kCoopSubgroups = 8;

const char* extension_name(TernaryGemm::Kind k) {
  return k == TernaryGemm::Kind::CoopKhr ? "VK_KHR_cooperative_matrix" : "VK_NV_cooperative_matrix";
}

}  // namespace

uint32_t TernaryGemm::CoopPlan::shared_bytes(bool gate) const {
  // As the shader: A (one or two matrices) and B rows of 9 uvec4s, or the int32 sums column major
  // with a 4-int pad, whichever is larger; plus common.glsl's reduction slots.
  const uint32_t nmat = gate ? 2 : 1;
  const uint32_t ab = (nmat * rows() + tokens()) * 9 * 16;
  const uint32_t c = nmat * tokens() * (rows() + 4) * 4;
  return std::max(ab, c) + 64 * (8 + 4);
}

bool TernaryGemm::coop_plan(const DeviceInfo& d, Kind kind, bool gate, CoopPlan& plan) {
  const bool khr = kind == Kind::CoopKhr;
  if (kind == Kind::Dot || !(khr ? d.cooperative_matrix_khr : d.cooperative_matrix_nv)) return false;
  const uint32_t sg = cooperative_subgroup_size(d);  // (gl_SubgroupID maps the subgroups to the tiles)
  if (sg == 0) return false;
  const uint32_t want_rows = gate ? kCoopGateRows : kCoopRows;
  bool found = false;
  for (const auto& s : khr ? d.coop_int8_shapes_khr : d.coop_int8_shapes) {
    // K must tile the 128-element I2_S block in 16-byte steps; M a multiple of 4 (the sums are stored
    // in uvec4 units); the tile must split over the subgroups.
    if (s.k == 0 || s.k % 16 || 128 % s.k || s.m == 0 || s.m % 4 || s.n == 0) continue;
    if (want_rows % s.m || kCoopTokens % s.n) continue;
    const uint32_t frag_rows = want_rows / s.m, frag_tokens = kCoopTokens / s.n;
    // Split kCoopSubgroups as wr x wc with wr | frag_rows and wc | frag_tokens, rows first.
    for (uint32_t wr = std::min(kCoopSubgroups, frag_rows); wr >= 1; --wr) {
      if (kCoopSubgroups % wr || frag_rows % wr) continue;
      const uint32_t wc = kCoopSubgroups / wr;
      if (frag_tokens % wc) continue;
      CoopPlan p{s.m, s.n, s.k, wr, wc, frag_rows / wr, frag_tokens / wc};
      if (p.shared_bytes(gate) > d.max_shared_memory) continue;
      const uint32_t wg = wr * wc * sg;
      if (wg > d.max_workgroup_invocations) continue;
      // The shader prefetches a block of codes and activations in at most 4 uvec4s per thread.
      if ((gate ? 2 : 1) * 2 * p.rows() > 4 * wg || p.tokens() * 8 > 4 * wg) continue;
      // Prefer the largest fragments (fewest instructions per product).
      if (!found || uint64_t{s.m} * s.n * s.k > uint64_t{plan.cm} * plan.cn * plan.ck) plan = p;
      found = true;
      break;
    }
  }
  return found;
}

bool TernaryGemm::available(const DeviceInfo& d, Kind kind) {
  if (kind == Kind::Dot) return d.integer_dot_product;
  CoopPlan single, gate;
  return coop_plan(d, kind, false, single) && coop_plan(d, kind, true, gate);
}

TernaryGemm::Kind TernaryGemm::choose(const DeviceInfo& d) {
  for (Kind k : {Kind::Coop, Kind::CoopKhr})
    if (available(d, k)) return k;
  return Kind::Dot;
}

TernaryGemm::TernaryGemm(const Context& ctx, bool f64, Kind kind) : kind_(kind), ctx_(ctx), f64_(f64) {
  if (kind == Kind::Dot && !ctx.info().integer_dot_product)
    throw VulkanError(ctx.info().name + " has no integer dot product in shaders, which the prefill GEMM needs");
  for (uint32_t mode = 0; mode < 3; ++mode) make_pipeline(mode, false);
}

void TernaryGemm::make_pipeline(uint32_t mode, bool scaled) {
  const DeviceInfo& d = ctx_.info();
  const std::string sfx = f64_ ? "_f64" : "";
  auto& pipe = scaled ? scaled_[mode] : pipe_[mode];
  if (kind_ == Kind::Dot) {
    pipe = std::make_unique<Pipeline>(ctx_, "ternary_gemm" + sfx, 8, 16, std::vector<uint32_t>{256, mode, scaled});
    tile_rows_[mode] = kDotRows;
    tile_tokens_[mode] = kDotTokens;
    return;
  }
  const bool khr = kind_ == Kind::CoopKhr;
  CoopPlan& p = plan_[mode];
  if (!coop_plan(d, kind_, mode >= 2, p))
    throw VulkanError(d.name + " offers no int8 cooperative-matrix shape (" + extension_name(kind_) +
                      ") the prefill GEMM can tile");
  const uint32_t sg = cooperative_subgroup_size(d);
  pipe = std::make_unique<Pipeline>(
      ctx_, "ternary_gemm_coop" + sfx + (khr ? "_khr" : ""), 8, 16,
      std::vector<uint32_t>{p.wr * p.wc * sg, mode, p.cm, p.cn, p.ck, p.wr, p.wc, p.fm, p.fn, scaled},
      required_subgroup_size(d, sg));
  tile_rows_[mode] = p.rows();
  tile_tokens_[mode] = p.tokens();
}

void TernaryGemm::record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, TernaryMode mode,
                         const BufferRange& w, float scale, const BufferRange* w2, float scale2, const BufferRange& xq,
                         const BufferRange& s, const BufferRange& y, uint32_t rows, uint32_t k, uint32_t max_tokens,
                         const BufferRange* d, const BufferRange* d2) {
  const auto m = static_cast<uint32_t>(mode);
  auto& pipe = d ? scaled_[m] : pipe_[m];
  if (!pipe) make_pipeline(m, d != nullptr);
  const BufferRange r[] = {params, w, w2 ? *w2 : w, xq, s, y, d ? *d : w, d2 ? *d2 : (d ? *d : w)};
  const uint32_t push[] = {rows, k, std::bit_cast<uint32_t>(scale), std::bit_cast<uint32_t>(scale2)};
  cs.dispatch(*pipe, da.make(*pipe, r), push, sizeof push, ceil_div(rows, tile_rows_[m]),
              ceil_div(max_tokens, tile_tokens_[m]));
}

std::string TernaryGemm::describe() const {
  if (kind_ == Kind::Dot) return "dot-product GEMM, 64 rows x 64 tokens per workgroup";
  const CoopPlan& p = plan_[0];
  return std::string("cooperative-matrix GEMM (") + extension_name(kind_) + "), int8 " + std::to_string(p.cm) + "x" +
         std::to_string(p.cn) + "x" + std::to_string(p.ck) + ", " + std::to_string(p.rows()) + " rows (gate " +
         std::to_string(plan_[2].rows()) + ") x " + std::to_string(p.tokens()) + " tokens per workgroup" +
         required_subgroup_note(ctx_.info());
}

}  // namespace trit::vk
