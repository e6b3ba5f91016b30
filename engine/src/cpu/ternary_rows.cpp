// See ternary_rows.h. Each row is decoded once (gguf/ternary_blocks.h, any format) and applied to every token of the
// block, so a prefill pays the 2-bit decode once per weight rather than once per weight and token.
#include "cpu/ternary_rows.h"

#include <vector>

#include "gguf/ternary_blocks.h"

// The int8 dot product is nearly all of the CPU reference's time, and the test build is -O1, which does
// not vectorise: build this one loop at -O3 (GCC). It is integer arithmetic, so the result is the same
// bit for bit at any optimisation level.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("O3")
#endif

namespace trit::cpu {
namespace {

int32_t dot_i8(const int8_t* w, const int8_t* x, std::size_t n) {
  int32_t sum = 0;
  for (std::size_t k = 0; k < n; ++k) sum += int32_t{w[k]} * int32_t{x[k]};
  return sum;
}

}  // namespace

template <typename R>
void ternary_rows(const TernaryMatrix& m, const int8_t* xq, const R* s, std::size_t n, R* y, uint32_t r0, uint32_t r1) {
  const std::size_t cols = m.cols;
  const auto scale = static_cast<R>(m.scale);
  const uint32_t block = ternary::scale_block(m.format);
  std::vector<int8_t> w(cols);
  std::vector<float> d(block ? cols / block : 0);
  for (uint32_t r = r0; r < r1; ++r) {
    ternary::decode_row(m, r, w.data(), d.data());
    for (std::size_t t = 0; t < n; ++t) {
      const int8_t* x = xq + t * cols;
      if (!block) {
        y[t * m.rows + r] = static_cast<R>(dot_i8(w.data(), x, cols)) / s[t] * scale;
        continue;
      }
      R acc = 0;
      for (std::size_t b = 0; b < d.size(); ++b)
        acc += static_cast<R>(d[b]) * static_cast<R>(dot_i8(w.data() + b * block, x + b * block, block));
      y[t * m.rows + r] = acc / s[t];
    }
  }
}

template void ternary_rows<float>(const TernaryMatrix&, const int8_t*, const float*, std::size_t, float*, uint32_t,
                                  uint32_t);
template void ternary_rows<double>(const TernaryMatrix&, const int8_t*, const double*, std::size_t, double*, uint32_t,
                                   uint32_t);

}  // namespace trit::cpu
