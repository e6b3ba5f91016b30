// The decoder layers of one token (decode) as ONE dispatch of persistent workgroups. The fused kernels
// (bitlinear_decode.glsl) still pay a dispatch boundary per step: the launch floor, the ramp-up and
// drain of every workgroup, and a full memory round trip for the weights after the previous step
// ends. Here G workgroups, all resident at once (the host sizes G from the device's multiprocessor
// count), run the layer's five steps separated by grid barriers (attention waits only for its own KV
// head's QKV rows: wait_ready), and each workgroup issues the loads
// of its NEXT step's weights into registers before it waits at the barrier, so the weight traffic of
// a step overlaps the previous step's tail and the barrier itself. The dispatch runs every layer of a
// layer group (all of them where their weights and caches fit one storage binding each): a layer's
// QKV weights load during the previous layer's down step, and the layers meet at a grid barrier
// instead of a dispatch boundary (on the H100 the boundary cost ~4 us a layer: the last workgroups'
// drain, the pipeline barrier and the next launch).
//
// Steps (the arithmetic of bitlinear_decode.glsl / attention.glsl up to the order of operations; in
// double the golden logits are unchanged and the fused kernels' logits are matched to 1e-4):
//   1. norm(x) -> int8 -> q, k, v rows (RoPE pair order), rotated; k and v appended to the caches
//   2. attention: work items (KV head, split of keys) share each key and value row across the head's
//      GQ query heads, and a head group's last splits to finish merge the partials, one query head
//      each (arrival counter). (A second path for up to WG / 4 keys, one workgroup per query head,
//      was dropped: beside this one it pushed the fp32 kernel into 736-864 bytes of register spills
//      per invocation on the H100, 3.6x slower at context 128, and alone it spilled too; this path
//      alone spills nothing and decodes context 128 at 1,047 tokens/s in fp32.)
//   3. norm(o) -> int8 -> x += Wo o
//   4. norm(x) -> int8 -> a = relu(Wg h)^2 * (Wu h), or silu(Wg h) * (Wu h) with SILU (LLaMA)
//   5. norm(a) -> int8 -> x += Wd a
// Without SUB_NORMS (LLaMA) steps 3 and 5 quantize o and a as they are; with NORMAL_ROPE (LLaMA) RoPE
// pairs dimension 2i with 2i + 1 and the q and k rows are visited in their own order. BLOCK_SCALES
// (TQ1_0, TQ2_0 files): a float per 256 elements of a row, each 64-code block's exact sum times its
// block's scale summed in `real`, as bitlinear_decode.glsl sums them; else one scale per matrix.
//
// BitLinear steps: QKV and gate/up take chunks of RPW = WG / TPR consecutive rows (chunk c = workgroup
// + it * G), TPR lanes per row, each lane VPL uvec4s of the row; the row's partial sums meet through
// subgroup shuffles. wo and down spread their DIM rows over as many workgroups as possible (RR rows
// each, LPR lanes a row, not a power of two): chunks of 32 rows left 52 of the H100's 132 workgroups
// idle and gave the others 55 KB of the down step's weights each; 20 rows take 35 KB (+2% at
// context 128).
//
// Residency: the grid barrier spins, so a workgroup that never runs would hang the others. The
// device cannot promise residency, so every wait is bounded (SPIN_LIMIT polls); a workgroup that gives
// up writes 1 to `failed` (host-visible) and stops waiting, and the host recomputes on the fused
// kernels (vulkan/persistent_decode.h).
#include "common.glsl"
#extension GL_KHR_shader_subgroup_shuffle : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_memory_scope_semantics : require
#ifdef TRIT_CLUSTERED
#extension GL_KHR_shader_subgroup_clustered : require
#endif
#include "ternary_codes.glsl"
#include "rope_f16.glsl"
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint TPR = 16;
layout(constant_id = 2) const uint G = 1;           // workgroups (all resident)
layout(constant_id = 3) const uint DIM = 2560;
layout(constant_id = 4) const uint FFN = 6912;
layout(constant_id = 5) const uint HEADS = 20;
layout(constant_id = 6) const uint KV_HEADS = 5;
layout(constant_id = 7) const uint HD = 128;
layout(constant_id = 8) const bool KV_F16 = true;
layout(constant_id = 9) const uint MAXS = 1;        // attention splits per KV head at most
layout(constant_id = 10) const uint PF = 1;         // prefetched uvec4s per lane (the widest step)
layout(constant_id = 11) const uint KMAX = 6912;    // widest input row: max(DIM, HEADS * HD, FFN)
layout(constant_id = 12) const uint XPT = 4;        // input real4s per invocation: ceil(KMAX / 4 / WG)
layout(constant_id = 13) const uint SPIN_LIMIT = 1u << 22;
layout(constant_id = 14) const uint VPARTS = 4;     // the value pass splits a chunk's keys over VPARTS groups
layout(constant_id = 15) const uint RR = 32;        // wo and down: rows per workgroup
layout(constant_id = 16) const uint LPR = 16;       // wo and down: lanes per row
layout(constant_id = 17) const bool SILU = false;
layout(constant_id = 18) const bool NORMAL_ROPE = false;
layout(constant_id = 19) const bool SUB_NORMS = true;
layout(constant_id = 20) const bool BLOCK_SCALES = false;
// STEP_BITS: a batched step of one token (one sequence's token among several sequences' caches:
// common.glsl's batch mode, params.tok[0]) with the bits a batched step's kernels give that token
// (bitlinear_decode.glsl, rmsnorm_quant.glsl, attention_gqa.glsl), so a lone stream of a server runs
// here and still gets the tokens it gets beside others: each quantization is theirs (the sum of squares
// by add_squares in wg_sum's order, the absmax by normed_absmax, q = round_half_away(h * 127 / absmax)) and
// so is each epilogue (sum / s * scale, the residual by add_residual); the attention splits a chunk at
// least (their rule) and sums the scores by their shuffles, and the token's position and first cache row
// come from its slot. Only without block scales (whose float sums over a wo or down row's lanes are
// ordered otherwise here): VulkanForward's step_bits_workgroup decides where it runs.
layout(constant_id = 21) const bool STEP_BITS = false;
// STEP_BITS: the one-token kernels' workgroup (at most WG, a multiple of the subgroup size): the first
// STEP_WG invocations take a row's elements as those kernels' invocations do, the others zeros.
layout(constant_id = 22) const uint STEP_WG = 512;

