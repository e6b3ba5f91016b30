// A batched step's attention with the persistent decode kernel's arithmetic (decode_layer.glsl, step 2):
// one workgroup per (KV head g, token t, split s). A work item takes keys [s * split, ...) of token t's
// sequence for all GQ query heads of KV head g at once (one load of a key or value row serves every
// query head of its group), over chunks of CH = WG / TPK keys, with the unshifted softmax redone with
// the running maximum where a head's sum leaves the range that keeps it lossless. Splits
// (attention_items): up to two chunks in one item, else at most MAXS splits of a multiple of 16 keys
// and of a chunk at least (vulkan/grouped_attention.h says why the persistent kernel's are smaller);
// the last split of a (token, KV head) to arrive merges the partials of every query head of the group
// (merged_output). The work item itself is attention_group.glsl.
#include "common.glsl"
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_memory_scope_semantics : require
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool KV_F16 = true;
layout(constant_id = 2) const uint HD = 128;
layout(constant_id = 3) const uint GQ = 4;      // query heads per KV head
layout(constant_id = 4) const uint MAXS = 1;    // splits per (token, KV head) at most
layout(constant_id = 5) const uint VPARTS = 4;  // the value pass splits a chunk's keys over VPARTS groups
#include "kv_cache.glsl"
layout(std430, binding = 1) readonly buffer Q { real q[]; };    // [token][heads * HD]
layout(std430, binding = 2) readonly buffer KC { uint kc[]; };  // the layer's caches
layout(std430, binding = 3) readonly buffer VC { uint vc[]; };
layout(std430, binding = 4) writeonly buffer O { real o[]; };   // [token][heads * HD]
// Partials of (token t, KV head g, query head h of its group, split s) at
// (((t * kv_heads + g) * GQ + h) * MAXS + s) * (HD + 2): m, l, acc[HD].
layout(std430, binding = 5) coherent buffer Part { real part[]; };
layout(std430, binding = 6) coherent buffer Count { uint arrived[]; };  // per (token, KV head); zero between uses
layout(push_constant) uniform Push { uint kv_heads; } pc;

const uint WG = gl_WorkGroupSize.x;
#define tid gl_LocalInvocationID.x
uint QDIM = 0u, KVDIM = 0u, QB = 0u, KV0 = 0u;  // widths, this token's q row and its sequence's first cache row

// The words of dimensions 2w, 2w + 1 of key (or value) `row` of this token's sequence, KV head g.
kv_pair_t k_word(uint row, uint g, uint w) { return KV_LOAD_PAIR(kc, kv_word((KV0 + row) * KVDIM + g * HD + 2u * w)); }
kv_pair_t v_word(uint row, uint g, uint w) { return KV_LOAD_PAIR(vc, kv_word((KV0 + row) * KVDIM + g * HD + 2u * w)); }
real2 att_pair(kv_pair_t w) { return kv_unpack_pair(w); }
real group_q(uint g, uint e) { return q[QB + (g * GQ) * HD + e]; }
real butterfly_sum(real v, uint n) {
  for (uint off = n / 2u; off > 0u; off /= 2u) v += subgroupShuffleXor(v, off);
  return v;
}
#define CLUSTER_SUM(v, n) butterfly_sum(v, n)
#define ATT_WORD kv_pair_t
#define ATT_MIN_SPLIT CH  // (vulkan/grouped_attention.h: a chunk at least)
#include "attention_group.glsl"
shared uint arrival;

void main() {
  const uint g = gl_WorkGroupID.x, t = gl_WorkGroupID.y, s = gl_WorkGroupID.z;
  if (t >= params.n_tokens) return;
  QDIM = pc.kv_heads * GQ * HD;
  KVDIM = pc.kv_heads * HD;
  QB = t * QDIM;
  KV0 = token_kv(t, FROM_BATCH);
  const uint n_all = token_pos(t, FROM_BATCH) + 1u;
  uint split, n_splits;
  attention_items(n_all, split, n_splits);
  if (s >= n_splits) return;
  const uint k0 = s * split, k1 = min(n_all, k0 + split);
  ATT_WORD kpre[KW], vpre[VK];
  attend_item(kpre, vpre, g, k0, k1, k0);
  const uint ob = QB + g * GQ * HD;
  if (n_splits == 1u) {
    for (uint e = tid; e < GQ * HD; e += WG) o[ob + e] = out_at(e) / hl[e / HD];
    return;
  }
  const uint slot = t * pc.kv_heads + g;
  store_partials(slot, s);
  // Publish the partial, then count in; the last split to arrive sees every other partial.
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
  if (tid == 0u) {
    memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
    arrival = atomicAdd(arrived[slot], 1u);
  }
  barrier();
  if (arrival != n_splits - 1u) return;
  memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquire);
  if (tid == 0u) arrived[slot] = 0u;
  for (uint h = 0; h < GQ; ++h) {
    uint d;
    real v;
    if (merged_output((slot * GQ + h) * MAXS, n_splits, d, v)) o[ob + h * HD + d] = v;
  }
}
