// The rules of the LM head's int8 bounds (lm_head.glsl BOUNDED and TOPK, lm_head_batch.glsl), in one
// place: how h is cut into two int8 planes, the packed dot product of int8 rows with a plane, and the
// approximate logit a_i with its proven bound B_i (lm_head.glsl's file comment has the proof). Also the
// block head's exact F16 sum (lm_head.glsl's block variant and lm_head_batch.glsl's candidates: one
// expression, so a candidate's logit is the block head's to the bit).

// h ~ sh (q1 + q2 / 256) with t = v / sh in [-127, 127], q1 = round(t), q2 = round(256 (t - q1)); the
// codes as bytes into b1 and b2 (bits 8 * b of each), and the residue v - sh (q1 + q2 / 256) returned, for
// the bound's |e_h| (summed exactly as the bound needs it, whatever the rounding chose).
real plane_pair(real v, real sh, real rsh, uint b, inout uint b1, inout uint b2) {
  const real t = v * rsh;
  const real q1 = clamp(roundEven(t), real(-127), real(127));
  const real q2 = clamp(roundEven((t - q1) * real(256)), real(-127), real(127));
  b1 |= (uint(int(q1)) & 0xffu) << (8u * b);
  b2 |= (uint(int(q2)) & 0xffu) << (8u * b);
  return v - sh * (q1 + q2 * real(1.0 / 256.0));
}

// The sum of the products of sixteen int8 pairs.
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

// (a_i, B_i) of a row from its int8 sums against the two planes (t), its constants c = (s_i, c1_i, c2_i,
// 0) (lm_head_q8.comp), h's plane scale fsh, |h| (nh) and |e_h| (ne), all times fin (1 / rms where h is
// not normalized yet, else 1). B_i is widened by 1e-3 against the float arithmetic of a_i and B_i (c1_i
// already holds the slack for the two heads' sums).
vec2 row_bound(vec4 c, float fin, float fsh, ivec2 t, float nh, float ne) {
  const float a = fin * c.x * fsh * (float(t.x) + float(t.y) * (1.0 / 256.0));
  const float bnd = fin * (c.y * nh + c.z * ne) * 1.001;
  return vec2(a, bnd);
}

// The block head's sum: eight F16 values of a row (w) against x's elements 8j .. 8j + 7 (x0, x1), added
// to acc one product at a time, each rounded once, so every kernel that calls it gets the same bits.
void head_accumulate(inout real acc, uvec4 w, real4 x0, real4 x1) {
  const real4 lo = real4(vec4(unpackHalf2x16(w.x), unpackHalf2x16(w.y)));
  const real4 hi = real4(vec4(unpackHalf2x16(w.z), unpackHalf2x16(w.w)));
  precise real a = acc;
  for (uint i = 0; i < 4; ++i) a = fma(lo[i], x0[i], a);
  for (uint i = 0; i < 4; ++i) a = fma(hi[i], x1[i], a);
  acc = a;
}
