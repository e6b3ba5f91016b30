// Tied F16 LM head over one chunk of the embedding table: logits[t][row0 + r] = sum_d E[r][d] * x[t][d]
// (`real` accumulation). The table is read as uvec4 (8 halves), TPR lanes per RIF rows, WG/TPR * RIF
// rows per workgroup, NT tokens per workgroup in y. One dispatch per chunk (a chunk fits one binding).
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
//
// TOPK (BOUNDED's bounds for a device-sampled step; not ARGMAX). The GPU sampler (sample_token.glsl)
// keeps the top k rows of the penalised logits in its order (key, -row), k = its select_count (top_k; 1
// for greedy; the vocabulary where top_k does not cut), and what it draws depends on those rows' logits
// alone. So only the rows that can be among them are computed, in two dispatches over every chunk:
//  1 (bounds) each row's L_i = a_i - B_i and U_i = a_i + B_i as order keys to `bkeys` (U_i not a number:
//    all ones); each workgroup posts the largest L_i of its rows outside the penalty window: at least
//    m = min(k, POST or twice its share of k) of them (two radix-select rounds over its rows' keys:
//    every key whose top 16 bits reach those of its m-th largest), all of them where it has fewer; the
//    last workgroup to arrive takes the threshold T, the top 24 bits of the k-th largest posted key
//    (three rounds over the posts), as a key, or 0 where fewer than k keys were posted.
//  2 (rows) the rows in the penalty window and those with U_i >= T are computed by exact_rows as the plain
//    head computes them (bit for bit: the same code for each row, whatever rows share its pass), written,
//    and listed for the sampler, which reads the listed rows only (its LIST variant).
// No unlisted row can be among the top k. Every posted key is L_j of a distinct row j outside the window,
// so where T > 0 at least k such rows have key(l_j) >= key(L_j) >= T (T is at most the k-th posted key,
// and l_j >= L_j), and the penalty does not touch them. An unlisted row i is outside the window and has
// key(l_i) <= key(U_i) < T: at least k rows lie strictly above it in the sampler's order, whatever the
// ids, so it is not in the top k. Every row of the true top k is therefore listed, each listed row holds
// the F16 head's logit, and the sampler orders the listed rows as it orders all of them (one total order
// on the same values): the same top k, so the same softmax, cutoffs and draw, ties included. Where T = 0
// every row is listed. Posting fewer keys (where k passes m or a workgroup's rows) only lowers T.
// Rows in the window never count toward T: the penalty may move them below it; they are always listed.
// (Keys order floats as `<` does, -0 and +0 alike, in the sampler too; a NaN bound: L key 0, U listed.)
#include "common.glsl"
#extension GL_EXT_control_flow_attributes : require
#include "argmax.glsl"
#include "ternary_codes.glsl"
#include "head_bound.glsl"
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
// TOPK: 1 the bounds pass, 2 the rows pass of the head of a device-sampled step (see the file comment);
// P_MAX and K_MAX as the GPU sampler has them (GpuSamplerState::kMaxPenalised, GpuSampler::kMaxTopK).
layout(constant_id = 8) const uint TOPK = 0;
layout(constant_id = 9) const uint P_MAX = 256;
layout(constant_id = 10) const uint K_MAX = 1024;
// TOPK: the GPU sampler's state (its top_k, temperature and penalty window decide which rows it may
// choose), read only.
#define SAMPLE_STATE_BINDING 10
#include "sample_state.glsl"
// TOPK: per row of the vocabulary its lower and upper bound as order keys (an upper bound that is not a
// number: all ones), written by the bounds pass for the rows pass.
layout(std430, binding = 11) buffer BK { uvec2 bkeys[]; };
// TOPK: the step's arrival count; the threshold (an order key); the rows the sampled steps computed in F16
// before this one (64 bits, lo and hi; tests and bench read it); the lower bounds the workgroups posted
// and how many (zero between steps).
layout(std430, binding = 12) coherent buffer TS {
  uint done; uint thr; uint rows_lo; uint rows_hi; uint nposted; uint pad0; uint pad1; uint pad2; uint posted[];
} ts;
// TOPK: the sampler's candidate list (GpuSampler's LIST): a count and the row ids, penalised ones flagged.
layout(std430, binding = 13) buffer CL { uint count; uint ids[]; } cl;
// groups: workgroups of all chunks' dispatches; group0: this chunk's first (ARGMAX, TOPK).
layout(push_constant) uniform Push {
  uint rows; uint dim; uint row0; uint vocab; float eps; uint groups; uint group0; uint ring_size;
} pc;

