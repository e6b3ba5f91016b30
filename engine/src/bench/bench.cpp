#include "bench/bench.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <stdexcept>
#include <string>

#include "modelgen/rng.h"
#include "trit/sampler.h"
#include "trit/vulkan_forward.h"

namespace trit::bench {
namespace {
using Clock = std::chrono::steady_clock;
double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Random token ids from a fixed seed (splitmix64), identical on every machine.
std::vector<int32_t> random_tokens(size_t n, int32_t vocab, uint64_t seed) {
  std::vector<int32_t> out(n);
  uint64_t s = seed;
  for (auto& t : out) t = static_cast<int32_t>(modelgen::splitmix64(s) % static_cast<uint64_t>(vocab));
  return out;
}

// Per-token GPU time by kernel from a profiling forward pass (all passes summed: a prompt runs only
// block submits, a decode only one-token submits).
std::vector<KernelShare> kernel_shares(const VulkanForward* vf, double tokens) {
  std::vector<KernelShare> out;
  if (!vf) return out;
  for (const auto& k : vf->profile()) {
    auto it = std::find_if(out.begin(), out.end(), [&](const KernelShare& e) { return e.kernel == k.kernel; });
    if (it == out.end())
      out.push_back({k.kernel, k.ms / tokens});
    else
      it->ms_per_token += k.ms / tokens;
  }
  return out;
}

// VmRSS of this process in MB (Linux), 0 where /proc is not available.
double resident_mb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

double ternary_bytes(const TernaryMatrix& m) {
  return static_cast<double>(m.rows) * m.cols / 4.0;
}
}  // namespace

// int8_head: the head reads the int8 copy of the table and its per-row bounds (the few rows it then
// reads in F16 are not counted, so the figure is a floor).
double decode_bytes(const ModelConfig& c, const ModelWeights& w, int32_t pos, KvPrecision kv, Precision precision,
                    bool int8_head) {
  double bytes = 0;
  for (const auto& l : w.layers) {
    for (const auto* m : {&l.wq, &l.wk, &l.wv, &l.wo, &l.gate, &l.up, &l.down}) bytes += ternary_bytes(*m);
    bytes += 4.0 * static_cast<double>(l.attn_norm.size() + l.attn_sub_norm.size() + l.ffn_norm.size() +
                                       l.ffn_sub_norm.size());
  }
  // The tied F16 LM head (the embedding row itself is negligible), or its int8 copy.
  bytes += int8_head ? 1.0 * c.vocab * c.dim + 16.0 * c.vocab : 2.0 * c.vocab * c.dim;
  bytes += 4.0 * c.dim;  // output norm
  bytes += static_cast<double>(c.layers) * 2.0 * c.kv_heads * c.head_dim * kv_element_bytes(kv, precision) * pos;
  return bytes;
}

BenchReport run_bench(std::shared_ptr<const Model> model, const BenchOptions& o) {
  const ModelConfig& cfg = model->config();
  if (o.reps < 1) throw std::invalid_argument("bench needs at least one measured run (--reps)");
  int32_t need = o.prompt_tokens;
  for (int32_t d : o.depths) need = std::max(need, d + o.gen_tokens);
  if (!o.batches.empty()) need = std::max(need, std::max(1, o.prompt_tokens) + o.gen_tokens);
  if (need > static_cast<int32_t>(cfg.context))
    throw std::invalid_argument("the benchmark needs a context of " + std::to_string(need) +
                                " tokens but the model's is " + std::to_string(cfg.context));

  BenchReport rep;
  rep.model = model->path().filename().string();
  rep.backend = o.backend;
  rep.precision = to_string(o.precision);
  rep.vendor_neutral = o.vendor_neutral;
  const auto t_load = Clock::now();
  std::unique_ptr<Forward> fwd;
  VulkanForward* vf = nullptr;  // set in profile mode
  if (o.backend == "vulkan") {
    VulkanForwardOptions vo;
    vo.kv = o.kv;
    vo.context = need;
    vo.device.index = o.device;
    vo.profile = o.profile;
    vo.tuned_kernels = o.tuned_kernels;
    vo.persistent_groups = o.persistent ? 0 : -1;
    vo.bounded_head = o.bounded_head;
    vo.precision = o.precision;
    vo.vendor_neutral = o.vendor_neutral;
    vo.pipeline_statistics = o.pipeline_statistics;
    for (int32_t b : o.batches) vo.sequences = std::max(vo.sequences, b);
    auto p = std::make_unique<VulkanForward>(*model, vo);
    if (o.profile) vf = p.get();
    rep.device = p->device().name;
    fwd = std::move(p);
  } else {
    if (o.profile || !o.tuned_kernels || !o.persistent || !o.bounded_head || o.vendor_neutral || o.pipeline_statistics)
      throw std::invalid_argument(
          "--profile, --baseline-kernels, --no-persistent, --f16-head, --generic and --pipeline-stats need the vulkan "
          "backend");
    ForwardOptions fo;
    fo.kv = o.kv;
    fo.context = need;
    fo.precision = o.precision;
    for (int32_t b : o.batches) fo.sequences = std::max(fo.sequences, b);
    fwd = make_forward(o.backend, model, fo);
  }
  rep.load_ms = ms_between(t_load, Clock::now());
  rep.resident_mb = resident_mb();
  // What only the Vulkan engine reports (its compilation, kernel statistics, head and prefill kernels):
  // the bench measures that engine; everything a Session also uses goes through Forward.
  auto* vk = dynamic_cast<VulkanForward*>(fwd.get());
  if (vk) {
    const auto t_wait = Clock::now();
    vk->persistent_groups();  // waits for the background compilation
    rep.persistent_wait_ms = ms_between(t_wait, Clock::now());
    rep.kernel_statistics = vk->kernel_statistics();
    rep.lm_head = (o.sample ? vk->bounded_sampling_head() : vk->bounded_head())
                      ? "int8 table with bounds, F16 for the rows that may be chosen"
                      : "F16, every row";
    rep.prefill_kernels = vk->prefill_kernels();
    rep.batched_kernels = vk->batched_kernels();
    rep.batched_attention = vk->batched_attention();
    rep.batched_lone_steps = vk->batched_lone_steps();
    if (!rep.batched_kernels.empty())
      rep.batched_head =
          vk->bounded_batch_head()
              ? std::string("int8 table with bounds on the tensor cores, F16 for the rows that may be ") +
                    (o.sample ? "among a row's best 64" : "chosen")
              : "F16, every row";
  }
  rep.decode_kernels = fwd->decode_kernels();
  rep.decode = o.sample ? "sampled (defaults)" : "greedy";
  rep.vocab = fwd->vocab_size();
  if (o.backend == "vulkan" && o.probes) {
    rep.copy_bandwidth_gbs = measure_copy_bandwidth(o.device);
    rep.dispatch = measure_dispatch_latency(o.device);
  }

  std::vector<float> logits(static_cast<size_t>(fwd->vocab_size()));
  const auto input = random_tokens(static_cast<size_t>(need), fwd->vocab_size(), o.seed);

  if (o.prompt_tokens > 0) {
    Figure f;
    f.test = "pp" + std::to_string(o.prompt_tokens);
    f.tokens = o.prompt_tokens;
    const std::span<const int32_t> prompt(input.data(), static_cast<size_t>(o.prompt_tokens));
    for (int r = 0; r <= o.reps; ++r) {
      if (vf && r == 1) vf->reset_profile();  // the warm-up is not profiled
      const auto t0 = Clock::now();
      fwd->eval(prompt, 0, logits, false);
      if (r > 0) f.ms.push_back(ms_between(t0, Clock::now()));  // run 0 is the warm-up
    }
    f.median_ms = median(f.ms);
    f.tokens_per_s = f.tokens * 1000.0 / f.median_ms;
    f.kernels = kernel_shares(vf, static_cast<double>(f.tokens) * o.reps);
    rep.figures.push_back(f);
  }

  if (o.gen_tokens > 0) {
    // The engine's device-chained decode where it has one; profile mode times its steps one a submission.
    Forward* device = fwd->decodes_on_device() ? fwd.get() : nullptr;
    SamplingParams sp;  // --sample: the defaults (the app's), this run's seed
    sp.seed = o.seed;
    if (o.sample && device && !device->samples_on_device(sp))
      throw std::runtime_error("the device cannot sample the default settings (no GPU sampler)");
    for (int32_t depth : o.depths) {
      Figure f;
      f.test = "tg" + std::to_string(o.gen_tokens) + "@d" + std::to_string(depth);
      f.depth = depth;
      f.tokens = o.gen_tokens;
      if (depth > 0) fwd->eval(std::span<const int32_t>(input.data(), static_cast<size_t>(depth)), 0, logits, false);
      const uint64_t f16_rows0 = device && vk ? vk->sampled_head_f16_rows() : 0;
      for (int r = 0; r <= o.reps; ++r) {
        if (vf && r == 1) vf->reset_profile();
        int32_t tok = input[static_cast<size_t>(depth)];
        // The context before the first input (the penalty window's start), and a fresh stream per run.
        std::vector<int32_t> history(input.begin(), input.begin() + depth);
        Sampler sampler(sp);
        const auto t0 = Clock::now();
        if (device && o.sample) {
          // The engine's sampled path: the GPU sampler on the device feeding the next step.
          const size_t n = std::min<size_t>(history.size(), static_cast<size_t>(sp.repeat_last_n));
          device->decode_sample(tok, depth, o.gen_tokens, sampler,
                                std::span<const int32_t>(history.data() + history.size() - n, n),
                                [](int32_t) { return true; });
        } else if (device) {
          // The engine's greedy path: argmax on the device feeding the next step, steps queued ahead.
          device->decode_greedy(tok, depth, o.gen_tokens, [](int32_t) { return true; });
        } else {
          for (int32_t i = 0; i < o.gen_tokens; ++i) {
            const int32_t one[1] = {tok};
            fwd->eval(one, depth + i, logits, false);
            // Each step depends on the last, as in real decoding.
            history.push_back(tok);
            tok = o.sample ? sampler.sample(logits, history) : argmax(logits);
          }
        }
        if (r > 0) f.ms.push_back(ms_between(t0, Clock::now()));
      }
      f.median_ms = median(f.ms);
      f.tokens_per_s = f.tokens * 1000.0 / f.median_ms;
      const bool int8_head = device && vk && (o.sample ? vk->bounded_sampling_head() : vk->bounded_head());
      if (device && o.sample && int8_head)
        f.f16_rows = static_cast<double>(vk->sampled_head_f16_rows() - f16_rows0) / (f.tokens * (o.reps + 1.0));
      f.bytes_per_token = decode_bytes(cfg, model->weights(), depth + o.gen_tokens / 2, o.kv, o.precision, int8_head);
      if (rep.copy_bandwidth_gbs > 0) f.roofline = f.bytes_per_token * f.tokens_per_s / (rep.copy_bandwidth_gbs * 1e9);
      f.kernels = kernel_shares(vf, static_cast<double>(f.tokens) * o.reps);
      rep.figures.push_back(f);
    }
  }
  for (int32_t n : o.batches) {
    if (n < 1 || n > fwd->sequences()) throw std::invalid_argument("--batch: " + std::to_string(n) + " sequences");
    Figure f;
    const int32_t prompt = std::max(1, o.prompt_tokens);
    f.test = "tg" + std::to_string(o.gen_tokens) + "x" + std::to_string(n) + "@d" + std::to_string(prompt);
    f.depth = prompt;
    f.tokens = n * o.gen_tokens;
    std::vector<int32_t> next(static_cast<size_t>(n));
    const auto vocab = static_cast<int32_t>(fwd->vocab_size());
    int64_t steps = 0, from_top = 0;
    for (int r = 0; r <= o.reps; ++r) {
      std::vector<BatchToken> batch;
      // --sample: each sequence's sampler (the defaults, its own seed) and history (the penalty window).
      std::vector<Sampler> samplers;
      std::vector<std::vector<int32_t>> history(static_cast<size_t>(n));
      for (int32_t s = 0; s < n; ++s) {
        // Each sequence its own prompt (a rotation of the input), so the rows differ.
        std::vector<int32_t>& p = history[static_cast<size_t>(s)];
        p.resize(static_cast<size_t>(prompt));
        for (int32_t i = 0; i < prompt; ++i) p[static_cast<size_t>(i)] = input[static_cast<size_t>((i + s) % need)];
        fwd->eval_sequence(s, p, 0, logits, false);
        batch.push_back({s, argmax(logits), prompt});
        SamplingParams sp;
        sp.seed = o.seed + static_cast<uint64_t>(s);
        samplers.emplace_back(sp);
      }
      std::vector<RowPenalty> penalties;
      std::vector<std::vector<TopLogit>> tops;
      if (vf && r == 1) vf->reset_profile();
      const auto t0 = Clock::now();
      for (int32_t i = 0; i < o.gen_tokens; ++i) {
        if (!o.sample) {
          // Greedy, as the server steps plain greedy streams: each row's argmax found on the device.
          fwd->decode_batch_argmax(batch, next, {});
        } else {
          // Sampled as the server steps sampled streams (BatchScheduler): each row's best top_k from the
          // device where it finds them, else the rows themselves.
          penalties.clear();
          for (size_t e = 0; e < batch.size(); ++e) {
            history[e].push_back(batch[e].token);
            penalties.push_back({samplers[e].penalised_tokens(history[e], vocab), samplers[e].params().repeat_penalty});
          }
          const auto k = static_cast<size_t>(samplers[0].params().top_k);
          ++steps;
          if (samplers[0].samples_from_top(vocab) && fwd->decode_batch_top(batch, penalties, k, tops)) {
            ++from_top;
            for (size_t e = 0; e < batch.size(); ++e) next[e] = samplers[e].sample_top(tops[e], vocab);
          } else {
            std::vector<float> rows(batch.size() * static_cast<size_t>(vocab));
            fwd->decode_batch(batch, rows);
            for (size_t e = 0; e < batch.size(); ++e)
              next[e] = samplers[e].sample(
                  std::span<float>(rows).subspan(e * static_cast<size_t>(vocab), static_cast<size_t>(vocab)),
                  history[e]);
          }
        }
        for (size_t e = 0; e < batch.size(); ++e) {
          batch[e].token = next[e];
          ++batch[e].pos;
        }
      }
      if (r > 0) f.ms.push_back(ms_between(t0, Clock::now()));
    }
    f.median_ms = median(f.ms);
    f.tokens_per_s = f.tokens * 1000.0 / f.median_ms;
    if (o.sample) f.top_steps = static_cast<double>(from_top) / static_cast<double>(std::max<int64_t>(steps, 1));
    f.kernels = kernel_shares(vf, static_cast<double>(f.tokens) * o.reps);
    rep.figures.push_back(f);
  }
  return rep;
}

std::string to_json(const BenchReport& r) {
  nlohmann::json j;
  j["model"] = r.model;
  j["backend"] = r.backend;
  if (!r.device.empty()) j["device"] = r.device;
  j["precision"] = r.precision;
  j["vendor_neutral"] = r.vendor_neutral;
  j["load_ms"] = r.load_ms;
  j["persistent_wait_ms"] = r.persistent_wait_ms;
  if (!r.decode_kernels.empty()) j["decode_kernels"] = r.decode_kernels;
  if (!r.lm_head.empty()) j["lm_head"] = r.lm_head;
  j["decode"] = r.decode;
  if (!r.prefill_kernels.empty()) j["prefill_kernels"] = r.prefill_kernels;
  if (!r.batched_kernels.empty()) j["batched_kernels"] = r.batched_kernels;
  if (!r.batched_head.empty()) j["batched_head"] = r.batched_head;
  if (!r.batched_attention.empty()) j["batched_attention"] = r.batched_attention;
  if (!r.batched_lone_steps.empty()) j["batched_lone_steps"] = r.batched_lone_steps;
  j["resident_mb_after_load"] = r.resident_mb;
  j["copy_bandwidth_gbs"] = r.copy_bandwidth_gbs;
  j["dependent_step_us"] = {{"device_params", r.dispatch.device_params_us},
                            {"host_params", r.dispatch.host_params_us},
                            {"device_params_512_groups", r.dispatch.wide_us},
                            {"pipeline_switching", r.dispatch.switching_us},
                            {"workgroup_1024", r.dispatch.big_group_us}};
  if (!r.kernel_statistics.empty()) j["kernel_statistics"] = r.kernel_statistics;
  j["results"] = nlohmann::json::array();
  for (const auto& f : r.figures) {
    nlohmann::json e{{"test", f.test},
                     {"depth", f.depth},
                     {"tokens", f.tokens},
                     {"runs_ms", f.ms},
                     {"median_ms", f.median_ms},
                     {"tokens_per_s", f.tokens_per_s},
                     {"bytes_per_token", f.bytes_per_token},
                     {"roofline", f.roofline}};
    if (f.f16_rows > 0) e["f16_rows_per_token"] = f.f16_rows;
    if (f.top_steps >= 0) e["steps_from_top_k"] = f.top_steps;
    if (!f.kernels.empty()) {
      nlohmann::json k = nlohmann::json::object();
      for (const auto& s : f.kernels) k[s.kernel] = s.ms_per_token;
      e["gpu_ms_per_token"] = k;
    }
    j["results"].push_back(e);
  }
  return j.dump(2);
}

std::string to_table(const BenchReport& r) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line,
                "model %s, backend %s, load %.0f ms, resident %.0f MB after load, copy bandwidth %.0f GB/s\n",
                r.model.c_str(), r.backend.c_str(), r.load_ms, r.resident_mb, r.copy_bandwidth_gbs);
  out += line;
  if (!r.device.empty())
    out += "device: " + r.device + (r.vendor_neutral ? " (vendor-neutral path: VK_NV_* ignored)" : "") + "\n";
  out += "precision: " + r.precision + " activations\n";
  if (!r.decode_kernels.empty()) {
    std::snprintf(line, sizeof line, " (its compilation finished %.0f ms after the load)", r.persistent_wait_ms);
    out += "decode kernels: " + r.decode_kernels + (r.decode_kernels.starts_with("persistent") ? line : "") + "\n";
  }
  if (!r.lm_head.empty()) out += "lm head: " + r.lm_head + "\n";
  if (!r.decode.empty()) out += "decode: " + r.decode + "\n";
  if (!r.prefill_kernels.empty()) out += "prefill kernels: " + r.prefill_kernels + "\n";
  if (!r.batched_kernels.empty()) out += "batched steps' products: " + r.batched_kernels + "\n";
  if (!r.batched_head.empty()) out += "batched steps' lm head: " + r.batched_head + "\n";
  if (!r.batched_attention.empty()) out += "batched steps' attention: " + r.batched_attention + "\n";
  if (!r.batched_lone_steps.empty()) out += "batched steps of one token: " + r.batched_lone_steps + "\n";
  if (r.dispatch.device_params_us > 0) {
    std::snprintf(
        line, sizeof line,
        "dependent kernel step: %.2f us (1 workgroup, parameters in device memory), %.2f us (in host memory), "
        "%.2f us (512 workgroups), %.2f us (4 pipelines in turn), %.2f us (1024 invocations)\n",
        r.dispatch.device_params_us, r.dispatch.host_params_us, r.dispatch.wide_us, r.dispatch.switching_us,
        r.dispatch.big_group_us);
    out += line;
  }
  for (const auto& st : r.kernel_statistics) out += "kernel statistics: " + st + "\n";
  out += "| test | tokens/s | median ms | runs | MB read/token | roofline |\n|---|---:|---:|---:|---:|---:|\n";
  for (const auto& f : r.figures) {
    std::snprintf(
        line, sizeof line, "| %s | %.1f | %.2f | %zu | %s | %s |\n", f.test.c_str(), f.tokens_per_s, f.median_ms,
        f.ms.size(), f.bytes_per_token > 0 ? std::to_string(static_cast<int>(f.bytes_per_token / 1e6)).c_str() : "",
        f.roofline > 0 ? (std::to_string(static_cast<int>(f.roofline * 1000) / 10.0).substr(0, 5) + "%").c_str() : "");
    out += line;
  }
  // Sampled on the device from the int8 head: the rows each step computed in F16.
  for (const auto& f : r.figures)
    if (f.f16_rows > 0) {
      std::snprintf(line, sizeof line, "%s: %.0f rows a step computed in F16 (%.2f%% of the vocabulary)\n",
                    f.test.c_str(), f.f16_rows, r.vocab > 0 ? 100.0 * f.f16_rows / r.vocab : 0.0);
      out += line;
    }
  // Sampled batched steps: how many sampled from each row's best top_k alone (decode_batch_top: found on
  // the device by the Vulkan backend); the rest read the whole rows.
  for (const auto& f : r.figures)
    if (f.top_steps >= 0) {
      std::snprintf(line, sizeof line, "%s: %.0f%% of the steps sampled from each row's best top_k\n", f.test.c_str(),
                    100.0 * f.top_steps);
      out += line;
    }
  // --profile: one column per figure, one row per kernel kind (GPU ms per token).
  std::vector<std::string> kinds;
  for (const auto& f : r.figures)
    for (const auto& k : f.kernels)
      if (std::find(kinds.begin(), kinds.end(), k.kernel) == kinds.end()) kinds.push_back(k.kernel);
  if (kinds.empty()) return out;
  out += "\nGPU time per token by kernel (ms, timestamp queries)\n| kernel |";
  for (const auto& f : r.figures) out += " " + f.test + " |";
  out += "\n|---|";
  for (size_t i = 0; i < r.figures.size(); ++i) out += "---:|";
  out += "\n";
  kinds.push_back("total");
  for (const auto& kind : kinds) {
    out += "| " + kind + " |";
    for (const auto& f : r.figures) {
      double v = 0;
      for (const auto& k : f.kernels)
        if (kind == "total" || k.kernel == kind) v += k.ms_per_token;
      std::snprintf(line, sizeof line, " %.4f |", v);
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace trit::bench
