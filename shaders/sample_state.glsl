// The GPU sampler's state (GpuSamplerState in engine/src/vulkan/gpu_sampler.h, std430) and what its
// parameters decide, for the sampler (sample_common.glsl) and for the LM head of a sampled step
// (lm_head.glsl TOPK), which must agree with the sampler on which rows can be chosen. The includer
// defines SAMPLE_STATE_BINDING and P_MAX (the most penalised tokens: GpuSamplerState::kMaxPenalised).
//
// The parameters and the penalty window are written by the host when a chain of steps starts; the
// sampler then keeps the window (one slot per position) and writes the outputs of each draw. Doubles
// are stored as their bits so the fp32 variants need no Float64 capability.
// The flag of a penalised row's entry in a candidate list (the head's TOPK rows pass writes the list,
// the sampler's LIST variant reads it).
const uint PENALISED = 0x80000000u;

layout(std430, binding = SAMPLE_STATE_BINDING) buffer State {
  float temperature;        // <= 0: greedy
  int top_k;
  float top_p;
  float min_p;
  float repeat_penalty;
  uint penalty_count;       // slots of penalty_ids: repeat_last_n with the penalty on, else 0
  float min_p_offset;       // temperature * logf(min_p): the CPU sampler's min-p prefilter offset
  float inv_temperature_f;  // 1 / temperature in float (fp32 variant)
  uvec2 inv_temperature_bits;  // 1.0 / temperature as double bits (lo, hi)
  int token;                // out: the last chosen token, -1 on an error (status)
  uint status;              // out: 0 ok, 1 parameters the GPU sampler does not support, 2 internal
  uint kept;                // out: candidates left for the draw after every cutoff
  int penalty_ids[];        // token at position p in slot p % penalty_count, -1 for none
} st;

// How many candidates the sampler keeps: 1 for greedy, top_k when it cuts, else the whole vocabulary
// (the CPU sampler's branch without top-k). 0 when that exceeds `k_max` (unsupported; status 1).
uint select_count(uint vocab, uint k_max) {
  if (st.temperature <= 0.0) return 1u;
  const uint k = (st.top_k > 0 && uint(st.top_k) < vocab) ? uint(st.top_k) : vocab;
  return k <= k_max ? k : 0u;
}

// The slots of penalty_ids whose tokens are penalised (0 with the penalty off).
uint penalised_count() {
  return (st.repeat_penalty != 1.0 && st.penalty_count <= P_MAX) ? st.penalty_count : 0u;
}
