#pragma once
// A random TQ1_0 / TQ2_0 matrix for the kernel tests: the file's blocks (random codes, block scales of
// 0.01 to 0.11 as f16) and, as the Vulkan upload makes them (gguf/ternary_blocks.h), its I2_S codes and
// a float scale per 256-element block for the device.
#include <cstdint>
#include <random>
#include <vector>

#include "gguf/ternary_blocks.h"
#include "trit/model.h"
#include "trit/reference_ops.h"

namespace trit::test {

struct TqTestMatrix {
  std::vector<uint8_t> data;   // the file's blocks; `m` views them
  std::vector<uint8_t> codes;  // the device layout
  std::vector<float> scales;   // a float per block, row-major
  TernaryMatrix m;

  TqTestMatrix(WeightFormat f, uint32_t rows, uint32_t cols, uint32_t seed) {
    const uint32_t blocks = cols / ternary::kTqBlock;
    const uint64_t bb = ternary::row_bytes(f, ternary::kTqBlock);
    std::mt19937 rng(seed);
    data.resize(uint64_t{rows} * blocks * bb);
    uint8_t block[ternary::kTqBlock];
    for (uint64_t b = 0; b < uint64_t{rows} * blocks; ++b) {
      for (auto& code : block) code = static_cast<uint8_t>(rng() % 3);
      const uint16_t d = ref::f32_to_f16(0.01f + 0.0001f * static_cast<float>(rng() % 1000));
      if (f == WeightFormat::TQ2_0)
        ternary::encode_tq2_block(block, d, data.data() + b * bb);
      else
        ternary::encode_tq1_block(block, d, data.data() + b * bb);
    }
    m = TernaryMatrix{data.data(), 1.f, rows, cols, f};
    codes.resize(uint64_t{rows} * cols / 4);
    scales.resize(uint64_t{rows} * blocks);
    for (uint32_t r = 0; r < rows; ++r)
      ternary::transcode_row_i2s(m, r, codes.data() + uint64_t{r} * cols / 4, scales.data() + uint64_t{r} * blocks);
  }
  TqTestMatrix(const TqTestMatrix&) = delete;  // `m` points into `data`
  TqTestMatrix& operator=(const TqTestMatrix&) = delete;
};

}  // namespace trit::test
