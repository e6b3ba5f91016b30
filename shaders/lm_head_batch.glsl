// The LM head of a batched greedy step from the int8 table (VulkanForward's Head::Argmax steps where the
// int8 copy exists): for each token only the rows that can be its argmax after the penalty are computed
// in F16, by the block head's arithmetic (lm_head.glsl's block variant, head_bound.glsl's
// head_accumulate and the same sum over TPR lanes), so each of them holds the block head's logit to the
// bit; every other row of the token's logits is written -inf. argmax_rows.comp then finds the same token
// as over the block head's logits: the proof of lm_head.glsl's BOUNDED variant, per token.
//
// Workgroup (x, y): rows [x RPW, x RPW + RPW) of this chunk for tokens [y NT, y NT + NT) of the step.
//  1. The tokens' planes of h (rmsnorm_quant.glsl PLANES: h ~ sh (h1 + h2 / 256)) are staged (the portable
//     variant; the tensor cores' takes them a chunk at a time), and the rows of the workgroup in each
//     token's penalty window flagged (argmax_rows.comp's lists).
//  2. Bounds: every row's exact integer sums against every token's two planes, on the tensor cores
//     (TRIT_COOP, below) or, in the portable variant, on the integer units (each subgroup takes RQ rows at
//     a time, lanes striding over the rows' int8 uvec4s; it is slower than the F16 block head on the
//     H100, so only the tests run it: it proves the rest of the kernel on any device). (a, B) of each
//     (token, row) give its upper bound a + B (kept in shared memory) and its lower bound a - B. Each
//     token's largest lower bound outside its penalty window is posted (atomicMax in thr[], zeroed before
//     the step), and the token's threshold is the largest posted so far, this workgroup's included.
//  3. Candidates: a (token, row) whose upper bound reaches its token's threshold (or is not a number), or
//     whose row is in the token's penalty window. The others get -inf.
//  4. The candidates' exact logits, RIF per lane group of TPR lanes a round.
// TOPK (a batched sampled step, Head::Top: top_rows then takes each row's best kTopRowsMax a slice, and the
// host its best k <= K_TOP after the penalty) runs in three dispatches:
//  1 (bounds, over every chunk) steps 1-2; each (token, row)'s upper bound to `ukey` as an order key (not
//    a number: all ones), and each workgroup's largest lower bound outside the token's penalty window
//    posted, one word a (token, workgroup);
//  3 (select, a workgroup a token) its threshold T, the top 16 bits of its K_TOP-th largest post (0 where
//    it has fewer posts), to thr[t];
//  2 (rows, over every chunk) steps 3-4 against those thresholds: candidates are the rows in the token's
//    window and those whose upper key reaches T.
// Why no other row can be among a token's best k <= K_TOP: each post is the lower bound L_j of a distinct
// row j outside the window (one row a workgroup), so where T > 0 at least K_TOP such rows have
// key(l_j) >= key(L_j) >= T, untouched by the penalty; a row i outside the window that is not a candidate
// has key(l_i) <= key(U_i) < T, so K_TOP rows lie strictly above it whatever the ids. Every row of the
// best k is a candidate and holds the block head's logit; top_rows and the host order the written values
// as they order the block head's, -inf below them all. Where T = 0 every row is a candidate.
// Why no other row can be the argmax: the threshold T of token t is the lower bound L_j of some row j
// outside the window, whose logit l_j >= L_j = T is not penalised. A row i outside the window that is not a
// candidate has l_i <= U_i < T <= l_j: row j beats it. Rows in the window are always computed. So the
// argmax over the written values (penalty applied by argmax_rows) is the argmax over the block head's
// logits, ties and the first index included: every row that reaches the maximum is a candidate.
#include "common.glsl"
#ifdef TRIT_COOP
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_NV_integer_cooperative_matrix : require
#extension GL_EXT_shader_explicit_arithmetic_types_int8 : require
#extension GL_EXT_control_flow_attributes : require
#endif
#include "argmax.glsl"
#include "ternary_codes.glsl"
#include "head_bound.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;   // lanes per candidate's sum (the block head's TPR)
layout(constant_id = 2) const uint NT = 8;     // tokens per workgroup
layout(constant_id = 3) const uint XDIM = 64;  // the hidden size (a multiple of 16)
layout(constant_id = 4) const uint RPW = 64;   // rows per workgroup
layout(constant_id = 5) const uint RIF = 2;    // candidates per lane group a round
layout(constant_id = 6) const uint P_MAX = 256;
layout(constant_id = 7) const uint RQ = 4;     // rows per subgroup pass of the bounds
layout(constant_id = 8) const uint SG = 32;    // TRIT_COOP: the subgroup size (fixed: the host checks)
layout(constant_id = 9) const uint TOPK = 0;   // 0: a greedy step's head; 1, 3, 2: a sampled step's passes
layout(constant_id = 10) const uint K_TOP = 64;  // TOPK: the largest k the host takes (Kernels::kTopRowsMax)
layout(std430, binding = 1) readonly buffer E { uvec4 e[]; };     // the F16 table chunk
layout(std430, binding = 2) readonly buffer X { real4 x[]; };     // h, dim per token (the final norm's)
layout(std430, binding = 3) writeonly buffer L { float logits[]; };
layout(std430, binding = 4) readonly buffer Q8 { uvec4 q8[]; };   // the int8 table chunk
layout(std430, binding = 5) readonly buffer QC { vec4 qc[]; };    // its rows' (s_i, c1_i, c2_i, 0)
layout(std430, binding = 6) readonly buffer HP { uvec4 hp[]; };   // h's planes: token t's plane p at (2t + p) XDIM / 16
layout(std430, binding = 7) readonly buffer HS { real hs[]; };    // per token (sh, sum h^2, sum e_h^2, 0)
layout(std430, binding = 8) readonly buffer Pen { uint list[]; }; // per token: count, ids[P_MAX]
// Greedy: per token the largest posted lower bound. TOPK: per token its threshold (thr[t], t < pc.stride),
// then token t's post of workgroup g at thr[pc.stride + t pc.groups + g].
layout(std430, binding = 9) coherent buffer Thr { uint thr[]; };
layout(std430, binding = 10) buffer UK { uint ukey[]; };  // TOPK: upper keys, token t's row r at t vocab + r
// groups: the workgroups along x of every chunk's dispatch together; group0: this chunk's first (TOPK).
layout(push_constant) uniform Push { uint rows; uint row0; uint vocab; uint group0; uint groups; uint stride; } pc;

