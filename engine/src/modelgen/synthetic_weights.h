#pragma once
// The random tensors of a synthetic model, deterministic in (seed, tensor name, element index):
// ternary weights and their I2_S packing, normally distributed F16/F32 values. Generated in chunks of
// kChunkElements, each from its own stream (rng.h), so tests can regenerate exactly what was written.
#include <array>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace trit::modelgen {

// Elements per independently seeded chunk. A multiple of 128 so I2_S blocks never straddle chunks.
constexpr uint64_t kChunkElements = uint64_t{1} << 20;
static_assert(kChunkElements % 128 == 0, "an I2_S block must not straddle two chunks");

// Ternary weights {-1, 0, +1} for elements [chunk * kChunkElements, + out.size()) of tensor `name`;
// out.size() <= kChunkElements. One random byte per weight: P(-1) = 86/256, P(0) = P(+1) = 85/256.
void ternary_chunk(uint64_t seed, std::string_view name, uint64_t chunk, std::span<int8_t> out);
// All n weights of a tensor, flat index order (row by row, ne0 contiguous).
std::vector<int8_t> ternary_weights(uint64_t seed, std::string_view name, uint64_t n);

// Packs ternary weights into I2_S codes exactly per shared/docs/bitnet-b158.md: for flat index i,
// block = i/128, pos = i%128, byte = out[block*32 + pos%32] holds code (w + 1) at bits (6 - 2*(pos/32)).
// w.size() must be a multiple of 128 and out.size() == w.size()/4. Throws std::invalid_argument for a
// weight outside {-1, 0, +1} (which would otherwise produce the forbidden code 3).
void pack_i2s(std::span<const int8_t> w, std::span<uint8_t> out);

// IEEE binary16 conversions (round to nearest even; subnormals, infinities and NaN handled).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);

// Inverse normal CDF (Acklam's rational approximation, relative error < 1.2e-9), p in (0, 1).
double normal_quantile(double p);

// Normal(mean, sd) sampled by table: 16 random bits pick one of 65536 equiprobable quantiles, so drawing
// costs a table lookup (the 2B4T embedding has 328M values). Tails are cut at about 4.3 sd.
class NormalTable {
 public:
  NormalTable(double mean, double sd);
  float f32(uint16_t i) const { return f32_[i]; }
  uint16_t f16(uint16_t i) const { return f16_[i]; }

 private:
  std::vector<float> f32_;
  std::vector<uint16_t> f16_;
};

// Normal values as F16 bit patterns / F32 for elements [chunk * kChunkElements, + out.size()) of `name`.
void normal_f16_chunk(uint64_t seed, std::string_view name, uint64_t chunk, const NormalTable& table,
                      std::span<uint16_t> out);
void normal_f32_chunk(uint64_t seed, std::string_view name, uint64_t chunk, const NormalTable& table,
                      std::span<float> out);

}  // namespace trit::modelgen
