// Tied F16 LM head over one chunk of the embedding table: logits[t][row0 + r] = sum_d E[r][d] * x[t][d]
// (`real` accumulation). The table is read as uvec4 (8 halves), TPR lanes per row, WG/TPR rows per
// workgroup, NT tokens per workgroup in y. One dispatch per chunk (a chunk fits one binding).
//
// Decode variant (XDIM > 0, one token): the 657 MB table is the largest read of a decode step, so the
// token's x is staged once per workgroup in shared memory (XDIM = dim values) instead of being re-read
// from L1 for every row, each workgroup covers RPW rows, and each subgroup takes RIF whole rows at a
// time (lanes stride over the rows' uvec4s, coalesced 16-byte loads, RIF independent loads in flight
// per lane that share one read of x) and reduces them with subgroupAdd, so any subgroup size works and
// no barrier sits in the row loop.
// It also applies the final RMSNorm itself, to the last submitted token's row of the residual x:
// logit = (E . (x * w)) / rms(x). Each workgroup stages x * w and sums x^2 as it stages, and scales
// its dot products by 1 / rms at the end, so the reduction does not hold back the table's loads and no
// norm dispatch (with its boundary, ~0.8% of a decode step on the H100) precedes the head.
// x is staged as four planes of real2 (plane p holds elements 8j+2p, 8j+2p+1 at index j), so the
// lanes of a subgroup read consecutive 16-byte words of shared memory. The former layout (real4 at
// 2j, 2j+1: a 64-byte stride between lanes) made 4-way bank conflicts, and shared-memory bandwidth
// capped the head at 1.76 TB/s on the H100 (0.373 ms; 0.269 ms with this layout alone, same sizes
// otherwise). Wider workgroups (512 threads) and RIF = 4 took it to 0.229 ms (2.87 TB/s, 96% of the
// measured copy bandwidth). RPW must be a multiple of RIF: the workgroup size, or on devices that
// report their multiprocessors as many rows as make two workgroups each (Kernels::lm_head_rows_per_group:
// 0.227 instead of 0.232 ms on the H100).
//
// ARGMAX (decode): the head also ends a device-side greedy step, so greedy_step.comp (a dispatch, its
// boundary of ~2.1 us on the H100 and a re-read of the logits) does not run. The lane that writes a
// row's logit keeps its subgroup's best (order key, row) in argmax.glsl's order, after the row's
// subgroupAdd, not in the lanes' inner loop. Each workgroup leaves its best in its slot (group0 + its
// id: one slot per workgroup of every chunk's dispatch, and those may run at once); the last of all
// `groups` to arrive merges the slots and publishes as greedy_step.comp does. The logits are still
// written (a store per row; tests read them).
//
// BOUNDED (with ARGMAX): the greedy step's exact argmax from half the bytes. The head reads an int8
// copy of the table (lm_head_q8.comp: row scale s_i, q_i = round(E_i / s_i), and bounds on the rows'
// rounding error) and h = x * w as two int8 planes (h ~ s_h (h1 + h2 / 256)), so each row's integer
// dot products give an approximate logit a_i with a proven bound B_i on its distance from the exact
// logit (the error of E_i against s_i q_i and of h against its planes, by Cauchy-Schwarz, plus a slack
// for both computations' rounding). Only rows whose a_i + B_i reaches the largest a_j - B_j seen (this
// workgroup's, or a larger one another workgroup posted in the scratch) can hold the maximum; those
// rows alone are read in F16 and computed exactly as above, so the argmax, ties included, is the exact
// head's. Only those rows' logits are written. On random tables well under 1% of the rows are read
// again where workgroups hold dozens of rows or more (lm_head_decode_test prints the share).
#include "common.glsl"
#include "argmax.glsl"
#include "ternary_codes.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint NT = 1;
layout(constant_id = 3) const uint XDIM = 0;
layout(constant_id = 4) const uint RPW = 64;
layout(constant_id = 5) const uint RIF = 4;
layout(constant_id = 6) const bool ARGMAX = false;
layout(constant_id = 7) const bool BOUNDED = false;
layout(std430, binding = 1) readonly buffer E { uvec4 e[]; };
layout(std430, binding = 2) readonly buffer X { real4 x[]; };
layout(std430, binding = 3) writeonly buffer L { float logits[]; };
layout(std430, binding = 4) readonly buffer NW { vec4 nw[]; };  // the final norm's weights (decode)
// ARGMAX only (placeholders otherwise). Binding 0 again, writable, for the position the last workgroup
// advances (common.glsl's `params` is read-only; workgroups read only its n_tokens, before arriving).
// Then the next input token, the host's ring, and the arrival count with one (key, row) slot per
// workgroup of the whole head.
layout(std430, binding = 0) buffer StepParams { uint pos0; uint n_tokens; } wparams;
layout(std430, binding = 5) writeonly buffer T { uint next_token[]; };
layout(std430, binding = 6) writeonly buffer R { uint ring[]; };
// thr: BOUNDED, the largest lower bound (an order key) any workgroup of this step has posted.
layout(std430, binding = 7) coherent buffer S { uint done; uint thr; uvec2 best[]; } s;
// BOUNDED: the int8 table chunk (16 codes per uvec4) and per row (s_i, c1_i, c2_i, 0): lm_head_q8.comp.
layout(std430, binding = 8) readonly buffer Q8 { uvec4 q8[]; };
layout(std430, binding = 9) readonly buffer QC { vec4 qc[]; };
// groups: workgroups of all chunks' dispatches; group0: this chunk's first (ARGMAX).
layout(push_constant) uniform Push {
  uint rows; uint dim; uint row0; uint vocab; float eps; uint groups; uint group0; uint ring_size;
} pc;

