// trit-cli: generation, benchmarks and inspection on the same engine as the desktop app.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "command.h"

namespace trit::cli {
namespace {
std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}
}  // namespace

Registration::Registration(Command c) {
  registry().push_back(std::move(c));
}
const std::vector<Command>& commands() {
  return registry();
}
}  // namespace trit::cli

namespace {
void print_usage(std::FILE* to) {
  std::fprintf(to, "trit-cli %s: BitNet b1.58 inference on the Trit engine\n\nusage: trit-cli COMMAND [ARGS...]\n\n",
               TRIT_VERSION);
  auto sorted = trit::cli::commands();
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
  for (const auto& c : sorted) std::fprintf(to, "  trit-cli %s\n      %s\n", c.usage.c_str(), c.summary.c_str());
  std::fprintf(to, "\n  trit-cli --version\n      print the version\n");
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_usage(stderr);
    return 2;
  }
  std::string name = argv[1];
  if (name == "--help" || name == "-h" || name == "help") {
    print_usage(stdout);
    return 0;
  }
  if (name == "--version") {
    std::printf("trit-cli %s\n", TRIT_VERSION);
    return 0;
  }
  for (const auto& c : trit::cli::commands()) {
    if (c.name != name) continue;
    try {
      return c.run(std::vector<std::string>(argv + 2, argv + argc));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "trit-cli %s: error: %s\n", name.c_str(), e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "trit-cli: unknown command '%s'\n\n", name.c_str());
  print_usage(stderr);
  return 2;
}
