// Shared by the two phases of the GPU sampler (sample_token.glsl; engine/src/vulkan/gpu_sampler.h).
// The including shader defines `real` (float, or double with TRIT_F64) and WG, its workgroup size (>= 256).
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

layout(constant_id = 1) const uint SLICE = 2048;  // logits (or candidates, LIST) per workgroup of phase 1
layout(constant_id = 2) const uint K_MAX = 1024;  // largest top_k
layout(constant_id = 3) const uint P_MAX = 256;   // most penalised tokens
// LIST: the logits of only some rows are written; the sampler reads the rows listed in `List` (binding 7),
// which the bounded head of a sampled step fills (lm_head.glsl TOPK): every row that can be among the
// top k after the penalty, each once, in no particular order, the penalised ones flagged by bit 31.
layout(constant_id = 4) const bool LIST = false;

#define SAMPLE_STATE_BINDING 0
#include "sample_state.glsl"

// The chain the sampler ends a decode step of (as greedy_step.comp): the step's position, advanced by
// phase 2; per ring slot the draw of the step at that position (the uniform in [0, 1) as double bits
// in .xy and as float bits in .z) and the token chosen there; the next step's input token.
layout(std430, binding = 3) readonly buffer Draws { uvec4 draws[]; };
layout(std430, binding = 4) buffer Step { uint pos0; uint n_tokens; } step;
layout(std430, binding = 5) writeonly buffer Next { uint next_token[]; };
layout(std430, binding = 6) writeonly buffer Ring { uint ring[]; };

layout(std430, binding = 7) buffer List { uint count; uint ids[]; } list;  // LIST (PENALISED: sample_state.glsl)

// Whether the CPU sampler's min-p prefilter applies (no top-k cut and min_p > 0).
bool prefilter(uint vocab) { return !(st.top_k > 0 && uint(st.top_k) < vocab) && st.min_p > 0.0; }

// Float to a key whose unsigned order is the float order; -0 and +0 share one key since they compare
// equal (ties then fall to the lower id, as on the CPU). NaN is not expected in logits.
uint order_key(float f) {
  const uint u = floatBitsToUint(f == 0.0 ? 0.0 : f);
  return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}
float key_value(uint k) { return uintBitsToFloat((k & 0x80000000u) != 0u ? (k & 0x7fffffffu) : ~k); }

// The repetition penalty exactly as the CPU computes it in float: l / p for positive logits (rounded
// to nearest: the quotient from double division is checked against its neighbours with exact double
// residuals, since Vulkan allows 2.5 ulp for a float division), l * p otherwise.
float penalise(float l, float p) {
  if (!(l > 0.0)) {
    precise float m = l * p;
    return m;
  }
#ifdef TRIT_F64
  const double dl = double(l), dp = double(p);
  float q = float(dl / dp);
  const uint b = floatBitsToUint(q);
  precise double e = abs(dl - double(q) * dp);  // products of two floats are exact in double
  const float lo = uintBitsToFloat(b - 1u), hi = uintBitsToFloat(b + 1u);
  precise double elo = abs(dl - double(lo) * dp), ehi = abs(dl - double(hi) * dp);
  if (elo < e) { q = lo; e = elo; }
  if (ehi < e) q = hi;
  return q;
#else
  precise float q = l / p;
  return q;
#endif
}

// ---- Top-k selection by radix select ----------------------------------------------------------------
// Candidates are ordered by the 64-bit composite (key, ~id): larger logit first, lower id first on
// ties, a total order since ids are distinct. Radix select finds, 8 bits per round from the top, the
// prefix of the k-th largest composite; every element whose composite is >= that prefix (under the mask
// of the bits fixed so far) is then selected, exactly k of them. Usually 2 to 4 rounds.
shared uint rs_hist[256];
shared uint rs_group[16];
shared uint rs_prefix_hi, rs_prefix_lo, rs_mask_hi, rs_mask_lo, rs_need, rs_done, rs_count;

void rs_begin(uint need) {
  if (gl_LocalInvocationID.x == 0) {
    rs_prefix_hi = 0u; rs_prefix_lo = 0u; rs_mask_hi = 0u; rs_mask_lo = 0u;
    rs_need = need; rs_done = 0u; rs_count = 0u;
  }
  barrier();
}

bool rs_matches(uvec2 c) { return (c.x & rs_mask_hi) == rs_prefix_hi && (c.y & rs_mask_lo) == rs_prefix_lo; }

uint rs_digit(uvec2 c, uint round) {
  return round < 4u ? (c.x >> (24u - 8u * round)) & 255u : (c.y >> (24u - 8u * (round - 4u))) & 255u;
}

void rs_clear() {
  for (uint i = gl_LocalInvocationID.x; i < 256u; i += WG) rs_hist[i] = 0u;
  barrier();
}

