// A BitLinear step's matrices as the fused one-token kernel (bitlinear_decode.glsl) and the batched
// step's kernels (bitlinear_batch_io.glsl) bind them: up to three matrices' I2_S codes at bindings 1-3
// and, for files with block scales, their scales at 10-12 (FusedDecode and BatchedBitLinear pass them
// there); and the accessors by matrix index. The includer declares its push constants `pc` with the
// three per-matrix scales scale0, scale1 and scale2 first.
layout(std430, binding = 1) readonly buffer W0 { uvec4 w0[]; };
layout(std430, binding = 2) readonly buffer W1 { uvec4 w1[]; };
layout(std430, binding = 3) readonly buffer W2 { uvec4 w2[]; };
layout(std430, binding = 10) readonly buffer D0 { float d0[]; };
layout(std430, binding = 11) readonly buffer D1 { float d1[]; };
layout(std430, binding = 12) readonly buffer D2 { float d2[]; };

// Matrix mat's (binding 1 + mat) code uvec4 at `at`, its block scale at `at`, and its per-matrix scale.
uvec4 codes(uint mat, uint at) { return mat == 0 ? w0[at] : mat == 1 ? w1[at] : w2[at]; }
real block_scale(uint mat, uint at) { return real(mat == 0 ? d0[at] : mat == 1 ? d1[at] : d2[at]); }
real tensor_scale(uint mat) { return real(mat == 0 ? pc.scale0 : mat == 1 ? pc.scale1 : pc.scale2); }
