#include "golden_support.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "test_support.h"

namespace trit::test {
namespace {

std::vector<int32_t> int_list(const nlohmann::json& j, const char* key, const std::filesystem::path& file) {
  if (!j.contains(key) || !j[key].is_array()) throw std::runtime_error(file.string() + ": no array '" + key + "'");
  return j[key].get<std::vector<int32_t>>();
}

}  // namespace

std::filesystem::path GoldenCase::logits_path(KvPrecision kv) const {
  return gguf.parent_path() / (name + (kv == KvPrecision::F16 ? ".f16kv.logits.f32" : ".f32kv.logits.f32"));
}

std::vector<float> read_f32_file(const std::filesystem::path& path, std::size_t count) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path.string());
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec || size != count * 4)
    throw std::runtime_error(path.string() + " holds " + std::to_string(size) + " bytes, expected " +
                             std::to_string(count) + " float32 values");
  std::vector<unsigned char> bytes(count * 4);
  in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!in) throw std::runtime_error("short read from " + path.string());
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i) {  // little-endian regardless of the host
    const uint32_t b = uint32_t{bytes[4 * i]} | uint32_t{bytes[4 * i + 1]} << 8 | uint32_t{bytes[4 * i + 2]} << 16 |
                       uint32_t{bytes[4 * i + 3]} << 24;
    std::memcpy(&out[i], &b, 4);
  }
  return out;
}

GoldenCase load_golden(const std::string& name) {
  GoldenCase g;
  g.name = name;
  const auto dir = shared_dir() / "golden";
  const auto json_path = dir / (name + ".json");
  std::ifstream in(json_path);
  if (!in) throw std::runtime_error("cannot open " + json_path.string());
  const auto j = nlohmann::json::parse(in);
  g.gguf = dir / j.at("model").get<std::string>();
  g.prompt = int_list(j, "prompt_tokens", json_path);
  g.greedy = int_list(j, "greedy_tokens", json_path);
  g.sequence = g.prompt;
  g.sequence.insert(g.sequence.end(), g.greedy.begin(), g.greedy.end());
  g.vocab = j.at("shape").at("vocab").get<uint32_t>();
  g.margin_f16kv = j.at("top1_margin_f16_kv_cache").get<std::vector<double>>();
  if (g.margin_f16kv.size() != g.sequence.size())
    throw std::runtime_error(json_path.string() + ": " + std::to_string(g.margin_f16kv.size()) + " margins for " +
                             std::to_string(g.sequence.size()) + " positions");
  g.max_abs_diff = j.at("tolerance").at("max_abs_logit_diff").get<double>();
  g.margin_floor = j.at("tolerance").at("top1_must_match_where_margin_at_least").get<double>();
  const std::size_t count = g.sequence.size() * g.vocab;
  g.logits_f16kv = read_f32_file(dir / j.at("logits_files").at("f16_kv_cache").get<std::string>(), count);
  g.logits_f32kv = read_f32_file(dir / j.at("logits_files").at("f32_kv_cache").get<std::string>(), count);
  return g;
}

int32_t context_for(std::size_t positions) {
  int32_t c = 128;
  while (static_cast<std::size_t>(c) < positions) c *= 2;
  return c;
}

double top1_margin(std::span<const float> row) {
  double a = -INFINITY, b = -INFINITY;
  for (float v : row) {
    if (v > a) {
      b = a;
      a = v;
    } else if (v > b) {
      b = v;
    }
  }
  return a - b;
}

LogitComparison compare_logits(std::span<const float> got, std::span<const float> ref, uint32_t vocab,
                               double margin_floor) {
  if (got.size() != ref.size() || vocab == 0 || ref.size() % vocab != 0)
    throw std::runtime_error("compare_logits: " + std::to_string(got.size()) + " logits against " +
                             std::to_string(ref.size()) + " reference logits of vocabulary " + std::to_string(vocab));
  LogitComparison c;
  const std::size_t rows = ref.size() / vocab;
  double cosines = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const auto g = got.subspan(r * vocab, vocab), e = ref.subspan(r * vocab, vocab);
    double gg = 0, ee = 0, ge = 0;
    for (std::size_t v = 0; v < vocab; ++v) {
      gg += double{g[v]} * g[v];
      ee += double{e[v]} * e[v];
      ge += double{g[v]} * e[v];
      const double d = std::fabs(double{g[v]} - double{e[v]});
      if (!(d <= c.max_abs_diff)) {  // also catches NaN
        c.max_abs_diff = std::isnan(d) ? INFINITY : d;
        c.worst_row = r;
        c.worst_col = v;
      }
    }
    if (top1_margin(e) >= margin_floor) {
      ++c.top1_checked;
      const auto top_g = std::max_element(g.begin(), g.end()) - g.begin();
      const auto top_e = std::max_element(e.begin(), e.end()) - e.begin();
      if (top_g != top_e) c.top1_mismatches.push_back(r);
    }
    // (A row of zeros, or NaN, counts as cosine 0: it fails the contract.)
    const double cs = ge / std::sqrt(gg * ee);
    cosines += std::isfinite(cs) ? cs : 0.0;
  }
  c.mean_cosine = rows ? cosines / static_cast<double>(rows) : 0.0;
  return c;
}

double LogitComparison::top1_agreement() const {
  return top1_checked ? 1.0 - static_cast<double>(top1_mismatches.size()) / static_cast<double>(top1_checked) : 1.0;
}

bool LogitComparison::meets_fp32_contract() const {
  return mean_cosine >= kFp32MinMeanCosine && top1_agreement() >= kFp32MinTop1Agreement;
}

std::string LogitComparison::summary() const {
  std::ostringstream s;
  s << "max |logit diff| " << max_abs_diff << " (position " << worst_row << ", token " << worst_col << "); mean cosine "
    << std::setprecision(7) << mean_cosine << std::setprecision(6) << "; top-1 "
    << (top1_checked - top1_mismatches.size()) << "/" << top1_checked << " equal where the margin allows";
  if (!top1_mismatches.empty()) {
    s << "; differ at positions";
    for (auto r : top1_mismatches) s << ' ' << r;
  }
  return s.str();
}

}  // namespace trit::test
