#include "read_stdin.h"

#include <cstdio>
#include <stdexcept>

namespace trit::cli {

std::string read_stdin() {
  std::string s;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, stdin)) > 0) s.append(buf, n);
  if (std::ferror(stdin)) throw std::runtime_error("cannot read stdin");
  return s;
}

}  // namespace trit::cli