// The layer group's buffer (layer L at L * pc.lstride uvec4s): I2_S codes, and the same read as norm weights.
layout(std430, binding = 1) readonly buffer LW { uvec4 lw[]; };
layout(std430, binding = 2) readonly buffer LN { vec4 ln[]; };
layout(std430, binding = 3) coherent buffer XB { real xa[]; };    // the residual stream x [DIM]
layout(std430, binding = 4) coherent buffer AB { real act[]; };   // q [QDIM] | o [QDIM] | a [FFN]
// The same two buffers read in wider words, for the input rows every workgroup reads whole
// (quantize_input). Those reads bypass L1 (`coherent`), so each load instruction fetches every sector
// it touches from L2, and an invocation's real4 should be one load: four element loads fetched each
// sector four times. In fp32 a real4 is one 16-byte load; in double, two 16-byte pair loads (each
// sector twice; one pair per invocation fetches it once but needs twice the iterations and a shuffle
// to pack the codes, and was slower).
layout(std430, binding = 3) coherent buffer XB2 { real2 xa2[]; };
layout(std430, binding = 4) coherent buffer AB2 { real2 act2[]; };
#ifndef TRIT_F64
layout(std430, binding = 3) coherent buffer XB4 { vec4 xa4[]; };
layout(std430, binding = 4) coherent buffer AB4 { vec4 act4[]; };
#endif
layout(std430, binding = 5) readonly buffer Rope { real2 cs[]; }; // [context][HD/2] (cos, sin)
// The group's key and value caches (layer L at L * pc.cstride words).
layout(std430, binding = 6) coherent buffer KC { uint kc[]; };
layout(std430, binding = 7) coherent buffer VC { uint vc[]; };
// Attention partials: (m, l, acc[HD]) of (KV head g, query head h of its group, split s).
layout(std430, binding = 8) coherent buffer Part { real part[]; };
// [g] splits of KV head g done, [pc.counter] this layer group's grid-barrier arrivals during this host
// call, [pc.ready + g] its QKV chunks of KV head g written during this host call.
layout(std430, binding = 9) volatile coherent buffer Sync { uint sync[]; };
layout(std430, binding = 10) coherent buffer Failed { uint failed; };
// The matrices' scales, SCALES per layer of the model, in this order (persistent_decode.cpp uploads them).
layout(std430, binding = 11) readonly buffer Scales { float scl[]; };
const uint S_WQ = 0u, S_WK = 1u, S_WV = 2u, S_WO = 3u, S_GATE = 4u, S_UP = 5u, S_DOWN = 6u, SCALES = 7u;
// The F16 embedding table (four halves per uvec2) and the token, for a dispatch that starts the model
// (pc.embed: the table's rows, else 0): its first QKV step reads the token's row itself, and the workgroups of the wo and down
// rows write their rows of x, so no embedding dispatch (and its boundary) precedes the layers.
layout(std430, binding = 12) readonly buffer Emb { uvec2 emb[]; };
layout(std430, binding = 13) readonly buffer Tok { int tok[]; };

// Offsets into a layer's part of the buffer: matrices in uvec4s, norms in vec4s. The group: its
// first layer of the model, its layer count, the strides between its layers, its arrival counter, and
// where its KV heads' QKV-ready counts start in sync[].
layout(push_constant) uniform Push {
  uint wq, wk, wv, wo, wgate, wup, wdown;
  uint n_attn, n_sub, n_ffn, n_fsub;
  float eps;
  uint layer0, n_layers, lstride, cstride, counter, embed, ready;
  uint probe;  // > 0: only the residency check, with this many polls at most (PersistentDecode::record's residency_check)
  // BLOCK_SCALES: where each matrix's block scales start in a layer's part of the buffer, in floats.
  uint dq, dk, dv, dwo, dgate, dup, ddown;
} pc;
// The current layer: its offset into lw[] / ln[] (uvec4s), into kc[] / vc[] (words), into scl[].
uint LB = 0u, CB = 0u, SB = 0u;
uint KV0 = 0u;  // STEP_BITS: the token's sequence's first cache row (else sequence 0's: 0)
void set_layer(uint l) {
  LB = l * pc.lstride;
  CB = l * pc.cstride;
  SB = (pc.layer0 + l) * SCALES;
}

const uint WG = gl_WorkGroupSize.x;
const uint RPW = WG / TPR;
const uint QDIM = HEADS * HD, KVDIM = KV_HEADS * HD, GQ = HEADS / KV_HEADS;
const uint O_OFF = QDIM, A_OFF = 2u * QDIM;  // regions of act[]
const uint NQ = QDIM / RPW, NK = KVDIM / RPW;
// The gate step gives each row half the lanes (TPRG) and each chunk twice the rows (RPWG): with 16
// lanes, 216 chunks of 32 rows left 84 of the H100's 132 workgroups two chunks (12 uvec4s a lane,
// the kernel's largest array); 108 chunks of 64 rows are one each (10 uvec4s, no lane idle).
const uint TPRG = TPR > 4u ? TPR / 2u : TPR, RPWG = WG / TPRG;
const uint QKV_CHUNKS = NQ + 2u * NK, FFN_CHUNKS = FFN / RPWG;
const uint IT_QKV = (QKV_CHUNKS + G - 1u) / G, IT_FFN = (FFN_CHUNKS + G - 1u) / G;
// wo and down: RR rows per workgroup, LPR lanes per row (LPR a multiple of RC lanes: clusters).
const uint RES_WGS = (DIM + RR - 1u) / RR, RC = LPR >= 8u ? 8u : LPR, RCPR = LPR / RC;
const uint VPLS_Q = (QDIM / 64u + LPR - 1u) / LPR, VPLS_F = (FFN / 64u + LPR - 1u) / LPR;
const uint WO_SLOTS = VPLS_Q;  // pf slots the wo step uses
const uint VPL_D = (DIM / 64u + TPR - 1u) / TPR, VPL_G = (DIM / 64u + TPRG - 1u) / TPRG;

shared uvec4 sq[KMAX / 16];  // the quantized input row, laid out as in bitlinear_decode.glsl
shared real res[RPW];
// Invocation coordinates.
#define tid gl_LocalInvocationID.x
#define lane (gl_LocalInvocationID.x % TPR)
#define lr (gl_LocalInvocationID.x / TPR)

// ---- grid barrier -------------------------------------------------------------------------------
// sync[pc.counter] counts arrivals; it only grows during a host call (the host zeroes it before each
// one) and every dispatch of the group adds exactly BARRIERS * G, so a dispatch's base is the count at
// its start rounded down to a multiple of that (no workgroup can have passed its first barrier before
// this one arrives). Arriving is one atomic that nobody waits for; the k-th barrier opens when the
// count reaches base + k G. Three barriers a layer (after attention, wo and gate), and one between
// layers: attention waits for its own KV head's rows instead (wait_ready).
uint barriers() { return 4u * pc.n_layers - 1u; }
// Per-invocation state (weights in flight, barrier counts) lives in main() and is passed down.

// A grid barrier in two halves, so a workgroup issues its next step's weight loads in between: the
// fence in arrive() would wait for loads issued before it, and nothing after it does. Reads after
// wait() see the other workgroups' writes: each published its writes before arriving, and those reads
// are `coherent` (from L2, not a stale L1).
// Publishing: the workgroup barrier orders every invocation's buffer writes before invocation 0's
// device-scope release fence, which makes them all available before its arrival (the pattern of CUDA's
// grid sync). A device-scope fence in every invocation cost ~950 cycles a barrier on the H100 (16 warps
// each waiting for the memory system), 4-5% of decode.
void publish_writes() {
  controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                 gl_SemanticsAcquireRelease);
  if (tid == 0u) memoryBarrier(gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelease);
}

void arrive(inout uint bar_k) {
  publish_writes();
  if (gl_SubgroupID == 0u) {
    bar_k += 1u;
    if (tid == 0u) atomicAdd(sync[pc.counter], 1u);
  }
}

