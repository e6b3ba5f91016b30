// The Vulkan forward pass (trit/vulkan_forward.h): uploads the model, allocates everything once, records
// the per-block command buffers once and replays them.
#include "trit/vulkan_forward.h"
#include "trit/gguf.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cpu/parallel.h"
#include "gguf/ternary_blocks.h"
#include "vulkan/batched_bitlinear.h"
#include "vulkan/ceil_div.h"
#include "vulkan/context.h"
#include "vulkan/fused_decode.h"
#include "vulkan/gpu_sampler.h"
#include "vulkan/grouped_attention.h"
#include "vulkan/kernels.h"
#include "vulkan/occupancy.h"
#include "vulkan/persistent_decode.h"

namespace trit {
namespace {

using vk::Buffer;
using vk::BufferRange;
using vk::MemoryUse;

uint64_t align_up(uint64_t v, uint64_t a) {
  return (v + a - 1) / a * a;
}

// Tokens per submit when every token's logits are wanted (eval with all_logits): those logits and their
// host-visible copy take tokens x vocab x 4 bytes each (263 MB for 512 tokens of a 128k vocabulary, most
// of it resident host memory), so all-logits submits are capped instead of growing with the prefill block.
constexpr uint32_t kAllLogitsBlock = 64;

// Sequences one engine holds at most (VulkanForwardOptions::sequences).
constexpr int32_t kMaxSequences = static_cast<int32_t>(kAllLogitsBlock);

// Which logits a recorded pass computes: none (a prefill block before the last), the last token's,
// every token's, or the last token's reduced on the device to the next token, which the device feeds
// to the next step: by argmax (Greedy) or by the GPU sampler (Sample).
// All: every row's logits, copied for the host; Argmax: every row's argmax instead (argmax_rows); Top:
// each row's slices' best (top_rows, for sampled steps).
enum class Head { None, Last, All, Argmax, Top, Greedy, Sample };

// Device-side decoding (greedy or sampled): submits of kChainSteps steps each (one of a single step
// where fewer remain), kChainsInFlight of them queued at once, their tokens published through a ring of
// as many slots as steps can be in flight. One submit per token left a submit boundary on every token
// (H100, context 128: 975-977 tokens/s chained against 928-967).
constexpr uint32_t kChainSteps = 4;
constexpr uint32_t kChainsInFlight = 2;
constexpr uint32_t kChainRing = kChainSteps * kChainsInFlight;

// Profile mode: one timestamp pool per recorded command buffer; labels[i] names the kernel group that
// ends at query i + 1 (query 0 is written at the start).
struct SeqProfile {
  std::string pass;
  std::unique_ptr<vk::TimestampPool> pool;
  std::vector<std::string> labels;
  std::vector<std::pair<std::string, double>> total_ns;  // per label, in recording order
  uint64_t submits = 0;
};

// A ternary matrix in the device layout: I2_S codes whatever the file's format (TQ1_0 and TQ2_0 are
// transcoded at upload, gguf/ternary_blocks.h), and for the TQ formats a float per 256-element block
// of a row at scales_offset (scales_bytes 0: one scale for the matrix).
struct MatrixSlot {
  uint64_t offset = 0, bytes = 0;
  uint64_t scales_offset = 0, scales_bytes = 0;
  float scale = 1.f;
  uint32_t rows = 0, cols = 0;
};

struct NormSlot {
  uint64_t offset = 0, bytes = 0;
};

// One layer's weights in one buffer: the seven ternary matrices and four norms (the sub-norms empty
// where the architecture has none).
struct LayerSlots {
  MatrixSlot wq, wk, wv, wo, gate, up, down;
  NormSlot attn_norm, attn_sub_norm, ffn_norm, ffn_sub_norm;
  uint64_t total = 0;

  vk::LayerOffsets offsets() const {
    return {wq.offset,          wk.offset,           wv.offset,
            wo.offset,          gate.offset,         up.offset,
            down.offset,        attn_norm.offset,    attn_sub_norm.offset,
            ffn_norm.offset,    ffn_sub_norm.offset, wq.scales_offset,
            wk.scales_offset,   wv.scales_offset,    wo.scales_offset,
            gate.scales_offset, up.scales_offset,    down.scales_offset};
  }
};

// Consecutive layers whose weights share one buffer (layer first + i at i * the layer stride) and whose
// key and value caches do likewise (at the cache stride): as many as one storage binding and one
// allocation hold, so the persistent kernel decodes a whole group in one dispatch.
struct LayerGroupBuffers {
  uint32_t first = 0, count = 0;
  Buffer weights, k_cache, v_cache;
};

}  // namespace

struct VulkanForward::Impl {
  ModelConfig cfg;
  KvPrecision kv = KvPrecision::F16;
  int32_t context = 0;
  uint32_t block = 0;
  int32_t sequences = 1;
  std::vector<int32_t> filled;  // positions each sequence holds
  uint64_t device_bytes = 0;

  std::unique_ptr<vk::Context> ctx;
  std::unique_ptr<vk::Kernels> kernels;
  std::unique_ptr<vk::FusedDecode> fused;         // null: decode runs the unfused kernels
  std::unique_ptr<vk::BatchedBitLinear> batched;  // a batched step's BitLinear kernels (with fused)
  // A batched step's attention (with fused) where the shape and device suit it; else the per-head
  // kernel (FusedDecode::attention).
  std::unique_ptr<vk::GroupedAttention> grouped;
  // One dispatch per layer on persistent workgroups (vulkan/persistent_decode.h); null where the device
  // cannot run it, and after it once failed (the fused kernels take over).
  std::unique_ptr<vk::PersistentDecode> persistent;
  bool persistent_live = false;  // its kernel is compiled and the one-token command buffers use it
  Buffer pact, ppart;            // its activations (q | o | a) and attention partials
  std::unique_ptr<vk::DescriptorAllocator> da;

  std::vector<LayerSlots> slots;
  uint64_t layer_stride = 0, cache_stride = 0, cache_bytes = 0;
  std::vector<LayerGroupBuffers> groups;
  std::vector<uint32_t> group_of;  // per layer
  std::vector<vk::RowChunk> embd_chunks;
  std::vector<Buffer> embd_bufs;
  std::vector<Buffer> head_bufs;  // an untied head's chunks (as embd_chunks); empty where it is tied
  const Buffer& head_table(size_t c) const { return head_bufs.empty() ? embd_bufs[c] : head_bufs[c]; }
  // The head's int8 copy of each chunk and its per-row bounds (Kernels::HeadBound); empty where the head
  // runs every row in F16. With the GPU sampler, the sampled steps' bounds, scratch and candidate list
  // (Kernels::HeadTopK; empty otherwise).
  std::vector<Buffer> head_q8, head_qc;
  Buffer topk_bounds, topk_scratch, sample_list;
  Buffer output_norm, rope;
  // Activations for a block of `block` tokens.
  Buffer x, xq, xs, q, k, v, o, a, hn, logits, attn_scratch;
  // Host-visible: per-submit parameters and tokens; logits are copied to `readback` for the host.
  Buffer params, tokens, readback;
  Buffer arrived;  // fused decode attention: per-head split counters, zero between uses
  // Device-side decoding: the step's parameters (advanced by the device), its input token (written by
  // the previous step's argmax or sampler), the ring the host reads tokens from, and the sampled steps'
  // draws (GpuSamplerDraw per ring slot, written by the host before each submit).
  Buffer step, next_token, ring, draws;
  Buffer greedy_scratch;     // the greedy step's (or the head's argmax's) arrival count and workgroup bests
  uint32_t head_groups = 0;  // workgroups of the one-token staged LM head over all embedding chunks
  // Per in-flight slot: a chain of kChainSteps steps, and a single step; greedy and sampled.
  struct Chained {
    std::unique_ptr<vk::CommandSequence> chain[kChainsInFlight], single[kChainsInFlight];
    // Profile mode: each slot's one-step sequence carries the timestamps (profiled calls submit one step
    // at a time).
    std::array<SeqProfile, kChainsInFlight> prof;
    // Slot i's sequences (null where not recorded).
    std::array<vk::CommandSequence*, 2> of_slot(uint32_t i) const { return {single[i].get(), chain[i].get()}; }
  } greedy, sampled;
  // Device-side sampling (vulkan/gpu_sampler.h): null where the device cannot run it.
  std::unique_ptr<vk::GpuSampler> sampler;
  Buffer sample_state;
  std::unique_ptr<vk::CommandSequence> decode, block_none, block_last, block_all;
  // With several sequences: the batched decode steps (one token of each of up to `sequences` of them),
  // recorded for a few sizes: class c takes steps of up to batch_sizes[c] tokens (ascending, the last
  // `sequences`), each ending in every row's logits (Head::All), in each row's argmax (Head::Argmax,
  // decode_batch_argmax) and in each row's slices' best (Head::Top, decode_batch_top). Steps of up to
  // kFewTokens run the one-token kernels (the same bits with fewer dispatches; H100, 2B4T shape,
  // tokens/s: a step of one 434-440 against 324-327 on the small-matrix kernels, of two 675-689
  // against 590-622; of three the small-matrix kernels win, 798-810 against 689-761), steps of one
  // apart, on those kernels compiled for one token (a lone stream 6-8% faster on an H200: the rows are
  // the same bits, since every kernel of a batched step sums as the others do, common.glsl's
  // add_squares and Kernels::rmsnorm_quant's `batched`); where the batched products run on cooperative
  // matrices, steps of fewer tokens than they win at are recorded apart on the small-matrix kernel
  // (vk::BatchedBitLinear::kCoopMinTokens).
  struct BatchStep {
    uint32_t max_tokens = 0;
    std::array<std::unique_ptr<vk::CommandSequence>, 3> seq;  // by head: All, Argmax, Top
    std::array<SeqProfile, 3> prof;
  };
  std::vector<BatchStep> batch_steps;
  // The argmax and top passes read the rows' penalised tokens: the host writes the lists to
  // batch_penalised and the step copies them to device memory first (every invocation of the pass
  // reads its row's whole list, which would otherwise cross PCIe); batch_best and batch_gathered hold
  // the slices' bests and those tokens' logits.
  Buffer batch_best, batch_penalised, batch_penalised_dev, batch_gathered;
  // Batched steps' head from the int8 table (Kernels::lm_head_batch), where it runs: each row's int8
  // planes of h and their constants (the final norm writes them), a threshold per row (zeroed at each
  // greedy step's start); for sampled steps' passes their thresholds and posts, the upper keys, and the
  // workgroups of all chunks along x. Empty otherwise.
  Buffer batch_planes, batch_plane_consts, batch_head_thr, batch_head_top, batch_upper;
  uint32_t batch_head_groups = 0;
  // Sampled steps: each row's slices' best kTopRowsMax and NaN flags (top_rows). The lists (half a MB a
  // step at 8 rows) are written in device memory and reach the host in one copy rather than as the
  // kernel's scattered writes into host memory.
  Buffer batch_top, batch_top_read, batch_nan;
  // Whether argmax_rows holds every row's penalised tokens (else the step's rows go to the host).
  static bool penalties_fit(std::span<const RowPenalty> penalties) {
    return std::none_of(penalties.begin(), penalties.end(), [](const RowPenalty& p) {
      return p.penalty != 1.f && p.tokens.size() > vk::Kernels::kArgmaxPenalisedMax;
    });
  }
  // The penalised tokens' lists for argmax_rows (a count, then the ids, per row), uploaded.
  std::vector<uint32_t> upload_penalties(std::span<const RowPenalty> penalties, size_t rows);
  static constexpr uint32_t kFewTokens = 2;
  Buffer batch_scratch, batch_arrived;  // (the arrival counters of the fused kernels' attention)
  // Where the grouped attention runs and the host sets steps up (setup_on_host): its grid for the step
  // being submitted (GroupedAttention::grid of the step's tokens and longest context), which the
  // dispatch reads when it runs. A recording for a server's whole context and every sequence would
  // otherwise launch, say, 26 splits of 16 tokens for 8 tokens that need 10. Elsewhere the recording's
  // grid stays: the grid copied in by the step, ordered into the indirect read by a barrier
  // (DRAW_INDIRECT), gave wrong steps on one H200 and right ones on another, and was not kept.
  Buffer batch_grid;
  // Batched steps of more than a few tokens run each BitLinear's product beside its quantization (no
  // barrier between: vk::BatchOverlap), with a count per BitLinear of the step and the flag a wait that
  // gave up raises. Then the step is redone and the steps are re-recorded with barriers for good.
  bool batch_overlap = false;
  Buffer batch_ready, batch_failed;
  // The host sees batch_penalised_dev, batch_ready, batch_head_thr and batch_grid (device-local memory it can map:
  // a BAR, an integrated GPU, lavapipe): it writes a batched step's penalty lists straight to the
  // device's copy and zeroes its counts itself (setup_step) instead of the step's transfers and their
  // barrier, which cost a short step a few percent.
  bool setup_on_host = false;
  std::vector<uint32_t> step_zeros;  // (setup_on_host) as many words as the larger of the two counts' buffers
  void setup_step() {
    if (!setup_on_host) return;
    for (Buffer* b : {&batch_ready, &batch_head_thr}) b->upload(step_zeros.data(), b->size());
  }
  bool batch_overlap_failed();
  bool profiling = false;
  SeqProfile prof_decode, prof_none, prof_last, prof_all;
  std::vector<SeqProfile*> profiles() {
    std::vector<SeqProfile*> out{&prof_decode, &prof_none, &prof_last, &prof_all};
    for (BatchStep& b : batch_steps)
      for (SeqProfile& p : b.prof) out.push_back(&p);
    for (Chained* c : {&greedy, &sampled})
      for (SeqProfile& p : c->prof) out.push_back(&p);
    return out;
  }

