#pragma once
// Distribution parameters of synthetic models, shared by the generator and the tests that regenerate
// its tensors.
namespace trit::modelgen {

// Embedding values are N(0, (kEmbedSpread / sqrt(dim))^2): with unit-RMS normed hidden states the tied
// LM head then gives logits with a spread of about kEmbedSpread, peaked enough for clear greedy winners.
constexpr double kEmbedSpread = 3.0;
// Norm weights are N(1, kNormSd^2).
constexpr double kNormSd = 0.1;

}  // namespace trit::modelgen