// Waits until sync[at] reaches target, bounded (SPIN_LIMIT polls: then it gives up and raises
// `failed`), and holds the workgroup until then. Subgroup 0 polls as one: each of its invocations
// loads the count (one request for the subgroup) and all follow the first one's value, so the subgroup
// leaves the loop together and meets the workgroup barrier converged; the counts it compares
// (bar_base, bar_k) are kept by all of it for the same reason. Invocation 0 polling alone, the rest of
// its subgroup already at the barrier, is valid SPIR-V, but on the H100 it left the workgroup's
// subgroups out of step for some shapes and grids (read back: in the wo step, subgroups summed a
// quantisation's partials the others had not written yet), with wrong logits at every position, e.g.
// two query heads per KV head on 132 workgroups. A subgroup barrier after that poll did not help, nor
// did maximal reconvergence; every converged form measured 7-11% slower than that faulty one
// (H100), this one the least.
void wait_count(uint at, uint target, inout bool gave_up) {
  if (gl_SubgroupID == 0u && !gave_up) {
    uint spins = 0u;
    while (subgroupBroadcastFirst(sync[at]) < target) {
      if (++spins >= SPIN_LIMIT) {
        gave_up = true;
        if (tid == 0u) failed = 1u;
        break;
      }
    }
  }
  barrier();
}

void wait_all(uint bar_base, uint bar_k, inout bool gave_up) { wait_count(pc.counter, bar_base + bar_k * G, gave_up); }

// ---- QKV-ready counts ------------------------------------------------------------------------------
// Attention for KV head g reads only the q rows of its GQ query heads and its own key and value rows:
// READY chunks of the QKV step, not the whole grid's. Each chunk counts in at its KV head once its rows
// are written (published as for a grid barrier), and an attention work item waits for its head's
// count alone, so no grid barrier separates the two steps. The counts only grow during a host call and
// each dispatch adds READY * n_layers to every one, so in dispatch d of this group (bar_base /
// (barriers() G)) layer l waits for (d n_layers + l + 1) READY.
const uint READY = (GQ + 2u) * (HD / RPW);
void count_ready(uint g) {
  publish_writes();
  if (tid == 0u) atomicAdd(sync[pc.ready + g], 1u);
}

void wait_ready(uint g, uint layer, uint bar_base, inout bool gave_up) {
  wait_count(pc.ready + g, ((bar_base / (barriers() * G)) * pc.n_layers + layer + 1u) * READY, gave_up);
}

// Sums over aligned clusters of n lanes (n: TPR or TPK, a power of two within the subgroup): clustered
// subgroup adds where the device has them (the *_clustered variants), else a butterfly of shuffles. On
// the H100 the butterfly took ~14k of the ~38k cycles of attention at context 4000, the clustered add
// almost nothing. STEP_BITS takes the butterfly where it has them too, as attention_gqa.glsl does: the
// clustered add sums in another order (H200: other scores' last bits with two query heads a KV head).
#ifdef TRIT_CLUSTERED
#define CLUSTER_SUM(v, n) (STEP_BITS ? butterfly_sum(v, n) : subgroupClusteredAdd(v, n))
#else
#define CLUSTER_SUM(v, n) butterfly_sum(v, n)
#endif
int butterfly_sum(int v, uint n) {
  for (uint off = n / 2u; off > 0u; off /= 2u) v += subgroupShuffleXor(v, off);
  return v;
}
ivec2 butterfly_sum(ivec2 v, uint n) {
  for (uint off = n / 2u; off > 0u; off /= 2u) v += subgroupShuffleXor(v, off);
  return v;
}
real butterfly_sum(real v, uint n) {
  for (uint off = n / 2u; off > 0u; off /= 2u) v += subgroupShuffleXor(v, off);
  return v;
}

// ---- BitLinear pieces -----------------------------------------------------------------------------
// A row's partial sums for the four code groups of a word (group g sits at bits 6 - 2g of each byte).
#ifdef TRIT_DOT
// The codes as stored and NOT shifted down: masking a word keeps group g's codes in place, so each byte
// is code * 4^(3-g), an unsigned byte, and the mixed-signedness dot product with the int8 activations
// sums code * a * 4^(3-g) exactly. Group g keeps its own sum (component g), divided by 4^(3-g) once per
// row (each term is a multiple of it, so the shift is exact). Per word that is a mask and a dot product
// instead of a shift, a mask and a dot product (by operation counts the down step's integer work is
// ~2.4k cycles a workgroup against ~1.7k of shared reads; measured: +2% at context 128).
// Codes as they are (0..2): sum (code - 1) a is that minus the sum of a, and over a whole row the sum of
// a is the same for every row (quantize_input's qsum), so it is subtracted once per row.
spirv_instruction(extensions = ["SPV_KHR_integer_dot_product"], capabilities = [6019, 6018], id = 4452)
int sudot4x8(int a, uint b, spirv_literal int packed_format);  // OpSUDot: a signed, b unsigned
const bool CODES_AS_STORED = true;
const uvec4 GROUP_MASK = uvec4(0xC0C0C0C0u, 0x30303030u, 0x0C0C0C0Cu, 0x03030303u);
// Group g of code word w against the activation word a.
void word_dot(inout ivec4 r, uint g, uint w, uint a) { r[g] += sudot4x8(int(a), w & GROUP_MASK[g], 0); }
int group_total(ivec4 r) { return (r.x >> 6) + (r.y >> 4) + (r.z >> 2) + r.w; }
#else
// The portable variant decodes code - 1 itself and keeps a single sum, in .w.
const bool CODES_AS_STORED = false;
void word_dot(inout ivec4 r, uint g, uint w, uint a) { r.w += dot4(w, 6u - 2u * g, a); }
int group_total(ivec4 r) { return r.w; }
#endif

// A row's block w (64 codes) against block j of the quantized input.
void dot_block(inout ivec4 r, uvec4 w, uint j, uint k) {
  for (uint g = 0; g < 4; ++g) {
    const uvec4 a = sq[g * (k / 64u) + j];
    for (uint q = 0; q < 4; ++q) word_dot(r, g, w[q], a[q]);
  }
}

// BLOCK_SCALES: float i of the layer group's buffer (the matrices' block scales lie there as floats),
// read through the norms' view of it (a binding of its own cost the double kernel a 16-byte spill).
float block_scale(uint i) { return ln[i >> 2][i & 3u]; }

// BLOCK_SCALES: the exact sum of (code - 1) * a over the row's block w and block j of the input, the
// codes decoded (taking them as stored would need the input's sum per block, not per row).
int block_sum(uvec4 w, uint j, uint k) {
  int r = 0;
  for (uint g = 0; g < 4; ++g) {
    const uvec4 a = sq[g * (k / 64u) + j];
    for (uint q = 0; q < 4; ++q) {
#ifdef TRIT_DOT
      r += sdot4x8(int(ternary_word(w[q], 6u - 2u * g)), int(a[q]), 0);
#else
      r += dot4(w[q], 6u - 2u * g, a[q]);
#endif
    }
  }
  return r;
}

// The first layer's x is the token's embedding row (pc.embed), read from the table until x holds it.
bool x_is_embedding = false;
// Elements 4e .. 4e + 3 of the token's row of the table (the host checks the token; the clamp keeps a
// bad one inside the table).
uvec2 embedding_row(uint e) { return emb[min(uint(max(tok[0], 0)), pc.embed - 1u) * (DIM / 4u) + e]; }
real4 embedding4(uint e) {
  const uvec2 h = embedding_row(e);
  return real4(vec4(unpackHalf2x16(h.x), unpackHalf2x16(h.y)));
}