const uint MAXNT = 8;
shared real part[XDIM > 0 ? 1 : gl_WorkGroupSize.x * MAXNT];
shared real2 xs[XDIM > 0 ? XDIM / 2 : 1];
shared real ssp[XDIM > 0 ? 64 : 1];  // per subgroup: its part of the sum of x^2
shared bool s_last;
shared real amp[BOUNDED ? 64 : 1], hhp[BOUNDED ? 64 : 1];  // per subgroup: max |h|, sum of h^2
shared uvec4 qh1[BOUNDED ? XDIM / 16 : 1], qh2[BOUNDED ? XDIM / 16 : 1];  // h's two int8 planes
shared vec2 sab[BOUNDED ? RPW : 1];  // per row of the workgroup: (a_i, B_i)
shared uint s_thr;

// ARGMAX: this workgroup's best (per invocation: its rows' best, or NONE) into its slot; the last
// workgroup of the head to arrive publishes the best of all slots, as greedy_step.comp does.
void publish_best(uint bk, uint bi) {
  const uint tid = gl_LocalInvocationID.x;
  const uvec2 mine = workgroup_best(bk, bi);
  if (tid == 0u) {
    s.best[pc.group0 + gl_WorkGroupID.x] = mine;
    memoryBarrierBuffer();  // release: the slot is written before this workgroup counts in
    s_last = atomicAdd(s.done, 1u) == pc.groups - 1u;
  }
  barrier();
  if (!s_last) return;
  memoryBarrierBuffer();  // acquire: every workgroup's slot is visible
  bk = 0u;
  bi = NONE;
  for (uint j = tid; j < pc.groups; j += gl_WorkGroupSize.x) {
    const uvec2 b = s.best[j];
    if (beats(b.x, b.y, bk, bi)) {
      bk = b.x;
      bi = b.y;
    }
  }
  const uvec2 all = workgroup_best(bk, bi);
  if (tid == 0u) {
    s.done = 0u;
    s.thr = 0u;
    const uint pos = wparams.pos0;
    next_token[0] = all.y;
    ring[pos % pc.ring_size] = all.y;
    wparams.pos0 = pos + 1u;
  }
}

const uint RV = XDIM / 8;  // uvec4s per F16 row, known when the pipeline is made

