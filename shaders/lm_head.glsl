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
#include "common.glsl"
#include "argmax.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint NT = 1;
layout(constant_id = 3) const uint XDIM = 0;
layout(constant_id = 4) const uint RPW = 64;
layout(constant_id = 5) const uint RIF = 4;
layout(constant_id = 6) const bool ARGMAX = false;
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
layout(std430, binding = 7) coherent buffer S { uint done; uint pad_; uvec2 best[]; } s;
// groups: workgroups of all chunks' dispatches; group0: this chunk's first (ARGMAX).
layout(push_constant) uniform Push {
  uint rows; uint dim; uint row0; uint vocab; float eps; uint groups; uint group0; uint ring_size;
} pc;

const uint MAXNT = 8;
shared real part[XDIM > 0 ? 1 : gl_WorkGroupSize.x * MAXNT];
shared real2 xs[XDIM > 0 ? XDIM / 2 : 1];
shared real ssp[XDIM > 0 ? 64 : 1];  // per subgroup: its part of the sum of x^2
shared bool s_last;

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
    const uint pos = wparams.pos0;
    next_token[0] = all.y;
    ring[pos % pc.ring_size] = all.y;
    wparams.pos0 = pos + 1u;
  }
}

void decode_rows() {
  const uint RV = XDIM / 8;  // uvec4s per row, known when the pipeline is made
  const uint xb = (params.n_tokens - 1) * (XDIM / 4);
  real ss = real(0);
  for (uint i = gl_LocalInvocationID.x; i < XDIM / 4; i += gl_WorkGroupSize.x) {
    const real4 v = x[xb + i];
    ss += dot(v, v);
    const real4 vw = v * real4(nw[i]);
    const uint j = i / 2, p = 2 * (i % 2);
    xs[p * RV + j] = vw.xy;
    xs[(p + 1) * RV + j] = vw.zw;
  }
  ss = subgroupAdd(ss);
  if (subgroupElect()) ssp[gl_SubgroupID] = ss;
  barrier();
  // Every subgroup sums the partials in the same way, so all rows share one scale.
  if (gl_NumSubgroups <= gl_SubgroupSize) {
    ss = subgroupAdd(gl_SubgroupInvocationID < gl_NumSubgroups ? ssp[gl_SubgroupInvocationID] : real(0));
  } else {
    ss = real(0);
    for (uint s = 0; s < gl_NumSubgroups; ++s) ss += ssp[s];
  }
  const real inv = real(1) / sqrt(ss / real(XDIM) + real(pc.eps));
  const uint lane = gl_SubgroupInvocationID, step = gl_SubgroupSize;
  const uint first = gl_WorkGroupID.x * RPW;
  uint bk = 0u, bi = NONE;  // ARGMAX: the best (key, row) of the rows this invocation wrote
  for (uint r = gl_SubgroupID * RIF; r < RPW; r += gl_NumSubgroups * RIF) {
    const uint row = first + r;
    if (row >= pc.rows) break;  // uniform in the subgroup
    // Rows past the chunk's end re-read its last row (a valid address) and are not written.
    uint base[RIF];
    for (uint k = 0; k < RIF; ++k) base[k] = min(row + k, pc.rows - 1) * RV;
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
    for (uint k = 0; k < RIF; ++k) {
      const real total = subgroupAdd(acc[k]);
      if (subgroupElect() && row + k < pc.rows) {
        const float logit = float(total * inv);
        logits[pc.row0 + row + k] = logit;
        if (ARGMAX) {
          const uint key = order_key(logit);
          if (bi == NONE || key > bk) {
            bk = key;
            bi = pc.row0 + row + k;
          }
        }
      }
    }
  }
  if (ARGMAX) publish_best(bk, bi);
}

void main() {
  if (XDIM > 0) {
    if (params.n_tokens > 0) decode_rows();
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
