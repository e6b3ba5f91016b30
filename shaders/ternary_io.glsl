// The bindings and push constants of the ternary products that Kernels::ternary records
// (ternary_matmul.glsl; for blocks of tokens ternary_gemm.glsl or ternary_gemm_coop.glsl, through
// TernaryGemm): one layout, so one call binds any of them. The I2_S codes of the matrix (and of the
// gate's second one), the tokens' int8 rows with their scales, the output, and the block scales of TQ
// files (BLOCK_SCALES).
layout(std430, binding = 1) readonly buffer W { uvec4 wq[]; };
layout(std430, binding = 2) readonly buffer W2 { uvec4 wq2[]; };
layout(std430, binding = 3) readonly buffer XQ { uvec4 xq[]; };
layout(std430, binding = 4) readonly buffer S { real s[]; };
layout(std430, binding = 5) buffer Y { real y[]; };
layout(std430, binding = 6) readonly buffer D { float d[]; };
layout(std430, binding = 7) readonly buffer D2 { float d2[]; };
layout(push_constant) uniform Push { uint rows; uint k; float scale; float scale2; } pc;
