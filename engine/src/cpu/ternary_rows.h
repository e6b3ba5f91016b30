#pragma once
// The inner loops of the reference ternary product, shared by reference_ops.cpp and the CPU forward
// pass (which splits the rows of one matrix over threads). No checks here: callers validate sizes.
#include <cstddef>
#include <cstdint>

#include "trit/model.h"

namespace trit::cpu {

// Decodes row `row` of m into out[0..m.cols) as code - 1 (-1, 0, +1). m.cols is a multiple of 128, so
// the row starts on a block: its 128-element blocks are 32 bytes each, and byte gp of a block holds
// elements gp, gp+32, gp+64, gp+96 in bits 7-6, 5-4, 3-2, 1-0.
inline void decode_row(const TernaryMatrix& m, uint32_t row, int8_t* out) {
  const std::size_t blocks = m.cols / 128;
  const uint8_t* bytes = m.codes + static_cast<std::size_t>(row) * blocks * 32;
  for (std::size_t b = 0; b < blocks; ++b, bytes += 32, out += 128) {
    for (int gp = 0; gp < 32; ++gp) {
      const uint8_t byte = bytes[gp];
      for (int group = 0; group < 4; ++group)
        out[group * 32 + gp] = static_cast<int8_t>(((byte >> (6 - 2 * group)) & 3) - 1);
    }
  }
}

// Rows [r0, r1) of y = W xq for n tokens: xq is [n x cols], s[t] the token's quantization scale,
// y is [n x rows] and y[t][r] = R(exact int32 sum) / s[t] * R(scale). R is float or double.
template <typename R>
void ternary_rows(const TernaryMatrix& m, const int8_t* xq, const R* s, std::size_t n, R* y, uint32_t r0,
                  uint32_t r1);

}  // namespace trit::cpu