// Elements 4e .. 4e + 3 of an input row: x, or act[] from offset src_off (even).
real4 in4(uint src_off, bool from_x, uint e) {
  if (from_x && x_is_embedding) return embedding4(e);
#ifdef TRIT_F64
  if (from_x) return real4(xa2[2u * e], xa2[2u * e + 1u]);
  const uint b = src_off / 2u + 2u * e;
  return real4(act2[b], act2[b + 1u]);
#else
  // src_off (0, QDIM or 2 QDIM) is a whole vec4: the host runs this kernel only where QDIM is a
  // multiple of 128 (persistent_decode.cpp).
  if (from_x) return xa4[e];
  return act4[src_off / 4u + e];
#endif
}

// 1 / sqrt(v) and 1 / v. In double, Newton steps from the float approximation (a double sqrt or
// division is a long software sequence, and every invocation of every workgroup runs these): each
// step doubles the correct bits, so two take the float seed's 22 past double's 53. Outside float's
// range, the plain forms.
real inv_sqrt(real v) {
#ifdef TRIT_F64
  if (!(v > 1e-30LF && v < 1e30LF)) return 1.0LF / sqrt(v);
  double y = double(inversesqrt(float(v)));
  for (int i = 0; i < 2; ++i) y = y * fma(-0.5LF * v, y * y, 1.5LF);
  return y;
#else
  return 1.0 / sqrt(v);
#endif
}
real recip(real v) {
#ifdef TRIT_F64
  if (!(v > 1e-30LF && v < 1e30LF)) return 1.0LF / v;
  double y = double(1.0 / float(v));
  for (int i = 0; i < 2; ++i) y = fma(y, fma(-v, y, 1.0LF), y);
  return y;
#else
  return 1.0 / v;
#endif
}
// The next step's norm weights, loaded before its grid barrier (as float: they are float in the file,
// and the registers are scarce).
void prefetch_norm(inout vec4 nvp[XPT], uint nw4, uint k) {
  for (uint i = 0; i < XPT; ++i) {
    const uint e = tid + i * WG;
    nvp[i] = e < k / 4u ? ln[nw4 + e] : vec4(0);
  }
}
// The weights of a step without a norm (no sub-norms): ones, so only the quantization scales the row.
void unit_norm(inout vec4 nvp[XPT]) {
  for (uint i = 0; i < XPT; ++i) nvp[i] = vec4(1);
}

// 1 + 2^-52 (or 2^-23): one ulp up, for quantize_input's rounding (ROUND_MAGIC: common.glsl).
#ifdef TRIT_F64
const double ROUND_NUDGE = 1.0LF + 2.220446049250313e-16LF;
#else
const float ROUND_NUDGE = 1.0 + 1.1920928955078125e-7;
#endif

// Both quantizations' tail. Natural word e of a k-wide quantized row into sq[] (group g of its code
// uvec4 j, as bitlinear_decode.glsl lays it out).
void store_quantized(uint e, uint k, uint packed) {
  const uint r = e % 32u, g = r / 8u, j = (e / 32u) * 2u + (r % 8u) / 4u;
  sq[g * (k / 64u) + j][r % 4u] = packed;
}
// The row's sum of its int8 values from each invocation's qs (CODES_AS_STORED; else 0), after the
// barrier that makes sq[] whole. The partials by one subgroup reduction, not a loop of dependent shared
// loads (a loop over the 16 partials cost ~400 cycles a step on the H100); integers, so any order.
int quantized_sum(int qs) {
  if (CODES_AS_STORED) {
    qs = subgroupAdd(qs);
    if (subgroupElect()) red_i[gl_SubgroupID] = qs;
  }
  barrier();
  int qsum = 0;
  if (CODES_AS_STORED) {
    if (gl_NumSubgroups <= gl_SubgroupSize)
      qsum = subgroupAdd(gl_SubgroupInvocationID < gl_NumSubgroups ? red_i[gl_SubgroupInvocationID] : 0);
    else
      for (uint i = 0; i < gl_NumSubgroups; ++i) qsum += red_i[i];
  }
  return qsum;
}

// RMSNorm of a k-wide input row (norm weights in nvp) and its int8 quantization into sq[]; returns the
// dequantization factor (absmax / 127: a row's integer dot product times it and the matrix scale is the
// output) and, in qsum, the sum of the int8 values. Ends with a barrier: sq[] is ready.
// The norm needs the row's sum of squares and the quantization its absmax after the norm; since the
// norm only scales, absmax(x * nw) * inv is that absmax (to the last bit but for the order of rounding),
// so both come from ONE workgroup reduction instead of two in sequence.
// normed false: no RMSNorm (the row is quantized as it is, nvp holds ones), as bitlinear_decode.glsl's
// HAS_NORM false.
real quantize_input(in vec4 nvp[XPT], bool from_x, uint src_off, uint k, bool normed, out int qsum) {
  const uint k4 = k / 4u;
  real4 xv[XPT];
  real ss = real(0), am = real(0);
  for (uint i = 0; i < XPT; ++i) {
    const uint e = tid + i * WG;
    xv[i] = e < k4 ? in4(src_off, from_x, e) : real4(0);
  }
  for (uint i = 0; i < XPT; ++i) {
    ss += dot(xv[i], xv[i]);
    am = max(am, max_abs_product(xv[i], nvp[i]));
  }
  publish_sum_max(ss, am);
  // Every subgroup reduces the partials itself: no second barrier, no serial loop where a subgroup
  // holds them all.
  am = max_of_partials();
  if (gl_NumSubgroups <= gl_SubgroupSize) {
    ss = subgroupAdd(gl_SubgroupInvocationID < gl_NumSubgroups ? red_f[gl_SubgroupInvocationID] : real(0));
  } else {
    ss = real(0);
    for (uint i = 0; i < gl_NumSubgroups; ++i) ss += red_f[i];
  }
  // Every workgroup runs this chain between its two barriers, so its length is on the critical path of
  // every step: 1/k is a constant, and 1/absmax is computed beside 1/sqrt rather than after it. With
  // the norm's absmax am * inv above the floor, x * inv * nw * 127 / (am * inv) is x * nw * 127 / am.
  const real inv = normed ? inv_sqrt(ss * (real(1) / real(k)) + real(pc.eps)) : real(1);
  const real r_am = recip(am);
  const real m = max(am * inv, real(1e-5));
  // q = round_half_away(x * inv * nw * 127 / m): the products in another order and the rounding below
  // differ from rmsnorm_quant.glsl's only where v lies within a few ulps of a rounding boundary (never
  // seen in double); this is the work every workgroup repeats for the whole row.
  const real f = am * inv >= real(1e-5) ? real(127) * r_am : inv * (real(127) / real(1e-5));
  // Rounding by the magic number: fma(v, f, ROUND_MAGIC) rounds v * f to an integer (to nearest, ties
  // to even) and leaves it in the low word, so no 64-bit conversion and no +-0.5 per element. f is
  // raised by an ulp so an exact tie rounds away from zero, as std::round does; only values within an
  // ulp or two of a rounding boundary can differ from the reference, as the order of the products above
  // already allows.
  const real fr = f * ROUND_NUDGE;
  int qs = 0;
  for (uint i = 0; i < XPT; ++i) {
    const uint e = tid + i * WG;
    if (e >= k4) break;
    const real4 xn = xv[i] * real4(nvp[i]);
    uint packed = 0u;
#ifdef TRIT_F64
    // (The clamped form, the same bytes: the double kernel sits at its register cap, and the other form
    // spilled 32 bytes there.)
    for (int b = 0; b < 4; ++b) {
      const int q = clamp(magic_int(fma(xn[b], fr, ROUND_MAGIC)), -128, 127);
      qs += q;
      packed |= uint(q & 0xff) << (8 * b);
    }
#else
    // No clamp to [-128, 127]: |x nw| <= am, so |x nw fr| is 127 and a few ulps at most (below the
    // floor, |x nw| inv <= am inv < 1e-5 keeps it there too), which rounds to 127 (every row's largest
    // element meets that bound: past it, its byte would wrap to -128 in every test); and the low byte
    // of the magic word is the integer's (the magic's low byte is 0). The work after the barrier above
    // is on every step's critical path, so none is spent on a clamp or on masking q.
    for (uint b = 0u; b < 4u; ++b) {
      const float t = fma(xn[b], fr, ROUND_MAGIC);
      qs += magic_int(t);
      packed |= (floatBitsToUint(t) & 0xffu) << (8u * b);
    }
#endif
    store_quantized(e, k, packed);
  }
  qsum = quantized_sum(qs);
  return m * (real(1) / real(127));
}

