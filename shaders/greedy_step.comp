#version 450
// The end of one device-side greedy decode step: the argmax of the logits (the first index on ties,
// as trit::argmax) becomes the next step's input token, is published to the host's ring at the slot
// of this step's position, and the position advances. Only this kernel writes the step parameters,
// and it runs last, after a barrier, so every kernel of the step read the old position.
layout(local_size_x_id = 0) in;
layout(std430, binding = 0) buffer Step { uint pos0; uint n_tokens; } step;
layout(std430, binding = 1) readonly buffer L { float logits[]; };
layout(std430, binding = 2) writeonly buffer T { uint next_token[]; };
layout(std430, binding = 3) writeonly buffer R { uint ring[]; };
layout(push_constant) uniform Push { uint vocab; uint ring_size; } pc;
shared float bv[gl_WorkGroupSize.x];
shared uint bi[gl_WorkGroupSize.x];
void main() {
  const uint tid = gl_LocalInvocationID.x;
  float v = -1.0 / 0.0;
  uint idx = 0xffffffffu;
  // Eight loads in flight per pass; within a thread indices ascend, so the first maximum is kept.
  uint i = tid;
  const uint stride = gl_WorkGroupSize.x;
  for (; i + 7 * stride < pc.vocab; i += 8 * stride) {
    float x[8];
    for (uint u = 0; u < 8; ++u) x[u] = logits[i + u * stride];
    for (uint u = 0; u < 8; ++u)
      if (idx == 0xffffffffu || x[u] > v) { v = x[u]; idx = i + u * stride; }
  }
  for (; i < pc.vocab; i += stride) {
    const float x = logits[i];
    if (idx == 0xffffffffu || x > v) { v = x; idx = i; }
  }
  bv[tid] = v;
  bi[tid] = idx;
  barrier();
  for (uint s = gl_WorkGroupSize.x / 2; s > 0; s /= 2) {
    if (tid < s) {
      const float ov = bv[tid + s];
      const uint oi = bi[tid + s];
      if (oi != 0xffffffffu && (bi[tid] == 0xffffffffu || ov > bv[tid] || (ov == bv[tid] && oi < bi[tid]))) {
        bv[tid] = ov;
        bi[tid] = oi;
      }
    }
    barrier();
  }
  if (tid == 0) {
    const uint pos = step.pos0;
    next_token[0] = bi[0];
    ring[pos % pc.ring_size] = bi[0];
    step.pos0 = pos + 1u;
  }
}
