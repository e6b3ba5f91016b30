#pragma once
// IEEE half (F16) to float, exact for every input (subnormals, infinities, NaN).
#include <cstdint>
#include <cstring>

namespace trit::gguf_detail {

inline float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);  // inf / NaN
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);  // normal: rebias 15 -> 127
  } else if (mant == 0) {
    bits = sign;  // +-0
  } else {
    // Subnormal: normalise the mantissa.
    int e = -1;
    do {
      ++e;
      mant <<= 1;
    } while ((mant & 0x400u) == 0);
    bits = sign | static_cast<uint32_t>(112 - e) << 23 | ((mant & 0x3ffu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

}  // namespace trit::gguf_detail
