#pragma once
// All of stdin for the subcommands that read their input there (tokenize, detokenize).
#include <string>

namespace trit::cli {

// Byte for byte (binary-safe; no iostreams, whose iterators trip -Wnull-dereference); throws
// std::runtime_error where stdin cannot be read.
std::string read_stdin();

}  // namespace trit::cli
