#pragma once
// Validation of F16 weights: a NaN or infinity (exponent bits all ones) in the embedding, which is also
// the tied LM head, makes every logit it touches garbage.
#include <cstdint>
#include <optional>
#include <span>

namespace trit::gguf_detail {

// Index of the first half-precision value in `bytes` (little-endian, 2 bytes each) that is NaN or
// infinite, or std::nullopt. Like find_i2s_code3, it runs at memory bandwidth: the common all-finite case
// is a reduction over 64-bit words (four halves each); the exact element is located only on a hit.
std::optional<uint64_t> find_nonfinite_f16(std::span<const uint8_t> bytes);

}  // namespace trit::gguf_detail