// STEP_BITS: the quantization of bitlinear_decode.glsl (and rmsnorm_quant.glsl's, which the batched
// products read) in its order of operations, each invocation below STEP_WG on the elements that
// invocation of theirs takes (the others, and a narrower row's extra elements, add exact zeros to the
// sums). Returns s = 127 / absmax (a row's value is sum / s * scale); qsum as quantize_input's.
const uint XPT_S = (KMAX / 4u + STEP_WG - 1u) / STEP_WG;  // (XPT where STEP_WG is WG)
// The norm weights of the invocation's i-th elements: those prefetched where STEP_WG is WG (the same
// elements), else read here from the layer's norm at nw4.
vec4 step_norm(in vec4 nvp[XPT], uint i, uint nw4, uint k4) {
  if (STEP_WG == WG) return nvp[min(i, XPT - 1u)];
  const uint e = tid + i * STEP_WG;
  return tid < STEP_WG && e < k4 ? ln[nw4 + e] : vec4(0);
}
real quantize_step_bits(in vec4 nvp[XPT], uint nw4, bool from_x, uint src_off, uint k, bool normed, out int qsum) {
  const uint k4 = k / 4u;
  real4 xv[XPT_S];
  real ss = real(0), am = real(0);
  for (uint i = 0; i < XPT_S; ++i) {
    const uint e = tid + i * STEP_WG;
    xv[i] = tid < STEP_WG && e < k4 ? in4(src_off, from_x, e) : real4(0);
    ss = add_squares(ss, xv[i]);
    am = max(am, max_abs_product(xv[i], normed ? step_norm(nvp, i, nw4, k4) : vec4(1)));
  }
  const real2 sm = wg_sum_max(ss, am);
  real inv = real(1);
  if (normed) {
    inv = real(1) / sqrt(sm.x / real(k) + real(pc.eps));
    for (uint i = 0; i < XPT_S; ++i) xv[i] = xv[i] * inv * real4(step_norm(nvp, i, nw4, k4));
  }
  const real sc = real(127) / max(normed_absmax(sm.y, inv), real(1e-5));
  int qs = 0;
  for (uint i = 0; i < XPT_S; ++i) {
    const uint e = tid + i * STEP_WG;
    if (tid >= STEP_WG || e >= k4) break;
    const real4 qv = xv[i] * sc;
    uint packed = 0u;
    for (int b = 0; b < 4; ++b) {
      const int q = int(clamp(round_half_away(qv[b]), real(-128), real(127)));
      qs += q;
      packed |= uint(q & 0xff) << (8 * b);
    }
    store_quantized(e, k, packed);
  }
  qsum = quantized_sum(qs);
  return sc;
}

// A step's input row quantized (into sq[]; nw4: its norm weights in ln[], which nvp holds prefetched);
// returns the factor its sums take (dequant).
real quantize(in vec4 nvp[XPT], uint nw4, bool from_x, uint src_off, uint k, bool normed, out int qsum) {
  if (STEP_BITS) return quantize_step_bits(nvp, nw4, from_x, src_off, k, normed, qsum);
  return quantize_input(nvp, from_x, src_off, k, normed, qsum);
}
// A row's value from its exact sum (or, BLOCK_SCALES, its scaled float sum) and quantize()'s factor f:
// sum * f * scale (f the dequantization factor), or STEP_BITS sum / f * scale (f the int8 scale), as the
// batched steps' kernels compute it.
real dequant(int acc, real f, float scale) {
  return STEP_BITS ? real(acc) / f * real(scale) : real(acc) * f * real(scale);
}
real dequant_scaled(real sum, real f) { return STEP_BITS ? sum / f : sum * f; }
// x[row] += v: STEP_BITS rounded as written (common.glsl add_residual), as the batched steps' kernels.
void add_to_x(uint row, real v) {
  if (STEP_BITS)
    xa[row] = add_residual(xa[row], v);
  else
    xa[row] += v;
}

// Row `row` of the matrix at lw[base] (k wide) into pf[at .. at + vpl), tpr lanes per row; only the
// slots in [lo, hi) (a step's loads issued in two parts).
void load_row(inout uvec4 pf[PF], uint at, uint vpl, uint base, uint row, uint k, bool live, uint tpr, uint lo,
              uint hi) {
  for (uint i = 0; i < vpl; ++i) {
    if (at + i < lo || at + i >= hi) continue;
    const uint j = tid % tpr + i * tpr;
    pf[at + i] = live && j < k / 64u ? lw[base + row * (k / 64u) + j] : uvec4(0);
  }
}

// Adds a row's partial sums (int or ivec2) over its tpr lanes, in place: the clustered variants run with
// TPR = 16, TPRG = 8 (a cluster size must be a literal).
#ifdef TRIT_CLUSTERED
#define ROW_SUM(acc, tpr)                  \
  if ((tpr) == 16u)                        \
    acc = subgroupClusteredAdd(acc, 16u);  \
  else                                     \
    acc = subgroupClusteredAdd(acc, 8u)
#else
#define ROW_SUM(acc, tpr) acc = butterfly_sum(acc, tpr)
#endif

// The exact integer dot product of the row in pf[at .. at + vpl) with sq[], summed over the row's lanes.
// qsum: the sum of the row's int8 activations (quantize_input), for CODES_AS_STORED.
int row_dot(in uvec4 pf[PF], uint at, uint vpl, uint k, int qsum, uint tpr) {
  ivec4 r = ivec4(0);
  for (uint i = 0; i < vpl; ++i) {
    const uint j = tid % tpr + i * tpr;
    if (j < k / 64u) dot_block(r, pf[at + i], j, k);
  }
  int acc = group_total(r);
  ROW_SUM(acc, tpr);
  return CODES_AS_STORED ? acc - qsum : acc;
}

