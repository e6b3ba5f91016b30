#pragma once
// Fast deterministic random numbers for synthetic models: splitmix64 to derive seeds, xoshiro256** to
// generate 64 bits per call. Every stream is keyed by (seed, tensor name, chunk index), so any chunk of any
// tensor can be regenerated on its own (tests, parallel generation) and the output never depends on the
// order tensors are written in.
#include <cstdint>
#include <string_view>

namespace trit::modelgen {

inline uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

inline uint64_t fnv1a64(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ull;
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 0x100000001B3ull;
  }
  return h;
}

class Xoshiro256 {
 public:
  // The stream for chunk `chunk` of the tensor called `name` in a model generated with `seed`.
  Xoshiro256(uint64_t seed, std::string_view name, uint64_t chunk) {
    uint64_t st = seed;
    uint64_t k = splitmix64(st) ^ fnv1a64(name);
    k = splitmix64(k) ^ chunk;
    splitmix64(k);
    for (auto& w : s_) w = splitmix64(k);  // splitmix never yields four zeros from one state
  }

  uint64_t next() {
    const uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

 private:
  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

}  // namespace trit::modelgen
