// A batched step's attention with the persistent decode kernel's arithmetic (decode_layer.glsl, step 2):
// one workgroup per (KV head g, token t, split s). A work item takes keys [s * split, ...) of token t's
// sequence for all GQ query heads of KV head g at once (one load of a key or value row serves every
// query head of its group), over chunks of CH = WG / TPK keys, with the unshifted softmax redone with
// the running maximum where a head's sum leaves the range that keeps it lossless. Splits
// (attention_items): up to two chunks in one item, else at most MAXS splits of a multiple of 16 keys
// and of a chunk at least (vulkan/grouped_attention.h says why the persistent kernel's are smaller);
// the last split of a (token, KV head) to arrive merges the partials of every query head of the group
// (merge_head).
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
const uint TPK = 8u;            // invocations per key in the score pass
const uint CH = WG / TPK;       // keys per chunk
const uint VW = HD / 2u;        // dimension pairs of a value row
const uint KW = HD / 2u / TPK;  // pairs of a key row per invocation in the score pass
const uint VK = CH / VPARTS;    // value pairs per invocation per chunk
const uint VRED = VPARTS > 4u ? VPARTS / 2u : VPARTS;
shared real qs[GQ * HD];
shared real ps[GQ * CH];
shared real hm[GQ], hl[GQ], hf[GQ];
shared real lsum[GQ * CH];
shared real vred[VRED * GQ * HD];
shared uint arrival;
#define tid gl_LocalInvocationID.x

uint QDIM = 0u, KVDIM = 0u, KV0 = 0u;  // the step's widths and this token's sequence's first cache row

// The words of dimensions 2w, 2w + 1 of key (or value) `row` of this token's sequence, KV head g.
kv_pair_t k_word(uint row, uint g, uint w) { return KV_LOAD_PAIR(kc, kv_word((KV0 + row) * KVDIM + g * HD + 2u * w)); }
kv_pair_t v_word(uint row, uint g, uint w) { return KV_LOAD_PAIR(vc, kv_word((KV0 + row) * KVDIM + g * HD + 2u * w)); }

void load_keys(inout kv_pair_t kpre[KW], uint g, uint c0, uint cnt) {
  const uint kslot = tid / TPK, kpart = tid % TPK;
  if (kslot < cnt)
    for (uint i = 0; i < KW; ++i) kpre[i] = k_word(c0 + kslot, g, kpart + TPK * i);
}

void load_values(inout kv_pair_t vpre[VK], uint g, uint c0, uint cnt) {
  const uint vw = tid % VW, vpart = tid / VW;
  if (vpart < VPARTS)
    for (uint i = 0; i < VK; ++i) {
      const uint j = vpart + VPARTS * i;
      if (j < cnt) vpre[i] = v_word(c0 + j, g, vw);
    }
}

void attention_items(uint n_all, out uint split, out uint n_splits) {
  if (n_all <= 2u * CH) {
    split = n_all;
    n_splits = 1u;
    return;
  }
  const uint per = (n_all + MAXS - 1u) / MAXS;
  split = max(((per + 15u) / 16u) * 16u, CH);
  n_splits = (n_all + split - 1u) / split;
}

#ifdef TRIT_F64
const double SOFTMAX_MIN = 1e-250LF, SOFTMAX_MAX = 1e250LF;
#else
const float SOFTMAX_MIN = 1e-30, SOFTMAX_MAX = 1e30;
#endif

void put_score(uint h, uint slot, real s, bool exact) {
  if (exact) {
    ps[h * CH + slot] = s;
  } else {
    const real p = exp_real(s);
    ps[h * CH + slot] = p;
    lsum[h * CH + slot] += p;
  }
}