const uint RQ4 = XDIM / 16;   // uvec4s of an int8 row or plane
const uint RV = XDIM / 8;     // uvec4s of an F16 row
const uint PW = (RPW + 31) / 32;
#ifdef TRIT_COOP
// TRIT_COOP (NT = 8): the bounds' integer sums on the tensor cores, 16 rows (A: int8 rows of the table)
// by 16 columns (B: the tile's planes, token t's plane p in column 2t + p) at a time. Each subgroup takes
// 16 rows; the workgroup walks K in chunks of KC elements: every lane's uvec4s of the next chunk (its
// subgroup's rows, and a share of the columns) are loaded into registers while the tensor cores take the
// current one from shared memory (int8 matrices loaded straight from memory were several times slower).
// Afterwards each subgroup's 16 x 16 sums land in its part of cs (over its A).
const uint CM = 16, CN = 2 * NT, CK = 32, UNR = 8, KC = CK * UNR;  // KC: K a chunk
const uint KW = KC / 16;                        // uvec4s of a row (or column) in a chunk
// Rows (and columns) of a chunk lie KWP uvec4s apart in shared memory: one more than they hold, so the
// 16 rows a fragment load reads start in different banks. Unpadded, a row's 256 bytes put every row's
// slice in the same banks and the loads took longer than the table's bytes (H200: 0.23 ms a step for
// the bounds against 0.10 padded by one uvec4, 0.11 by two).
const uint KWP = KW + 1;
const uint NSG = gl_WorkGroupSize.x / SG;
const uint APL = CM * KW / SG, BPL = (CN * KW + gl_WorkGroupSize.x - 1) / gl_WorkGroupSize.x;
shared uvec4 qp[1];
// (The passes that take no bounds declare their arrays with one element: less shared memory, more
// workgroups resident.)
shared uvec4 sa[TOPK >= 2u ? 1u : NSG * CM * KWP];  // each subgroup's rows of the chunk; then its sums (cs)
shared uvec4 sb[TOPK >= 2u ? 1u : CN * KWP];        // the chunk's columns
#else
shared uvec4 qp[TOPK >= 2u ? 1u : NT * 2 * RQ4];
#endif
shared uint ub[TOPK == 3u ? 1u : NT * RPW];  // upper bounds (float bits), then the candidates' (token, row) pairs
shared uint pen[NT * PW];
shared uint s_thr[NT];
shared float s_fsh[NT], s_nh[NT], s_ne[NT];
shared uint s_ncand;
shared real red[TOPK == 1u || TOPK == 3u ? 1u : RIF * gl_WorkGroupSize.x];

