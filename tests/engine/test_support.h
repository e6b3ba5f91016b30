#pragma once
// Helpers shared by the engine tests: where the golden files and scratch space are.
#include <filesystem>
#include <string>

namespace trit::test {

// ../shared beside the checkout (TRIT_SHARED_DIR), holding golden/ and docs/.
std::filesystem::path shared_dir();
// A fresh, empty scratch folder for one test, under the build tree.
std::filesystem::path scratch_dir(const std::string& test_name);
// The repository root (TRIT_SOURCE_DIR).
std::filesystem::path source_dir();

}  // namespace trit::test