void attend(uint t, uint g, uint k0, uint k1, bool exact) {
  kv_pair_t kpre[KW], vpre[VK];
  const real scale = real(1) / sqrt(real(HD));
  for (uint e = tid; e < GQ * HD; e += WG) qs[e] = q[t * QDIM + (g * GQ) * HD + e];
  for (uint e = tid; e < GQ * CH; e += WG) lsum[e] = real(0);
  load_keys(kpre, g, k0, min(CH, k1 - k0));
  load_values(vpre, g, k0, min(CH, k1 - k0));
  barrier();
  const uint kslot = tid / TPK, kpart = tid % TPK;
  const uint vw = tid % VW, vpart = tid / VW;
  real va[GQ][2];
  for (uint h = 0; h < GQ; ++h) va[h][0] = va[h][1] = real(0);
  bool first = true;
  for (uint c0 = k0; c0 < k1; c0 += CH) {
    const uint cnt = min(CH, k1 - c0);
    if (c0 != k0) load_values(vpre, g, c0, cnt);
    real d[GQ];
    for (uint h = 0; h < GQ; ++h) d[h] = real(0);
    if (kslot < cnt)
      for (uint i = 0; i < KW; ++i) {
        const uint d2 = kpart + TPK * i;
        const real2 kk = kv_unpack_pair(kpre[i]);
        for (uint h = 0; h < GQ; ++h) d[h] += qs[h * HD + 2u * d2] * kk.x + qs[h * HD + 2u * d2 + 1u] * kk.y;
      }
    if (GQ == 4u && TPK == 8u) {
      const bool hi4 = (kpart & 4u) != 0u, hi2 = (kpart & 2u) != 0u;
      real a0 = hi4 ? d[2 % GQ] : d[0], a1 = hi4 ? d[3 % GQ] : d[1 % GQ];
      const real s0 = hi4 ? d[0] : d[2 % GQ], s1 = hi4 ? d[1 % GQ] : d[3 % GQ];
      a0 += subgroupShuffleXor(s0, 4u);
      a1 += subgroupShuffleXor(s1, 4u);
      real b = hi2 ? a1 : a0;
      b += subgroupShuffleXor(hi2 ? a0 : a1, 2u);
      b += subgroupShuffleXor(b, 1u);
      const uint h = (hi4 ? 2u : 0u) + (hi2 ? 1u : 0u);
      if ((kpart & 1u) == 0u && kslot < cnt) put_score(h, kslot, b * scale, exact);
    } else {
      for (uint h = 0; h < GQ; ++h) {
        real sum = d[h];
        for (uint off = TPK / 2u; off > 0u; off /= 2u) sum += subgroupShuffleXor(sum, off);
        if (kpart == 0u && kslot < cnt) put_score(h, kslot, sum * scale, exact);
      }
    }
    barrier();
    if (exact) {
      if (gl_SubgroupID < GQ) {
        const uint h = gl_SubgroupID;
        real cmax = real(-3.0e38);
        for (uint j = gl_SubgroupInvocationID; j < cnt; j += gl_SubgroupSize) cmax = max(cmax, ps[h * CH + j]);
        cmax = subgroupMax(cmax);
        const real m_new = first ? cmax : max(hm[h], cmax);
        const real factor = first ? real(0) : exp_real(hm[h] - m_new);
        real psum = real(0);
        for (uint j = gl_SubgroupInvocationID; j < cnt; j += gl_SubgroupSize) {
          const real p = exp_real(ps[h * CH + j] - m_new);
          ps[h * CH + j] = p;
          psum += p;
        }
        psum = subgroupAdd(psum);
        if (subgroupElect()) {
          hl[h] = first ? psum : hl[h] * factor + psum;
          hm[h] = m_new;
          hf[h] = factor;
        }
      }
      barrier();
    }
    if (c0 + CH < k1) load_keys(kpre, g, c0 + CH, min(CH, k1 - c0 - CH));
    if (vpart < VPARTS) {
      if (exact)
        for (uint h = 0; h < GQ; ++h) {
          va[h][0] *= hf[h];
          va[h][1] *= hf[h];
        }
      for (uint i = 0; i < VK; ++i) {
        const uint j = vpart + VPARTS * i;
        if (j >= cnt) break;
        const real2 vv = kv_unpack_pair(vpre[i]);
        for (uint h = 0; h < GQ; ++h) {
          const real p = ps[h * CH + j];
          va[h][0] += p * vv.x;
          va[h][1] += p * vv.y;
        }
      }
    }
    first = false;
    barrier();
  }
  if (vpart < VPARTS && vpart >= VPARTS - VRED)
    for (uint h = 0; h < GQ; ++h) {
      const uint b = ((vpart - (VPARTS - VRED)) * GQ + h) * HD + 2u * vw;
      vred[b] = va[h][0];
      vred[b + 1u] = va[h][1];
    }
  if (VPARTS > VRED) {
    barrier();
    if (vpart < VPARTS - VRED)
      for (uint h = 0; h < GQ; ++h) {
        const uint b = (vpart * GQ + h) * HD + 2u * vw;
        vred[b] += va[h][0];
        vred[b + 1u] += va[h][1];
      }
  }
  if (!exact && gl_SubgroupID < GQ) {
    const uint h = gl_SubgroupID;
    real l = real(0);
    for (uint j = gl_SubgroupInvocationID; j < CH; j += gl_SubgroupSize) l += lsum[h * CH + j];
    l = subgroupAdd(l);
    if (subgroupElect()) {
      hl[h] = l;
      hm[h] = real(0);
    }
  }
  barrier();
}

