#pragma once
// Reading the golden files of shared/golden (README.md there) and comparing logits against them by the
// README's pass criteria. Shared by the golden forward-pass tests and the `trit-cli logits` check.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "trit/forward.h"

namespace trit::test {

struct GoldenCase {
  std::string name;               // "golden-a"
  std::filesystem::path gguf;     // the model file
  std::vector<int32_t> prompt;    // prompt_tokens
  std::vector<int32_t> greedy;    // greedy_tokens (they follow the F16-KV reference)
  std::vector<int32_t> sequence;  // prompt + greedy: the teacher-forced input
  uint32_t vocab = 0;
  std::vector<float> logits_f16kv;  // [sequence.size() x vocab]
  std::vector<float> logits_f32kv;
  std::vector<double> margin_f16kv;  // top1_margin_f16_kv_cache from the JSON, one per position
  double max_abs_diff = 0;           // tolerance.max_abs_logit_diff
  double margin_floor = 0;           // tolerance.top1_must_match_where_margin_at_least

  const std::vector<float>& logits(KvPrecision kv) const {
    return kv == KvPrecision::F16 ? logits_f16kv : logits_f32kv;
  }
  std::filesystem::path logits_path(KvPrecision kv) const;
};

// A KV cache for tests that need `positions` of it: the smallest power of two of at least 128 positions
// covering them. An engine opened without a context allocates the model's trained length (4,096 for the
// golden models), and lavapipe pays for every workgroup dispatched over it, even those that return at
// once: split attention over the whole cache and prefill blocks of 512 tokens made a decode step of
// golden-a 2.5x and its prompt 4x slower. Nothing else changes with the cache's length: the same splits
// hold keys, the same blocks hold tokens.
int32_t context_for(std::size_t positions);

// Loads shared_dir()/golden/NAME.json and both logits files; throws std::runtime_error on anything missing
// or inconsistent (file sizes that disagree with the JSON's shape and token count).
GoldenCase load_golden(const std::string& name);

// count little-endian float32 values from a file; throws if the file does not hold exactly that many.
std::vector<float> read_f32_file(const std::filesystem::path& path, std::size_t count);

// Largest minus second largest value of a row.
double top1_margin(std::span<const float> row);

// The fp32 build's criteria (shared/golden/README.md): fp32 activations legitimately cross int8 rounding
// boundaries the double reference does not, so instead of the per-logit tolerance, the mean over
// positions of the cosine similarity between a position's logits and the reference's, and the share of
// positions clearing the margin floor whose top-1 agrees.
constexpr double kFp32MinMeanCosine = 0.9997;
constexpr double kFp32MinTop1Agreement = 0.97;

struct LogitComparison {
  double max_abs_diff = 0;  // over every logit of every row
  double mean_cosine = 0;   // mean over rows of cos(got row, reference row)
  std::size_t worst_row = 0, worst_col = 0;
  std::size_t top1_checked = 0;              // rows whose reference margin is at least the floor
  std::vector<std::size_t> top1_mismatches;  // those rows whose argmax differs
  double top1_agreement() const;             // 1 - mismatches / checked (1 when nothing was checked)
  // The fp32 criteria above.
  bool meets_fp32_contract() const;
  std::string summary() const;
};

// Compares got against ref row by row ([rows x vocab] each, same size): the max abs difference and the
// argmax agreement on rows whose reference top-1 margin (computed from ref) is at least margin_floor.
LogitComparison compare_logits(std::span<const float> got, std::span<const float> ref, uint32_t vocab,
                               double margin_floor);

}  // namespace trit::test
