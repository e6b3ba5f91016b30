#pragma once
// The inner loops of the reference ternary product, shared by reference_ops.cpp and the CPU forward
// pass (which splits the rows of one matrix over threads). No checks here: callers validate sizes.
#include <cstddef>
#include <cstdint>

#include "trit/model.h"

namespace trit::cpu {

// Rows [r0, r1) of y = W xq for n tokens: xq is [n x cols], s[t] the token's quantization scale,
// y is [n x rows] and y[t][r] = R(exact int32 sum) / s[t] * R(scale) for I2_S (one scale per tensor),
// (sum over blocks b of R(d_b) * R(exact int32 sum over b)) / s[t] for the TQ formats. R is float or double.
template <typename R>
void ternary_rows(const TernaryMatrix& m, const int8_t* xq, const R* s, std::size_t n, R* y, uint32_t r0, uint32_t r1);

}  // namespace trit::cpu
