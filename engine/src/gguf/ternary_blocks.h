#pragma once
// The three ternary weight formats' block layouts, decoded and encoded in one place
// (../shared/docs/ternary-family.md). Used by the loader (validation), the CPU reference (decoding a
// row), the Vulkan upload (transcoding to the device layout) and the model generator (encoding).
// A code is 0, 1 or 2 and stands for the weight code - 1.
#include <cstddef>
#include <cstdint>
#include <span>

#include "trit/gguf.h"
#include "trit/model.h"

namespace trit::ternary {

// Elements per scale block: the whole row for I2_S (one scale per tensor), 256 for TQ1_0 / TQ2_0.
inline constexpr uint32_t kTqBlock = 256;
inline constexpr uint32_t kTq2Bytes = 66;   // qs[64], f16 d
inline constexpr uint32_t kTq1Bytes = 54;   // qs[48], qh[4], f16 d
inline constexpr uint32_t kI2sBlock = 128;  // 128 elements in 32 bytes

// Bytes of one row of `cols` elements (cols a multiple of the format's block).
uint64_t row_bytes(WeightFormat f, uint32_t cols);
// Elements sharing one scale: kTqBlock for the TQ formats, 0 for I2_S (one scale per tensor).
uint32_t scale_block(WeightFormat f);
// The format of a GGML tensor type, or false where the type is not ternary.
bool format_of(GgmlType t, WeightFormat& out);

// Decodes row `row` of m: codes[0..cols) as code - 1 (-1, 0, +1), and for the TQ formats the block
// scales d[0..cols/256) as floats (I2_S leaves `scales` untouched: its scale is m.scale).
void decode_row(const TernaryMatrix& m, uint32_t row, int8_t* weights, float* scales);

// The I2_S code layout (no tail) of row `row` of m into out[0..cols/4), and its block scales as
// decode_row gives them: the device layout every GPU kernel reads, whatever the file's format.
void transcode_row_i2s(const TernaryMatrix& m, uint32_t row, uint8_t* out, float* scales);

// One block of a TQ format from 256 codes (0..2) and a scale given as f16 bits.
void encode_tq2_block(const uint8_t* codes, uint16_t d, uint8_t* out);
void encode_tq1_block(const uint8_t* codes, uint16_t d, uint8_t* out);

// The f16 scale of block `b` of a TQ row starting at `row_data`.
uint16_t block_scale_bits(WeightFormat f, const uint8_t* row_data, uint32_t b);

}  // namespace trit::ternary
