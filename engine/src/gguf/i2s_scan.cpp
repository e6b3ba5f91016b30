// Fast scan for the invalid I2_S code 3 (both bits of some 2-bit field set).
#include "gguf/i2s_scan.h"

#include <cstring>

namespace trit::gguf_detail {
namespace {

constexpr uint64_t kLowBits = 0x5555555555555555ull;  // the low bit of every 2-bit field

// Nonzero iff some 2-bit field of some byte in [p, p + n) is 3. n is a multiple of 64.
// Four independent accumulators over 8-byte words: compilers keep this in vector registers even at -O1
// with the explicit unrolling, and the branch is taken once per 64 bytes only.
bool chunk_has_code3(const uint8_t* p, size_t n) {
  uint64_t acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
  for (size_t i = 0; i < n; i += 32) {
    uint64_t w[4];
    std::memcpy(w, p + i, 32);
    acc0 |= w[0] & (w[0] >> 1);
    acc1 |= w[1] & (w[1] >> 1);
    acc2 |= w[2] & (w[2] >> 1);
    acc3 |= w[3] & (w[3] >> 1);
  }
  return ((acc0 | acc1 | acc2 | acc3) & kLowBits) != 0;
}

// First element (in flat spec order) with code 3 within the block starting at byte `block_byte`,
// whose valid bytes are [0, n_bytes) relative to it.
std::optional<uint64_t> first_in_block(const uint8_t* block, size_t n_bytes, uint64_t block_index) {
  for (unsigned group = 0; group < 4; ++group)
    for (size_t gp = 0; gp < n_bytes; ++gp)
      if (((block[gp] >> (6 - 2 * group)) & 3) == 3) return block_index * 128 + group * 32 + gp;
  return std::nullopt;
}

}  // namespace

bool any_code3(std::span<const uint8_t> bytes) {
  const size_t whole = bytes.size() / 64 * 64;
  if (whole && chunk_has_code3(bytes.data(), whole)) return true;
  for (size_t i = whole; i < bytes.size(); ++i)
    if (bytes[i] & (bytes[i] >> 1) & 0x55) return true;
  return false;
}

std::optional<uint64_t> find_i2s_code3(std::span<const uint8_t> codes) {
  constexpr size_t kChunk = 4096;  // a multiple of the 32-byte block
  const uint8_t* p = codes.data();
  size_t n = codes.size();
  size_t full = n / kChunk * kChunk;
  for (size_t off = 0; off < n;) {
    size_t len = off < full ? kChunk : n - off;
    bool hit;
    if (len % 64 == 0) {
      hit = chunk_has_code3(p + off, len);
    } else {
      hit = false;
      for (size_t i = 0; i < len && !hit; ++i) hit = (p[off + i] & (p[off + i] >> 1) & 0x55) != 0;
    }
    if (hit) {
      // Blocks are 32 bytes and chunks start on block boundaries: find the first offending block.
      for (size_t b = off; b < off + len; b += 32) {
        size_t bytes = std::min<size_t>(32, n - b);
        if (auto e = first_in_block(p + b, bytes, b / 32)) return e;
      }
    }
    off += len;
  }
  return std::nullopt;
}

}  // namespace trit::gguf_detail