const uint MAXNT = 8;
// Block variant (XDIM = 0): the tokens' x, CHJ column uvec4s of the table at a time (for each token
// two planes of real4: elements 8j..8j+3, then 8j+4..8j+7), then the lanes' sums for the reduction.
const uint CHJ = 2 * TPR;
const uint BLK_SUMS = gl_WorkGroupSize.x * RIF / 4;  // real4s of lanes' sums per token
shared real4 blk[XDIM > 0 ? 1 : NT * (2 * CHJ > BLK_SUMS ? 2 * CHJ : BLK_SUMS)];
shared real2 xs[XDIM > 0 ? XDIM / 2 : 1];
shared real ssp[XDIM > 0 ? 64 : 1];  // per subgroup: its part of the sum of x^2
shared bool s_last;
shared real amp[BOUNDED ? 64 : 1], hhp[BOUNDED ? 64 : 1];  // per subgroup: max |h|, sum of h^2
shared uvec4 qh1[BOUNDED ? XDIM / 16 : 1], qh2[BOUNDED ? XDIM / 16 : 1];  // h's two int8 planes
shared vec2 sab[BOUNDED ? RPW : 1];  // per row of the workgroup: (a_i, B_i)
shared uint s_thr;
// TOPK: the workgroup's rows in the penalty window (a bit each); the bounds pass's two 256-bin
// histograms, their 16-bin sums, what pick_digit chose, and where the workgroup's posts go; the rows
// pass's bound keys and candidates (indices in the workgroup) and their count.
shared uint pen[TOPK != 0u ? (RPW + 31u) / 32u : 1u];
shared uint hist0[TOPK == 1u ? 256 : 1], hist1[TOPK == 1u ? 256 : 1], hgrp[TOPK == 1u ? 16 : 1];
shared uint s_pick[3];
shared uint s_base, s_idx;
shared uvec2 rk[TOPK == 2u ? RPW : 1];
shared uint cands[TOPK == 2u ? RPW : 1];
shared uint s_ncand;

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
// BOUNDED: int8 rows per subgroup pass, twice the F16 pass's (a row is half the bytes; the integer sums
// need few registers).
const uint RQF = 2u * RIF;

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
      am = max(am, max_abs(vw));
    }
  }
  ss = subgroupAdd(ss);
  if (BOUNDED) {
    hh = subgroupAdd(hh);
    am = subgroup_max_nonneg(am);
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
      am = subgroup_max_nonneg(has ? amp[gl_SubgroupInvocationID] : real(0));
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
  // (Slots past n re-read rows[0], a valid row, and are not written. Constant indices only: an array
  // indexed by a run-time value goes to local memory.)
  uint base[RIF];
  for (uint k = 0; k < RIF; ++k) base[k] = (k < n ? rows[k] : rows[0]) * RV;
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
    // Rows past the chunk's end are not written (exact_rows re-reads the pass's first row for them).
    uint rows[RIF];
    for (uint k = 0; k < RIF; ++k) rows[k] = row + k;
    real total[RIF];
    exact_rows(rows, min(RIF, pc.rows - row), total);
    for (uint k = 0; k < RIF; ++k)
      if (subgroupElect() && row + k < pc.rows) write_logit(row + k, total[k], inv, bk, bi);
  }
  if (ARGMAX) publish_best(bk, bi);
}

// BOUNDED: the exact logits of n candidate rows (ascending), written, and the best of them kept.
void exact_candidates(uint cand[RIF], uint n, real inv, inout uint bk, inout uint bi) {
  real total[RIF];
  exact_rows(cand, n, total);
  if (subgroupElect())
    for (uint q = 0; q < RIF; ++q)
      if (q < n) write_logit(cand[q], total[q], inv, bk, bi);
}

