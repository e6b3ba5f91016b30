// See ternary_blocks.h. The layouts follow ggml's own quantizers and dequantizers for TQ1_0 and TQ2_0
// and Microsoft's for I2_S, as ../shared/docs/ternary-family.md describes them.
#include "gguf/ternary_blocks.h"

#include <cstring>

#include "gguf/half.h"

namespace trit {

const char* weight_format_name(WeightFormat f) {
  switch (f) {
    case WeightFormat::I2_S:
      return "I2_S";
    case WeightFormat::TQ2_0:
      return "TQ2_0";
    case WeightFormat::TQ1_0:
      return "TQ1_0";
  }
  return "?";
}

}  // namespace trit

namespace trit::ternary {
namespace {

using gguf_detail::half_to_float;

constexpr uint8_t kPow3[5] = {1, 3, 9, 27, 81};

// Trit n (0 = most significant) of a TQ1_0 byte: the byte is ceil(v * 256 / 243), so multiplying by
// 3^n (mod 256) brings trit n to the top and * 3 >> 8 reads it.
inline uint8_t tq1_trit(uint8_t b, int n) {
  const auto shifted = static_cast<uint8_t>(b * kPow3[n]);
  return static_cast<uint8_t>((uint16_t{shifted} * 3) >> 8);
}

// The 256 codes of one TQ block in element order.
void block_codes(WeightFormat f, const uint8_t* blk, uint8_t* codes) {
  if (f == WeightFormat::TQ2_0) {
    for (int j = 0; j < 2; ++j)
      for (int m = 0; m < 32; ++m) {
        const uint8_t b = blk[32 * j + m];
        for (int n = 0; n < 4; ++n) codes[128 * j + m + 32 * n] = (b >> (2 * n)) & 3;
      }
    return;
  }
  for (int m = 0; m < 32; ++m)
    for (int n = 0; n < 5; ++n) codes[m + 32 * n] = tq1_trit(blk[m], n);
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 5; ++n) codes[160 + m + 16 * n] = tq1_trit(blk[32 + m], n);
  for (int j = 0; j < 4; ++j)
    for (int n = 0; n < 4; ++n) codes[240 + j + 4 * n] = tq1_trit(blk[48 + j], n);
}

uint32_t block_bytes(WeightFormat f) {
  return f == WeightFormat::TQ2_0 ? kTq2Bytes : kTq1Bytes;
}

// The 128 codes of an I2_S block in element order into its 32 bytes.
void pack_i2s_block(const uint8_t* codes, uint8_t* out) {
  for (int gp = 0; gp < 32; ++gp)
    out[gp] = static_cast<uint8_t>(codes[gp] << 6 | codes[gp + 32] << 4 | codes[gp + 64] << 2 | codes[gp + 96]);
}

uint8_t tq1_byte(const uint8_t* trits, int n, int stride) {
  uint32_t v = 0;
  for (int i = 0; i < n; ++i) v = v * 3 + trits[i * stride];
  for (int i = n; i < 5; ++i) v *= 3;  // qh bytes carry four trits: the fifth is 0
  return static_cast<uint8_t>((v * 256 + 242) / 243);
}

}  // namespace

uint64_t row_bytes(WeightFormat f, uint32_t cols) {
  if (f == WeightFormat::I2_S) return cols / 4;
  return uint64_t{cols} / kTqBlock * block_bytes(f);
}

uint32_t scale_block(WeightFormat f) {
  return f == WeightFormat::I2_S ? 0 : kTqBlock;
}

bool format_of(GgmlType t, WeightFormat& out) {
  switch (t) {
    case GgmlType::I2_S:
      out = WeightFormat::I2_S;
      return true;
    case GgmlType::TQ2_0:
      out = WeightFormat::TQ2_0;
      return true;
    case GgmlType::TQ1_0:
      out = WeightFormat::TQ1_0;
      return true;
    default:
      return false;
  }
}

uint16_t block_scale_bits(WeightFormat f, const uint8_t* row_data, uint32_t b) {
  uint16_t d;
  std::memcpy(&d, row_data + uint64_t{b} * block_bytes(f) + block_bytes(f) - 2, 2);
  return d;
}

void decode_row(const TernaryMatrix& m, uint32_t row, int8_t* weights, float* scales) {
  const uint8_t* data = m.codes + uint64_t{row} * row_bytes(m.format, m.cols);
  if (m.format == WeightFormat::I2_S) {
    for (uint32_t b = 0; b < m.cols / kI2sBlock; ++b, data += 32, weights += kI2sBlock)
      for (int gp = 0; gp < 32; ++gp)
        for (int group = 0; group < 4; ++group)
          weights[group * 32 + gp] = static_cast<int8_t>(((data[gp] >> (6 - 2 * group)) & 3) - 1);
    return;
  }
  uint8_t codes[kTqBlock];
  for (uint32_t b = 0; b < m.cols / kTqBlock; ++b) {
    block_codes(m.format, data + uint64_t{b} * block_bytes(m.format), codes);
    for (uint32_t i = 0; i < kTqBlock; ++i) weights[b * kTqBlock + i] = static_cast<int8_t>(codes[i] - 1);
    scales[b] = half_to_float(block_scale_bits(m.format, data, b));
  }
}

void transcode_row_i2s(const TernaryMatrix& m, uint32_t row, uint8_t* out, float* scales) {
  const uint8_t* data = m.codes + uint64_t{row} * row_bytes(m.format, m.cols);
  if (m.format == WeightFormat::I2_S) {
    std::memcpy(out, data, m.cols / 4);
    return;
  }
  uint8_t codes[kTqBlock];
  for (uint32_t b = 0; b < m.cols / kTqBlock; ++b) {
    block_codes(m.format, data + uint64_t{b} * block_bytes(m.format), codes);
    pack_i2s_block(codes, out + b * 64);
    pack_i2s_block(codes + 128, out + b * 64 + 32);
    scales[b] = half_to_float(block_scale_bits(m.format, data, b));
  }
}

void encode_tq2_block(const uint8_t* codes, uint16_t d, uint8_t* out) {
  for (int j = 0; j < 2; ++j)
    for (int m = 0; m < 32; ++m) {
      uint8_t b = 0;
      for (int n = 0; n < 4; ++n) b |= static_cast<uint8_t>(codes[128 * j + m + 32 * n] << (2 * n));
      out[32 * j + m] = b;
    }
  std::memcpy(out + 64, &d, 2);
}

void encode_tq1_block(const uint8_t* codes, uint16_t d, uint8_t* out) {
  for (int m = 0; m < 32; ++m) out[m] = tq1_byte(codes + m, 5, 32);
  for (int m = 0; m < 16; ++m) out[32 + m] = tq1_byte(codes + 160 + m, 5, 16);
  for (int j = 0; j < 4; ++j) out[48 + j] = tq1_byte(codes + 240 + j, 4, 4);
  std::memcpy(out + 52, &d, 2);
}

}  // namespace trit::ternary
