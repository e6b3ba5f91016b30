#pragma once
// Synthetic models whose first layer's attention scores or norms are scaled, for the tests of the
// attention's unshifted softmax (redone with the running maximum where its sums leave their range) and
// of the quantization's floor.
#include <filesystem>
#include <string>

namespace trit::test {

// A model of `shape` (DIM,HEADS,KV_HEADS,FFN,LAYERS, vocabulary "bytes:300", context 256, seed 5) written
// to `path`, with its first layer's q and k scales times qk_scale and its first layer's four norms'
// weights times norm_scale (and then its seven matrix scales divided by it, so that the layer's
// outputs keep their size). Throws std::runtime_error where the file is not as the generator writes it.
void write_scaled_model(const std::filesystem::path& path, const std::string& shape, float qk_scale,
                        float norm_scale = 1.f);

}  // namespace trit::test