// BOUNDED: stages x (returns 1 / rms, as stage_x), quantizes h into its two planes and writes (a_i, B_i)
// of each of this workgroup's rows to sab, by the lane that computed it; lkey: the largest lower bound
// (an order key) of the rows this invocation wrote. A barrier must come before other invocations read sab.
real bound_rows(out uint lkey) {
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
      const real d = plane_pair(v[b], sh, rsh, b, p1, p2);
      eh += d * d;
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
  lkey = 0u;
  const uint RQ = XDIM / 16;  // uvec4s per int8 row
  const uint lane = gl_SubgroupInvocationID, step = gl_SubgroupSize;
  // RQF rows in flight (twice the F16 pass's: see RQF). Lane k loads row k's constants with the codes,
  // so the bound waits for no load of its own. The loops over the rows are unrolled: otherwise their
  // sums sat in local memory inside the table's loop (H200: the head 0.135 instead of 0.102 ms).
  for (uint r = gl_SubgroupID * RQF; r < RPW; r += gl_NumSubgroups * RQF) {
    const uint row = first + r;
    if (row >= pc.rows) break;  // uniform in the subgroup
    const vec4 myc = lane < RQF ? qc[min(row + lane, pc.rows - 1u)] : vec4(0);
    ivec2 acc[RQF];
    [[unroll]] for (uint k = 0; k < RQF; ++k) acc[k] = ivec2(0);
    for (uint j = lane; j < RQ; j += step) {
      uvec4 w[RQF];
      [[unroll]] for (uint k = 0; k < RQF; ++k) w[k] = q8[min(row + k, pc.rows - 1u) * RQ + j];
      const uvec4 a1 = qh1[j], a2 = qh2[j];
      [[unroll]] for (uint k = 0; k < RQF; ++k) acc[k] += ivec2(dot16(w[k], a1), dot16(w[k], a2));
    }
    [[unroll]] for (uint k = 0; k < RQF; ++k) {
      const ivec2 t = subgroupAdd(acc[k]);
      if (lane == k % step && row + k < pc.rows && r + k < RPW) {
        const vec4 c = step >= RQF ? myc : qc[row + k];  // (subgroups narrower than RQF: a load here)
        const vec2 ab = row_bound(c, fin, fsh, t, nh, ne);
        sab[r + k] = ab;
        lkey = max(lkey, order_key(ab.x - ab.y));
      }
    }
  }
  return inv;
}

// BOUNDED (with ARGMAX): see the file comment.
void decode_rows_bounded() {
  const uint tid = gl_LocalInvocationID.x;
  uint lkey;  // the largest lower bound of this invocation's rows, as an order key
  const real inv = bound_rows(lkey);
  const uint first = gl_WorkGroupID.x * RPW;
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
      if (isnan(u) || order_key(u) >= thr) {
        for (uint q = 0; q < RIF; ++q) cand[q] = q == n ? row : cand[q];  // cand[n] = row, by constants
        ++n;
      }
      if (n == RIF) {
        exact_candidates(cand, n, inv, bk, bi);
        n = 0u;
      }
    }
  if (n > 0u) exact_candidates(cand, n, inv, bk, bi);
  publish_best(bk, bi);
}

// ---- TOPK: the head of a device-sampled step from the int8 table (see the file comment) ------------

// Flags this workgroup's rows (first .. first + n - 1 of the chunk) that are in the penalty window, as the
// sampler will penalise them (sample_state.glsl). A barrier must follow before penalised() reads them.
void mark_penalised(uint first, uint n) {
  const uint tid = gl_LocalInvocationID.x;
  for (uint i = tid; i < (RPW + 31u) / 32u; i += gl_WorkGroupSize.x) pen[i] = 0u;
  barrier();
  const uint np = penalised_count(), lo = pc.row0 + first;
  for (uint j = tid; j < np; j += gl_WorkGroupSize.x) {
    const uint id = uint(st.penalty_ids[j]);  // negative ids become huge and fall outside
    if (id >= lo && id - lo < n) atomicOr(pen[(id - lo) / 32u], 1u << ((id - lo) % 32u));
  }
}
bool penalised(uint r) { return (pen[r / 32u] & (1u << (r % 32u))) != 0u; }

