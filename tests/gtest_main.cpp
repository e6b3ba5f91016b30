// main() for every GoogleTest executable: applies the test environment from tests/CMakeLists.txt
// (lavapipe, offscreen Qt, where the golden files are) unless the caller's environment already sets it,
// so a test binary behaves the same under ctest and when run by hand.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

int main(int argc, char** argv) {
  for (const char* item : {TRIT_TEST_ENV_ITEMS}) {
    const std::string kv = item;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) setenv(kv.substr(0, eq).c_str(), kv.substr(eq + 1).c_str(), /*overwrite=*/0);
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