  void plan_layers(const Model& model);
  void plan_groups();
  // Layer l's weights, key cache and value cache within its group's buffers.
  BufferRange layer_range(uint32_t l) const {
    const LayerGroupBuffers& g = groups[group_of[l]];
    return {&g.weights, (l - g.first) * layer_stride, slots[l].total};
  }
  BufferRange k_range(uint32_t l) const {
    const LayerGroupBuffers& g = groups[group_of[l]];
    return {&g.k_cache, (l - g.first) * cache_stride, cache_bytes};
  }
  BufferRange v_range(uint32_t l) const {
    const LayerGroupBuffers& g = groups[group_of[l]];
    return {&g.v_cache, (l - g.first) * cache_stride, cache_bytes};
  }
  void upload(const Model& model);
  // A command buffer of one pass, or of `steps` device-greedy steps back to back.
  // batch: a batched decode step of up to max_tokens sequences (Head::All).
  void record(vk::CommandSequence& cs, uint32_t max_tokens, Head head, SeqProfile* prof, const Buffer& params_buf,
              const Buffer& tokens_buf, uint32_t steps = 1, bool batch = false);
  void record_pass(vk::CommandSequence& cs, uint32_t max_tokens, Head head, SeqProfile* prof, const Buffer& params_buf,
                   const Buffer& tokens_buf, bool batch);
  void collect(SeqProfile& p);
  // A batched step's submit (decode_batch, decode_batch_argmax, decode_batch_top): its slots and tokens up,
  // the step ending in `head` run.
  void submit_batch(std::span<const BatchToken> batch, Head head);
  void record_decoders();
  void record_batch_steps();
  // The batched steps' index of a head (All, Argmax or Top), and the class that takes a step of n tokens.
  static size_t head_index(Head head) { return head == Head::All ? 0 : head == Head::Argmax ? 1 : 2; }
  BatchStep& batch_step_for(uint32_t n) {
    for (BatchStep& b : batch_steps)
      if (n <= b.max_tokens) return b;
    throw std::logic_error("batched step of more tokens than sequences");
  }
  // `s`, made on first use (a recorded sequence is re-recorded, not replaced: callers hold references).
  vk::CommandSequence& made(std::unique_ptr<vk::CommandSequence>& s) {
    if (!s) s = std::make_unique<vk::CommandSequence>(*ctx);
    return *s;
  }
  void adopt_persistent(bool wait);
  // A persistent kernel for `groups` workgroups (compiling in the background), where the plan allows.
  // forced: the caller's grid (tests), taken even where its weights would spill registers.
  void make_persistent(uint32_t grid, bool forced);
  bool persistent_resident(uint32_t grid, bool step_bits = false);
  // What make_persistent needs again when adopt_persistent finds a smaller grid resident.
  std::vector<float> persistent_scales;
  vk::PersistentDecode::Shape persistent_shape{};
  bool persistent_regrid = false;  // the grid may still be corrected once
  std::string persistent_why;      // why decode does not run the persistent kernel (empty: it does)
  bool persistent_failed();
  // The one-token kernels' workgroup where a batched step of one token can run on the persistent kernel
  // with the batched steps' bits (PersistentDecode::Layout::step_wg), for a kernel of `layout`; else 0.
  uint32_t step_bits_workgroup(const vk::PersistentDecode::Layout& layout) const;
  // Whether batched steps of one token run on the persistent kernel (its step-bits pipeline).
  bool lone_on_persistent() const { return persistent_live && persistent && persistent->step_bits(); }
  // The loop of decode_greedy and decode_sample on `seqs`: before_submit(first, n) runs before the
  // submit of steps first .. first + n - 1, restart(done, outs) before they are redone from step done
  // (outs: the tokens of steps 0 .. done - 1) once the persistent kernel failed.
  int32_t chain(Chained& seqs, int32_t token, int32_t pos, int32_t max_steps,
                const std::function<bool(int32_t)>& on_token,
                const std::function<void(int32_t, int32_t)>& before_submit,
                const std::function<void(int32_t, const std::vector<int32_t>&)>& restart);
  void check_shape() const;
  // The fused decode attention's workgroup: wider than the split's keys scores more keys per pass (32
  // instead of 8 at 256; H100 at context 3872: 1.06 ms of attention per token at 256, 1.11 at 64).
  uint32_t decode_attention_wg() const {
    return std::max(kernels->split_keys(), std::min(256u, ctx->info().max_workgroup_invocations));
  }
  // A batched step's attention, whatever its token count: one invocation per output dimension, so none
  // idles in the value pass and more workgroups are resident at once. Only where every split still has
  // an invocation of the merge, so the rows' bits are the one-token kernel's (attention_merge.glsl sums
  // the splits' denominators per invocation: the same sums while each invocation holds at most one
  // split).
  uint32_t batch_attention_wg() const {
    const uint32_t sub = std::max(8u, ctx->info().subgroup_size);  // (attention.glsl: a multiple of 8)
    const uint32_t w = std::max(kernels->split_keys(), (cfg.head_dim + sub - 1) / sub * sub);
    const bool fits = w <= ctx->info().max_workgroup_invocations && cfg.head_dim <= 4 * w &&
                      kernels->attention_splits(static_cast<uint32_t>(context)) <= w;
    return fits ? w : decode_attention_wg();
  }
};

void VulkanForward::Impl::check_shape() const {
  auto fail = [&](const std::string& why) { throw VulkanError("the Vulkan engine cannot run this model: " + why); };
  if (cfg.dim % 128) fail("the hidden size " + std::to_string(cfg.dim) + " is not a multiple of 128");
  if (cfg.ffn % 128) fail("the FFN size " + std::to_string(cfg.ffn) + " is not a multiple of 128");
  if ((cfg.heads * cfg.head_dim) % 128) fail("heads x head_dim is not a multiple of 128");
  if (cfg.head_dim % 4) fail("head_dim " + std::to_string(cfg.head_dim) + " is not a multiple of 4");
  if (cfg.head_dim > kernels->max_head_dim())
    fail("head_dim " + std::to_string(cfg.head_dim) + " exceeds the attention kernel's " +
         std::to_string(kernels->max_head_dim()));
  if (cfg.kv_heads == 0 || cfg.heads % cfg.kv_heads) fail("the query heads are not a multiple of the KV heads");
}

void VulkanForward::Impl::plan_layers(const Model& model) {
  const uint64_t align = std::max<uint64_t>(256, ctx->info().min_storage_offset_alignment);
  const uint64_t range = ctx->max_binding_range();
  for (uint32_t l = 0; l < cfg.layers; ++l) {
    const LayerWeights& lw = model.weights().layers[l];
    LayerSlots s;
    uint64_t off = 0;
    auto mat = [&](const TernaryMatrix& m, MatrixSlot& slot, const char* name) {
      slot.rows = m.rows;
      slot.cols = m.cols;
      slot.scale = m.scale;
      slot.bytes = uint64_t{m.rows} * m.cols / 4;
      if (slot.bytes > range)
        throw VulkanError("layer " + std::to_string(l) + " " + name + " takes " + std::to_string(slot.bytes) +
                          " bytes, more than one storage binding may cover (" + std::to_string(range) + ")");
      slot.offset = off;
      off = align_up(off + slot.bytes, align);
      if (const uint32_t sb = ternary::scale_block(m.format)) {
        slot.scales_bytes = uint64_t{m.rows} * (m.cols / sb) * 4;
        slot.scales_offset = off;
        off = align_up(off + slot.scales_bytes, align);
      }
    };
    auto norm = [&](std::span<const float> w, NormSlot& slot) {
      slot.bytes = w.size() * sizeof(float);
      slot.offset = off;
      off = align_up(off + slot.bytes, align);
    };
    mat(lw.wq, s.wq, "attn_q");
    mat(lw.wk, s.wk, "attn_k");
    mat(lw.wv, s.wv, "attn_v");
    mat(lw.wo, s.wo, "attn_output");
    mat(lw.gate, s.gate, "ffn_gate");
    mat(lw.up, s.up, "ffn_up");
    mat(lw.down, s.down, "ffn_down");
    norm(lw.attn_norm, s.attn_norm);
    norm(lw.attn_sub_norm, s.attn_sub_norm);
    norm(lw.ffn_norm, s.ffn_norm);
    norm(lw.ffn_sub_norm, s.ffn_sub_norm);
    s.total = off;
    slots.push_back(s);
  }
}

void VulkanForward::Impl::plan_groups() {
  const uint64_t align = std::max<uint64_t>(256, ctx->info().min_storage_offset_alignment);
  uint64_t cap = ctx->max_binding_range();
  if (ctx->info().max_allocation_size) cap = std::min(cap, ctx->info().max_allocation_size);
  layer_stride = 0;
  for (const auto& s : slots) layer_stride = std::max(layer_stride, align_up(s.total, align));
  cache_stride = align_up(cache_bytes, align);
  uint64_t per = cfg.layers;
  per = std::min(per, std::max<uint64_t>(1, cap / layer_stride));
  per = std::min(per, std::max<uint64_t>(1, cap / cache_stride));
  for (uint32_t first = 0; first < cfg.layers; first += static_cast<uint32_t>(per)) {
    LayerGroupBuffers g;
    g.first = first;
    g.count = static_cast<uint32_t>(std::min<uint64_t>(per, cfg.layers - first));
    for (uint32_t i = 0; i < g.count; ++i) group_of.push_back(static_cast<uint32_t>(groups.size()));
    groups.push_back(std::move(g));
  }
}

void VulkanForward::Impl::upload(const Model& model) {
  const ModelWeights& w = model.weights();
  for (LayerGroupBuffers& g : groups) {
    g.weights = Buffer(*ctx, g.count * layer_stride, MemoryUse::Device);
    g.k_cache = Buffer(*ctx, g.count * cache_stride, MemoryUse::Device);
    g.v_cache = Buffer(*ctx, g.count * cache_stride, MemoryUse::Device);
  }
  for (uint32_t l = 0; l < cfg.layers; ++l) {
    const LayerWeights& lw = w.layers[l];
    const LayerSlots& s = slots[l];
    const BufferRange at = layer_range(l);
    Buffer& b = groups[group_of[l]].weights;
    auto mat = [&](const TernaryMatrix& m, const MatrixSlot& slot) {
      if (!slot.scales_bytes) return b.upload(m.codes, slot.bytes, at.offset + slot.offset);
      std::vector<uint8_t> codes(slot.bytes);
      std::vector<float> scales(slot.scales_bytes / 4);
      const uint64_t row_codes = m.cols / 4, row_blocks = m.cols / ternary::kTqBlock;
      // Rows over the host's cores: a 10B model's TQ1_0 decode of base-3 bytes took 2-3 s on one.
      cpu::parallel_for(m.rows, std::max(1u, std::thread::hardware_concurrency()), [&](std::size_t r0, std::size_t r1) {
        for (auto r = static_cast<uint32_t>(r0); r < r1; ++r)
          ternary::transcode_row_i2s(m, r, codes.data() + r * row_codes, scales.data() + r * row_blocks);
      });
      b.upload(codes.data(), slot.bytes, at.offset + slot.offset);
      b.upload(scales.data(), slot.scales_bytes, at.offset + slot.scales_offset);
    };
    auto norm = [&](std::span<const float> vals, const NormSlot& slot) {
      if (slot.bytes) b.upload(vals.data(), slot.bytes, at.offset + slot.offset);
    };
    mat(lw.wq, s.wq);
    mat(lw.wk, s.wk);
    mat(lw.wv, s.wv);
    mat(lw.wo, s.wo);
    mat(lw.gate, s.gate);
    mat(lw.up, s.up);
    mat(lw.down, s.down);
    norm(lw.attn_norm, s.attn_norm);
    norm(lw.attn_sub_norm, s.attn_sub_norm);
    norm(lw.ffn_norm, s.ffn_norm);
    norm(lw.ffn_sub_norm, s.ffn_sub_norm);
  }
  const uint64_t row_bytes = uint64_t{cfg.dim} * 2;
  for (const auto& c : embd_chunks) {
    embd_bufs.emplace_back(*ctx, c.rows * row_bytes, MemoryUse::Device);
    embd_bufs.back().upload(w.token_embd + uint64_t{c.row0} * cfg.dim, c.rows * row_bytes);
    if (!w.output) continue;
    head_bufs.emplace_back(*ctx, c.rows * row_bytes, MemoryUse::Device);
    head_bufs.back().upload(w.output + uint64_t{c.row0} * cfg.dim, c.rows * row_bytes);
  }
  output_norm = Buffer(*ctx, cfg.dim * 4, MemoryUse::Device);
  output_norm.upload(w.output_norm.data(), cfg.dim * 4);
  if (kernels->f64()) {
    const auto table = vk::make_rope_table_f64(static_cast<uint32_t>(context), cfg.head_dim, cfg.rope_base);
    rope = Buffer(*ctx, table.size() * 8, MemoryUse::Device);
    rope.upload(table.data(), table.size() * 8);
  } else {
    const auto table = vk::make_rope_table(static_cast<uint32_t>(context), cfg.head_dim, cfg.rope_base);
    rope = Buffer(*ctx, table.size() * 4, MemoryUse::Device);
    rope.upload(table.data(), table.size() * 4);
  }
}

// The whole forward pass of up to max_tokens tokens as one command buffer. Every kernel reads the
// position and token count from `params`, so this is recorded once and replayed.
void VulkanForward::Impl::record(vk::CommandSequence& cs, uint32_t max_tokens, Head head, SeqProfile* prof,
                                 const Buffer& params_buf, const Buffer& tokens_buf, uint32_t steps, bool batch) {
  cs.begin();
  for (uint32_t s = 0; s < steps; ++s) record_pass(cs, max_tokens, head, prof, params_buf, tokens_buf, batch);
  cs.end();
}

void VulkanForward::Impl::record_pass(vk::CommandSequence& cs, uint32_t max_tokens, Head head, SeqProfile* prof,
                                      const Buffer& params_buf, const Buffer& tokens_buf, bool batch) {
  vk::Kernels& kn = *kernels;
  vk::DescriptorAllocator& d = *da;
  const BufferRange P{&params_buf, 0, 0};
  const uint32_t dim = cfg.dim, qdim = cfg.heads * cfg.head_dim, ffn = cfg.ffn;
  const float eps = cfg.rms_eps;
  auto R = [](const Buffer& b) { return BufferRange{&b, 0, 0}; };
  const BufferRange X = R(x), XQ = R(xq), XS = R(xs);

  // A device-chained step follows the previous one in queue order without the host in between: wait
  // for its writes (the next token, the position) before the embedding reads them.
  if (head == Head::Greedy || head == Head::Sample) cs.barrier();
  // Profile mode: a timestamp after the barrier that ends each kernel group, labelled with the group.
  if (prof) {
    prof->pool = std::make_unique<vk::TimestampPool>(*ctx, 16 * cfg.layers + 16);
    prof->pool->reset(cs.handle());
    prof->labels.clear();
    cs.timestamp(prof->pool->handle(), 0);
  }
  auto mark = [&](const char* label) {
    if (!prof) return;
    prof->labels.emplace_back(label);
    if (prof->labels.size() >= prof->pool->count()) throw VulkanError("profile: too many timestamps for the pool");
    cs.timestamp(prof->pool->handle(), static_cast<uint32_t>(prof->labels.size()));
  };
  // A step's last group: nothing else orders its end before the timestamp (end() orders it for the
  // host), so profile mode adds a barrier only so the timestamp waits for it.
  auto mark_last = [&](const char* label) {
    if (prof) cs.barrier(true);
    mark(label);
  };
  // A batched step whose products overlap their quantizations starts with its counts at zero, and one
  // ending in its rows' argmax or best with their penalised tokens in device memory.
  const bool overlapped = batch_overlap && fused && batched && batch && max_tokens > kFewTokens;
  const bool penalised = head == Head::Argmax || head == Head::Top;
  const bool int8_head = (head == Head::Argmax || head == Head::Top) && batch_head_thr.size() > 0;
  const bool step_grid = batch && grouped && setup_on_host;
  // (Where the host sees those buffers it writes them before the submit instead: setup_on_host.)
  if (!setup_on_host) {
    if (overlapped) cs.fill(batch_ready, 0, batch_ready.size(), 0);
    if (penalised) cs.copy(batch_penalised, 0, batch_penalised_dev, 0, batch_penalised.size());
    if (int8_head && head == Head::Argmax) cs.fill(batch_head_thr, 0, batch_head_thr.size(), 0);
    if (overlapped || penalised) cs.barrier(true);
  }
  // Decode on the persistent kernel reads the embedding itself where the table is one binding.
  // A batched step of one token (a lone stream among several sequences) runs there too, on the
  // kernel's step-bits pipeline: the bits its step gives on the batched kernels.
  const bool lone_step = batch && max_tokens == 1 && lone_on_persistent();
  const bool persistent_decode = (persistent_live && max_tokens == 1 && !batch) || lone_step;
  const bool embed_in_layers = persistent_decode && embd_chunks.size() == 1;
  if (!embed_in_layers) {
    for (size_t c = 0; c < embd_chunks.size(); ++c)
      kn.embed(cs, d, P, R(tokens_buf), R(embd_bufs[c]), X, dim, embd_chunks[c].row0, embd_chunks[c].rows, max_tokens);
    cs.barrier();
    mark("embed");
  }
  // Decode on the persistent kernel: one dispatch per layer group (vulkan/persistent_decode.h).
  for (uint32_t gi = 0; persistent_decode && gi < groups.size(); ++gi) {
    const LayerGroupBuffers& g = groups[gi];
    const vk::LayerGroup lg{g.first, g.count, R(g.weights), layer_stride, R(g.k_cache), R(g.v_cache), cache_stride};
    const vk::Embedding emb{R(embd_bufs[0]), R(tokens_buf), embed_in_layers && gi == 0 ? embd_chunks[0].rows : 0};
    persistent->record(cs, d, P, lg, gi, slots[g.first].offsets(), eps, X, R(pact), R(rope), R(ppart), emb, 0,
                       lone_step);
    cs.barrier();
    mark("decode_layers");
  }
  for (uint32_t l = 0; !persistent_decode && l < cfg.layers; ++l) {
    const LayerSlots& s = slots[l];
    const BufferRange lb = layer_range(l), kc = k_range(l), vc = v_range(l);
    auto M = [&](const MatrixSlot& m) { return BufferRange{lb.buffer, lb.offset + m.offset, m.bytes}; };
    auto N = [&](const NormSlot& n) { return BufferRange{lb.buffer, lb.offset + n.offset, n.bytes}; };
    const BufferRange scratch{&attn_scratch, 0, 0};

    // Block scales (TQ files) where the matrix has them.
    auto D = [&](const MatrixSlot& m) {
      return m.scales_bytes
                 ? std::optional<BufferRange>(BufferRange{lb.buffer, lb.offset + m.scales_offset, m.scales_bytes})
                 : std::nullopt;
    };
    const Architecture& ar = cfg.arch;
    // The fused kernels' matrices, and their attention: one token's, or a batched step's, which every
    // class of batched step shares (a row's bits must not depend on the size of its step).
    auto W = [&](const MatrixSlot& m) { return vk::MatrixRef{M(m), m.scale, D(m)}; };
    auto fused_attention = [&] {
      if (batch && grouped) {
        const BufferRange g = R(batch_grid);
        grouped->record(cs, d, P, R(q), kc, vc, R(o), BufferRange{&batch_scratch, 0, 0}, R(batch_arrived), max_tokens,
                        static_cast<uint32_t>(context), step_grid ? &g : nullptr);
        return;
      }
      fused->attention(cs, d, P, R(q), kc, vc, R(o), batch ? BufferRange{&batch_scratch, 0, 0} : scratch,
                       batch ? R(batch_arrived) : R(arrived), cfg.heads, cfg.kv_heads, cfg.head_dim,
                       static_cast<uint32_t>(context), batch ? batch_attention_wg() : decode_attention_wg(),
                       kn.split_keys(), batch ? max_tokens : 0);
    };
    if (fused && batched && batch && max_tokens > kFewTokens) {
      // A batched step: five dependent steps per layer as one token's, each BitLinear two dispatches
      // (the tokens' rows quantized once, then the weights read once for all of them). A step of a few
      // tokens runs the one-token kernels below, which compute the same bits with fewer dispatches.
      // Barriers separate the five; only a product overlaps its quantization. Counts in place of the
      // other barriers (each dispatch waiting for its predecessor's workgroups, as the products wait for
      // their rows) were slower: a wait and a signal cost about what the barrier they replace does
      // (docs/benchmarks.md, the designs measured and not kept).
      vk::BatchedBitLinear& bb = *batched;
      const BufferRange attn_norm = N(s.attn_norm), attn_sub = N(s.attn_sub_norm), ffn_norm = N(s.ffn_norm),
                        ffn_sub = N(s.ffn_sub_norm);
      const vk::BatchRows h{XQ, XS, max_tokens};
      // (which: the layer's BitLinear 0-3, for its count in batch_ready)
      auto in = [&](const BufferRange& rows, const BufferRange* nw, uint32_t which) {
        std::optional<vk::BatchOverlap> ov;
        if (overlapped) ov = vk::BatchOverlap{R(batch_ready), R(batch_failed), 4 * l + which};
        return vk::BatchInput{rows, nw ? std::optional<BufferRange>(*nw) : std::nullopt, eps, h, ov};
      };
      bb.qkv(cs, d, P, W(s.wq), W(s.wk), W(s.wv), in(X, &attn_norm, 0), R(q), R(rope), kc, vc, dim, qdim,
             cfg.kv_heads * cfg.head_dim, cfg.head_dim);
      cs.barrier();
      mark("norm+qkv+rope_kv");
      fused_attention();
      cs.barrier();
      mark("attention");
      bb.residual(cs, d, P, W(s.wo), in(R(o), ar.sub_norms ? &attn_sub : nullptr, 1), X, s.wo.rows, qdim);
      cs.barrier();
      mark("norm+wo+residual");
      bb.gate(cs, d, P, W(s.gate), W(s.up), in(X, &ffn_norm, 2), R(a), s.gate.rows, dim);
      cs.barrier();
      mark(ar.ffn == FfnKind::SiluGated ? "norm+gate_up_silu" : "norm+gate_up_relu2");
      bb.residual(cs, d, P, W(s.down), in(R(a), ar.sub_norms ? &ffn_sub : nullptr, 3), X, s.down.rows, ffn);
      cs.barrier();
      mark("norm+down+residual");
      continue;
    }
    if (fused && (max_tokens == 1 || batch)) {
      // Decode: five dependent steps per layer (vulkan/fused_decode.h), for one token or for each token
      // of a batched step (the weights read once for all of them).
      vk::FusedDecode& fd = *fused;
      const BufferRange attn_sub = N(s.attn_sub_norm), ffn_sub = N(s.ffn_sub_norm);
      const uint32_t nb = batch ? max_tokens : 0;  // (0: the one-token kernels)
      fd.qkv(cs, d, P, W(s.wq), W(s.wk), W(s.wv), X, N(s.attn_norm), eps, R(q), R(rope), kc, vc, dim, qdim,
             cfg.kv_heads * cfg.head_dim, cfg.head_dim, nb);
      cs.barrier();
      mark("norm+qkv+rope_kv");
      fused_attention();
      cs.barrier();
      mark("attention");
      fd.residual(cs, d, P, W(s.wo), R(o), ar.sub_norms ? &attn_sub : nullptr, eps, X, s.wo.rows, qdim, nb);
      cs.barrier();
      mark("norm+wo+residual");
      fd.gate(cs, d, P, W(s.gate), W(s.up), X, N(s.ffn_norm), eps, R(a), s.gate.rows, dim, nb);
      cs.barrier();
      mark(ar.ffn == FfnKind::SiluGated ? "norm+gate_up_silu" : "norm+gate_up_relu2");
      fd.residual(cs, d, P, W(s.down), R(a), ar.sub_norms ? &ffn_sub : nullptr, eps, X, s.down.rows, ffn, nb);
      cs.barrier();
      mark("norm+down+residual");
      continue;
    }

    auto T = [&](vk::TernaryMode mode, const MatrixSlot& m, const MatrixSlot* m2, const BufferRange& out,
                 uint32_t cols) {
      const auto dm = D(m);
      std::optional<BufferRange> w2, d2;
      if (m2) w2 = M(*m2), d2 = D(*m2);
      kn.ternary(cs, d, P, mode, M(m), m.scale, w2 ? &*w2 : nullptr, m2 ? m2->scale : 1.f, XQ, XS, out, m.rows, cols,
                 max_tokens, dm ? &*dm : nullptr, d2 ? &*d2 : nullptr, !batch);
    };
    BufferRange w = N(s.attn_norm);
    kn.rmsnorm_quant(cs, d, P, X, &w, nullptr, &XQ, &XS, dim, eps, max_tokens);
    cs.barrier();
    mark("attn_norm+quant");
    T(vk::TernaryMode::Store, s.wq, nullptr, R(q), dim);
    T(vk::TernaryMode::Store, s.wk, nullptr, R(k), dim);
    T(vk::TernaryMode::Store, s.wv, nullptr, R(v), dim);
    cs.barrier();
    mark("qkv");
    kn.rope_kv(cs, d, P, R(q), R(k), R(v), R(rope), kc, vc, cfg.heads, cfg.kv_heads, cfg.head_dim, max_tokens,
               ar.rope == RopeStyle::Normal);
    cs.barrier();
    mark("rope_kv");
    const BufferRange batch_split{&batch_scratch, 0, 0};
    kn.attention(cs, d, P, R(q), kc, vc, R(o), cfg.heads, cfg.kv_heads, cfg.head_dim, max_tokens,
                 static_cast<uint32_t>(context), batch ? &batch_split : &scratch, batch);
    cs.barrier();
    mark("attention");
    w = N(s.attn_sub_norm);
    kn.rmsnorm_quant(cs, d, P, R(o), ar.sub_norms ? &w : nullptr, nullptr, &XQ, &XS, qdim, eps, max_tokens);
    cs.barrier();
    mark(ar.sub_norms ? "sub_norm+quant" : "quant");
    T(vk::TernaryMode::Accumulate, s.wo, nullptr, X, qdim);
    cs.barrier();
    mark("wo+residual");
    w = N(s.ffn_norm);
    kn.rmsnorm_quant(cs, d, P, X, &w, nullptr, &XQ, &XS, dim, eps, max_tokens);
    cs.barrier();
    mark("ffn_norm+quant");
    const bool silu = ar.ffn == FfnKind::SiluGated;
    T(silu ? vk::TernaryMode::SiluGate : vk::TernaryMode::Gate, s.gate, &s.up, R(a), dim);
    cs.barrier();
    mark(silu ? "gate_up_silu" : "gate_up_relu2");
    w = N(s.ffn_sub_norm);
    kn.rmsnorm_quant(cs, d, P, R(a), ar.sub_norms ? &w : nullptr, nullptr, &XQ, &XS, ffn, eps, max_tokens);
    cs.barrier();
    mark(ar.sub_norms ? "ffn_sub_norm+quant" : "quant");
    T(vk::TernaryMode::Accumulate, s.down, nullptr, X, ffn);
    cs.barrier();
    mark("down+residual");
  }
  if (head != Head::None) {
    const BufferRange on = R(output_norm), H = R(hn);
    const bool last = head != Head::All && head != Head::Argmax && head != Head::Top;
    // The last token's logits: the staged one-token head applies the final norm itself (no norm
    // dispatch), where the device runs it.
    const bool normed = last && kn.lm_head_norms(dim);
    const BufferRange HP = R(batch_planes), HC = R(batch_plane_consts);
    if (!normed) {
      kn.rmsnorm_quant(cs, d, P, X, &on, &H, int8_head ? &HP : nullptr, int8_head ? &HC : nullptr, dim, eps, max_tokens,
                       last, batch);
      cs.barrier();
      mark("final_norm");
    }
    const uint32_t rows_out = last ? 1 : max_tokens;
    // A sampled step from the int8 table: the head's two passes compute and list only the rows that can
    // be among the sampler's top k after the penalty (lm_head.glsl TOPK), and the sampler reads those.
    if (normed && head == Head::Sample && sample_list.size() > 0) {
      vk::HeadTopK tk{R(sample_state), R(topk_bounds), R(topk_scratch), R(sample_list), 0, head_groups};
      for (const vk::TopKPass pass : {vk::TopKPass::Bounds, vk::TopKPass::Rows}) {
        tk.group0 = 0;
        for (size_t c = 0; c < embd_chunks.size(); ++c) {
          const vk::RowChunk& ch = embd_chunks[c];
          kn.lm_head_topk(cs, d, P, R(head_table(c)), X, on, eps, R(logits), ch.rows, dim, ch.row0, cfg.vocab, pass,
                          vk::HeadBound{R(head_q8[c]), R(head_qc[c])}, tk);
          tk.group0 += kn.lm_head_groups(ch.rows, cfg.vocab);
        }
        cs.barrier();
      }
      mark("lm_head_int8_topk");
      const BufferRange list = R(sample_list);
      sampler->record(cs, d, BufferRange{&logits, 0, uint64_t{cfg.vocab} * 4}, cfg.vocab, R(sample_state),
                      vk::GpuSamplerChain{P, R(draws), R(next_token), R(ring), kChainRing}, &list);
      mark_last("sample");
      return;
    }
    // A greedy step on the staged head: the head's workgroups also take the argmax and publish the token
    // (lm_head.glsl ARGMAX), so no greedy_step dispatch follows.
    vk::HeadArgmax argmax{R(next_token), R(ring), R(greedy_scratch), kChainRing, 0, head_groups};
    const bool fold = normed && head == Head::Greedy;
    const bool fold_bounded = fold && !head_q8.empty();  // (the folded argmax from the int8 table)
    // A sampled batched step from the int8 table: the bounds pass over every chunk, each token's
    // threshold, the rows pass over every chunk.
    const bool int8_top = int8_head && head == Head::Top;
    using TopPass = vk::Kernels::BatchHeadTop::Pass;
    for (const TopPass pass : {TopPass::Bounds, TopPass::Select, TopPass::Rows}) {
      if (!int8_top) break;
      if (pass != TopPass::Bounds) cs.barrier();
      uint32_t group0 = 0;
      for (size_t c = 0; c < (pass == TopPass::Select ? 1 : embd_chunks.size()); ++c) {
        const vk::RowChunk& ch = embd_chunks[c];
        const vk::Kernels::BatchHeadTop top{pass, R(batch_upper), group0, batch_head_groups,
                                            static_cast<uint32_t>(sequences)};
        kn.lm_head_batch(cs, d, P, R(head_table(c)), H, vk::HeadBound{R(head_q8[c]), R(head_qc[c])}, HP, HC,
                         R(batch_penalised_dev), R(batch_head_top), R(logits), ch.rows, dim, ch.row0, cfg.vocab,
                         rows_out, false, &top);
        group0 += kn.batch_head_groups(ch.rows, dim);
      }
      if (pass == TopPass::Bounds) mark("lm_head_top_bounds");
      if (pass == TopPass::Select) mark("lm_head_top_select");
    }
    for (size_t c = 0; !int8_top && c < embd_chunks.size(); ++c) {
      const vk::RowChunk& ch = embd_chunks[c];
      if (normed) {
        const vk::HeadBound bound = head_q8.empty() ? vk::HeadBound{} : vk::HeadBound{R(head_q8[c]), R(head_qc[c])};
        kn.lm_head_normed(cs, d, P, R(head_table(c)), X, on, eps, R(logits), ch.rows, dim, ch.row0, cfg.vocab, 0,
                          fold ? &argmax : nullptr, fold_bounded ? &bound : nullptr);
        argmax.group0 += kn.lm_head_groups(ch.rows, cfg.vocab);
      } else if (int8_head) {
        kn.lm_head_batch(cs, d, P, R(head_table(c)), H, vk::HeadBound{R(head_q8[c]), R(head_qc[c])}, HP, HC,
                         R(batch_penalised_dev), R(batch_head_thr), R(logits), ch.rows, dim, ch.row0, cfg.vocab,
                         rows_out);
      } else {
        kn.lm_head(cs, d, P, R(head_table(c)), H, R(logits), ch.rows, dim, ch.row0, cfg.vocab, rows_out);
      }
    }
    // A folded greedy step ends in its head, which also takes the argmax (from the int8 table where it
    // has one): the next step's barrier or end()'s follows.
    if (fold) {
      mark_last(fold_bounded ? "lm_head_int8+argmax" : "lm_head+argmax");
      return;
    }
    cs.barrier(true);
    mark("lm_head");
    if (head == Head::Sample) {
      sampler->record(cs, d, BufferRange{&logits, 0, uint64_t{cfg.vocab} * 4}, cfg.vocab, R(sample_state),
                      vk::GpuSamplerChain{P, R(draws), R(next_token), R(ring), kChainRing});
      mark_last("sample");
      return;
    }
    if (head == Head::Greedy) {
      kn.greedy_step(cs, d, P, BufferRange{&logits, 0, uint64_t{cfg.vocab} * 4}, R(next_token), R(ring),
                     R(greedy_scratch), cfg.vocab, kChainRing);
      mark_last("argmax");
      return;
    }
    if (head == Head::Argmax) {
      kn.argmax_rows(cs, d, P, R(logits), R(batch_best), R(batch_penalised_dev), R(batch_gathered), cfg.vocab,
                     rows_out);
      mark_last("argmax");
      return;
    }
    if (head == Head::Top) {
      kn.top_rows(cs, d, P, R(logits), R(batch_top), R(batch_penalised_dev), R(batch_gathered), R(batch_nan), cfg.vocab,
                  rows_out);
      cs.barrier(true);
      cs.copy(batch_top, 0, batch_top_read, 0, rows_out * kn.top_row_bytes(cfg.vocab));
      mark_last("top_rows");
      return;
    }
    cs.copy(logits, 0, readback, 0, uint64_t{rows_out} * cfg.vocab * 4);
    mark_last("logits_copy");
  }
}

VulkanForward::VulkanForward(const Model& model, const VulkanForwardOptions& options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.cfg = model.config();
  const ModelConfig& cfg = m.cfg;
  m.kv = options.kv;
  const auto model_ctx = static_cast<int32_t>(cfg.context);
  m.context = options.context == 0 ? model_ctx : options.context;
  if (m.context < 1 || m.context > model_ctx)
    throw std::invalid_argument("VulkanForward: context length " + std::to_string(options.context) + " is outside 1.." +
                                std::to_string(model_ctx) + " (the model's context length)");
  if (options.sequences < 1 || options.sequences > kMaxSequences)
    throw std::invalid_argument("VulkanForward: " + std::to_string(options.sequences) + " sequences (1.." +
                                std::to_string(kMaxSequences) + ")");
  m.sequences = options.sequences;
  m.filled.assign(static_cast<size_t>(m.sequences), 0);

  vk::ContextOptions co;
  co.device = options.device;
  co.max_binding_range = options.max_binding_range;
  co.vendor_neutral = options.vendor_neutral;
  co.map_device_memory = options.map_device_memory;
  co.pipeline_statistics = options.pipeline_statistics;
  m.ctx = std::make_unique<vk::Context>(co);
  const bool f64 = options.precision == Precision::F64;
  if (f64 && !m.ctx->info().shader_float64)
    throw VulkanError(
        "double-precision activations (precision f64, the verification build) need shaderFloat64, which " +
        m.ctx->info().name + " does not offer; use fp32");
  m.kernels = std::make_unique<vk::Kernels>(*m.ctx, m.kv == KvPrecision::F16, f64,
                                            !options.tuned_kernels      ? vk::DotProduct::Off
                                            : options.force_dot_product ? vk::DotProduct::On
                                                                        : vk::DotProduct::Auto,
                                            options.tuned_kernels);
  const uint64_t rb = m.kernels->real_bytes();
  // The persistent decode kernel's grid: one workgroup per multiprocessor. Where the device does not
  // report them (Intel; NVIDIA with its extensions ignored) a GPU measures how many workgroups of the
  // kernel's size are resident at once (vulkan/occupancy.h); the LM head spreads its rows by it too.
  // Not on a CPU device: its workgroups are threads the OS may preempt, so none is ever sure to stay
  // resident, and a persistent grid saves nothing there.
  const vk::DecodeGraph graph = vk::DecodeGraph::of(cfg);
  const vk::PersistentDecode::Shape shape{cfg.dim, cfg.ffn, cfg.heads, cfg.kv_heads, cfg.head_dim, cfg.layers, graph};
  if (options.tuned_kernels && options.persistent_groups == 0 && m.ctx->multiprocessors() == 0 &&
      m.ctx->info().type != "cpu")
    if (const auto wg = vk::PersistentDecode::plan(m.ctx->info(), shape, f64, 0))
      m.ctx->set_measured_multiprocessors(vk::resident_workgroups(*m.ctx, wg->wg, wg->shared_bytes));
  if (cfg.kv_heads > 0) m.kernels->prepare(cfg.heads / cfg.kv_heads, cfg.dim, cfg.vocab, options.bounded_head);
  // The one-token kernels follow the description (their variants are specialization constants), for
  // files whose matrices all have block scales or none do (vk::DecodeGraph), the persistent kernel as
  // well; a file that mixes the two keeps the unfused kernels.
  const bool one_kind_of_scale = graph.block_scales || cfg.weight_format == "I2_S";
  if (options.tuned_kernels && !one_kind_of_scale)
    m.persistent_why = "its matrices mix per-matrix and block scales (" + cfg.weight_format + ")";
  if (options.tuned_kernels && one_kind_of_scale) {
    // Fused decode kernels where the shape and device allow; the unfused ones are the baseline.
    if (const auto layout = vk::FusedDecode::plan(m.ctx->info(), cfg.dim, cfg.ffn, cfg.heads * cfg.head_dim,
                                                  cfg.kv_heads * cfg.head_dim, cfg.head_dim, f64)) {
      m.fused = std::make_unique<vk::FusedDecode>(*m.ctx, *layout, m.kv == KvPrecision::F16, f64,
                                                  m.kernels->dot_product(), graph);
    }
    if (m.fused)
      m.fused->prepare(cfg.dim, cfg.heads * cfg.head_dim, cfg.ffn, m.decode_attention_wg(), m.kernels->split_keys());
    if (m.fused && m.sequences > static_cast<int32_t>(Impl::kFewTokens) &&
        vk::BatchedBitLinear::fits(cfg.dim, cfg.ffn, cfg.heads * cfg.head_dim, cfg.kv_heads * cfg.head_dim,
                                   cfg.head_dim, graph.block_scales)) {
      m.batched = std::make_unique<vk::BatchedBitLinear>(*m.ctx, *m.fused, m.kv == KvPrecision::F16, f64,
                                                         m.kernels->dot_product(), graph);
      m.batch_overlap = true;
      m.batched->prepare(cfg.dim, cfg.heads * cfg.head_dim, cfg.kv_heads * cfg.head_dim, cfg.ffn,
                         static_cast<uint32_t>(m.sequences), m.batch_overlap);
    }
    // Decode on persistent workgroups where all of them can be resident (one per multiprocessor, or
    // the caller's grid; checked with the kernel itself before it is used: adopt_persistent).
    const uint32_t grid =
        options.persistent_groups > 0 ? static_cast<uint32_t>(options.persistent_groups) : m.ctx->multiprocessors();
    // Batched steps' attention with the persistent kernel's arithmetic, its splits a KV head bounded by
    // that kernel's grid.
    if (m.fused && m.sequences > 1)
      if (const auto gl = vk::GroupedAttention::plan(m.ctx->info(), cfg.heads, cfg.kv_heads, cfg.head_dim, f64, grid))
        m.grouped = std::make_unique<vk::GroupedAttention>(*m.ctx, *gl, cfg.heads, cfg.kv_heads, cfg.head_dim,
                                                           m.kv == KvPrecision::F16, f64);
    // The double build's full-precision cache (doubles) decodes on the fused kernels: the persistent
    // kernel holds a chunk's keys and values in registers as one or two words a pair and writes floats
    // there (decode_layer.glsl; the verification build, every other cache keeps the kernel).
    const bool full_double_cache = f64 && m.kv == KvPrecision::F32;
    if (options.persistent_groups < 0)
      m.persistent_why = "not used (option)";
    else if (grid == 0)
      m.persistent_why = "the device neither reports its multiprocessors nor is a GPU to measure";
    else if (full_double_cache)
      m.persistent_why = "the double build's full-precision KV cache is not one it holds";
    if (options.persistent_groups >= 0 && grid > 0 && !full_double_cache) {
      for (const LayerWeights& lw : model.weights().layers)
        for (const TernaryMatrix* t : {&lw.wq, &lw.wk, &lw.wv, &lw.wo, &lw.gate, &lw.up, &lw.down})
          m.persistent_scales.push_back(t->scale);
      m.persistent_shape = shape;
      m.make_persistent(grid, options.persistent_groups > 0);
      // A grid the caller chose is taken as it is (or not at all); a measured one may be corrected.
      m.persistent_regrid = options.persistent_groups == 0;
    }
  }
  m.da = std::make_unique<vk::DescriptorAllocator>(*m.ctx);
  m.check_shape();

  const uint64_t range = m.ctx->max_binding_range();
  const uint32_t qdim = cfg.heads * cfg.head_dim, kvdim = cfg.kv_heads * cfg.head_dim;
  // The widest per-token row of any activation buffer decides how many tokens fit one binding.
  const uint64_t widest = std::max<uint64_t>({uint64_t{cfg.vocab} * 4, cfg.ffn * rb, qdim * rb, cfg.dim * rb});
  m.block = static_cast<uint32_t>(std::min<uint64_t>(std::max(1u, options.block), range / widest));
  if (m.block == 0)
    throw VulkanError("one token's logits (" + std::to_string(widest) + " bytes) do not fit one storage binding of " +
                      std::to_string(range) + " bytes");
  m.block = std::min<uint32_t>(m.block, static_cast<uint32_t>(m.context));
  // A batched step is a block of one token per sequence; sequences past the first take blocks even for
  // one token (the one-token kernels serve sequence 0).
  const auto seqs = static_cast<uint32_t>(m.sequences);
  if (seqs > 1) {
    if (uint64_t{seqs} * widest > range)
      throw VulkanError(std::to_string(seqs) + " sequences' logits (" + std::to_string(uint64_t{seqs} * widest) +
                        " bytes) do not fit one storage binding of " + std::to_string(range) + " bytes");
    m.block = std::max({m.block, seqs, 2u});
  }

  const uint64_t cache_bytes = uint64_t(m.context) * kvdim * kv_element_bytes(m.kv, options.precision) * seqs;
  if (cache_bytes > range)
    throw VulkanError("one layer's KV cache (" + std::to_string(cache_bytes) + " bytes for " +
                      (seqs > 1 ? std::to_string(seqs) + " sequences of " : std::string()) + "a context of " +
                      std::to_string(m.context) + ") exceeds one storage binding; use a shorter context" +
                      (seqs > 1 ? " or fewer sequences" : ""));
  const uint64_t rope_bytes = uint64_t(m.context) * cfg.head_dim * rb;
  if (rope_bytes > range) throw VulkanError("the RoPE table exceeds one storage binding; use a shorter context");

  m.plan_layers(model);
  m.cache_bytes = cache_bytes;
  m.plan_groups();
  // The persistent kernel binds a group's whole buffers at once, and finds every layer's matrices at the
  // first layer's offsets.
  if (m.persistent)
    for (const auto& sl : m.slots)
      if (m.layer_stride > range || m.cache_stride > range || !(sl.offsets() == m.slots[0].offsets())) {
        m.persistent.reset();
        m.persistent_why = "the layers do not lie at one stride within one binding";
      }
  m.embd_chunks = vk::split_rows(cfg.vocab, uint64_t{cfg.dim} * 2, range);

  // Everything this engine allocates, checked against the free device memory before allocating.
  // BL: rows of logits (at least one per sequence: block >= sequences <= kAllLogitsBlock).
  const uint64_t B = m.block, BL = std::min<uint64_t>(B, kAllLogitsBlock);
  uint64_t total = 0;
  total += (m.layer_stride + 2 * m.cache_stride) * cfg.layers;
  total += uint64_t{cfg.vocab} * cfg.dim * 2 * (cfg.arch.tied_head ? 1 : 2) + cfg.dim * 4 + rope_bytes;
  const uint64_t act = B * rb * (cfg.dim + 2ull * qdim + 2ull * kvdim + cfg.ffn + cfg.dim) +
                       B * std::max<uint64_t>({cfg.dim, qdim, cfg.ffn}) + B * rb + 2 * BL * cfg.vocab * 4;
  // Split-K scratch for one token: blocks never split their keys (Kernels::attention).
  const uint64_t scratch_bytes =
      m.kernels->attention_scratch_bytes(cfg.heads, cfg.head_dim, 1, static_cast<uint32_t>(m.context));
  if (scratch_bytes > range)
    throw VulkanError("the attention scratch (" + std::to_string(scratch_bytes) +
                      " bytes) exceeds one storage binding; "
                      "use a shorter context or a smaller block");
  // A batched step's split-K scratch: one token's for each sequence (of the grouped attention where it
  // runs).
  const uint64_t batch_scratch_bytes =
      seqs <= 1   ? 0
      : m.grouped ? m.grouped->scratch_bytes(seqs)
                  : m.kernels->attention_scratch_bytes(cfg.heads, cfg.head_dim, seqs, static_cast<uint32_t>(m.context));
  if (batch_scratch_bytes > range)
    throw VulkanError("the attention scratch of " + std::to_string(seqs) + " sequences (" +
                      std::to_string(batch_scratch_bytes) +
                      " bytes) exceeds one storage binding; use a shorter "
                      "context or fewer sequences");
  // (With several sequences, the sampled batched steps' upper keys where the int8 head runs: the largest
  // buffer of a batched step's head, counted whether or not that head ends up running.)
  const uint64_t batch_upper_bytes = seqs > 1 ? vk::Kernels::batch_head_upper_bytes(seqs, cfg.vocab) : 0;
  total += act + scratch_bytes + batch_scratch_bytes + batch_upper_bytes;
  if (m.persistent) total += m.persistent->act_bytes() + m.persistent->partial_bytes();
  m.ctx->check_memory(total, "the model " + (cfg.name.empty() ? std::string("(unnamed)") : cfg.name) +
                                 " with a context of " + std::to_string(m.context));
  // The bounded head's int8 table (and the sampled steps' bounds, scratch and list), where it fits beside
  // everything else (else the F16 head).
  bool bounded = options.tuned_kernels && options.bounded_head && m.kernels->lm_head_bounds(cfg.dim, cfg.vocab);
  const uint64_t q8_bytes = vk::Kernels::head_q8_bytes(cfg.vocab, cfg.dim) +
                            vk::Kernels::head_q8_consts_bytes(cfg.vocab) +
                            vk::Kernels::head_topk_bounds_bytes(cfg.vocab) +
                            vk::Kernels::head_topk_scratch_bytes(cfg.vocab) + vk::GpuSampler::list_bytes(cfg.vocab);
  if (bounded) try {
      m.ctx->check_memory(total + q8_bytes, "the bounded LM head");
      total += q8_bytes;
    } catch (const VulkanError&) {
      bounded = false;
    }
  m.device_bytes = total;

  // The GPU sampler's kernel compiles on its own thread during the upload.
  try {
    m.sampler = std::make_unique<vk::GpuSampler>(*m.ctx, cfg.vocab);
  } catch (const VulkanError&) {
    m.sampler.reset();
  }
  m.upload(model);
  if (bounded) {
    vk::CommandSequence cs(*m.ctx);
    cs.begin();
    for (size_t c = 0; c < m.embd_chunks.size(); ++c) {
      const uint32_t rows = m.embd_chunks[c].rows;
      m.head_q8.emplace_back(*m.ctx, vk::Kernels::head_q8_bytes(rows, cfg.dim), MemoryUse::Device);
      m.head_qc.emplace_back(*m.ctx, vk::Kernels::head_q8_consts_bytes(rows), MemoryUse::Device);
      m.kernels->build_head_q8(cs, *m.da, BufferRange{&m.head_table(c), 0, 0}, BufferRange{&m.head_q8[c], 0, 0},
                               BufferRange{&m.head_qc[c], 0, 0}, rows, cfg.dim);
    }
    cs.end();
    cs.run();
  }
  m.x = Buffer(*m.ctx, B * cfg.dim * rb, MemoryUse::Device);
  m.xq = Buffer(*m.ctx, B * std::max<uint64_t>({cfg.dim, qdim, cfg.ffn}), MemoryUse::Device);
  m.xs = Buffer(*m.ctx, B * rb, MemoryUse::Device);
  m.q = Buffer(*m.ctx, B * qdim * rb, MemoryUse::Device);
  m.k = Buffer(*m.ctx, B * kvdim * rb, MemoryUse::Device);
  m.v = Buffer(*m.ctx, B * kvdim * rb, MemoryUse::Device);
  m.o = Buffer(*m.ctx, B * qdim * rb, MemoryUse::Device);
  m.a = Buffer(*m.ctx, B * cfg.ffn * rb, MemoryUse::Device);
  m.hn = Buffer(*m.ctx, B * cfg.dim * rb, MemoryUse::Device);
  m.logits = Buffer(*m.ctx, BL * cfg.vocab * 4, MemoryUse::Device);
  m.attn_scratch = Buffer(*m.ctx, scratch_bytes, MemoryUse::Device);
  if (m.persistent) {
    m.pact = Buffer(*m.ctx, m.persistent->act_bytes(), MemoryUse::Device);
    m.ppart = Buffer(*m.ctx, m.persistent->partial_bytes(), MemoryUse::Device);
  }
  m.params = Buffer(*m.ctx, sizeof(vk::Params) + B * sizeof(vk::BatchSlot), MemoryUse::Upload);
  m.tokens = Buffer(*m.ctx, B * 4, MemoryUse::Upload);
  m.readback = Buffer(*m.ctx, BL * cfg.vocab * 4, MemoryUse::Readback);
  m.arrived = Buffer(*m.ctx, uint64_t{cfg.heads} * 4, MemoryUse::Device);
  const std::vector<uint32_t> zeros(cfg.heads, 0u);
  m.arrived.upload(zeros.data(), zeros.size() * 4);

  m.profiling = options.profile;
  auto P = [&](SeqProfile& p, const char* pass) -> SeqProfile* {
    p.pass = pass;
    return m.profiling ? &p : nullptr;
  };
  m.prof_decode.pass = "decode";
  if (m.block > 1) {
    m.block_none = std::make_unique<vk::CommandSequence>(*m.ctx);
    m.block_last = std::make_unique<vk::CommandSequence>(*m.ctx);
    m.block_all = std::make_unique<vk::CommandSequence>(*m.ctx);
    m.record(*m.block_none, m.block, Head::None, P(m.prof_none, "block"), m.params, m.tokens);
    m.record(*m.block_last, m.block, Head::Last, P(m.prof_last, "block"), m.params, m.tokens);
    m.record(*m.block_all, static_cast<uint32_t>(BL), Head::All, P(m.prof_all, "block"), m.params, m.tokens);
  }
  if (seqs > 1) {
    m.batch_scratch = Buffer(*m.ctx, batch_scratch_bytes, MemoryUse::Device);
    m.batch_arrived = Buffer(*m.ctx, uint64_t{seqs} * cfg.heads * 4, MemoryUse::Device);
    const std::vector<uint32_t> none(uint64_t{seqs} * cfg.heads, 0u);
    m.batch_arrived.upload(none.data(), none.size() * 4);
    const uint32_t slices = m.kernels->argmax_slices(cfg.vocab);
    m.batch_best = Buffer(*m.ctx, uint64_t{seqs} * slices * 8, MemoryUse::Readback);
    m.batch_penalised = Buffer(*m.ctx, uint64_t{seqs} * (vk::Kernels::kArgmaxPenalisedMax + 1) * 4, MemoryUse::Upload);
    m.batch_penalised_dev = Buffer(*m.ctx, m.batch_penalised.size(), MemoryUse::Device);
    m.batch_gathered = Buffer(*m.ctx, uint64_t{seqs} * vk::Kernels::kArgmaxPenalisedMax * 4, MemoryUse::Readback);
    m.batch_top = Buffer(*m.ctx, seqs * m.kernels->top_row_bytes(cfg.vocab), MemoryUse::Device);
    m.batch_top_read = Buffer(*m.ctx, m.batch_top.size(), MemoryUse::Readback);
    m.batch_nan = Buffer(*m.ctx, uint64_t{seqs} * slices * 4, MemoryUse::Readback);
    const bool chunks_fit =
        std::all_of(m.embd_chunks.begin(), m.embd_chunks.end(), [](const vk::RowChunk& c) { return c.rows >= 16; });
    if (const uint32_t tile = m.kernels->batch_head_tokens(cfg.dim); !m.head_q8.empty() && tile > 0 && chunks_fit) {
      m.batch_planes =
          Buffer(*m.ctx, vk::Kernels::head_planes_bytes(vk::ceil_div(seqs, tile) * tile, cfg.dim), MemoryUse::Device);
      m.batch_plane_consts = Buffer(*m.ctx, m.kernels->head_plane_consts_bytes(seqs), MemoryUse::Device);
      m.batch_head_thr = Buffer(*m.ctx, uint64_t{seqs} * 4, MemoryUse::Device);
      for (const vk::RowChunk& ch : m.embd_chunks)
        m.batch_head_groups += m.kernels->batch_head_groups(ch.rows, cfg.dim);
      m.batch_head_top =
          Buffer(*m.ctx, 4 * vk::Kernels::batch_head_top_words(seqs, m.batch_head_groups), MemoryUse::Device);
      m.batch_upper = Buffer(*m.ctx, vk::Kernels::batch_head_upper_bytes(seqs, cfg.vocab), MemoryUse::Device);
    }
    if (m.batch_overlap) {
      m.batch_ready = Buffer(*m.ctx, uint64_t{4} * 4 * cfg.layers, MemoryUse::Device);
      m.batch_failed = Buffer(*m.ctx, 16, MemoryUse::Upload);
      const uint32_t zero = 0;
      m.batch_failed.upload(&zero, 4);
    }
    if (m.grouped) m.batch_grid = Buffer(*m.ctx, 12, MemoryUse::Device);
    auto seen = [](const Buffer& b) { return b.size() == 0 || b.mapped() != nullptr; };
    m.setup_on_host =
        m.batch_penalised_dev.mapped() && seen(m.batch_ready) && seen(m.batch_head_thr) && seen(m.batch_grid);
    if (m.setup_on_host) m.step_zeros.assign(std::max(m.batch_ready.size(), m.batch_head_thr.size()) / 4, 0u);
    m.record_batch_steps();
  }
  // Device-side decoding: two identical step sequences, so one can be queued while the host reads the
  // other's tokens.
  m.step = Buffer(*m.ctx, sizeof(vk::Params), MemoryUse::Device);
  m.next_token = Buffer(*m.ctx, 4, MemoryUse::Device);
  m.ring = Buffer(*m.ctx, kChainRing * 4, MemoryUse::Readback);
  m.draws = Buffer(*m.ctx, kChainRing * sizeof(vk::GpuSamplerDraw), MemoryUse::Upload);
  // Shared by greedy_step and the head that takes its place (one or the other runs each step).
  for (const vk::RowChunk& ch : m.embd_chunks) m.head_groups += m.kernels->lm_head_groups(ch.rows, cfg.vocab);
  m.greedy_scratch = Buffer(
      *m.ctx,
      std::max(m.kernels->greedy_scratch_bytes(cfg.vocab), vk::Kernels::head_argmax_scratch_bytes(m.head_groups)),
      MemoryUse::Device);
  const uint32_t zero[2] = {0, 0};
  m.greedy_scratch.upload(zero, 8);  // the arrival count and the bounded head's threshold
  // Device-side sampling, where the device runs the sampler (else sessions sample on the host). Its
  // kernel has compiled during the upload; one the driver could not compile is found here.
  if (m.sampler) try {
      m.sampler->wait();
    } catch (const VulkanError&) {
      m.sampler.reset();
    }
  // (Host memory: in device memory the chained sampled steps measured the same on the H100, 855-862
  // against 860 tokens/s.)
  if (m.sampler) m.sample_state = Buffer(*m.ctx, vk::GpuSampler::kStateBytes, MemoryUse::Readback);
  // The sampled steps' head from the int8 table, where its per-row buffers fit a binding each: its
  // scratch (no arrivals or posts, no step counted yet) and an empty candidate list.
  if (m.sampler && !m.head_q8.empty() && m.kernels->lm_head_topk_fits(cfg.dim, cfg.vocab) &&
      vk::Kernels::head_topk_bounds_bytes(cfg.vocab) <= range &&
      vk::Kernels::head_topk_scratch_bytes(cfg.vocab) <= range && vk::GpuSampler::list_bytes(cfg.vocab) <= range) {
    m.topk_bounds = Buffer(*m.ctx, vk::Kernels::head_topk_bounds_bytes(cfg.vocab), MemoryUse::Device);
    m.topk_scratch = Buffer(*m.ctx, vk::Kernels::head_topk_scratch_bytes(cfg.vocab), MemoryUse::Device);
    m.sample_list = Buffer(*m.ctx, vk::GpuSampler::list_bytes(cfg.vocab), MemoryUse::Device);
    const std::vector<uint32_t> clear(m.topk_scratch.size() / 4, 0u);
    m.topk_scratch.upload(clear.data(), m.topk_scratch.size());
    m.sample_list.upload(clear.data(), 4);
  }
  m.record_decoders();
  // Every weight now lives in device memory: drop the process's resident pages of the mapped file,
  // so the host holds no second copy of the weights (they are re-read from disk if ever touched).
  model.file().release_resident_pages();
}

VulkanForward::~VulkanForward() = default;

// The one-token command buffers: decode with logits, and the device-chained steps (greedy, and
// sampled where the device runs the GPU sampler). Recorded at load, and again if the persistent decode
// kernel fails and the fused kernels take over.
void VulkanForward::Impl::record_decoders() {
  record(made(decode), 1, Head::Last, profiling ? &prof_decode : nullptr, params, tokens);
  auto chained = [&](Chained& c, Head head) {
    for (uint32_t i = 0; i < kChainsInFlight; ++i) {
      c.prof[i].pass = head == Head::Greedy ? "greedy" : "sampled";
      record(made(c.single[i]), 1, head, profiling ? &c.prof[i] : nullptr, step, next_token);
      record(made(c.chain[i]), 1, head, nullptr, step, next_token, kChainSteps);
    }
  };
  chained(greedy, Head::Greedy);
  if (sampler) chained(sampled, Head::Sample);
}

// The batched steps of several sequences: with every row's logits, ending in each row's argmax, and
// ending in each row's slices' best (sampled steps: one submission, the logits never leave the
// device); steps of one, and of up to kFewTokens, recorded apart where there are more sequences (they run
// the one-token kernels, compiled for their size). Recorded at load, and again once an overlapped step's
// wait gave up.
void VulkanForward::Impl::record_batch_steps() {
  const auto seqs = static_cast<uint32_t>(sequences);
  std::vector<uint32_t> sizes;
  if (seqs > 1 && fused) sizes.push_back(1);
  if (seqs > kFewTokens) sizes.push_back(kFewTokens);
  const uint32_t coop = batched ? batched->coop_min_tokens() : 0;
  if (coop > kFewTokens + 1 && seqs >= coop) sizes.push_back(coop - 1);
  sizes.push_back(seqs);
  if (batch_steps.size() != sizes.size()) batch_steps = std::vector<BatchStep>(sizes.size());
  for (size_t c = 0; c < sizes.size(); ++c) {
    BatchStep& b = batch_steps[c];
    b.max_tokens = sizes[c];
    for (const Head head : {Head::All, Head::Argmax, Head::Top}) {
      SeqProfile& p = b.prof[head_index(head)];
      p.pass = "batch" + std::to_string(sizes[c]);
      record(made(b.seq[head_index(head)]), sizes[c], head, profiling ? &p : nullptr, params, tokens, 1, true);
    }
  }
}

// Switches the one-token command buffers to the persistent kernel once it is compiled (it compiles on
// another thread from load on: the first load on a machine would otherwise wait seconds for it). No
// submission may be in flight. A compilation that failed leaves the fused kernels in place.
void VulkanForward::Impl::adopt_persistent(bool wait) {
  if (!persistent || persistent_live) return;
  try {
    if (wait)
      persistent->wait();
    else if (!persistent->ready())
      return;
  } catch (const VulkanError& e) {
    persistent.reset();
    persistent_why = std::string("its compilation failed: ") + e.what();
    return;
  }
  // A grid that is not all resident at once would wait at its first barrier until the bounded wait
  // gives up (seconds). A measured grid may have come from a probe whose registers were not the
  // kernel's: the largest grid of this kernel that is resident is searched once (halving, then
  // bisecting), and the kernel is compiled for it (decode stays on the fused kernels meanwhile).
  const uint32_t grid = persistent->layout().groups;
  if (!persistent_resident(grid)) {
    uint32_t good = 0, bad = grid;
    for (uint32_t n = grid / 2; persistent_regrid && n >= 1; n /= 2)
      if (persistent_resident(n)) {
        good = n;
        break;
      } else {
        bad = n;
      }
    while (good && bad - good > 1) {
      const uint32_t mid = good + (bad - good) / 2;
      (persistent_resident(mid) ? good : bad) = mid;
    }
    persistent.reset();
    persistent_why = "its grid of " + std::to_string(grid) + " workgroups is not resident at once";
    if (persistent_regrid && good > 0) {
      persistent_regrid = false;
      make_persistent(good, false);
      if (persistent && wait) adopt_persistent(true);
    }
    return;
  }
  persistent_why.clear();
  persistent_live = true;
  // (Its registers are its own: checked apart, and only dropped if they do not fit the grid.)
  if (persistent->step_bits() && !persistent_resident(grid, true)) persistent->drop_step_bits();
  record_decoders();
  if (persistent->step_bits()) record_batch_steps();
}

void VulkanForward::Impl::make_persistent(uint32_t grid, bool forced) {
  const bool f64 = kernels->f64();
  std::string why;
  auto layout = vk::PersistentDecode::plan(ctx->info(), persistent_shape, f64, grid, &why);
  if (layout && (forced || vk::PersistentDecode::fits_registers(*layout, &why))) {
    layout->step_wg = step_bits_workgroup(*layout);
    persistent = std::make_unique<vk::PersistentDecode>(*ctx, *layout, persistent_shape, kv == KvPrecision::F16, f64,
                                                        kernels->dot_product(), persistent_scales);
    persistent_why = "compiling";
  } else {
    persistent_why = why;
  }
}

// A batched step's kernels give a token the same bits whatever else the step holds; the persistent
// kernel's step-bits pipeline gives them to a step of one where it computes what they compute: no block
// scales (decode_layer.glsl STEP_BITS), every BitLinear's one-token kernel of one workgroup size (the
// quantizations' reductions) no wider than the persistent kernel's, and the grouped attention's splits
// and value pass (its arithmetic is the persistent kernel's: vk::GroupedAttention).
uint32_t VulkanForward::Impl::step_bits_workgroup(const vk::PersistentDecode::Layout& layout) const {
  if (sequences < 2 || !fused || !grouped || persistent_shape.graph.block_scales) return 0;
  const uint32_t qdim = cfg.heads * cfg.head_dim, kvdim = cfg.kv_heads * cfg.head_dim;
  const uint32_t wg = fused->workgroup_for(vk::FusedDecode::kQkv, cfg.dim, qdim + 2 * kvdim);
  for (const uint32_t w : {fused->workgroup_for(vk::FusedDecode::kResidual, qdim, cfg.dim),
                           fused->workgroup_for(vk::FusedDecode::kGate, cfg.dim, cfg.ffn),
                           fused->workgroup_for(vk::FusedDecode::kResidual, cfg.ffn, cfg.dim)})
    if (w != wg) return 0;
  // (Whole subgroups of any size the device may choose: the extra invocations add zeros as whole subgroups.)
  const DeviceInfo& di = ctx->info();
  if (wg > layout.wg || wg % std::max({1u, di.min_subgroup_size, di.max_subgroup_size})) return 0;
  const vk::GroupedAttention::Layout& ga = grouped->layout();
  if (ga.max_splits != layout.max_splits || ga.value_parts != layout.value_parts) return 0;
  return wg;
}

// Whether a grid of `groups` workgroups of the persistent kernel is resident at once on this device (its
// residency check: PersistentDecode::record; step_bits: of its step-bits pipeline).
bool VulkanForward::Impl::persistent_resident(uint32_t grid, bool step_bits) {
  auto R = [](const Buffer& b) { return BufferRange{&b, 0, 0}; };
  const LayerGroupBuffers& g = groups[0];
  const vk::LayerGroup lg{g.first, g.count, R(g.weights), layer_stride, R(g.k_cache), R(g.v_cache), cache_stride};
  const vk::Embedding emb{R(embd_bufs[0]), R(tokens), 0};
  persistent->begin_call();
  persistent->clear_failure();  // (a grid that failed before left it raised)
  vk::CommandSequence cs(*ctx);
  cs.begin();
  persistent->record(cs, *da, R(params), lg, 0, slots[g.first].offsets(), cfg.rms_eps, R(x), R(pact), R(rope), R(ppart),
                     emb, /*residency_check=*/grid, step_bits);
  cs.end();
  cs.run();
  return !persistent->failed();
}

// After a one-token submit finished: whether the persistent kernel gave up waiting at a grid barrier (a
// workgroup never became resident). Then its results are garbage, so the fused kernels take over for
// good and the caller recomputes the step. Every submission must have finished.
bool VulkanForward::Impl::persistent_failed() {
  if (!persistent_live || !persistent->failed()) return false;
  const bool lone = lone_on_persistent();
  persistent.reset();
  persistent_why = "a wait gave up (a workgroup was not resident)";
  persistent_live = false;
  record_decoders();
  if (lone) record_batch_steps();
  return true;
}

// After a batched step finished: whether one of its products gave up waiting for its quantized rows (its
// results are then garbage). The steps are re-recorded with a barrier before each product, for good, and
// the caller redoes the step (it starts from the embedding: nothing it overwrote is read first).
bool VulkanForward::Impl::batch_overlap_failed() {
  if (!batch_overlap) return false;
  uint32_t f = 0;
  batch_failed.download(&f, 4);
  if (f == 0) return false;
  batch_overlap = false;
  record_batch_steps();
  return true;
}

void VulkanForward::eval(std::span<const int32_t> tokens, int32_t pos, std::span<float> logits, bool all_logits) {
  eval_sequence(0, tokens, pos, logits, all_logits);
}

void VulkanForward::eval_sequence(int32_t seq, std::span<const int32_t> tokens, int32_t pos, std::span<float> logits,
                                  bool all_logits) {
  Impl& m = *impl_;
  if (seq < 0 || seq >= m.sequences)
    throw std::out_of_range("VulkanForward::eval: sequence " + std::to_string(seq) + " is outside [0, " +
                            std::to_string(m.sequences) + ")");
  int32_t& filled = m.filled[static_cast<size_t>(seq)];
  const std::size_t n = tokens.size();
  const uint32_t vocab = m.cfg.vocab;
  if (n == 0) throw std::invalid_argument("VulkanForward::eval: no tokens to evaluate");
  if (pos < 0) throw std::invalid_argument("VulkanForward::eval: negative position " + std::to_string(pos));
  if (static_cast<int64_t>(pos) + static_cast<int64_t>(n) > m.context)
    throw ContextFullError("context full: " + std::to_string(n) + " token(s) at position " + std::to_string(pos) +
                           " would pass the context length of " + std::to_string(m.context));
  if (pos > filled)
    throw std::invalid_argument("VulkanForward::eval: position " + std::to_string(pos) + " is past the " +
                                std::to_string(filled) + " position(s) in the KV cache");
  const std::size_t want = (all_logits ? n : 1) * std::size_t{vocab};
  if (logits.size() != want)
    throw std::invalid_argument("VulkanForward::eval: logits span has " + std::to_string(logits.size()) +
                                " entries, expected " + std::to_string(want));
  for (std::size_t t = 0; t < n; ++t)
    if (tokens[t] < 0 || static_cast<uint32_t>(tokens[t]) >= vocab)
      throw std::out_of_range("VulkanForward::eval: token " + std::to_string(tokens[t]) + " at index " +
                              std::to_string(t) + " is outside the vocabulary [0, " + std::to_string(vocab) + ")");

  m.adopt_persistent(false);
  filled = pos;  // positions from pos on are rewritten; if a submit fails they are gone
  if (m.persistent_live) m.persistent->begin_call();
  for (std::size_t done = 0; done < n;) {
    const uint32_t per_submit = all_logits ? std::min(m.block, kAllLogitsBlock) : m.block;
    const auto cnt = static_cast<uint32_t>(std::min<std::size_t>(per_submit, n - done));
    const bool last_block = done + cnt == n;
    const vk::Params p{static_cast<uint32_t>(pos) + static_cast<uint32_t>(done), cnt,
                       static_cast<uint32_t>(seq) * static_cast<uint32_t>(m.context), 0};
    m.params.upload(&p, sizeof p);
    m.tokens.upload(tokens.data() + done, cnt * 4);
    vk::CommandSequence* run = nullptr;
    SeqProfile* prof = nullptr;
    // (Sequences past the first run every submit on the block kernels.)
    const bool one = cnt == 1 && (all_logits || last_block) && seq == 0;
    if (one || !(all_logits ? m.block_all : last_block ? m.block_last : m.block_none)) {
      // One token (or block size 1: every submit is a decode, its logits unused here).
      run = m.decode.get();
      prof = &m.prof_decode;
    } else if (all_logits) {
      run = m.block_all.get(), prof = &m.prof_all;
    } else {
      run = last_block ? m.block_last.get() : m.block_none.get();
      prof = last_block ? &m.prof_last : &m.prof_none;
    }
    run->run();
    if (prof == &m.prof_decode && m.persistent_failed()) {
      m.decode->run();  // recomputed on the fused kernels
      prof = &m.prof_decode;
    }
    if (m.profiling) m.collect(*prof);
    if (all_logits)
      m.readback.download(logits.data() + done * vocab, uint64_t{cnt} * vocab * 4);
    else if (last_block)
      m.readback.download(logits.data(), uint64_t{vocab} * 4);
    done += cnt;
    filled = pos + static_cast<int32_t>(done);
  }
}

// Checks the arguments of a device-chained decode; false when there is nothing to do.
static bool check_chain(const char* what, int32_t token, int32_t pos, int32_t max_steps, uint32_t vocab, int32_t filled,
                        int32_t context) {
  if (token < 0 || static_cast<uint32_t>(token) >= vocab)
    throw std::out_of_range(std::string("VulkanForward::") + what + ": token " + std::to_string(token) +
                            " is outside the vocabulary");
  if (pos < 0 || pos > filled)
    throw std::invalid_argument(std::string("VulkanForward::") + what + ": position " + std::to_string(pos) +
                                " is past the " + std::to_string(filled) + " position(s) in the KV cache");
  if (max_steps <= 0) return false;
  if (pos + max_steps > context)
    throw ContextFullError("context full: " + std::to_string(max_steps) + " decode step(s) at position " +
                           std::to_string(pos) + " would pass the context length of " + std::to_string(context));
  return true;
}

int32_t VulkanForward::decode_greedy(int32_t token, int32_t pos, int32_t max_steps,
                                     const std::function<bool(int32_t)>& on_token) {
  Impl& m = *impl_;
  if (!check_chain("decode_greedy", token, pos, max_steps, m.cfg.vocab, m.filled[0], m.context)) return 0;
  return m.chain(
      m.greedy, token, pos, max_steps, on_token, [](int32_t, int32_t) {}, [](int32_t, const std::vector<int32_t>&) {});
}

int32_t VulkanForward::decode_sample(int32_t token, int32_t pos, int32_t max_steps, Sampler& sampler,
                                     std::span<const int32_t> recent, const std::function<bool(int32_t)>& on_token) {
  Impl& m = *impl_;
  if (!samples_on_device(sampler.params()))
    throw std::invalid_argument("VulkanForward::decode_sample: these sampling parameters are sampled on the host");
  if (!check_chain("decode_sample", token, pos, max_steps, m.cfg.vocab, m.filled[0], m.context)) return 0;
  // The penalty window of step `first`: the tokens before pos, the input, the outputs of earlier steps.
  const auto window = static_cast<size_t>(std::max(0, sampler.params().repeat_last_n));
  auto prepare = [&](int32_t first, const std::vector<int32_t>& outs) {
    std::vector<int32_t> w(recent.end() - static_cast<std::ptrdiff_t>(std::min(window, recent.size())), recent.end());
    w.push_back(token);
    w.insert(w.end(), outs.begin(), outs.begin() + first);
    vk::GpuSamplerState st;
    vk::GpuSampler::prepare(st, sampler.params(), w, static_cast<uint32_t>(pos + first));
    m.sample_state.upload(&st, sizeof st);
  };
  prepare(0, {});
  // Each step's draw is taken once, when the step is first queued, and written again on a restart.
  std::vector<vk::GpuSamplerDraw> draws;
  auto before_submit = [&](int32_t first, int32_t n) {
    for (int32_t i = first; i < first + n; ++i) {
      if (static_cast<size_t>(i) == draws.size()) draws.push_back(vk::GpuSampler::draw(sampler));
      const auto slot = static_cast<uint32_t>(pos + i) % kChainRing;
      m.draws.upload(&draws[static_cast<size_t>(i)], sizeof(vk::GpuSamplerDraw),
                     uint64_t{slot} * sizeof(vk::GpuSamplerDraw));
    }
  };
  return m.chain(m.sampled, token, pos, max_steps, on_token, before_submit, prepare);
}

bool VulkanForward::samples_on_device(const SamplingParams& params) const {
  return impl_->sampler && vk::GpuSampler::supports(params);
}

int32_t VulkanForward::Impl::chain(Chained& seqs, int32_t token, int32_t pos, int32_t max_steps,
                                   const std::function<bool(int32_t)>& on_token,
                                   const std::function<void(int32_t, int32_t)>& before_submit,
                                   const std::function<void(int32_t, const std::vector<int32_t>&)>& restart) {
  Impl& m = *this;
  const vk::Params p{static_cast<uint32_t>(pos), 1};
  m.step.upload(&p, sizeof p);
  uint32_t input = static_cast<uint32_t>(token);  // the input of step `done`
  m.next_token.upload(&input, 4);
  m.filled[0] = pos;
  m.adopt_persistent(false);
  if (m.persistent_live) m.persistent->begin_call();

  // Submit n runs in slot n % kChainsInFlight; steps[slot] says how many steps it chained.
  int32_t submitted = 0, done = 0, delivered = 0;
  uint32_t next_slot = 0, wait_slot = 0;
  int32_t steps[kChainsInFlight] = {};
  std::vector<int32_t> outs;  // the token of every step read back
  bool more = true;
  // Whatever happens, no submission may still be running when this returns. (The sequences are
  // re-recorded, not replaced, when the fused kernels take over, so `seqs` stays valid.)
  struct Drain {
    Chained& c;
    ~Drain() {
      for (uint32_t i = 0; i < kChainsInFlight; ++i)
        for (auto* s : c.of_slot(i)) {
          try {
            if (s) s->wait();
          } catch (...) {  // a lost device: the next call reports it
          }
        }
    }
  } drain{seqs};
  auto sequence = [&](uint32_t slot) -> vk::CommandSequence& {
    return steps[slot] == 1 ? *seqs.single[slot] : *seqs.chain[slot];
  };
  while (done < submitted || (more && submitted < max_steps)) {
    // (At most kChainsInFlight submits of at most kChainSteps steps: the ring holds all their tokens.)
    while (more && submitted < max_steps && next_slot - wait_slot < kChainsInFlight) {
      // Never past max_steps: a chained step beyond it could write the cache past the context.
      const uint32_t slot = next_slot % kChainsInFlight;
      // (Profile mode: one step a submission, on the sequences that carry the timestamps.)
      steps[slot] = !m.profiling && max_steps - submitted >= static_cast<int32_t>(kChainSteps) ? kChainSteps : 1;
      before_submit(submitted, steps[slot]);
      sequence(slot).submit();
      submitted += steps[slot];
      ++next_slot;
    }
    const uint32_t slot = wait_slot % kChainsInFlight;
    sequence(slot).wait();
    if (m.persistent_live && m.persistent->failed()) {
      // A step from `done` on went wrong: redo everything queued on the fused kernels from step done's
      // input.
      for (uint32_t i = 0; i < kChainsInFlight; ++i)
        for (auto* s : seqs.of_slot(i))
          if (s) s->wait();
      m.persistent_failed();
      const vk::Params rp{static_cast<uint32_t>(pos + done), 1};
      m.step.upload(&rp, sizeof rp);
      m.next_token.upload(&input, 4);
      restart(done, outs);
      submitted = done;
      wait_slot = next_slot;
      continue;
    }
    ++wait_slot;
    if (m.profiling) m.collect(seqs.prof[slot]);
    for (int32_t i = 0; i < steps[slot]; ++i) {
      uint32_t tok = 0;
      m.ring.download(&tok, 4, uint64_t{(static_cast<uint32_t>(pos + done)) % kChainRing} * 4);
      if (tok >= m.cfg.vocab)
        throw VulkanError("the device chose token " + std::to_string(static_cast<int32_t>(tok)) + " at position " +
                          std::to_string(pos + done + 1) + ", outside the vocabulary of " +
                          std::to_string(m.cfg.vocab) + " (the GPU sampler failed)");
      input = tok;
      outs.push_back(static_cast<int32_t>(tok));
      ++done;
      if (!more) continue;  // a step queued before the stop: its token is not wanted
      ++delivered;
      m.filled[0] = pos + delivered;  // step i consumed its input at pos + i
      if (!on_token(static_cast<int32_t>(tok))) more = false;
    }
  }
  // Steps that ran after the stop wrote cache entries past `filled`; later evals overwrite them.
  return delivered;
}

void VulkanForward::Impl::collect(SeqProfile& p) {
  const auto n = static_cast<uint32_t>(p.labels.size());
  const std::vector<double> t = p.pool->read_ns(n + 1);
  for (uint32_t i = 0; i < n; ++i) {
    const double dt = t[i + 1] - t[i];
    auto it = std::find_if(p.total_ns.begin(), p.total_ns.end(), [&](const auto& e) { return e.first == p.labels[i]; });
    if (it == p.total_ns.end())
      p.total_ns.emplace_back(p.labels[i], dt);
    else
      it->second += dt;
  }
  ++p.submits;
}

std::vector<KernelTime> VulkanForward::profile() const {
  std::vector<KernelTime> out;
  for (const SeqProfile* p : impl_->profiles()) {
    for (const auto& [label, ns] : p->total_ns) {
      auto it = std::find_if(out.begin(), out.end(),
                             [&](const KernelTime& k) { return k.pass == p->pass && k.kernel == label; });
      if (it == out.end()) {
        out.push_back({p->pass, label, ns / 1e6, p->submits});
      } else {
        it->ms += ns / 1e6;
        it->submits += p->submits;
      }
    }
  }
  return out;
}

void VulkanForward::reset_profile() {
  for (SeqProfile* p : impl_->profiles()) {
    p->total_ns.clear();
    p->submits = 0;
  }
}

int32_t VulkanForward::context_length() const {
  return impl_->context;
}
int32_t VulkanForward::vocab_size() const {
  return static_cast<int32_t>(impl_->cfg.vocab);
}
const DeviceInfo& VulkanForward::device() const {
  return impl_->ctx->info();
}
uint32_t VulkanForward::block_size() const {
  return impl_->block;
}
uint32_t VulkanForward::embedding_chunks() const {
  return static_cast<uint32_t>(impl_->embd_chunks.size());
}
uint32_t VulkanForward::layer_groups() const {
  return static_cast<uint32_t>(impl_->groups.size());
}
uint64_t VulkanForward::device_bytes() const {
  return impl_->device_bytes;
}
int32_t VulkanForward::cached_positions() const {
  return impl_->filled[0];
}

int32_t VulkanForward::cached_positions(int32_t seq) const {
  if (seq < 0 || seq >= impl_->sequences)
    throw std::out_of_range("VulkanForward: sequence " + std::to_string(seq) + " is outside [0, " +
                            std::to_string(impl_->sequences) + ")");
  return impl_->filled[static_cast<size_t>(seq)];
}

int32_t VulkanForward::sequences() const {
  return impl_->sequences;
}

void VulkanForward::Impl::submit_batch(std::span<const BatchToken> batch, Head head) {
  const auto n = static_cast<uint32_t>(batch.size());
  std::vector<uint8_t> step_params(sizeof(vk::Params) + n * sizeof(vk::BatchSlot));
  const vk::Params p{0, n, 0, 1};
  std::memcpy(step_params.data(), &p, sizeof p);
  std::vector<int32_t> input(n);
  for (uint32_t i = 0; i < n; ++i) {
    const BatchToken& b = batch[i];
    const vk::BatchSlot slot{static_cast<uint32_t>(b.pos),
                             static_cast<uint32_t>(b.seq) * static_cast<uint32_t>(context)};
    std::memcpy(step_params.data() + sizeof p + i * sizeof slot, &slot, sizeof slot);
    input[i] = b.token;
    filled[static_cast<size_t>(b.seq)] = b.pos;  // rewritten from pos on; if the submit fails it is gone
  }
  params.upload(step_params.data(), step_params.size());
  tokens.upload(input.data(), n * 4);
  if (grouped && setup_on_host) {
    uint32_t longest = 0;
    for (const BatchToken& b : batch) longest = std::max(longest, static_cast<uint32_t>(b.pos) + 1);
    const std::array<uint32_t, 3> g = grouped->grid(n, longest);
    batch_grid.upload(g.data(), sizeof g);
  }
  BatchStep& sized = batch_step_for(n);
  vk::CommandSequence& run = *sized.seq[head_index(head)];
  setup_step();
  const bool lone = sized.max_tokens == 1 && lone_on_persistent();
  if (lone) persistent->begin_call();
  run.run();
  // A step of one on the persistent kernel whose wait gave up: redone on the one-token kernels, which
  // give the same bits (re-recorded by persistent_failed).
  if (lone && persistent_failed()) {
    setup_step();
    sized.seq[head_index(head)]->run();
  }
  // (steps of up to kFewTokens run the one-token kernels, which do not wait)
  if (sized.max_tokens > kFewTokens && batch_overlap_failed()) {
    setup_step();
    run.run();  // redone with barriers (re-recorded)
  }
  if (profiling) collect(sized.prof[head_index(head)]);
  for (const BatchToken& b : batch) filled[static_cast<size_t>(b.seq)] = b.pos + 1;
}

void VulkanForward::decode_batch(std::span<const BatchToken> batch, std::span<float> logits) {
  Impl& m = *impl_;
  if (m.batch_steps.empty()) return Forward::decode_batch(batch, logits);  // one sequence: its own step
  check_batch(batch, logits.size(), m.cfg.vocab);
  m.submit_batch(batch, Head::All);
  m.readback.download(logits.data(), uint64_t{batch.size()} * m.cfg.vocab * 4);
}

void VulkanForward::decode_batch_argmax(std::span<const BatchToken> batch, std::span<int32_t> argmax,
                                        std::span<const RowPenalty> penalties) {
  Impl& m = *impl_;
  constexpr uint32_t kMax = vk::Kernels::kArgmaxPenalisedMax;
  // One sequence (its own step), or a window the kernel does not hold: the rows on the host.
  if (m.batch_steps.empty() || !Impl::penalties_fit(penalties))
    return Forward::decode_batch_argmax(batch, argmax, penalties);
  check_batch(batch, argmax.size(), 1);
  check_penalties(batch, penalties);
  const uint32_t vocab = m.cfg.vocab;
  const std::vector<uint32_t> lists = m.upload_penalties(penalties, batch.size());
  m.submit_batch(batch, Head::Argmax);
  const uint32_t slices = m.kernels->argmax_slices(vocab);
  std::vector<uint32_t> best(batch.size() * slices * 2);
  m.batch_best.download(best.data(), best.size() * 4);
  std::vector<float> gathered(batch.size() * kMax);
  if (!penalties.empty()) m.batch_gathered.download(gathered.data(), gathered.size() * 4);
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t n = lists[i * (kMax + 1)];
    argmax[i] = vk::Kernels::argmax_of_slices(std::span<const uint32_t>(best).subspan(i * slices * 2, slices * 2),
                                              n ? penalties[i].tokens : std::span<const int32_t>{},
                                              std::span<const float>(gathered).subspan(i * kMax, n),
                                              n ? penalties[i].penalty : 1.f);
  }
}