real out_at(uint e) {
  real r = real(0);
  for (uint p = 0; p < VRED; ++p) r += vred[p * GQ * HD + e];
  return r;
}

const uint MP = WG / HD >= 8u ? 8u : WG / HD >= 4u ? 4u : WG / HD >= 2u ? 2u : 1u;
const uint MPS = (MAXS + MP - 1u) / MP;
real butterfly_sum(real v, uint n) {
  for (uint off = n / 2u; off > 0u; off /= 2u) v += subgroupShuffleXor(v, off);
  return v;
}
// The splits of query head h of the group at partial base hb merged, into o.
void merge_head(uint hb, uint ob, uint n_splits) {
  const uint stride = HD + 2u;
  const uint d = tid / MP, p = tid % MP;
  const bool live = d < HD;
  real pv[MPS];
  for (uint i = 0; i < MPS; ++i) {
    const uint s2 = p + i * MP;
    pv[i] = live && s2 < n_splits ? part[(hb + s2) * stride + 2u + d] : real(0);
  }
  const uint sl = gl_SubgroupInvocationID;
  const bool has = sl < n_splits;
  const real ms = has ? part[(hb + sl) * stride] : real(-3.0e38);
  const real ls = has ? part[(hb + sl) * stride + 1u] : real(0);
  real ws = has ? real(1) : real(0);
  if (subgroupOr(has && ms != real(0) ? 1u : 0u) != 0u) {
    const real mx = subgroupMax(ms);
    ws = has ? exp_real(ms - mx) : real(0);
  }
  const real den = subgroupAdd(ls * ws);
  real acc = real(0);
  for (uint i = 0; i < MPS; ++i) acc += pv[i] * subgroupShuffle(ws, min(p + i * MP, gl_SubgroupSize - 1u));
  acc = butterfly_sum(acc, MP);
  if (live && p == 0u) o[ob + d] = acc / den;
}

void main() {
  const uint g = gl_WorkGroupID.x, t = gl_WorkGroupID.y, s = gl_WorkGroupID.z;
  if (t >= params.n_tokens) return;
  QDIM = pc.kv_heads * GQ * HD;
  KVDIM = pc.kv_heads * HD;
  KV0 = token_kv(t, FROM_BATCH);
  const uint n_all = token_pos(t, FROM_BATCH) + 1u;
  uint split, n_splits;
  attention_items(n_all, split, n_splits);
  if (s >= n_splits) return;
  const uint k0 = s * split, k1 = min(n_all, k0 + split);
  for (uint pass = 0u; pass < 2u; ++pass) {
    attend(t, g, k0, k1, pass == 1u);
    bool ok = true;
    for (uint h = 0; h < GQ; ++h) ok = ok && hl[h] >= SOFTMAX_MIN && hl[h] <= SOFTMAX_MAX;
    if (ok || pass == 1u) break;
  }
  const uint ob = t * QDIM + g * GQ * HD;
  if (n_splits == 1u) {
    for (uint e = tid; e < GQ * HD; e += WG) o[ob + e] = out_at(e) / hl[e / HD];
    return;
  }
  const uint stride = HD + 2u, slot = t * pc.kv_heads + g;
  for (uint e = tid; e < GQ * HD; e += WG) {
    const uint h = e / HD, d = e % HD;
    const uint pb = ((slot * GQ + h) * MAXS + s) * stride;
    if (d == 0u) {
      part[pb] = hm[h];
      part[pb + 1u] = hl[h];
    }
    part[pb + 2u + d] = out_at(e);
  }
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
  for (uint h = 0; h < GQ; ++h) merge_head((slot * GQ + h) * MAXS, ob + h * HD, n_splits);
}
