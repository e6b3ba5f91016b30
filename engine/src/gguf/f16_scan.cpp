// Fast scan for non-finite F16 values (NaN or infinity: the five exponent bits all set).
#include "gguf/f16_scan.h"

#include <algorithm>
#include <cstring>

namespace trit::gguf_detail {
namespace {

constexpr uint64_t kExponent = 0x7C007C007C007C00ull;  // the exponent bits of four halves
constexpr uint64_t kExponentLsb = 0x0400040004000400ull;
constexpr uint64_t kLaneTop = 0x8000800080008000ull;

// Nonzero iff some half in the word has all exponent bits set: adding the exponent's lowest bit to
// 0x7C00 carries into the lane's top bit (0x8000), any other exponent does not, and no sum leaves its
// 16-bit lane.
uint64_t nonfinite_lanes(uint64_t w) {
  return ((w & kExponent) + kExponentLsb) & kLaneTop;
}

// Whether [p, p + n) holds a non-finite half; n is a multiple of 32. Four independent accumulators,
// as in i2s_scan.cpp, so the loop stays in vector registers and branches once per chunk.
bool chunk_has_nonfinite(const uint8_t* p, size_t n) {
  uint64_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
  for (size_t i = 0; i < n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    acc0 |= nonfinite_lanes(w[0]);
    acc1 |= nonfinite_lanes(w[1]);
    acc2 |= nonfinite_lanes(w[2]);
    acc3 |= nonfinite_lanes(w[3]);
  }
  return (acc0 | acc1 | acc2 | acc3) != 0;
}

bool nonfinite(const uint8_t* p) {
  uint16_t h;
  std::memcpy(&h, p, 2);
  return (h & 0x7C00u) == 0x7C00u;
}

}  // namespace

std::optional<uint64_t> find_nonfinite_f16(std::span<const uint8_t> bytes) {
  constexpr size_t kChunk = 4096;
  const uint8_t* p = bytes.data();
  const size_t n = bytes.size() / 2 * 2;
  for (size_t off = 0; off < n; off += kChunk) {
    const size_t len = std::min(kChunk, n - off);
    if (len % 32 == 0 && !chunk_has_nonfinite(p + off, len)) continue;
    for (size_t i = off; i < off + len; i += 2)
      if (nonfinite(p + i)) return i / 2;
  }
  return std::nullopt;
}

}  // namespace trit::gguf_detail
