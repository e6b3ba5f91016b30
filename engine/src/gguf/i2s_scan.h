#pragma once
// Validation of I2_S code bytes: codes 0, 1, 2 mean -1, 0, +1; code 3 never occurs in a valid file.
#include <cstdint>
#include <optional>
#include <span>

namespace trit::gguf_detail {

// The flat element index (spec order: block = i/128, group = pos/32, byte = block*32 + pos%32) of the
// first element whose 2-bit code is 3, or std::nullopt if there is none. `codes` is n/4 bytes, n a
// multiple of 128 (a partial trailing block is scanned byte by byte). Runs at memory bandwidth: the
// common all-valid case is an OR-reduction over 64-bit words; the exact element is located only on a hit.
std::optional<uint64_t> find_i2s_code3(std::span<const uint8_t> codes);

// Whether any 2-bit field of any byte is 3, whatever the layout (TQ2_0's codes too): the same scan,
// without locating the element.
bool any_code3(std::span<const uint8_t> bytes);

}  // namespace trit::gguf_detail