// row_dot for two rows whose slots hold the same input blocks (pf[at1 ..], pf[at2 ..]), tpr lanes per
// row: each activation word is read from shared memory once for both (the gate step's gate and up rows).
ivec2 row_dot2(in uvec4 pf[PF], uint at1, uint at2, uint vpl, uint k, int qsum, uint tpr) {
  ivec4 r1 = ivec4(0), r2 = ivec4(0);
  for (uint i = 0; i < vpl; ++i) {
    const uint j = tid % tpr + i * tpr;
    if (j >= k / 64u) continue;
    for (uint g = 0; g < 4; ++g) {
      const uvec4 a = sq[g * (k / 64u) + j];
      const uvec4 w1 = pf[at1 + i], w2 = pf[at2 + i];
      for (uint q = 0; q < 4; ++q) {
        word_dot(r1, g, w1[q], a[q]);
        word_dot(r2, g, w2[q], a[q]);
      }
    }
  }
  ivec2 acc = ivec2(group_total(r1), group_total(r2));
  ROW_SUM(acc, tpr);
  return CODES_AS_STORED ? acc - qsum : acc;
}

// BLOCK_SCALES: the row in pf[at .. at + vpl) against sq[], each block's exact sum times its scale
// (block_scale(dbase + block): dbase is the row's first), the lanes' partials summed over tpr lanes.
real row_dot_scaled(in uvec4 pf[PF], uint at, uint vpl, uint k, uint dbase, uint tpr) {
  precise real f = real(0);  // no FMA: as bitlinear_decode.glsl
  for (uint i = 0; i < vpl; ++i) {
    const uint j = tid % tpr + i * tpr;
    if (j < k / 64u) f += real(block_scale(dbase + j / 4u)) * real(block_sum(pf[at + i], j, k));
  }
  return butterfly_sum(f, tpr);
}

// ---- step 1: QKV ------------------------------------------------------------------------------------
// Chunk c of the QKV step: its matrix, first visiting index, and lane group's row (RoPE pair order for
// q and k: visiting index 2p + half is dimension p + half * HD/2 of the head).
uint qkv_row(uint c, out uint mat, out uint first) {
  mat = c < NQ ? 0u : c < NQ + NK ? 1u : 2u;
  first = (c - (mat == 0u ? 0u : mat == 1u ? NQ : NQ + NK)) * RPW;
  const uint v = first + lr;
  if (mat == 2u || NORMAL_ROPE) return v;
  const uint within = v % HD;
  return v - within + within / 2u + (within % 2u) * (HD / 2u);
}

void prefetch_qkv(inout uvec4 pf[PF]) {
  for (uint it = 0; it < IT_QKV; ++it) {
    const uint c = gl_WorkGroupID.x + it * G;
    uint mat, first;
    const uint row = qkv_row(min(c, QKV_CHUNKS - 1u), mat, first);
    const uint base = LB + (mat == 0u ? pc.wq : mat == 1u ? pc.wk : pc.wv);
    load_row(pf, it * VPL_D, VPL_D, base, row, DIM, c < QKV_CHUNKS, TPR, 0u, PF);
  }
}

// The KV cache's elements as kv_cache.glsl lays them out for the caches this kernel runs with: F16 pairs,
// or floats in the fp32 build. The double build's full-precision cache (doubles) decodes on the fused
// kernels (VulkanForward): this kernel's prefetched key and value words would not fit its registers in
// double words, and on kv_cache.glsl's helpers it spilled 16 bytes in double even with an F16 cache.
uint kv_bits(real v) { return KV_F16 ? to_f16(v) : floatBitsToUint(float(v)); }

// Workgroups without a row chunk in a step skip it whole (the quantization too: every workgroup reads
// the whole input row from L2 for it, and idle ones would only add to that traffic). Each chunk counts
// in at its KV head when written (count_ready).
void step_qkv(in uvec4 pf[PF], in vec4 nvp[XPT], uint pos) {
  if (gl_WorkGroupID.x >= QKV_CHUNKS) return;
  int qsum;
  const real deq = quantize(nvp, LB + pc.n_attn, true, 0u, DIM, true, qsum);
  const uint half_hd = HD / 2u;
  for (uint it = 0; it < IT_QKV; ++it) {
    const uint c = gl_WorkGroupID.x + it * G;
    if (c >= QKV_CHUNKS) break;  // uniform
    uint mat, first;
    const uint row = qkv_row(c, mat, first);
    // (The per-matrix branch as it was before block scales: in double the kernel is at its register cap,
    // and computing the product in every lane spilled 16 bytes.)
    if (BLOCK_SCALES) {
      const uint dm = mat == 0u ? pc.dq : mat == 1u ? pc.dk : pc.dv;
      const real v = dequant_scaled(row_dot_scaled(pf, it * VPL_D, VPL_D, DIM, 4u * LB + dm + row * (DIM / 256u), TPR), deq);
      if (lane == 0u) res[lr] = v;
    } else {
      const int acc = row_dot(pf, it * VPL_D, VPL_D, DIM, qsum, TPR);
      const float scale = scl[SB + S_WQ + mat];
      if (lane == 0u) res[lr] = dequant(acc, deq, scale);
    }
    barrier();
    if (mat == 0u) {
      if (tid < RPW / 2u) {
        const uint vv = first + 2u * tid;
        const uint h = vv / HD, i = (vv % HD) / 2u;
        const real2 r = rotate(res[2u * tid], res[2u * tid + 1u], cs[pos * half_hd + i]);
        act[h * HD + (NORMAL_ROPE ? 2u * i : i)] = r.x;
        act[h * HD + (NORMAL_ROPE ? 2u * i + 1u : i + half_hd)] = r.y;
      }
    } else if (mat == 1u) {
      if (tid < RPW / 4u) {
        const uint vv = first + 4u * tid;
        const uint h = vv / HD, i = (vv % HD) / 2u;
        const real2 r0 = rotate(res[4u * tid], res[4u * tid + 1u], cs[pos * half_hd + i]);
        const real2 r1 = rotate(res[4u * tid + 2u], res[4u * tid + 3u], cs[pos * half_hd + i + 1u]);
        if (NORMAL_ROPE) {
          // Dimensions 2i .. 2i + 3: the pairs (r0.x, r0.y), (r1.x, r1.y) side by side.
          const uint dst = (KV0 + pos) * KVDIM + h * HD + 2u * i;
          if (KV_F16) {
            kc[CB + dst / 2u] = kv_bits(r0.x) | (kv_bits(r0.y) << 16);
            kc[CB + dst / 2u + 1u] = kv_bits(r1.x) | (kv_bits(r1.y) << 16);
          } else {
            kc[CB + dst] = kv_bits(r0.x);
            kc[CB + dst + 1u] = kv_bits(r0.y);
            kc[CB + dst + 2u] = kv_bits(r1.x);
            kc[CB + dst + 3u] = kv_bits(r1.y);
          }
        } else {
        const uint dst = (KV0 + pos) * KVDIM + h * HD + i;  // in elements; CB in words
        if (KV_F16) {
          kc[CB + dst / 2u] = kv_bits(r0.x) | (kv_bits(r1.x) << 16);
          kc[CB + (dst + half_hd) / 2u] = kv_bits(r0.y) | (kv_bits(r1.y) << 16);
        } else {
          kc[CB + dst] = kv_bits(r0.x);
          kc[CB + dst + 1u] = kv_bits(r1.x);
          kc[CB + dst + half_hd] = kv_bits(r0.y);
          kc[CB + dst + half_hd + 1u] = kv_bits(r1.y);
        }
        }
      }
    } else {
      if (tid < RPW / 2u) {
        const uint dst = (KV0 + pos) * KVDIM + first + 2u * tid;
        if (KV_F16) {
          vc[CB + dst / 2u] = kv_bits(res[2u * tid]) | (kv_bits(res[2u * tid + 1u]) << 16);
        } else {
          vc[CB + dst] = kv_bits(res[2u * tid]);
          vc[CB + dst + 1u] = kv_bits(res[2u * tid + 1u]);
        }
      }
    }
    // (Also the barrier before res[] is reused.)
    count_ready(mat == 0u ? first / HD / GQ : first / HD);
  }
}

