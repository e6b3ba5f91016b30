// After the Vulkan forward pass uploads the weights, the process keeps no resident host copy of them:
// the mapped model file's pages are released (measured on the mapping itself in /proc/self/smaps).
#include <gtest/gtest.h>
#include <trit/gguf.h>
#include <trit/model.h>
#include <trit/vulkan_forward.h>

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "test_support.h"

namespace {

// Resident kB of the mappings of `path` in this process (0 if not mapped).
long resident_kb_of(const std::string& path) {
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool in_file = false;
  long kb = 0;
  while (std::getline(smaps, line)) {
    const bool header = !line.empty() && line.find(':') != std::string::npos && line.find(' ') != std::string::npos &&
                        std::isxdigit(static_cast<unsigned char>(line[0])) && line.find('-') < line.find(' ');
    if (header) {
      in_file = line.size() >= path.size() && line.compare(line.size() - path.size(), path.size(), path) == 0;
    } else if (in_file && line.rfind("Rss:", 0) == 0) {
      kb += std::stol(line.substr(4));
    }
  }
  return kb;
}

TEST(VulkanResident, WeightsAreNotKeptResidentOnTheHostAfterUpload) {
  const auto path = std::filesystem::canonical(trit::test::shared_dir() / "golden" / "golden-b.gguf").string();
  auto model = trit::Model::open(path);
  // Touch every page, as an upload does.
  uint64_t sum = 0;
  for (uint8_t b : model->file().bytes()) sum += b;
  const long before = resident_kb_of(path);
  const long file_kb = static_cast<long>(model->file().file_size() / 1024);
  ASSERT_GT(before, file_kb * 9 / 10) << "the whole file should be resident after touching it (sum " << sum << ")";

  trit::VulkanForwardOptions opt;
  opt.context = 64;
  trit::VulkanForward fwd(*model, opt);
  const long after = resident_kb_of(path);
  EXPECT_LT(after, file_kb / 10) << "resident kB of the mapped model: " << before << " before upload, " << after
                                 << " after";

  // The model stays usable: its metadata is re-read from the file on demand.
  EXPECT_EQ(model->config().vocab, 2051u);
  EXPECT_NE(model->file().find_tensor("token_embd.weight"), nullptr);
  std::vector<float> logits(static_cast<size_t>(fwd.vocab_size()));
  const int32_t tok[1] = {1};
  fwd.eval(tok, 0, logits, false);
  EXPECT_TRUE(std::isfinite(logits[0]));
}

}  // namespace
