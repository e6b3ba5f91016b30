// Causal attention for a block of queries (prefill), one workgroup per (KV head, token) serving all
// G = heads / kv_heads query heads that share the KV head (GQA): each key and value row is read once
// for the G heads instead of once per head, and every barrier covers G heads' work. Otherwise the
// computation is attention.glsl's without split-K, step for step and per head in the same order (same
// workgroup size, threads per key, chunk length, reductions), so the outputs are bit-identical to it.
// Token t sits at position pos0 + t and attends to positions [0, pos0 + t].
#include "common.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool KV_F16 = true;
layout(constant_id = 2) const uint CHUNK = 64;  // keys per online-softmax step (attention.glsl's SPLIT_KEYS)
layout(constant_id = 3) const uint G = 4;       // query heads per KV head
layout(std430, binding = 1) readonly buffer Q { real q[]; };
layout(std430, binding = 2) readonly buffer KC { uint kc[]; };
layout(std430, binding = 3) readonly buffer VC { uint vc[]; };
layout(std430, binding = 4) writeonly buffer O { real o[]; };
layout(push_constant) uniform Push { uint heads; uint kv_heads; uint hd; } pc;

const uint MAXG = 8;  // the host keeps G <= MAXG
const uint TPK = 8;   // threads per key in the score pass
shared real qs[G * 4 * gl_WorkGroupSize.x];  // hd <= 4 * workgroup size
shared real ps[G * CHUNK];                    // per head: the chunk's scores, then probabilities
shared real slice[G * gl_WorkGroupSize.x];    // per head: per-thread partial dot products
shared real red_g[G * 64];                    // per head: one partial per subgroup

#include "kv_cache.glsl"

// G workgroup maxima / sums at once, each exactly as common.glsl's wg_max / wg_sum.
void wg_max_g(inout real v[MAXG]) {
  for (uint g = 0; g < G; ++g) {
    const real r = subgroupMax(v[g]);
    if (subgroupElect()) red_g[g * 64 + gl_SubgroupID] = r;
  }
  barrier();
  for (uint g = 0; g < G; ++g) {
    real r = red_g[g * 64];
    for (uint i = 1; i < gl_NumSubgroups; ++i) r = max(r, red_g[g * 64 + i]);
    v[g] = r;
  }
  barrier();
}

void wg_sum_g(inout real v[MAXG]) {
  for (uint g = 0; g < G; ++g) {
    const real r = subgroupAdd(v[g]);
    if (subgroupElect()) red_g[g * 64 + gl_SubgroupID] = r;
  }
  barrier();
  for (uint g = 0; g < G; ++g) {
    real r = real(0);
    for (uint i = 0; i < gl_NumSubgroups; ++i) r += red_g[g * 64 + i];
    v[g] = r;
  }
  barrier();
}