#ifdef TRIT_COOP
// The invocation's uvec4s of the chunk of K from uvec4 k: of A (its subgroup's 16 rows from rbase; element
// e: row e / KW, uvec4 e % KW) and of B (the tile's planes from token t0; element e: column e / KW).
void fetch_chunk(uint k, uint rbase, uint t0, out uvec4 ra[APL], out uvec4 rb[BPL]) {
  [[unroll]] for (uint i = 0u; i < APL; ++i) {
    const uint e = gl_SubgroupInvocationID + i * SG;
    ra[i] = q8[(rbase + e / KW) * RQ4 + k + e % KW];
  }
  [[unroll]] for (uint i = 0u; i < BPL; ++i) {
    const uint e = gl_LocalInvocationID.x + i * gl_WorkGroupSize.x;
    rb[i] = e < CN * KW ? hp[(2u * t0 + e / KW) * RQ4 + k + e % KW] : uvec4(0);
  }
}
#endif

bool penalised(uint t, uint r) { return (pen[t * PW + r / 32u] & (1u << (r % 32u))) != 0u; }

// An upper bound as the key the candidates are chosen by: not a number, all ones (always a candidate).
uint upper_key(float u) { return isnan(u) ? 0xffffffffu : order_key(u); }

// ---- TOPK == 3: each token's threshold from its posts (a workgroup a token) --------------------------
// The posts of the workgroup's token, PPS an invocation held in registers (all loads in flight at once:
// a loop of loads, each followed by its count, took a memory latency per post).
const uint PPS = 8u;
shared uint hsel[TOPK == 3u ? 256u : 1u];
shared uvec3 s_pick;

// The digit of the need-th largest key counted in hsel (bins of one byte of the keys), found by subgroup 0
// for the workgroup: (digit, keys counted in higher digits, 1), or (0, 0, 0) where fewer than `need` were.
// Every invocation calls it (barriers).
uvec3 pick_digit(uint need) {
  barrier();  // the counts are complete
  if (gl_SubgroupID == 0u) {
    const uint per = 256u / gl_SubgroupSize, top = 256u - gl_SubgroupInvocationID * per;  // bins [top - per, top)
    uint s = 0u;
    for (uint b = 1u; b <= per; ++b) s += hsel[top - b];
    uint above = subgroupExclusiveAdd(s);  // lanes from the top bins down
    uint digit = 0u, before = 0u, hit = 0u;
    if (need > 0u && above < need && need <= above + s)
      for (uint b = 1u; b <= per; ++b) {
        const uint c = hsel[top - b];
        if (above + c >= need) {
          digit = top - b;
          before = above;
          hit = 1u;
          break;
        }
        above += c;
      }
    const uvec3 r = uvec3(subgroupMax(digit), subgroupMax(before), subgroupMax(hit));
    if (subgroupElect()) s_pick = r;
  }
  barrier();
  const uvec3 r = s_pick;
  barrier();  // everyone has read it before the next round writes hsel or s_pick
  return r;
}

