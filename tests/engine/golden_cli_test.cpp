// `trit-cli logits` end to end: run the built binary on golden-a and compare the file it writes with the
// golden logits (README criteria), for both KV precisions; and its errors for bad arguments.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "golden_support.h"
#include "test_support.h"

namespace {

using namespace trit;

// Runs trit-cli with the given arguments, stderr to a file; returns the exit status.
int run_cli(const std::string& args, const std::filesystem::path& err) {
  const std::string cmd = std::string("'") + TRIT_CLI_EXE + "' " + args + " 2>'" + err.string() + "'";
  const int rc = std::system(cmd.c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string join(const std::vector<int32_t>& v) {
  std::string s;
  for (auto t : v) s += (s.empty() ? "" : ",") + std::to_string(t);
  return s;
}

// The CPU reference through the CLI: in double (--precision f64) within the golden tolerance, and in
// fp32 (the default) within the fp32 contract; stderr names the precision.
TEST(GoldenCli, LogitsFileMatchesGolden) {
  const auto g = test::load_golden("golden-a");
  const auto dir = test::scratch_dir("GoldenCli.LogitsFileMatchesGolden");
  for (const char* precision : {"f64", ""})
    for (const char* kv : {"f16", "f32"}) {
      const auto out = dir / (std::string(kv) + ".logits.f32");
      const auto err = dir / "stderr.txt";
      const std::string flag = *precision ? std::string(" --precision ") + precision : "";
      const int rc = run_cli("logits '" + g.gguf.string() + "' --tokens " + join(g.sequence) + " --backend cpu --kv " +
                                 kv + flag + " --threads 2 --out '" + out.string() + "'",
                             err);
      ASSERT_EQ(rc, 0) << slurp(err);
      const bool f64 = *precision != 0;
      EXPECT_NE(slurp(err).find(f64 ? "f64 activations" : "fp32 activations"), std::string::npos) << slurp(err);
      const auto got = test::read_f32_file(out, g.sequence.size() * g.vocab);
      const auto c = test::compare_logits(got, g.logits(kv[1] == '1' ? KvPrecision::F16 : KvPrecision::F32), g.vocab,
                                          g.margin_floor);
      std::printf("[ measured ] trit-cli logits golden-a --kv %s%s: %s\n", kv, flag.c_str(), c.summary().c_str());
      if (f64) {
        EXPECT_LE(c.max_abs_diff, g.max_abs_diff) << c.summary();
        EXPECT_TRUE(c.top1_mismatches.empty()) << c.summary();
      } else {
        EXPECT_TRUE(c.meets_fp32_contract()) << c.summary();
      }
    }
}

TEST(GoldenCli, BadArgumentsSayWhatIsWrong) {
  const auto g = test::load_golden("golden-a");
  const auto dir = test::scratch_dir("GoldenCli.BadArgumentsSayWhatIsWrong");
  const auto err = dir / "stderr.txt";
  const std::string model = "'" + g.gguf.string() + "'";
  const std::string out = " --out '" + (dir / "x.f32").string() + "'";
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"logits " + model + " --tokens 1,x,3" + out, "'x' (item 2) is not a token id"},
      {"logits " + model + " --tokens 1,,3" + out, "(item 2) is not a token id"},
      {"logits " + model + " --tokens 1,5000" + out, "token 5000 (item 2) is outside the model's vocabulary of 1003"},
      {"logits " + model + out, "--tokens is required"},
      {"logits " + model + " --tokens 1", "--out is required"},
      {"logits " + model + " --tokens 1 --kv f8" + out, "--kv: 'f8' is not f16 or f32"},
      {"logits " + model + " --tokens 1 --precision f16" + out, "unknown precision 'f16' (expected fp32, or f64"},
      {"logits " + model + " --tokens 1 --backend tpu" + out, "unknown backend 'tpu'"},
      {"logits " + model + " --tokens 1 --frobnicate" + out, "unknown option '--frobnicate'"},
      {"logits '" + (dir / "missing.gguf").string() + "' --tokens 1" + out, "missing.gguf"},
      {"logits " + model + " --tokens 1 --out '" + (dir / "no" / "such" / "dir.f32").string() + "'", "cannot open"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(run_cli(c.args, err), 1) << c.args;
    const auto text = slurp(err);
    EXPECT_NE(text.find(c.expect), std::string::npos) << c.args << "\nstderr: " << text;
  }
}

}  // namespace