std::vector<uint32_t> VulkanForward::Impl::upload_penalties(std::span<const RowPenalty> penalties, size_t rows) {
  constexpr uint32_t kMax = vk::Kernels::kArgmaxPenalisedMax;
  std::vector<uint32_t> lists(rows * (kMax + 1), 0u);
  for (size_t i = 0; i < penalties.size(); ++i) {
    const RowPenalty& p = penalties[i];
    if (p.penalty == 1.f) continue;  // (a count of 0: nothing penalised)
    lists[i * (kMax + 1)] = static_cast<uint32_t>(p.tokens.size());
    for (size_t j = 0; j < p.tokens.size(); ++j) lists[i * (kMax + 1) + 1 + j] = static_cast<uint32_t>(p.tokens[j]);
  }
  (setup_on_host ? batch_penalised_dev : batch_penalised).upload(lists.data(), lists.size() * 4);
  return lists;
}

bool VulkanForward::decode_batch_top(std::span<const BatchToken> batch, std::span<const RowPenalty> penalties, size_t k,
                                     std::vector<std::vector<TopLogit>>& tops) {
  Impl& m = *impl_;
  constexpr uint32_t kMax = vk::Kernels::kArgmaxPenalisedMax;
  // One sequence (its own step), a window the kernel does not hold, or more than the slices keep.
  if (m.batch_steps.empty() || !Impl::penalties_fit(penalties) || k > vk::Kernels::kTopRowsMax)
    return Forward::decode_batch_top(batch, penalties, k, tops);
  check_batch(batch, batch.size(), 1);
  check_penalties(batch, penalties);
  check_top(k);
  const uint32_t vocab = m.cfg.vocab;
  const std::vector<uint32_t> lists = m.upload_penalties(penalties, batch.size());
  m.submit_batch(batch, Head::Top);
  const uint32_t slices = m.kernels->argmax_slices(vocab);
  const size_t per_row = m.kernels->top_row_bytes(vocab) / 4;  // (words)
  // The lists read in place: a row's merge reads the heads of its slices' lists and as far as it takes
  // (mostly a few entries a slice), not the 32 KB a row of the 2B4T vocabulary a copy would read.
  const std::span<const uint32_t> pairs = m.batch_top_read.words().first(batch.size() * per_row),
                                  nan = m.batch_nan.words().first(batch.size() * slices);
  std::vector<float> gathered(batch.size() * kMax);
  if (!penalties.empty()) m.batch_gathered.download(gathered.data(), gathered.size() * 4);
  tops.assign(batch.size(), {});
  bool ok = true;
  for (size_t i = 0; i < batch.size(); ++i) {
    const size_t n = lists[i * (kMax + 1)];
    ok = vk::Kernels::top_of_slices(pairs.subspan(i * per_row, per_row), nan.subspan(i * slices, slices),
                                    n ? penalties[i].tokens : std::span<const int32_t>{},
                                    std::span<const float>(gathered).subspan(i * kMax, n),
                                    n ? penalties[i].penalty : 1.f, k, tops[i]) &&
         ok;
  }
  return ok;
}