uint hval(bool second, uint b) { return second ? hist1[b] : hist0[b]; }

// The digit of the need-th largest key counted in hist0 (hist1 where `second`; 256 counts, the digits of
// one byte of the keys): (digit, how many were counted in higher digits, 1), or (0, how many were
// counted, 0) where fewer than `need` were (need 0 included). Every invocation calls it (barriers).
uvec3 pick_digit(bool second, uint need) {
  const uint t = gl_LocalInvocationID.x;
  barrier();  // the counts are complete
  if (t < 16u) {
    uint sum = 0u;
    for (uint j = 0u; j < 16u; ++j) sum += hval(second, 16u * t + j);
    hgrp[t] = sum;
  }
  barrier();
  if (t == 0u) {
    uint total = 0u;
    for (uint g = 0u; g < 16u; ++g) total += hgrp[g];
    s_pick[0] = 0u;
    s_pick[1] = total;
    s_pick[2] = 0u;
  }
  barrier();
  // The one digit whose higher digits hold fewer than `need` keys and which brings them to `need`.
  for (uint b = t; b < 256u; b += gl_WorkGroupSize.x) {
    uint above = 0u;
    for (uint g = b / 16u + 1u; g < 16u; ++g) above += hgrp[g];
    for (uint j = b + 1u; j < (b / 16u + 1u) * 16u; ++j) above += hval(second, j);
    const uint h = hval(second, b);
    if (h > 0u && above < need && need <= above + h) {
      s_pick[0] = b;
      s_pick[1] = above;
      s_pick[2] = 1u;
    }
  }
  barrier();
  const uvec3 r = uvec3(s_pick[0], s_pick[1], s_pick[2]);
  barrier();  // everyone has read it before a later call writes it
  return r;
}

// The lower bound of row r of the workgroup (sab) as an order key (NaN: 0, below every number).
uint lower_key(uint r) { return order_key(sab[r].x - sab[r].y); }

