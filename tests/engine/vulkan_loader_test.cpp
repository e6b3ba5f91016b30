// The Vulkan loader is opened at run time (engine/src/vulkan/loader.h): trit-cli does not link
// libvulkan, and where the loader is missing a Vulkan command fails with the engine's clear message
// instead of the dynamic linker refusing to start the program. TRIT_VULKAN_LOADER stands in for a
// machine without the loader (the test machine has one installed).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"
#include "vulkan/loader.h"

namespace {

struct CliRun {
  int rc = -1;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `env_prefix trit-cli args` through the shell, capturing exit status, stdout and stderr.
CliRun run_cli(const std::string& test, const std::string& env_prefix, const std::string& args) {
  const auto dir = trit::test::scratch_dir(test);
  const auto out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd =
      env_prefix + " '" + TRIT_CLI_EXE + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "'";
  const int status = std::system(cmd.c_str());
  CliRun r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

const std::string kExpected =
    "trit-cli devices: error: the Vulkan loader (/nonexistent/libvulkan.so.1) is not installed: install the "
    "libvulkan1 package (Debian/Ubuntu) and a Vulkan driver (mesa-vulkan-drivers for a CPU fallback)\n";

TEST(VulkanLoader, MissingLoaderGivesTheClearMessage) {
  const CliRun r =
      run_cli("VulkanLoader.MissingLoader", "env TRIT_VULKAN_LOADER=/nonexistent/libvulkan.so.1", "devices");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err, kExpected);
  EXPECT_EQ(r.out, "");
}

TEST(VulkanLoader, MessageNamesTheDefaultLibrary) {
  EXPECT_EQ(trit::vk::loader_missing_message("libvulkan.so.1"),
            "the Vulkan loader (libvulkan.so.1) is not installed: install the libvulkan1 package (Debian/Ubuntu) "
            "and a Vulkan driver (mesa-vulkan-drivers for a CPU fallback)");
}

TEST(VulkanLoader, LibraryThatIsNotALoaderIsNamed) {
  // libm is present everywhere and exports no Vulkan entry point.
  const CliRun r = run_cli("VulkanLoader.NotALoader", "env TRIT_VULKAN_LOADER=libm.so.6", "devices");
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(r.err,
            "trit-cli devices: error: the Vulkan loader libm.so.6 has no vkGetInstanceProcAddr: it is not a Vulkan "
            "loader or it is damaged; reinstall the libvulkan1 package\n");
}

TEST(VulkanLoader, CommandsWithoutVulkanStillRun) {
  // Before, the dynamic linker refused to start trit-cli at all without libvulkan.so.1.
  const CliRun r =
      run_cli("VulkanLoader.NoVulkanNeeded", "env TRIT_VULKAN_LOADER=/nonexistent/libvulkan.so.1", "--help");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("devices"), std::string::npos) << r.out;
}

TEST(VulkanLoader, InstalledLoaderListsLavapipe) {
  const CliRun r = run_cli("VulkanLoader.Installed", "env -u TRIT_VULKAN_LOADER", "devices");
  EXPECT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("(default device)"), std::string::npos) << r.out;
}

TEST(VulkanLoader, TritCliDoesNotLinkLibvulkan) {
  const CliRun r = run_cli("VulkanLoader.Needed", "objdump -p", "");
  ASSERT_EQ(r.rc, 0) << "objdump (binutils) failed: " << r.err;
  ASSERT_NE(r.out.find("NEEDED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("libvulkan"), std::string::npos) << r.out;
}

}  // namespace