Precision VulkanForward::precision() const {
  return impl_->kernels->f64() ? Precision::F64 : Precision::Fp32;
}
bool VulkanForward::fused_decode() const {
  return impl_->fused != nullptr;
}
void VulkanForward::debug_fail_persistent_decode() {
  if (impl_->persistent_live) impl_->persistent->raise_failure_for_test();
}
bool VulkanForward::overlapped_batch_steps() const {
  return impl_->batch_overlap;
}
void VulkanForward::debug_fail_batch_overlap() {
  const uint32_t one = 1;
  if (impl_->batch_overlap) impl_->batch_failed.upload(&one, 4);
}
std::vector<uint32_t> VulkanForward::debug_batch_row_counts() const {
  std::vector<uint32_t> counts(impl_->batch_ready.size() / 4);
  if (!counts.empty()) impl_->batch_ready.download(counts.data(), counts.size() * 4);
  return counts;
}
bool VulkanForward::bounded_head() const {
  return !impl_->head_q8.empty();
}
bool VulkanForward::bounded_batch_head() const {
  return impl_->batch_head_thr.size() > 0;
}
bool VulkanForward::bounded_sampling_head() const {
  return impl_->sample_list.size() > 0;
}

uint64_t VulkanForward::sampled_head_f16_rows() const {
  const Impl& m = *impl_;
  if (m.sample_list.size() == 0) return 0;
  uint32_t before[2] = {}, last = 0;  // the steps before the last one, and the last one's list
  m.topk_scratch.download(before, sizeof before, vk::Kernels::kTopKRowsOffset);
  m.sample_list.download(&last, 4);
  return (uint64_t{before[1]} << 32 | before[0]) + last;
}