void main() {
  const uint kvh = gl_WorkGroupID.x, t = gl_WorkGroupID.y;
  if (t >= params.n_tokens) return;
  const uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  const uint n_ctx = params.pos0 + t + 1;
  const uint hd = pc.hd, qdim = pc.heads * hd, kvdim = pc.kv_heads * hd;
  const uint kvoff = kvh * hd, h0 = kvh * G;
  for (uint i = tid; i < G * hd; i += wg) qs[i] = q[t * qdim + h0 * hd + i];
  barrier();

  const real scale = real(1) / sqrt(real(hd));
  const uint kslot = tid / TPK, kpart = tid % TPK, kpp = wg / TPK;
  real acc[MAXG * 4], m[MAXG], l[MAXG], factor[MAXG], red[MAXG];
  for (uint i = 0; i < MAXG * 4; ++i) acc[i] = real(0);
  for (uint g = 0; g < MAXG; ++g) { m[g] = real(0); l[g] = real(0); }
  bool first = true;
  for (uint c0 = 0; c0 < n_ctx; c0 += CHUNK) {
    const uint cnt = min(CHUNK, n_ctx - c0);
    for (uint j0 = 0; j0 < cnt; j0 += kpp) {
      const uint jj = j0 + kslot;
      real dotv[MAXG];
      for (uint g = 0; g < G; ++g) dotv[g] = real(0);
      if (jj < cnt) {
        const uint kb = (c0 + jj) * kvdim + kvoff;
        if (KV_F16) {
          uint d2 = kpart;
          for (; d2 + 3 * TPK < hd / 2; d2 += 4 * TPK) {  // four loads in flight, same sum order
            uint kw[4];
            for (uint i = 0; i < 4; ++i) kw[i] = kc[kb / 2 + d2 + i * TPK];
            for (uint i = 0; i < 4; ++i) {
              const real2 kk = real2(unpackHalf2x16(kw[i]));
              const uint e = 2 * (d2 + i * TPK);
              for (uint g = 0; g < G; ++g) dotv[g] += qs[g * hd + e] * kk.x + qs[g * hd + e + 1] * kk.y;
            }
          }
          for (; d2 < hd / 2; d2 += TPK) {
            const real2 kk = real2(unpackHalf2x16(kc[kb / 2 + d2]));
            for (uint g = 0; g < G; ++g) dotv[g] += qs[g * hd + 2 * d2] * kk.x + qs[g * hd + 2 * d2 + 1] * kk.y;
          }
        } else {
          for (uint d = kpart; d < hd; d += TPK) {
            const real kk = real(uintBitsToFloat(kc[kb + d]));
            for (uint g = 0; g < G; ++g) dotv[g] += qs[g * hd + d] * kk;
          }
        }
      }
      for (uint g = 0; g < G; ++g) slice[g * wg + tid] = dotv[g];
      barrier();
      if (kpart == 0 && jj < cnt) {
        for (uint g = 0; g < G; ++g) {
          real sum = real(0);
          for (uint i = 0; i < TPK; ++i) sum += slice[g * wg + tid + i];
          ps[g * CHUNK + jj] = sum * scale;
        }
      }
      barrier();
    }
    for (uint g = 0; g < G; ++g) {
      real cmax = real(-3.0e38);
      for (uint jj = tid; jj < cnt; jj += wg) cmax = max(cmax, ps[g * CHUNK + jj]);
      red[g] = cmax;
    }
    wg_max_g(red);
    for (uint g = 0; g < G; ++g) {
      const real m_new = first ? red[g] : max(m[g], red[g]);
      factor[g] = first ? real(0) : exp_real(m[g] - m_new);
      m[g] = m_new;
    }
    for (uint g = 0; g < G; ++g) {
      real psum = real(0);
      for (uint jj = tid; jj < cnt; jj += wg) {
        const real p = exp_real(ps[g * CHUNK + jj] - m[g]);
        ps[g * CHUNK + jj] = p;
        psum += p;
      }
      red[g] = psum;
    }
    wg_sum_g(red);  // its barriers also publish ps[]
    for (uint g = 0; g < G; ++g) l[g] = l[g] * factor[g] + red[g];
    first = false;
    for (uint r = 0; r < 4; ++r) {
      const uint d = tid + r * wg;
      if (d >= hd) break;
      real a[MAXG];
      for (uint g = 0; g < G; ++g) a[g] = acc[g * 4 + r] * factor[g];
      uint jj = 0;
      for (; jj + 8 <= cnt; jj += 8) {
        real vv[8];
        for (uint i = 0; i < 8; ++i) vv[i] = cache_at(false, (c0 + jj + i) * kvdim + kvoff + d);
        for (uint g = 0; g < G; ++g)
          for (uint i = 0; i < 8; ++i) a[g] += ps[g * CHUNK + jj + i] * vv[i];
      }
      for (; jj < cnt; ++jj) {
        const real vv = cache_at(false, (c0 + jj) * kvdim + kvoff + d);
        for (uint g = 0; g < G; ++g) a[g] += ps[g * CHUNK + jj] * vv;
      }
      for (uint g = 0; g < G; ++g) acc[g * 4 + r] = a[g];
    }
    barrier();  // ps[] is rewritten by the next chunk
  }
  for (uint r = 0; r < 4; ++r) {
    const uint d = tid + r * wg;
    if (d >= hd) break;
    for (uint g = 0; g < G; ++g) o[t * qdim + (h0 + g) * hd + d] = acc[g * 4 + r] / l[g];
  }
}