// Token t's threshold: the top 16 bits of its K_TOP-th largest post (two rounds of a radix select), as a
// key; 0 where it has fewer posts.
void select_threshold(uint t) {
  const uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x, base = pc.stride + t * pc.groups;
  uint keys[PPS];
  for (uint i = 0u; i < PPS; ++i) {
    const uint j = tid + i * wg;
    keys[i] = j < pc.groups ? thr[base + j] : 0u;
  }
  uint need = K_TOP, prefix = 0u;
  for (uint round = 0u; round < 2u; ++round) {
    for (uint b = tid; b < 256u; b += wg) hsel[b] = 0u;
    barrier();
    const uint shift = 24u - 8u * round;
    for (uint i = 0u; i < PPS; ++i)
      if (tid + i * wg < pc.groups && (round == 0u || (keys[i] >> 24) == prefix))
        atomicAdd(hsel[(keys[i] >> shift) & 255u], 1u);
    for (uint j = tid + PPS * wg; j < pc.groups; j += wg) {  // (posts past the registers' share)
      const uint key = thr[base + j];
      if (round == 0u || (key >> 24) == prefix) atomicAdd(hsel[(key >> shift) & 255u], 1u);
    }
    const uvec3 d = pick_digit(need);
    if (d.z == 0u) {
      prefix = 0u;
      break;
    }
    prefix = (prefix << 8) | d.x;
    need -= d.y;
  }
  if (tid == 0u) thr[t] = prefix << 16;
}