// TOPK == 1: the bounds of the workgroup's rows (bound_rows) to bkeys, and the largest lower bounds of
// its rows outside the penalty window posted: at least m of them (all, where it has fewer),
// chosen by two rounds of a radix select over the workgroup's keys, so every key whose top 16 bits reach
// those of its m-th largest. The last workgroup of the head to arrive takes the threshold from the posts.
// m: min(k, POST), or twice this workgroup's share of k where that is more (few workgroups), so the
// k-th largest post stays close to the k-th largest lower bound (the H100's 263 workgroups of the 2B4T
// head post 16 each at top-k 40 or 1024).
const uint POST = 16u;
void topk_bounds() {
  const uint tid = gl_LocalInvocationID.x, WG = gl_WorkGroupSize.x;
  const uint first = gl_WorkGroupID.x * RPW, n = min(RPW, pc.rows - first);
  mark_penalised(first, n);  // (bound_rows' barriers publish the flags)
  uint lkey_unused;
  bound_rows(lkey_unused);
  for (uint b = tid; b < 256u; b += WG) {
    hist0[b] = 0u;
    hist1[b] = 0u;
  }
  if (tid == 0u) s_idx = 0u;
  barrier();  // sab is written, the histograms clear
  for (uint r = tid; r < n; r += WG) {
    const vec2 ab = sab[r];
    const float u = ab.x + ab.y;  // (the sum and the key as the greedy pass takes them)
    const uint lk = lower_key(r);
    bkeys[pc.row0 + first + r] = uvec2(lk, isnan(u) ? 0xffffffffu : order_key(u));
    if (!penalised(r)) atomicAdd(hist0[lk >> 24], 1u);
  }
  const uint k = select_count(pc.vocab, K_MAX), m = min(k, max(POST, 2u * k / pc.groups + 4u));
  const uvec3 d = pick_digit(false, m);
  uint prefix = 0u, count = d.y;  // fewer than m rows outside the window: all of them
  if (m == 0u) {  // unsupported parameters (the sampler reports them): nothing
    prefix = 0x10000u;
    count = 0u;
  } else if (d.z != 0u) {
    for (uint r = tid; r < n; r += WG) {
      const uint lk = lower_key(r);
      if (!penalised(r) && (lk >> 24) == d.x) atomicAdd(hist1[(lk >> 16) & 255u], 1u);
    }
    const uvec3 c = pick_digit(true, m - d.y);  // (found: digit d.x holds at least m - d.y keys)
    prefix = (d.x << 8) | c.x;
    count = d.y + c.y + hist1[c.x];
  }
  if (tid == 0u) s_base = atomicAdd(ts.nposted, count);
  barrier();
  for (uint r = tid; r < n; r += WG) {
    const uint lk = lower_key(r);
    if (!penalised(r) && (lk >> 16) >= prefix) ts.posted[s_base + atomicAdd(s_idx, 1u)] = lk;
  }
  memoryBarrierBuffer();  // release: the posts are written before this workgroup counts in
  barrier();
  if (tid == 0u) s_last = atomicAdd(ts.done, 1u) == pc.groups - 1u;
  barrier();
  if (!s_last) return;
  memoryBarrierBuffer();  // acquire: every workgroup's posts are visible
  // The threshold: the k-th largest posted key to its top 24 bits (three rounds of a radix select over
  // the posts), as a key; 0 (every row a candidate) where fewer than k were posted.
  const uint np = ts.nposted;
  uint thr = 0u, need = k, pre = 0u;
  bool found = k > 0u;
  for (uint round = 0u; round < 3u && found; ++round) {
    for (uint b = tid; b < 256u; b += WG) hist0[b] = 0u;
    barrier();
    const uint shift = 24u - 8u * round;
    for (uint j = tid; j < np; j += WG) {
      const uint key = ts.posted[j];
      if (round == 0u || (key >> (shift + 8u)) == pre) atomicAdd(hist0[(key >> shift) & 255u], 1u);
    }
    const uvec3 g = pick_digit(false, need);
    found = g.z != 0u;
    pre = (pre << 8) | g.x;
    need -= g.y;
  }
  if (found) thr = pre << 8;
  if (tid == 0u) {
    ts.thr = thr;
    ts.done = 0u;
    ts.nposted = 0u;
    // The last step's candidates into the running count, and an empty list for this step's.
    const uint c = cl.count, lo = ts.rows_lo + c;
    if (lo < c) ts.rows_hi += 1u;
    ts.rows_lo = lo;
    cl.count = 0u;
  }
}

// TOPK == 2: the candidates of the workgroup's rows (in the penalty window, or an upper bound at least
// the threshold) computed exactly as the plain head computes a row, written and listed for the sampler.
void topk_rows() {
  const uint tid = gl_LocalInvocationID.x, WG = gl_WorkGroupSize.x;
  const uint first = gl_WorkGroupID.x * RPW, n = min(RPW, pc.rows - first);
  if (tid == 0u) s_ncand = 0u;
  mark_penalised(first, n);
  for (uint r = tid; r < n; r += WG) rk[r] = bkeys[pc.row0 + first + r];
  const uint thr = ts.thr;
  real am_unused, hh_unused;
  const real inv = stage_x((params.n_tokens - 1) * (XDIM / 4), am_unused, hh_unused);  // (barriers: rk, pen)
  for (uint r = tid; r < n; r += WG)
    if (penalised(r) || rk[r].y >= thr) cands[atomicAdd(s_ncand, 1u)] = r;
  barrier();
  const uint nc = s_ncand;
  uint bk = 0u, bi = NONE;  // (unused: no ARGMAX)
  for (uint c0 = gl_SubgroupID * RIF; c0 < nc; c0 += gl_NumSubgroups * RIF) {
    const uint cnt = min(RIF, nc - c0);
    uint rows[RIF];
    for (uint q = 0; q < RIF; ++q) rows[q] = first + cands[c0 + min(q, cnt - 1u)];
    real total[RIF];
    exact_rows(rows, cnt, total);
    if (subgroupElect()) {
      const uint at = atomicAdd(cl.count, cnt);
      for (uint q = 0; q < RIF; ++q) {
        if (q >= cnt) continue;
        write_logit(rows[q], total[q], inv, bk, bi);
        cl.ids[at + q] = (pc.row0 + rows[q]) | (penalised(rows[q] - first) ? PENALISED : 0u);
      }
    }
  }
}