std::string VulkanForward::prefill_kernels() const {
  const vk::Kernels& k = *impl_->kernels;
  if (k.gemm()) return k.gemm()->describe();
  return std::string("block matvec kernel (") + (k.dot_product() ? "int8 dot product" : "bit extraction") + ")";
}

std::string VulkanForward::batched_kernels() const {
  return impl_->batched ? impl_->batched->describe() : std::string();
}

std::string VulkanForward::batched_lone_steps() const {
  const Impl& m = *impl_;
  if (m.sequences <= 1 || !m.fused) return {};
  return m.lone_on_persistent() ? "persistent kernel, the batched steps' bits" : "one-token kernels";
}

std::string VulkanForward::batched_attention() const {
  const Impl& m = *impl_;
  if (m.sequences <= 1 || !m.fused) return {};
  if (m.grouped) return "grouped by KV head, up to " + std::to_string(m.grouped->layout().max_splits) + " splits";
  return "per query head, splits of " + std::to_string(m.kernels->split_keys()) + " keys";
}

std::vector<std::string> VulkanForward::kernel_statistics() {
  impl_->adopt_persistent(true);
  std::vector<std::string> out;
  auto take = [&out](std::vector<std::string> lines) {
    out.insert(out.end(), std::make_move_iterator(lines.begin()), std::make_move_iterator(lines.end()));
  };
  if (impl_->persistent_live) take(impl_->persistent->statistics());
  if (impl_->fused) take(impl_->fused->statistics());
  if (impl_->batched) take(impl_->batched->statistics());
  if (impl_->grouped) take(impl_->grouped->statistics());
  take(impl_->kernels->statistics());
  if (impl_->sampler) take(impl_->sampler->statistics());
  return out;
}

std::string VulkanForward::decode_kernels() const {
  const Impl& m = *impl_;
  if (m.persistent_live) return "persistent (" + std::to_string(m.persistent->layout().groups) + " workgroups)";
  const std::string why = m.persistent_why.empty() ? "" : " (persistent kernel: " + m.persistent_why + ")";
  return (m.fused ? "fused" : "unfused") + why;
}

uint32_t VulkanForward::persistent_groups() {
  impl_->adopt_persistent(true);
  return impl_->persistent_live ? impl_->persistent->layout().groups : 0;
}

}  // namespace trit
