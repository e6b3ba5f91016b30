#pragma once
// trit-cli subcommands register themselves here, one file each, so adding one touches no shared list.
#include <functional>
#include <string>
#include <vector>

namespace trit::cli {

using CommandFn = std::function<int(const std::vector<std::string>& args)>;

struct Command {
  std::string name;
  std::string usage;    // one line: "inspect MODEL"
  std::string summary;  // one line: what it does
  CommandFn run;        // args exclude the subcommand name; returns the process exit code
};

// Registers a command at static-initialisation time: `static Registration reg{{...}};`
struct Registration {
  explicit Registration(Command c);
};

const std::vector<Command>& commands();

}  // namespace trit::cli