// Stages h = x * w of the last token in xs and returns 1 / rms(x); BOUNDED: also max |h| and sum h^2.
real stage_x(uint xb, out real am, out real hh) {
  real ss = real(0);
  am = real(0);
  hh = real(0);
  for (uint i = gl_LocalInvocationID.x; i < XDIM / 4; i += gl_WorkGroupSize.x) {
    const real4 v = x[xb + i];
    ss += dot(v, v);
    const real4 vw = v * real4(nw[i]);
    const uint j = i / 2, p = 2 * (i % 2);
    xs[p * RV + j] = vw.xy;
    xs[(p + 1) * RV + j] = vw.zw;
    if (BOUNDED) {
      hh += dot(vw, vw);
      const real4 a = abs(vw);
      am = max(am, max(max(a.x, a.y), max(a.z, a.w)));
    }
  }
  ss = subgroupAdd(ss);
  if (BOUNDED) {
    hh = subgroupAdd(hh);
    am = subgroupMax(am);
  }
  if (subgroupElect()) {
    ssp[gl_SubgroupID] = ss;
    if (BOUNDED) {
      hhp[gl_SubgroupID] = hh;
      amp[gl_SubgroupID] = am;
    }
  }
  barrier();
  // Every subgroup sums the partials in the same way, so all rows share one scale.
  if (gl_NumSubgroups <= gl_SubgroupSize) {
    const bool has = gl_SubgroupInvocationID < gl_NumSubgroups;
    ss = subgroupAdd(has ? ssp[gl_SubgroupInvocationID] : real(0));
    if (BOUNDED) {
      hh = subgroupAdd(has ? hhp[gl_SubgroupInvocationID] : real(0));
      am = subgroupMax(has ? amp[gl_SubgroupInvocationID] : real(0));
    }
  } else {
    ss = real(0);
    for (uint s = 0; s < gl_NumSubgroups; ++s) ss += ssp[s];
    if (BOUNDED) {
      hh = real(0);
      am = real(0);
      for (uint s = 0; s < gl_NumSubgroups; ++s) {
        hh += hhp[s];
        am = max(am, amp[s]);
      }
    }
  }
  return real(1) / sqrt(ss / real(XDIM) + real(pc.eps));
}

// The exact sums E_r . h of up to RIF rows (rows[k], k < n; the others repeat the last), every lane
// the same (subgroupAdd): the plain loop's arithmetic for each row, whatever rows share the pass.
void exact_rows(uint rows[RIF], uint n, out real total[RIF]) {
  const uint lane = gl_SubgroupInvocationID, step = gl_SubgroupSize;
  uint base[RIF];
  for (uint k = 0; k < RIF; ++k) base[k] = rows[min(k, n - 1)] * RV;
  real acc[RIF];
  for (uint k = 0; k < RIF; ++k) acc[k] = real(0);
  for (uint j = lane; j < RV; j += step) {
    uvec4 w[RIF];
    for (uint k = 0; k < RIF; ++k) w[k] = e[base[k] + j];
    const real4 xlo = real4(xs[j], xs[RV + j]), xhi = real4(xs[2 * RV + j], xs[3 * RV + j]);
    for (uint k = 0; k < RIF; ++k) {
      const real4 lo = real4(vec4(unpackHalf2x16(w[k].x), unpackHalf2x16(w[k].y)));
      const real4 hi = real4(vec4(unpackHalf2x16(w[k].z), unpackHalf2x16(w[k].w)));
      acc[k] += dot(lo, xlo) + dot(hi, xhi);
    }
  }
  for (uint k = 0; k < RIF; ++k) total[k] = subgroupAdd(acc[k]);
}

// Writes a row's logit (its exact sum times 1 / rms) and, ARGMAX, keeps the best (key, row) of the rows
// this invocation wrote (rows come in ascending order, so a tie keeps the first).
void write_logit(uint row, real total, real inv, inout uint bk, inout uint bi) {
  const float logit = float(total * inv);
  logits[pc.row0 + row] = logit;
  if (ARGMAX) {
    const uint key = order_key(logit);
    if (bi == NONE || key > bk) {
      bk = key;
      bi = pc.row0 + row;
    }
  }
}

void decode_rows() {
  const uint xb = (params.n_tokens - 1) * (XDIM / 4);
  real am_unused, hh_unused;
  const real inv = stage_x(xb, am_unused, hh_unused);
  const uint first = gl_WorkGroupID.x * RPW;
  uint bk = 0u, bi = NONE;  // ARGMAX: the best (key, row) of the rows this invocation wrote
  for (uint r = gl_SubgroupID * RIF; r < RPW; r += gl_NumSubgroups * RIF) {
    const uint row = first + r;
    if (row >= pc.rows) break;  // uniform in the subgroup
    // Rows past the chunk's end re-read its last row (a valid address) and are not written.
    uint rows[RIF];
    for (uint k = 0; k < RIF; ++k) rows[k] = row + k;
    real total[RIF];
    exact_rows(rows, min(RIF, pc.rows - row), total);
    for (uint k = 0; k < RIF; ++k)
      if (subgroupElect() && row + k < pc.rows) write_logit(row + k, total[k], inv, bk, bi);
  }
  if (ARGMAX) publish_best(bk, bi);
}

