#pragma once
// The decoder layers of one token as one dispatch of persistent workgroups (shaders/decode_layer.glsl):
// the five steps of every layer separated by grid barriers instead of dispatch boundaries, with each
// workgroup's next-step weights loading into registers while it waits. The layers of a dispatch (a
// layer group) lie in one buffer at a fixed stride, their caches likewise. Needs every workgroup resident
// at once: one per multiprocessor, where a vendor extension reports them, else as many as a measurement
// at load found resident (vulkan/occupancy.h), and checked with the kernel itself before it is used
// (record's residency_check); or a grid the caller forces (tests). The fused kernels
// (vulkan/fused_decode.h) stay the path everywhere else.
//
// A grid barrier that waits too long (a workgroup that never ran) gives up and raises a host-visible
// flag instead of hanging the device: failed() reports it, and the caller recomputes the token on the
// fused kernels and stops using this path.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "vulkan/context.h"
#include "vulkan/decode_graph.h"

namespace trit::vk {

struct LayerOffsets {
  // Byte offsets of the seven ternary matrices and four norms within a layer (the same for every layer).
  uint64_t wq, wk, wv, wo, gate, up, down;
  uint64_t attn_norm, attn_sub_norm, ffn_norm, ffn_sub_norm;
  // Block scales (TQ1_0, TQ2_0 files; DecodeGraph::block_scales): where each matrix's floats start, in
  // the same order as the matrices.
  uint64_t wq_d = 0, wk_d = 0, wv_d = 0, wo_d = 0, gate_d = 0, up_d = 0, down_d = 0;
  bool operator==(const LayerOffsets&) const = default;
};

// A layer group: its layers' weights in one buffer range at `stride` bytes apart, their key and value
// caches likewise at `cache_stride`.
struct LayerGroup {
  uint32_t first, count;
  BufferRange weights;
  uint64_t stride;
  BufferRange k_cache, v_cache;
  uint64_t cache_stride;
};

// The F16 embedding table (one binding) and the token buffer, for a dispatch whose first layer reads
// the token's row itself (rows: the table's rows; 0: x already holds the embedding, table and tokens
// are bound but not read).
struct Embedding {
  BufferRange table, tokens;
  uint32_t rows = 0;
};

class PersistentDecode {
 public:
  struct Shape {
    uint32_t dim, ffn, heads, kv_heads, head_dim, layers;
    DecodeGraph graph;  // what a layer computes
  };
  struct Layout {
    uint32_t wg = 0, tpr = 0, groups = 0;
    uint32_t max_splits = 0;    // attention splits per KV head at most
    uint32_t prefetch = 0;      // uvec4s per lane for the widest step
    uint32_t value_parts = 4;   // attention's value pass: key groups summed in shared memory
    uint32_t shared_bytes = 0;  // shared memory of a workgroup (the same at any grid)
    // Where nonzero, a second pipeline (step_bits: decode_layer.glsl STEP_BITS) runs a batched step of
    // one token with the bits of the batched steps' kernels, whose one-token kernels' workgroup this
    // is (the caller sets it where those kernels and their attention allow: VulkanForward).
    uint32_t step_wg = 0;
  };
  // The layout for this shape on this device at `groups` workgroups (one per multiprocessor: the
  // caller's choice), or nullopt with the reason. groups 0: the grid is not known yet; the layout (its
  // groups 0, not to be run) gives the workgroup's size and shared memory to measure it with.
  static std::optional<Layout> plan(const DeviceInfo& d, const Shape& s, bool f64, uint32_t groups,
                                    std::string* why = nullptr);
  // Whether a step's weights for one lane (layout.prefetch) leave the kernel within the registers a
  // workgroup of 512 gets on a GPU (128 an invocation at one workgroup per multiprocessor), or else
  // why not. A plan past it is correct but spills (tests force such grids); the engine does not
  // choose it.
  static bool fits_registers(const Layout& layout, std::string* why = nullptr);

  // Starts compiling the kernel on another thread (the NVIDIA driver takes seconds for it the first
  // time on a machine, before its disk cache holds it): ready() says when record() can use it.
  // scales: the matrices' scales, layer by layer (wq, wk, wv, wo, gate, up, down).
  PersistentDecode(const Context& ctx, const Layout& layout, const Shape& shape, bool kv_f16, bool f64, bool dot,
                   const std::vector<float>& scales);
  ~PersistentDecode();

  // Whether the kernel (and its step-bits pipeline, where planned) is compiled (never blocks); wait()
  // blocks until it is. Both throw VulkanError if the compilation failed.
  bool ready();
  void wait();
  // Whether the step-bits pipeline is there (Layout::step_wg, and not dropped since).
  bool step_bits() const { return step_pipe_ != nullptr; }
  // Stops offering it (its grid was not resident, say); the one-token pipeline stays.
  void drop_step_bits() { step_pipe_.reset(); }

  // Bytes of the buffers record() takes besides the model's: act (q | o | a) and the attention partials.
  uint64_t act_bytes() const;
  uint64_t partial_bytes() const;

  // The layers of one group: reads x and the caches, writes x (and the caches at params.pos0; step_bits:
  // at the position and cache rows of params' batch slot 0). `group` numbers the group (each has its
  // own barrier count); `act`, `partials` sized as above.
  // residency_check > 0:
  // instead of the layers, only whether a grid of that many workgroups of this kernel was resident at
  // once (each counts in and waits, bounded, for the others): failed() after the submit says it was
  // not. The grid comes from the multiprocessor count or a measurement with a probe kernel whose
  // registers may differ; this checks the kernel itself before the engine relies on it.
  void record(CommandSequence& cs, DescriptorAllocator& da, const BufferRange& params, const LayerGroup& layers,
              uint32_t group, const LayerOffsets& off, float eps, const BufferRange& x, const BufferRange& act,
              const BufferRange& rope, const BufferRange& partials, const Embedding& embedding,
              uint32_t residency_check = 0, bool step_bits = false);

  // Before each host call that may submit the recorded layers (nothing of theirs in flight): zeroes the
  // grid barriers' arrival and QKV-ready counts, which only grow within a call.
  void begin_call();
  // The flag a grid barrier raises when it gave up waiting; clear_failure() lowers it (before a
  // residency check, whose failure raises it too).
  bool failed() const;
  void clear_failure();
  // Tests: raises the flag as a barrier that gave up would, so the recovery can be tested where no
  // workgroup ever waits too long.
  void raise_failure_for_test();
  const Layout& layout() const { return layout_; }
  // The driver's statistics of the kernel (Pipeline::statistics), each line prefixed with its name.
  std::vector<std::string> statistics() const;

 private:
  Layout layout_;
  Shape shape_;
  bool f64_;
  std::unique_ptr<Pipeline> pipe_, step_pipe_;
  Buffer sync_, failed_, scales_;
  std::vector<uint32_t> sync_zeros_;  // sync_'s words, zeroed (uploaded before each host call)
};

}  // namespace trit::vk
