// trit-cli bench MODEL [-p 512] [-n 128] [--depths 0,1024,4000] [--reps 5] [--backend vulkan] [--profile] [--json]
// --profile: GPU time per token by kernel kind (timestamp queries recorded only in this mode; decode
// runs the device-chained steps one a submission).
// --sample: tg samples with the default SamplingParams (decode_sample on the device) instead of greedy,
// and --batch steps sample as the server's sampled streams do (decode_batch_top);
// --f16-head: the LM head over every row in F16 instead of the int8 table (A/B).
// --precision f64: the double-precision verification build; --generic: only vendor-neutral features (the
// path AMD and Intel GPUs get: on an NVIDIA GPU the prefill GEMM through VK_KHR_cooperative_matrix
// instead of the NV extension), for comparisons on an NVIDIA GPU. The report names the prefill kernels.
// --no-probes: no copy-bandwidth and dispatch-latency probes, so no roofline (they take seconds on a
// CPU driver such as lavapipe).
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "args.h"
#include "bench/bench.h"
#include "command.h"
#include "trit/model.h"

namespace {

// A comma-separated list of non-negative integers after `flag`.
std::vector<int32_t> parse_list(const std::string& flag, const std::string& s, const char* example) {
  std::vector<int32_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    size_t used = 0;
    long v = -1;
    try {
      v = std::stol(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || v < 0 || v > (1 << 20))
      throw std::invalid_argument(flag + ": '" + item + "' is not a non-negative integer");
    out.push_back(static_cast<int32_t>(v));
  }
  if (out.empty()) throw std::invalid_argument(flag + " needs at least one value, like " + example);
  return out;
}

int run_bench(const std::vector<std::string>& argv) {
  trit::cli::Args a(
      argv, {"-p", "-n", "--depths", "--reps", "--backend", "--device", "--kv", "--seed", "--precision", "--batch"},
      {"--json", "--profile", "--baseline-kernels", "--no-persistent", "--f16-head", "--generic", "--pipeline-stats",
       "--sample", "--no-probes"});
  const std::string& path = a.single_positional("MODEL");
  trit::bench::BenchOptions o;
  o.prompt_tokens = static_cast<int32_t>(a.get_int("-p", o.prompt_tokens, 0, 1 << 20));
  o.gen_tokens = static_cast<int32_t>(a.get_int("-n", o.gen_tokens, 0, 1 << 20));
  if (a.has("--depths")) o.depths = parse_list("--depths", a.get("--depths", ""), "0,1024,4000");
  if (a.has("--batch")) {
    o.batches = parse_list("--batch", a.get("--batch", ""), "1,4,8");
    for (int32_t b : o.batches)
      if (b < 1 || b > 64) throw std::invalid_argument("--batch: " + std::to_string(b) + " is not between 1 and 64");
  }
  o.reps = static_cast<int32_t>(a.get_int("--reps", o.reps, 1, 1000));
  o.backend = a.get("--backend", o.backend);
  o.device = static_cast<int>(a.get_int("--device", -1, -1, 1024));
  o.seed = static_cast<uint64_t>(a.get_int("--seed", 1, 0, INT64_MAX));
  o.kv = trit::cli::kv_precision(a.get("--kv", "f16"));
  o.precision = trit::parse_precision(a.get("--precision", "fp32"));
  o.vendor_neutral = a.has("--generic");
  o.pipeline_statistics = a.has("--pipeline-stats");
  o.profile = a.has("--profile");
  o.tuned_kernels = !a.has("--baseline-kernels");
  o.persistent = !a.has("--no-persistent");
  o.bounded_head = !a.has("--f16-head");
  o.sample = a.has("--sample");
  o.probes = !a.has("--no-probes");

  auto model = trit::Model::open(path);
  const auto report = trit::bench::run_bench(model, o);
  const std::string out = a.has("--json") ? trit::bench::to_json(report) + "\n" : trit::bench::to_table(report);
  std::fputs(out.c_str(), stdout);
  return 0;
}

const trit::cli::Registration reg{
    {"bench",
     "bench MODEL [-p 512] [-n 128] [--depths 0,1024,4000] [--reps 5] [--backend vulkan|cpu] "
     "[--device N] [--kv f16|f32] [--precision fp32|f64] [--generic] [--profile] [--baseline-kernels] "
     "[--no-persistent] [--f16-head] [--pipeline-stats] [--sample] [--no-probes] [--batch 1,4,8] "
     "[--json]",
     "prompt processing and generation speed (median of runs after a warm-up) with the "
     "roofline ratio; --batch: N sequences decoding together (tgNxB: all their tokens/s)",
     run_bench}};

}  // namespace
