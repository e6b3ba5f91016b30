// trit-cli tokenize / detokenize, run as the user runs them: on the golden model (byte-level vocabulary)
// and on a synthetic model carrying the real LLaMA 3 vocabulary, written by trit-cli make-model.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "test_support.h"
#include "tokenizer_fixture.h"

namespace {

struct Result {
  int status;
  std::string out, err;
};

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `trit-cli ARGS < stdin` in a scratch folder named after the test: ctest runs each test in its
// own process, several at once, so a per-process counter alone gave concurrent tests the same folder
// (one test then read another's output).
Result cli(const std::string& args, const std::string& stdin_text) {
  static int n = 0;
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  auto dir = trit::test::scratch_dir("tokenizer_cli_" + test + "_" + std::to_string(n++));
  std::ofstream(dir / "in", std::ios::binary) << stdin_text;
  std::string cmd = std::string("'") + TRIT_CLI_EXE + "' " + args + " < '" + (dir / "in").string() + "' > '" +
                    (dir / "out").string() + "' 2> '" + (dir / "err").string() + "'";
  int rc = std::system(cmd.c_str());
  return {WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, slurp(dir / "out"), slurp(dir / "err")};
}

std::string golden() {
  return "'" + (trit::test::shared_dir() / "golden/golden-a.gguf").string() + "'";
}

TEST(TokenizerCli, TokenizeGoldenModel) {
  Result r = cli("tokenize " + golden(), "Hello world");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "39 68 75 75 78 266 273 75 67\n");
  r = cli("tokenize " + golden() + " --json --bos", "Hello world");
  EXPECT_EQ(r.out, "[1000,39,68,75,75,78,266,273,75,67]\n");
  r = cli("tokenize " + golden() + " --special", "x<|eot_id|>");
  EXPECT_EQ(r.out, "87 1002\n");
  r = cli("tokenize " + golden(), "x<|eot_id|>");          // not allowed: plain text
  EXPECT_EQ(r.out, "87 27 91 68 78 83 62 72 67 91 29\n");  // GPT-2 order: id = byte - 33 for ASCII
  r = cli("tokenize " + golden(), "");
  EXPECT_EQ(r.status, 0);
  EXPECT_EQ(r.out, "\n");
}

TEST(TokenizerCli, DetokenizeGoldenModel) {
  Result r = cli("detokenize " + golden(), "39 68 75 75 78 266 273 75 67\n");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Hello world");
  EXPECT_EQ(cli("detokenize " + golden(), "39,68, 75,75 ,78").out, "Hello");
  EXPECT_EQ(cli("detokenize " + golden(), " [1000, 39, 68, 1002]").out, "<|begin_of_text|>He<|eot_id|>");
  EXPECT_EQ(cli("detokenize " + golden() + " --skip-special", "[1000, 39, 68, 1002]").out, "He");
  // A character split across byte tokens comes out whole; a dangling lead byte becomes U+FFFD.
  // (Byte tokens in GPT-2 order: bytes 0xAE..0xFF are ids 106..187, so 0xC3 is 127 and 0xBC is 120.)
  EXPECT_EQ(cli("detokenize " + golden(), "127 120 127").out, "\xC3\xBC\xEF\xBF\xBD");
}

TEST(TokenizerCli, ErrorsAreSpecific) {
  Result r = cli("tokenize " + golden(), "ok \xFF");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("not valid UTF-8 at byte 3"), std::string::npos) << r.err;
  r = cli("detokenize " + golden(), "12 x3 4");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("'x3' at byte 3 of the input is not a token id"), std::string::npos) << r.err;
  r = cli("detokenize " + golden(), "5000");
  EXPECT_NE(r.err.find("token id 5000 is outside the vocabulary of 1003 tokens"), std::string::npos) << r.err;
  r = cli("detokenize " + golden(), "[1, \"a\"]");
  EXPECT_NE(r.err.find("element 1 of the JSON array"), std::string::npos) << r.err;
  r = cli("detokenize " + golden(), "[1, 2");
  EXPECT_NE(r.err.find("not a JSON array"), std::string::npos) << r.err;
  r = cli("tokenize", "");
  EXPECT_NE(r.err.find("no MODEL given"), std::string::npos) << r.err;
  r = cli("tokenize " + golden() + " --frobnicate", "");
  EXPECT_NE(r.err.find("unknown option '--frobnicate'"), std::string::npos) << r.err;
  r = cli("tokenize /nonexistent/model.gguf", "");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("/nonexistent/model.gguf"), std::string::npos) << r.err;
}

TEST(TokenizerCli, SyntheticModelWithLlama3Vocabulary) {
  auto json = trit::test::llama3_tokenizer_json();
  ASSERT_TRUE(std::filesystem::exists(json)) << json << " is missing: run scripts/setup.sh";
  auto model = trit::test::scratch_dir("tokenizer_cli_llama3") / "llama3-tiny.gguf";
  Result r = cli("make-model '" + model.string() + "' --shape tiny --vocab 'llama3:" + json.string() + "'", "");
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string m = "'" + model.string() + "'";
  // Expected ids from the JavaScript reference tokenizer.
  r = cli("tokenize " + m, "Hello, world!");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "9906 11 1917 0\n");
  EXPECT_EQ(cli("tokenize " + m + " --bos --special --json", "<|eot_id|>hi").out, "[128000,128009,6151]\n");
  EXPECT_EQ(cli("tokenize " + m, "<|eot_id|>").out, "27 91 68 354 851 91 29\n");
  const std::string text = "Zürich, 東京 & 👩‍💻 — it's 12345!\r\n\tend ";
  r = cli("tokenize " + m + " --json", text);
  EXPECT_EQ(cli("detokenize " + m, r.out).out, text);
}

}  // namespace
