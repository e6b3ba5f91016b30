#include "args.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <string>
#include <system_error>

namespace trit::cli {

Args::Args(const std::vector<std::string>& args, std::set<std::string> valued, std::set<std::string> switches) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    // "-5" is a value, not an option.
    if (a.size() > 1 && a[0] == '-' && std::isdigit(static_cast<unsigned char>(a[1])) == 0) {
      const size_t eq = a.find('=');
      if (a.starts_with("--") && eq != std::string::npos) {
        const std::string flag = a.substr(0, eq);
        if (!valued.count(flag))
          throw std::invalid_argument(switches.count(flag) ? flag + " takes no value"
                                                           : "unknown option '" + flag + "'");
        values_[flag].push_back(a.substr(eq + 1));
      } else if (valued.count(a)) {
        if (i + 1 >= args.size()) throw std::invalid_argument(a + " needs a value");
        values_[a].push_back(args[++i]);
      } else if (switches.count(a)) {
        switches_seen_.insert(a);
      } else {
        throw std::invalid_argument("unknown option '" + a + "'");
      }
    } else {
      positional_.push_back(a);
    }
  }
}

const std::string& Args::single_positional(const char* what) const {
  if (positional_.empty()) throw std::invalid_argument(std::string("missing ") + what);
  if (positional_.size() > 1) throw std::invalid_argument("unexpected argument '" + positional_[1] + "'");
  return positional_[0];
}

bool Args::has(const std::string& flag) const {
  return switches_seen_.count(flag) || values_.count(flag);
}

std::string Args::get(const std::string& flag, const std::string& fallback) const {
  auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second.back();
}

std::vector<std::string> Args::get_all(const std::string& flag) const {
  auto it = values_.find(flag);
  return it == values_.end() ? std::vector<std::string>{} : it->second;
}

long long Args::get_int(const std::string& flag, long long fallback, long long min, long long max) const {
  if (!values_.count(flag)) return fallback;
  const std::string s = get(flag, "");
  long long v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  // A number too large for 64 bits is still a number: it is out of range, like any other value past max.
  const bool whole = !s.empty() && end == s.data() + s.size();
  if (!whole || (ec != std::errc() && ec != std::errc::result_out_of_range))
    throw std::invalid_argument(flag + ": '" + s + "' is not an integer");
  if (ec == std::errc::result_out_of_range || v < min || v > max)
    throw std::invalid_argument(flag + ": " + s + " is out of range; it must be between " + std::to_string(min) +
                                " and " + std::to_string(max));
  return v;
}

double Args::get_double(const std::string& flag, double fallback) const {
  if (!values_.count(flag)) return fallback;
  const std::string s = get(flag, "");
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::out_of_range&) {
    throw std::invalid_argument(flag + ": " + s + " is out of the range of a double-precision number");
  } catch (const std::exception&) {
    used = 0;
  }
  if (s.empty() || used != s.size() || !std::isfinite(v))
    throw std::invalid_argument(flag + ": '" + s + "' is not a number");
  return v;
}

KvPrecision kv_precision(const std::string& value) {
  if (value == "f16") return KvPrecision::F16;
  if (value == "f32") return KvPrecision::F32;
  throw std::invalid_argument("--kv: '" + value + "' is not f16 or f32");
}

SessionOptions session_options(const Args& a, const std::string& context_flag) {
  SessionOptions so;
  so.backend = a.get("--backend", "vulkan");
  so.device = static_cast<int>(a.get_int("--device", -1, -1, 1024));
  so.context = static_cast<int32_t>(a.get_int(context_flag, 0, 0, 1 << 24));
  so.kv = kv_precision(a.get("--kv", "f16"));
  so.precision = parse_precision(a.get("--precision", "fp32"));
  so.vendor_neutral = a.has("--generic");
  return so;
}

}  // namespace trit::cli