// Counts one element's digit (256 = no element in this lane). Lanes of a subgroup with the same digit,
// common in the first rounds where logits share sign and exponent, add once.
void rs_count_digit(uint d) {
  if (subgroupMin(d) == subgroupMax(d)) {
    const uint n = subgroupAdd(1u);
    if (d < 256u && subgroupElect()) atomicAdd(rs_hist[d], n);
  } else if (d < 256u) {
    atomicAdd(rs_hist[d], 1u);
  }
}

// After the histogram of this round: finds the digit holding the need-th largest remaining element,
// extends the prefix with it and decides whether the whole bucket is taken (done).
void rs_choose(uint round) {
  const uint t = gl_LocalInvocationID.x;
  barrier();  // the histogram is complete
  if (t < 16u) {
    uint s = 0u;
    for (uint j = 0u; j < 16u; ++j) s += rs_hist[t * 16u + j];
    rs_group[t] = s;
  }
  barrier();
  bool mine = false;
  uint left = 0u, h = 0u;
  if (t < 256u) {
    uint above = 0u;  // elements in digits above t
    for (uint g = t / 16u + 1u; g < 16u; ++g) above += rs_group[g];
    for (uint j = t + 1u; j < (t / 16u + 1u) * 16u; ++j) above += rs_hist[j];
    h = rs_hist[t];
    const uint need = rs_need;
    mine = h > 0u && above < need && need <= above + h;
    left = need - above;
  }
  barrier();  // everyone has read rs_need before the owner changes it
  if (mine) {
    if (round < 4u) {
      rs_prefix_hi |= t << (24u - 8u * round);
      rs_mask_hi |= 255u << (24u - 8u * round);
    } else {
      rs_prefix_lo |= t << (24u - 8u * (round - 4u));
      rs_mask_lo |= 255u << (24u - 8u * (round - 4u));
    }
    rs_need = left;
    rs_done = h == left ? 1u : 0u;
  }
  barrier();
}

// Whether an element is among the k selected (after the rounds, or when all are taken: empty mask).
bool rs_selected(uvec2 c) {
  const uint hi = c.x & rs_mask_hi, lo = c.y & rs_mask_lo;
  return hi > rs_prefix_hi || (hi == rs_prefix_hi && lo >= rs_prefix_lo);
}

// The best candidate of the workgroup (largest key, lowest id on ties) from each invocation's own best
// (key 0 for none): the greedy path, where radix select would be wasted. Up to 128 subgroups.
shared uint wb_key[128];
shared uint wb_id[128];
uvec2 wg_best(uint key, uint id) {
  const uint mk = subgroupMax(key);
  const uint mi = subgroupMin(key == mk ? id : 0xffffffffu);
  if (subgroupElect()) {
    wb_key[gl_SubgroupID] = mk;
    wb_id[gl_SubgroupID] = mi;
  }
  barrier();
  uint bk = wb_key[0], bi = wb_id[0];
  for (uint s = 1u; s < gl_NumSubgroups; ++s)
    if (wb_key[s] > bk || (wb_key[s] == bk && wb_id[s] < bi)) {
      bk = wb_key[s];
      bi = wb_id[s];
    }
  barrier();
  return uvec2(bk, bi);
}

// exp for real: GLSL has no double exp, so double uses range reduction x = k ln2 + r with ln2 split in
// two (Cody-Waite: k * LN2_HI is exact) and the degree-13 Taylor polynomial of e^r on |r| <= ln2/2
// (truncation below 5e-18 relative), evaluated by Horner with the coefficients 1/n!.
real exp_real(real x) {
#ifdef TRIT_F64
  if (x < -745.2LF) return 0.0LF;
  const double LN2_HI = 6.93147180369123816490e-01LF, LN2_LO = 1.90821492927058770002e-10LF;
  const double k = floor(x * 1.44269504088896338700LF + 0.5LF);
  const double r = (x - k * LN2_HI) - k * LN2_LO;
  const double c[14] = double[14](1.0LF, 1.0LF, 1.0LF / 2.0LF, 1.0LF / 6.0LF, 1.0LF / 24.0LF, 1.0LF / 120.0LF,
                                  1.0LF / 720.0LF, 1.0LF / 5040.0LF, 1.0LF / 40320.0LF, 1.0LF / 362880.0LF,
                                  1.0LF / 3628800.0LF, 1.0LF / 39916800.0LF, 1.0LF / 479001600.0LF,
                                  1.0LF / 6227020800.0LF);
  double p = c[13];
  for (int i = 12; i >= 0; --i) p = p * r + c[i];
  return ldexp(p, int(k));
#else
  return exp(x);
#endif
}
