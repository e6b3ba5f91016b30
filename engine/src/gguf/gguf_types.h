#pragma once
// Data sizes of the GGML tensor types this reader supports (private to the reader and loader).
#include <cstdint>
#include <optional>

#include "trit/gguf.h"

namespace trit::gguf_detail {

// ggml's block types: `elements` values in `bytes` bytes; a row (ne0) is a whole number of blocks.
struct BlockLayout {
  uint64_t elements = 0, bytes = 0;
};
std::optional<BlockLayout> block_layout(GgmlType t);

// Bytes of data for a tensor of `n_elements` elements, or std::nullopt when the type is unsupported.
// I2_S: n/4 bytes of 2-bit codes followed by a 32-byte tail holding the float32 scale; n must be a
// multiple of 4 (the caller checks). Block types: n / elements blocks (the caller checks that ne0 is a
// multiple of the block). Overflow is impossible: n_elements < 2^63 and sizes are <= 8n.
std::optional<uint64_t> tensor_data_size(GgmlType t, uint64_t n_elements);

// Size in bytes of one element of a fixed-size metadata value type; 0 for STRING and ARRAY.
uint64_t gguf_scalar_size(GgufValueType t);
// Smallest number of bytes one element of this type can take in the file (strings: the 8-byte length,
// arrays: type + count). Used to reject counts larger than the bytes that remain, before allocating.
uint64_t gguf_min_encoded_size(GgufValueType t);
bool gguf_value_type_known(uint32_t t);

}  // namespace trit::gguf_detail