int dot16(uvec4 a, uvec4 b) {
#ifdef TRIT_DOT
  return sdot4x8(int(a.x), int(b.x), 0) + sdot4x8(int(a.y), int(b.y), 0) + sdot4x8(int(a.z), int(b.z), 0) +
         sdot4x8(int(a.w), int(b.w), 0);
#else
  int r = 0;
  for (int c = 0; c < 4; ++c)
    for (int k = 0; k < 32; k += 8) r += bitfieldExtract(int(a[c]), k, 8) * bitfieldExtract(int(b[c]), k, 8);
  return r;
#endif
}

// BOUNDED: the exact logits of n candidate rows (ascending), written, and the best of them kept.
void exact_candidates(uint cand[RIF], uint n, real inv, inout uint bk, inout uint bi) {
  real total[RIF];
  exact_rows(cand, n, total);
  if (subgroupElect())
    for (uint q = 0; q < n; ++q) write_logit(cand[q], total[q], inv, bk, bi);
}

// BOUNDED (with ARGMAX): see the file comment.
void decode_rows_bounded() {
  const uint tid = gl_LocalInvocationID.x;
  const uint xb = (params.n_tokens - 1) * (XDIM / 4);
  real am, hh;
  const real inv = stage_x(xb, am, hh);
  // h's planes: t = h / s_h in [-127, 127], h1 = round(t), h2 = round(256 (t - h1)); e_h = h - s_h (h1 +
  // h2 / 256), its norm summed exactly as the bound needs it (whatever the rounding chose).
  const real sh = am / real(127), rsh = am > real(0) ? real(127) / am : real(0);
  real eh = real(0);
  for (uint i = tid; i < XDIM / 4; i += gl_WorkGroupSize.x) {
    const real4 v = x[xb + i] * real4(nw[i]);
    uint p1 = 0u, p2 = 0u;
    for (uint b = 0; b < 4; ++b) {
      const real t = v[b] * rsh;
      const real q1 = clamp(roundEven(t), real(-127), real(127));
      const real q2 = clamp(roundEven((t - q1) * real(256)), real(-127), real(127));
      const real d = v[b] - sh * (q1 + q2 * real(1.0 / 256.0));
      eh += d * d;
      p1 |= (uint(int(q1)) & 0xffu) << (8u * b);
      p2 |= (uint(int(q2)) & 0xffu) << (8u * b);
    }
    qh1[i / 4u][i % 4u] = p1;
    qh2[i / 4u][i % 4u] = p2;
  }
  eh = wg_sum(eh);  // (its barriers also publish the planes)
  // B_i = inv (c1_i |h| + c2_i |e_h|), widened by 1e-3 against the float arithmetic of a_i and B_i
  // (c1_i already holds the slack for the two heads' sums: lm_head_q8.comp).
  const float fin = float(inv), fsh = float(sh);
  const float nh = float(sqrt(hh)), ne = float(sqrt(eh));
  const uint first = gl_WorkGroupID.x * RPW;
  uint lkey = 0u;  // the largest lower bound of this invocation's rows, as an order key
  const uint RQ = XDIM / 16;  // uvec4s per int8 row
  const uint lane = gl_SubgroupInvocationID, step = gl_SubgroupSize;
  // Twice the F16 pass's rows in flight (a row is half the bytes; the integer sums need few registers).
  // Lane k loads row k's constants with the codes, so the bound waits for no load of its own.
  const uint RQF = 2u * RIF;
  for (uint r = gl_SubgroupID * RQF; r < RPW; r += gl_NumSubgroups * RQF) {
    const uint row = first + r;
    if (row >= pc.rows) break;  // uniform in the subgroup
    const vec4 myc = lane < RQF ? qc[min(row + lane, pc.rows - 1u)] : vec4(0);
    ivec2 acc[RQF];
    for (uint k = 0; k < RQF; ++k) acc[k] = ivec2(0);
    for (uint j = lane; j < RQ; j += step) {
      uvec4 w[RQF];
      for (uint k = 0; k < RQF; ++k) w[k] = q8[min(row + k, pc.rows - 1u) * RQ + j];
      const uvec4 a1 = qh1[j], a2 = qh2[j];
      for (uint k = 0; k < RQF; ++k) acc[k] += ivec2(dot16(w[k], a1), dot16(w[k], a2));
    }
    for (uint k = 0; k < RQF; ++k) {
      const ivec2 t = subgroupAdd(acc[k]);
      if (lane == k % step && row + k < pc.rows && r + k < RPW) {
        const vec4 c = step >= RQF ? myc : qc[row + k];  // (subgroups narrower than RQF: a load here)
        const float a = fin * c.x * fsh * (float(t.x) + float(t.y) * (1.0 / 256.0));
        const float bnd = fin * (c.y * nh + c.z * ne) * 1.001;
        sab[r + k] = vec2(a, bnd);
        lkey = max(lkey, order_key(a - bnd));
      }
    }
  }
  // This workgroup's largest lower bound, posted; the largest posted so far is the threshold.
  lkey = subgroupMax(lkey);
  if (subgroupElect()) sk[gl_SubgroupID] = lkey;
  barrier();
  if (tid == 0u) {
    uint m = 0u;
    for (uint g = 0u; g < gl_NumSubgroups; ++g) m = max(m, sk[g]);
    s_thr = max(m, atomicMax(s.thr, m));
  }
  barrier();
  const uint thr = s_thr;
  // The candidates (a_i + B_i at least the threshold, or not a number), RIF at a time, computed exactly.
  uint bk = 0u, bi = NONE;
  uint cand[RIF];
  uint n = 0u;
  for (uint r0 = gl_SubgroupID * RQF; r0 < RPW && first + r0 < pc.rows; r0 += gl_NumSubgroups * RQF)
    for (uint k = 0; k < RQF; ++k) {
      if (r0 + k >= RPW) break;
      const uint row = first + r0 + k;
      if (row >= pc.rows) break;  // uniform in the subgroup, as every test here
      const vec2 ab = sab[r0 + k];
      const float u = ab.x + ab.y;
      if (isnan(u) || order_key(u) >= thr) cand[n++] = row;
      if (n == RIF) {
        exact_candidates(cand, n, inv, bk, bi);
        n = 0u;
      }
    }
  if (n > 0u) exact_candidates(cand, n, inv, bk, bi);
  publish_best(bk, bi);
}

