#pragma once
// Random inputs for the kernel tests, the same for a seed on every machine (std::mt19937's sequence is
// fixed by the standard; the float distribution's mapping is libstdc++'s).
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace trit::test {

// I2_S codes of a random ternary matrix (codes 0, 1, 2 only).
inline std::vector<uint8_t> random_codes(uint32_t rows, uint32_t cols, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> codes(size_t{rows} * cols / 4);
  for (auto& b : codes) {
    uint8_t v = 0;
    for (int g = 0; g < 4; ++g) v = static_cast<uint8_t>(v | ((rng() % 3) << (2 * g)));
    b = v;
  }
  return codes;
}

// n int8 values over the whole range.
inline std::vector<int8_t> random_int8(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
  return v;
}

// n floats uniform in [lo, hi).
inline std::vector<float> random_floats(size_t n, uint32_t seed, float lo = -1.f, float hi = 1.f) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(lo, hi);
  std::vector<float> v(n);
  for (auto& x : v) x = d(rng);
  return v;
}

}  // namespace trit::test