void main() {
  if (TOPK == 3u) {
    if (gl_WorkGroupID.x < params.n_tokens) select_threshold(gl_WorkGroupID.x);
    return;
  }
  const uint tid = gl_LocalInvocationID.x, wg = gl_WorkGroupSize.x;
  const uint t0 = gl_WorkGroupID.y * NT, n = params.n_tokens;
  if (t0 >= n) return;  // (the whole workgroup)
  const uint nt = min(NT, n - t0), first = gl_WorkGroupID.x * RPW;
  if (first >= pc.rows) return;
  const uint nrows = min(RPW, pc.rows - first);

  // 1. Planes, constants, penalty flags.
#ifndef TRIT_COOP
  if (TOPK != 2u)
    for (uint i = tid; i < nt * 2u * RQ4; i += wg) qp[i] = hp[2u * t0 * RQ4 + i];
#endif
  for (uint i = tid; i < NT * PW; i += wg) pen[i] = 0u;
  if (tid < nt) {
    const uint b = 4u * (t0 + tid);
    s_fsh[tid] = float(hs[b]);
    s_nh[tid] = float(sqrt(hs[b + 1u]));
    s_ne[tid] = float(sqrt(hs[b + 2u]));
    s_thr[tid] = TOPK == 2u ? thr[t0 + tid] : 0u;
  }
  if (tid == 0u) s_ncand = 0u;
  barrier();
  const uint lo = pc.row0 + first;
  for (uint t = 0u; t < nt; ++t) {
    const uint lb = (t0 + t) * (P_MAX + 1u), count = min(list[lb], P_MAX);
    for (uint j = tid; j < count; j += wg) {
      const uint r = list[lb + 1u + j] - lo;  // ids below the range wrap to huge values
      if (r < nrows) atomicOr(pen[t * PW + r / 32u], 1u << (r % 32u));
    }
  }
  barrier();

  // 2. Bounds (not in the rows pass: its thresholds and upper keys are the bounds pass's).
  const uint lane = gl_SubgroupInvocationID;
  if (TOPK != 2u) {
#ifdef TRIT_COOP
  // A tile of 16 rows that would pass the chunk's end starts 16 rows before it instead (the host keeps
  // chunks of at least 16 rows); rows outside [rt, rt + 16) of the workgroup's are not kept. Lane l takes
  // row l % 16 and tokens l / 16, + 2, + 4, ... (SG = 32).
  uint lk[NT / 2];
  for (uint i = 0u; i < NT / 2; ++i) lk[i] = 0u;
  const uint rt = gl_SubgroupID * CM, abase = gl_SubgroupID * CM * KWP;
  const uint rbase = min(first + rt, pc.rows - CM);
  icoopmatNV<32, gl_ScopeSubgroup, CM, CN> acc = icoopmatNV<32, gl_ScopeSubgroup, CM, CN>(0);
  uvec4 ra[APL], rb[BPL];
  fetch_chunk(0u, rbase, t0, ra, rb);
  for (uint k0 = 0u; k0 < RQ4; k0 += KW) {
    barrier();  // (the previous chunk is consumed)
    [[unroll]] for (uint i = 0u; i < APL; ++i) {
      const uint e = lane + i * SG;
      sa[abase + e / KW * KWP + e % KW] = ra[i];
    }
    [[unroll]] for (uint i = 0u; i < BPL; ++i) {
      const uint e = tid + i * wg;
      if (e < CN * KW) sb[e / KW * KWP + e % KW] = rb[i];
    }
    barrier();
    if (k0 + KW < RQ4) fetch_chunk(k0 + KW, rbase, t0, ra, rb);
    [[unroll]] for (uint u = 0u; u < UNR; ++u) {
      icoopmatNV<8, gl_ScopeSubgroup, CM, CK> a;
      icoopmatNV<8, gl_ScopeSubgroup, CK, CN> b;
      coopMatLoadNV(a, sa, abase + 2u * u, KWP, false);
      coopMatLoadNV(b, sb, 2u * u, KWP, true);
      acc = coopMatMulAddNV(a, b, acc);
    }
  }
  barrier();  // (every subgroup is done with sa)
  coopMatStoreNV(acc, sa, abase, CM / 4u, true);  // column n (token n / 2, plane n % 2) at abase + 4n
  subgroupMemoryBarrierShared();
  subgroupBarrier();
  if (rt < nrows) {
    const uint r = lane % CM, row = rbase + r - first;  // (row in the workgroup)
    [[unroll]] for (uint i = 0u; i < NT / 2; ++i) {
      const uint t = lane / CM + 2u * i;
      if (t >= nt || row < rt || row >= min(rt + CM, nrows)) continue;
      const uint c1 = (2u * t) * CM + r, c2 = c1 + CM;
      const ivec2 ts = ivec2(int(sa[abase + c1 / 4u][c1 % 4u]), int(sa[abase + c2 / 4u][c2 % 4u]));
      const vec2 ab = row_bound(qc[first + row], 1.0, s_fsh[t], ts, s_nh[t], s_ne[t]);
      ub[t * RPW + row] = floatBitsToUint(ab.x + ab.y);
      if (!penalised(t, row)) lk[i] = max(lk[i], order_key(ab.x - ab.y));
    }
  }
  [[unroll]] for (uint t = 0u; t < NT; ++t) {
    const uint m = subgroupMax(lane / CM == t % 2u ? lk[t / 2u] : 0u);
    if (lane == 0u && t < nt) atomicMax(s_thr[t], m);
  }
#else
  const uint step = gl_SubgroupSize;
  uint lk[NT];  // this subgroup's largest lower bound per token (the same in every lane)
  for (uint t = 0u; t < NT; ++t) lk[t] = 0u;
  for (uint r0 = gl_SubgroupID * RQ; r0 < nrows; r0 += gl_NumSubgroups * RQ) {
    uint rr[RQ];  // rows past the workgroup's last re-read it (a valid address) and are not kept
    for (uint k = 0u; k < RQ; ++k) rr[k] = first + min(r0 + k, nrows - 1u);
    ivec2 acc[RQ * NT];
    for (uint i = 0u; i < RQ * NT; ++i) acc[i] = ivec2(0);
    for (uint j = lane; j < RQ4; j += step) {
      uvec4 w[RQ];
      for (uint k = 0u; k < RQ; ++k) w[k] = q8[rr[k] * RQ4 + j];
      // Every token slot, staged or not (an unstaged one's sums are dropped): loops of constant length keep
      // acc in registers.
      for (uint t = 0u; t < NT; ++t) {
        const uvec4 a1 = qp[2u * t * RQ4 + j], a2 = qp[(2u * t + 1u) * RQ4 + j];
        for (uint k = 0u; k < RQ; ++k) acc[k * NT + t] += ivec2(dot16(w[k], a1), dot16(w[k], a2));
      }
    }
    for (uint k = 0u; k < RQ; ++k) {
      const vec4 c = qc[rr[k]];
      for (uint t = 0u; t < NT; ++t) {
        const vec2 ab = row_bound(c, 1.0, s_fsh[t], subgroupAdd(acc[k * NT + t]), s_nh[t], s_ne[t]);
        if (t < nt && r0 + k < nrows) {  // (uniform in the subgroup)
          if (lane == 0u) ub[t * RPW + r0 + k] = floatBitsToUint(ab.x + ab.y);
          if (!penalised(t, r0 + k)) lk[t] = max(lk[t], order_key(ab.x - ab.y));
        }
      }
    }
  }
  if (lane == 0u)
    for (uint t = 0u; t < NT; ++t)
      if (t < nt) atomicMax(s_thr[t], lk[t]);
#endif
  barrier();
  if (TOPK == 1u) {
    // The upper keys, a token's rows at a time; this workgroup's posts (s_thr: per token its largest
    // lower bound outside the window).
    for (uint p = tid; p < nt * RPW; p += wg) {
      const uint r = p % RPW;
      if (r < nrows) ukey[(t0 + p / RPW) * pc.vocab + lo + r] = upper_key(uintBitsToFloat(ub[p]));
    }
    if (tid < nt) thr[pc.stride + (t0 + tid) * pc.groups + pc.group0 + gl_WorkGroupID.x] = s_thr[tid];
    return;
  }
  if (tid < nt) s_thr[tid] = max(s_thr[tid], atomicMax(thr[t0 + tid], s_thr[tid]));
  barrier();
  }

  // 3. Candidates listed (in any order: each one's value is its own), the other rows -inf.
  const uint PPI = (NT * RPW + gl_WorkGroupSize.x - 1u) / gl_WorkGroupSize.x;
  uint u[PPI];
  for (uint i = 0u; i < PPI; ++i) {  // (the upper keys)
    const uint p = tid + i * wg, t = p / RPW, r = p % RPW;
    if (TOPK == 2u)
      u[i] = t < nt && r < nrows ? ukey[(t0 + t) * pc.vocab + lo + r] : 0u;
    else
      u[i] = p < NT * RPW ? upper_key(uintBitsToFloat(ub[p])) : 0u;
  }
  barrier();  // (ub becomes the list)
  for (uint i = 0u; i < PPI; ++i) {
    const uint p = tid + i * wg, t = p / RPW, r = p % RPW;
    if (t >= nt || r >= nrows) continue;
    if (penalised(t, r) || u[i] >= s_thr[t])
      ub[atomicAdd(s_ncand, 1u)] = p;
    else
      logits[(t0 + t) * pc.vocab + lo + r] = uintBitsToFloat(0xff800000u);  // -inf
  }
  barrier();
  const uint nc = s_ncand;

  // 4. The candidates' logits: lane group g takes RIF of them a round, each lane every TPR-th uvec4 of the
  // row from its own (as the block head's lanes), the lanes' sums added pairwise as the block head adds
  // them.
  const uint groups = wg / TPR, g = tid / TPR, gl = tid % TPR, x_vecs = XDIM / 4u;
  for (uint c0 = 0u; c0 < nc; c0 += groups * RIF) {
    uint cand[RIF];
    real acc[RIF];
    for (uint k = 0u; k < RIF; ++k) {
      const uint ci = c0 + g * RIF + k;
      cand[k] = ci < nc ? ub[ci] : NONE;
      acc[k] = real(0);
    }
    for (uint j = gl; j < RV; j += TPR)
      for (uint k = 0u; k < RIF; ++k) {
        if (cand[k] == NONE) continue;
        const uint t = cand[k] / RPW, r = cand[k] % RPW;
        const uint xb = (t0 + t) * x_vecs + 2u * j;
        head_accumulate(acc[k], e[(first + r) * RV + j], x[xb], x[xb + 1u]);
      }
    barrier();  // (the previous round's sums are read)
    for (uint k = 0u; k < RIF; ++k) red[k * wg + tid] = acc[k];
    barrier();
    for (uint stride = TPR / 2u; stride > 0u; stride /= 2u) {
      if (gl < stride)
        for (uint k = 0u; k < RIF; ++k) red[k * wg + tid] += red[k * wg + tid + stride];
      barrier();
    }
    if (gl == 0u)
      for (uint k = 0u; k < RIF; ++k) {
        if (cand[k] == NONE) continue;
        const uint t = cand[k] / RPW, r = cand[k] % RPW;
        logits[(t0 + t) * pc.vocab + lo + r] = float(red[k * wg + tid]);
      }
  }
}