void main() {
  if (XDIM > 0) {
    if (params.n_tokens > 0) {
      if (BOUNDED)
        decode_rows_bounded();
      else
        decode_rows();
    }
    return;
  }
  const uint tid = gl_LocalInvocationID.x;
  const uint lane = tid % TPR;
  const uint row = gl_WorkGroupID.x * (gl_WorkGroupSize.x / TPR) + tid / TPR;
  const uint t0 = gl_WorkGroupID.y * NT;
  const uint n = params.n_tokens;
  if (t0 >= n) return;
  const uint row_vecs = pc.dim / 8, x_vecs = pc.dim / 4;
  real acc[MAXNT];
  for (uint tt = 0; tt < NT; ++tt) acc[tt] = real(0);
  if (row < pc.rows) {
    for (uint j = lane; j < row_vecs; j += TPR) {
      const uvec4 w = e[row * row_vecs + j];
      const real4 lo = real4(vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y)));
      const real4 hi = real4(vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
      for (uint tt = 0; tt < NT; ++tt) {
        if (t0 + tt >= n) break;
        const uint xb = (t0 + tt) * x_vecs + 2 * j;
        acc[tt] += dot(lo, x[xb]) + dot(hi, x[xb + 1]);
      }
    }
  }
  for (uint tt = 0; tt < NT; ++tt) part[tt * gl_WorkGroupSize.x + tid] = acc[tt];
  barrier();
  for (uint stride = TPR / 2; stride > 0; stride /= 2) {
    if (lane < stride)
      for (uint tt = 0; tt < NT; ++tt) part[tt * gl_WorkGroupSize.x + tid] += part[tt * gl_WorkGroupSize.x + tid + stride];
    barrier();
  }
  if (lane != 0 || row >= pc.rows) return;
  for (uint tt = 0; tt < NT; ++tt) {
    if (t0 + tt >= n) break;
    logits[(t0 + tt) * pc.vocab + pc.row0 + row] = float(part[tt * gl_WorkGroupSize.x + tid]);
  }
}
