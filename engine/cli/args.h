#pragma once
// A small command-line parser for trit-cli subcommands: declared options only, every value checked,
// errors that name the flag and what was expected.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "trit/forward.h"
#include "trit/session.h"

namespace trit::cli {

class Args {
 public:
  // `valued`: options that take a value (repeatable), as `--opt value` or `--opt=value`; `switches`:
  // options without one.
  Args(const std::vector<std::string>& args, std::set<std::string> valued, std::set<std::string> switches);

  const std::vector<std::string>& positional() const { return positional_; }
  // The one positional argument called `what` (e.g. "MODEL"); throws if missing or if more were given.
  const std::string& single_positional(const char* what) const;

  bool has(const std::string& flag) const;
  std::string get(const std::string& flag, const std::string& fallback) const;  // the last occurrence
  std::vector<std::string> get_all(const std::string& flag) const;
  long long get_int(const std::string& flag, long long fallback, long long min, long long max) const;
  double get_double(const std::string& flag, double fallback) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::vector<std::string>> values_;
  std::set<std::string> switches_seen_;
};

// --kv: "f16" or "f32"; throws std::invalid_argument naming the flag.
KvPrecision kv_precision(const std::string& value);

// The session options that generate and serve share: --backend, --device, --kv, --precision, --generic,
// and the context length from `context_flag`. Each value is checked here.
inline const std::set<std::string> kSessionValued = {"--backend", "--device", "--kv", "--precision"};
inline const std::set<std::string> kSessionSwitches = {"--generic"};
SessionOptions session_options(const Args& a, const std::string& context_flag);

}  // namespace trit::cli
