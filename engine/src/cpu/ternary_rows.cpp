// See ternary_rows.h. Each row is decoded once and applied to every token of the block, so a prefill
// pays the 2-bit decode once per weight rather than once per weight and token.
#include "cpu/ternary_rows.h"

#include <vector>

namespace trit::cpu {

void ternary_rows(const TernaryMatrix& m, const int8_t* xq, const float* s, std::size_t n, float* y, uint32_t r0,
                  uint32_t r1) {
  const std::size_t cols = m.cols;
  std::vector<int8_t> w(cols);
  for (uint32_t r = r0; r < r1; ++r) {
    decode_row(m, r, w.data());
    for (std::size_t t = 0; t < n; ++t) {
      const int8_t* x = xq + t * cols;
      int32_t sum = 0;
      for (std::size_t k = 0; k < cols; ++k) sum += int32_t{w[k]} * int32_t{x[k]};
      y[t * m.rows + r] = static_cast<float>(sum) / s[t] * m.scale;
    }
  }
}

}  // namespace trit::cpu