// ---- step 2: attention --------------------------------------------------------------------------------
// A work item's arithmetic is attention_group.glsl's (a batched step's attention runs it too); here its
// words, its q rows and the smallest splits (16 keys: one token spreads over the grid).
shared uint arrival;  // this workgroup's place among its head group's splits (0: first to finish)

// The cache words of dimensions 2w, 2w + 1 of a row (F16: one packed word in .x; F32: two words).
uvec2 k_word(uint row, uint g, uint w) {
  const uint b = (KV0 + row) * KVDIM + g * HD;
  return KV_F16 ? uvec2(kc[CB + b / 2u + w], 0u) : uvec2(kc[CB + b + 2u * w], kc[CB + b + 2u * w + 1u]);
}
uvec2 v_word(uint row, uint g, uint w) {
  const uint b = (KV0 + row) * KVDIM + g * HD;
  return KV_F16 ? uvec2(vc[CB + b / 2u + w], 0u) : uvec2(vc[CB + b + 2u * w], vc[CB + b + 2u * w + 1u]);
}
real2 att_pair(uvec2 w) {
  return KV_F16 ? real2(unpackHalf2x16(w.x)) : real2(uintBitsToFloat(w.x), uintBitsToFloat(w.y));
}

real group_q(uint g, uint e) { return act[(g * GQ) * HD + e]; }
#define ATT_WORD uvec2
// (STEP_BITS: a chunk, vk::GroupedAttention::kChunkKeys, as attention_gqa.glsl)
const uint ATT_MIN_SPLIT = STEP_BITS ? 64u : 16u;
#include "attention_group.glsl"

// Query head h of KV head g: its splits' partials merged into o.
void merge_head(uint g, uint h, uint n_splits) {
  uint d;
  real v;
  if (merged_output((g * GQ + h) * MAXS, n_splits, d, v)) act[O_OFF + (g * GQ + h) * HD + d] = v;
}

// Each work item first waits for its KV head's QKV rows of this layer (wait_ready).
void step_attention(inout uvec2 kpre[KW], inout uvec2 vpre[VK], uint pos, uint layer, uint bar_base, inout bool gave_up) {
  const uint n_all = pos + 1u;
  uint split, n_splits;
  attention_items(n_all, split, n_splits);
  for (uint item = gl_WorkGroupID.x; item < KV_HEADS * n_splits; item += G) {
    const uint g = item % KV_HEADS, s = item / KV_HEADS;
    const uint k0 = s * split, k1 = min(n_all, k0 + split);
    wait_ready(g, layer, bar_base, gave_up);
    // The first item's first chunk was loaded before the wait, all but the current token's row.
    attend_item(kpre, vpre, g, k0, k1, item == gl_WorkGroupID.x ? pos : 0u);
    if (n_splits == 1u) {
      for (uint e = tid; e < GQ * HD; e += WG) act[O_OFF + g * GQ * HD + e] = out_at(e) / hl[e / HD];
      barrier();
      continue;
    }
    // Publish this split's partial and count in; the head group's last min(GQ, n_splits) splits to
    // finish merge them, one query head each (a merge of every head by the last
    // split alone took ~8.5k cycles at context 4000, on the path of every workgroup).
    store_partials(g, s);
    publish_writes();
    if (tid == 0u) arrival = atomicAdd(sync[g], 1u);
    barrier();
    const uint mergers = min(GQ, n_splits), order = arrival;
    if (order < n_splits - mergers) continue;
    // Every split of the group has published once the count reaches n_splits (the last one to arrive
    // does not wait). Bounded like the grid barrier.
    wait_count(g, n_splits, gave_up);
    for (uint h = order - (n_splits - mergers); h < GQ; h += mergers) merge_head(g, h, n_splits);
    // Count out; the last merger to finish zeroes the count for the next layer (grid barriers away).
    if (tid == 0u && atomicAdd(sync[g], 1u) == n_splits + mergers - 1u) atomicExchange(sync[g], 0u);
  }
}

// ---- steps 3-5: wo, gate/up, down -------------------------------------------------------------------
// The gate step's weights in the slots [lo, hi) of pf.
void prefetch_gate(inout uvec4 pf[PF], uint lo, uint hi) {
  for (uint it = 0; it < IT_FFN; ++it) {
    const uint c = gl_WorkGroupID.x + it * G;
    const uint row = min(c, FFN_CHUNKS - 1u) * RPWG + tid / TPRG;
    load_row(pf, (2u * it) * VPL_G, VPL_G, LB + pc.wgate, row, DIM, c < FFN_CHUNKS, TPRG, lo, hi);
    load_row(pf, (2u * it + 1u) * VPL_G, VPL_G, LB + pc.wup, row, DIM, c < FFN_CHUNKS, TPRG, lo, hi);
  }
}

// x += W int8(norm(input)) for the DIM rows of W (wo: input o, width QDIM; down: input a, width FFN):
// RR rows a workgroup, LPR lanes a row.
shared int rsum[64];
// d_off: BLOCK_SCALES, where the matrix's block scales start in a layer (floats).
void step_residual(in uvec4 pf[PF], in vec4 nvp[XPT], uint nw4, uint src_off, uint k, uint vpl, uint scale_at,
                   uint d_off) {
  if (gl_WorkGroupID.x >= RES_WGS) return;
  int qsum;
  const real deq = quantize(nvp, nw4, false, src_off, k, SUB_NORMS, qsum);
  const uint r = tid / LPR, p = tid % LPR, row = gl_WorkGroupID.x * RR + r;
  const bool live = r < RR && row < DIM;
  if (BLOCK_SCALES) {
    precise real f = real(0);
    const uint dbase = 4u * LB + d_off + row * (k / 256u);
    for (uint i = 0; i < vpl; ++i) {
      const uint j = p + LPR * i;
      if (live && j < k / 64u) f += real(block_scale(dbase + j / 4u)) * real(block_sum(pf[i], j, k));
    }
    f = butterfly_sum(f, RC);
    if (RCPR > 1u) {
      // (red_f: free again once quantize_input has ended with its barrier.)
      if (live && p % RC == 0u) red_f[r * RCPR + p / RC] = f;
      barrier();
      if (live && p == 0u)
        for (uint q = 1u; q < RCPR; ++q) f += red_f[r * RCPR + q];
    }
    if (live && p == 0u) add_to_x(row, dequant_scaled(f, deq));
    return;
  }
  ivec4 a4 = ivec4(0);
  for (uint i = 0; i < vpl; ++i) {
    const uint j = p + LPR * i;
    if (live && j < k / 64u) dot_block(a4, pf[i], j, k);
  }
  int acc = group_total(a4);
#ifdef TRIT_CLUSTERED
  if (RC == 8u)
    acc = subgroupClusteredAdd(acc, 8u);
  else
    acc = butterfly_sum(acc, RC);
#else
  acc = butterfly_sum(acc, RC);
#endif
  if (RCPR > 1u) {
    if (live && p % RC == 0u) rsum[r * RCPR + p / RC] = acc;
    barrier();
    if (live && p == 0u)
      for (uint q = 1u; q < RCPR; ++q) acc += rsum[r * RCPR + q];
  }
  if (live && p == 0u) add_to_x(row, dequant(CODES_AS_STORED ? acc - qsum : acc, deq, scl[SB + scale_at]));
}