void main() {
  if (XDIM > 0) {
    if (params.n_tokens > 0) {
      if (TOPK == 1u)
        topk_bounds();
      else if (TOPK == 2u)
        topk_rows();
      else if (BOUNDED)
        decode_rows_bounded();
      else
        decode_rows();
    }
    return;
  }
  // Each lane group takes RIF rows, so each x value it reads serves RIF rows (the block variant of a
  // batched step or a prompt's every-row logits reads the table once for NT tokens); each (row, token)
  // sums its products in the same order as with one row a group. The tokens' x is staged in shared
  // memory a chunk of columns at a time, read from memory once per workgroup instead of once per lane
  // group (each re-read of the whole x per four rows had made its reads several times the table's).
  const uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  const uint lane = tid % TPR;
  const uint first = (gl_WorkGroupID.x * (wg / TPR) + tid / TPR) * RIF;
  const uint t0 = gl_WorkGroupID.y * NT;
  const uint n = params.n_tokens;
  if (t0 >= n) return;  // (the whole workgroup)
  const uint row_vecs = pc.dim / 8, x_vecs = pc.dim / 4;
  const uint nt = min(NT, n - t0);  // the tile's tokens (only these are staged and read)
  real acc[MAXNT * RIF];
  for (uint i = 0; i < NT * RIF; ++i) acc[i] = real(0);
  for (uint jc = 0; jc < row_vecs; jc += CHJ) {
    const uint cw = min(CHJ, row_vecs - jc);
    barrier();  // (the previous chunk is consumed)
    for (uint el = tid; el < nt * 2 * CHJ; el += wg) {
      const uint tt = el / (2 * CHJ), v = el % (2 * CHJ);  // v: real4 v of the chunk's 2 cw
      blk[(2 * tt + v % 2) * CHJ + v / 2] = v < 2 * cw ? x[(t0 + tt) * x_vecs + 2 * jc + v] : real4(0);
    }
    barrier();
    if (first >= pc.rows) continue;
    for (uint j = jc + lane; j < jc + cw; j += TPR) {
      uvec4 w[RIF];
      for (uint r = 0; r < RIF; ++r) w[r] = first + r < pc.rows ? e[(first + r) * row_vecs + j] : uvec4(0);
      for (uint tt = 0; tt < NT; ++tt) {
        if (tt >= nt) break;
        const real4 x0 = blk[2 * tt * CHJ + j - jc], x1 = blk[(2 * tt + 1) * CHJ + j - jc];
        for (uint r = 0; r < RIF; ++r) head_accumulate(acc[tt * RIF + r], w[r], x0, x1);
      }
    }
  }
  // The sums over each group's TPR lanes, four (row, token) sums a real4 (RIF is a multiple of 4).
  barrier();
  for (uint q = 0; q < NT * RIF / 4; ++q)
    blk[q * wg + tid] = real4(acc[4 * q], acc[4 * q + 1], acc[4 * q + 2], acc[4 * q + 3]);
  barrier();
  for (uint stride = TPR / 2; stride > 0; stride /= 2) {
    if (lane < stride)
      for (uint q = 0; q < NT * RIF / 4; ++q) blk[q * wg + tid] += blk[q * wg + tid + stride];
    barrier();
  }
  if (lane != 0) return;
  for (uint tt = 0; tt < NT; ++tt) {
    if (t0 + tt >= n) break;
    for (uint r = 0; r < RIF; ++r)
      if (first + r < pc.rows) {
        const uint i = tt * RIF + r;
        logits[(t0 + tt) * pc.vocab + pc.row0 + first + r] = float(blk[(i / 4) * wg + tid][i % 4]);
      }
  }
}
