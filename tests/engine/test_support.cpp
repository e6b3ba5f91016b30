#include "test_support.h"

#include <cstdlib>
#include <stdexcept>

namespace trit::test {
namespace {
std::filesystem::path env_path(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v)
    throw std::runtime_error(std::string("test environment variable ") + name + " is not set (run through ctest)");
  return v;
}
}  // namespace

std::filesystem::path shared_dir() {
  return env_path("TRIT_SHARED_DIR");
}
std::filesystem::path source_dir() {
  return env_path("TRIT_SOURCE_DIR");
}

std::filesystem::path scratch_dir(const std::string& test_name) {
  auto dir = env_path("TRIT_TEST_TMP") / test_name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

}  // namespace trit::test