// The wo or down step's weights (k wide) into pf[0 .. vpl).
void prefetch_residual(inout uvec4 pf[PF], uint base, uint k, uint vpl) {
  const uint r = tid / LPR, p = tid % LPR, row = gl_WorkGroupID.x * RR + r;
  const bool live = gl_WorkGroupID.x < RES_WGS && r < RR && row < DIM;
  for (uint i = 0; i < vpl; ++i) {
    const uint j = p + LPR * i;
    pf[i] = live && j < k / 64u ? lw[base + row * (k / 64u) + j] : uvec4(0);
  }
}

void step_gate(in uvec4 pf[PF], in vec4 nvp[XPT]) {
  if (gl_WorkGroupID.x >= FFN_CHUNKS) return;
  int qsum;
  const real deq = quantize(nvp, LB + pc.n_ffn, true, 0u, DIM, true, qsum);
  for (uint it = 0; it < IT_FFN; ++it) {
    const uint c = gl_WorkGroupID.x + it * G;
    if (c >= FFN_CHUNKS) break;
    // (Per matrix, the products only in the lane that writes, as in step_qkv.)
    real g = real(0), u = real(0);
    ivec2 a12 = ivec2(0);
    if (BLOCK_SCALES) {
      const uint db = 4u * LB + (c * RPWG + tid / TPRG) * (DIM / 256u);
      g = dequant_scaled(row_dot_scaled(pf, (2u * it) * VPL_G, VPL_G, DIM, db + pc.dgate, TPRG), deq);
      u = dequant_scaled(row_dot_scaled(pf, (2u * it + 1u) * VPL_G, VPL_G, DIM, db + pc.dup, TPRG), deq);
    } else {
      a12 = row_dot2(pf, (2u * it) * VPL_G, (2u * it + 1u) * VPL_G, VPL_G, DIM, qsum, TPRG);
    }
    if (tid % TPRG == 0u) {
      if (!BLOCK_SCALES) {
        g = dequant(a12.x, deq, scl[SB + S_GATE]);
        u = dequant(a12.y, deq, scl[SB + S_UP]);
      }
      act[A_OFF + c * RPWG + tid / TPRG] = gated_ffn(g, u, SILU);
    }
  }
}

// Whether all the dispatched workgroups of this kernel are resident at once (the decode's grid G, or a
// smaller one while the host looks for the largest that is): each counts in and waits, bounded, for
// the others. The same pipeline as the decode (registers are allocated for the whole kernel), so the
// answer is the decode's; a grid too large raises `failed` after pc.probe polls instead of hanging.
void check_residency() {
  if (tid == 0u) atomicAdd(sync[pc.counter], 1u);
  if (gl_SubgroupID != 0u) return;
  uint spins = 0u;
  while (subgroupBroadcastFirst(sync[pc.counter]) < gl_NumWorkGroups.x) {
    if (++spins >= pc.probe) {
      if (tid == 0u) failed = 1u;
      break;
    }
  }
}

void main() {
  if (pc.probe != 0u) {
    check_residency();
    return;
  }
  if (params.n_tokens == 0u) return;
  const uint pos = STEP_BITS ? token_pos(0u, FROM_BATCH) : params.pos0;
  if (STEP_BITS) KV0 = token_kv(0u, FROM_BATCH);
  uvec4 pf[PF];        // this lane's weights for the current step, loaded a step ahead
  vec4 nvp[XPT];      // the current step's norm weights
  uvec2 kpre[KW], vpre[VK];  // attention: the next chunk's key and value words
  uint bar_base = 0u, bar_k = 0u;  // grid barriers (subgroup 0)
  bool gave_up = false;
  if (gl_SubgroupID == 0u) {
    const uint c = subgroupBroadcastFirst(sync[pc.counter]);
    bar_base = c - c % (barriers() * G);
  }
  // The norm weights first: the quantisation waits for them and for x, the dot products for the rows.
  set_layer(0u);
  if (gl_WorkGroupID.x < QKV_CHUNKS) prefetch_norm(nvp, LB + pc.n_attn, DIM);
  prefetch_qkv(pf);
  x_is_embedding = pc.embed != 0u;
  for (uint layer = 0u;;) {
    step_qkv(pf, nvp, pos);
    if (x_is_embedding) {
      // x = the embedding, each row written by the workgroup that adds to it in the wo step (two grid
      // barriers later); every other reader of this x has read the table.
      const uint row = gl_WorkGroupID.x * RR + tid;
      if (gl_WorkGroupID.x < RES_WGS && tid < RR && row < DIM) {
        const uvec2 h = embedding_row(row / 4u);
        xa[row] = real(unpackHalf2x16(row % 4u < 2u ? h.x : h.y)[row % 2u]);
      }
      x_is_embedding = false;
    }
    // The first attention work item's key (and value) words of earlier tokens load before its wait.
    {
      uint split, n_splits;
      attention_items(pos + 1u, split, n_splits);
      const uint item = gl_WorkGroupID.x;
      if (item < KV_HEADS * n_splits) {
        const uint k0 = (item / KV_HEADS) * split;
        load_chunk(kpre, vpre, item % KV_HEADS, k0, min(CH, min(pos + 1u, k0 + split) - k0), 0u, pos);
      }
    }
    step_attention(kpre, vpre, pos, layer, bar_base, gave_up);
    arrive(bar_k);
    prefetch_residual(pf, LB + pc.wo, QDIM, VPLS_Q);
    // The wo step uses the first WO_SLOTS of pf: the gate step's weights for the others load now, a
    // whole step ahead (the gate step reads the most bytes per workgroup, and its loads issued only at
    // the barrier before it were still arriving during its dot products).
    prefetch_gate(pf, WO_SLOTS, PF);
    if (SUB_NORMS) prefetch_norm(nvp, LB + pc.n_sub, QDIM);
    else unit_norm(nvp);
    wait_all(bar_base, bar_k, gave_up);
    step_residual(pf, nvp, LB + pc.n_sub, O_OFF, QDIM, VPLS_Q, S_WO, pc.dwo);
    arrive(bar_k);
    prefetch_gate(pf, 0u, WO_SLOTS);
    prefetch_norm(nvp, LB + pc.n_ffn, DIM);
    wait_all(bar_base, bar_k, gave_up);
    step_gate(pf, nvp);
    arrive(bar_k);
    prefetch_residual(pf, LB + pc.wdown, FFN, VPLS_F);
    if (SUB_NORMS) prefetch_norm(nvp, LB + pc.n_fsub, FFN);
    else unit_norm(nvp);
    wait_all(bar_base, bar_k, gave_up);
    step_residual(pf, nvp, LB + pc.n_fsub, A_OFF, FFN, VPLS_F, S_DOWN, pc.ddown);
    if (++layer == pc.n_layers) break;
    // The next layer's norm weights and QKV rows load while the other workgroups finish the down step.
    arrive(bar_k);
    set_layer(layer);
    if (gl_WorkGroupID.x < QKV_CHUNKS) prefetch_norm(nvp, LB + pc.n_attn, DIM);
    prefetch_qkv(pf);
    wait_all(bar_base, bar_k, gave_up);
  }
}
