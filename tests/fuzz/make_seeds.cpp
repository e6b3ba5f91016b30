// Writes the fuzzers' GGUF seed corpus at test time (nothing binary in git): tiny valid BitNet models in
// several variants built with the test GGUF builder, a tokenizer's keys alone, plus the
// header/metadata/tensor-table prefix of golden-a.
// usage: gguf_fuzz_seeds OUT_DIR [GOLDEN_A]
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "gguf_test_builder.h"

using namespace trit::test;

namespace {

void write(const std::filesystem::path& p, const std::vector<uint8_t>& v) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gguf_fuzz_seeds OUT_DIR [GOLDEN_A]\n");
    return 2;
  }
  std::filesystem::path out = argv[1];
  std::filesystem::create_directories(out);

  write(out / "tiny.gguf", tiny_model().build());
  TinySpec gqa;
  gqa.heads = 4;
  gqa.kv_heads = 2;
  gqa.layers = 2;
  gqa.arch = "bitnet-b1.58";
  write(out / "tiny-gqa.gguf", tiny_model(gqa).build());

  auto f16 = tiny_model();
  auto* t = f16.find_tensor("output_norm.weight");
  t->type = kTF16;
  t->data = f16_data(128);
  write(out / "tiny-f16-norm.gguf", f16.build());

  // Every metadata value type, nested arrays and a misaligned-by-design alignment of 8.
  GgufBuilder kinds;
  kinds.u32("general.alignment", 8);
  kinds.alignment = 8;
  kinds.kv("u8", kU8, Bytes().put<uint8_t>(7).v).kv("i16", kI16, Bytes().put<int16_t>(-3).v);
  kinds.kv("u64", kU64, Bytes().put<uint64_t>(1ull << 40).v).kv("f64", kF64, Bytes().put(0.5).v);
  kinds.kv("b", kBool, Bytes().put<uint8_t>(1).v).str("s", "text").str_array("sa", {"x", "yy"});
  Bytes nested;
  nested.put<uint32_t>(kArray).put<uint64_t>(2);
  nested.put<uint32_t>(kU16).put<uint64_t>(1).put<uint16_t>(9);
  nested.put<uint32_t>(kString).put<uint64_t>(1).str("z");
  kinds.kv("nested", kArray, nested.v);
  kinds.tensor("a", kTF32, {2, 2}, f32_data(4)).tensor("b", kTBF16, {3}, std::vector<uint8_t>(6));
  kinds.tensor("c", kTI2_S, {128}, i2s_data(128, 1.f));
  write(out / "value-kinds.gguf", kinds.build());

  // A tokenizer's keys alone (vocab_fuzz): the byte tokens, merged tokens with their merges ("Ġa" is
  // " a"), one spelling twice and one added token, and the special ids.
  GgufBuilder vocab;
  std::vector<std::string> tokens = tiny_vocab(kTinyByteVocab);
  std::vector<int32_t> types = tiny_token_types(kTinyByteVocab);
  for (const char* token : {"ab", "abc",
                            "\xc4\xa0"
                            "a",
                            "\xc4\xa0"
                            "ab",
                            "ab", "<tool>"}) {
    tokens.push_back(token);
    types.push_back(std::string_view(token) == "<tool>" ? 4 : 1);
  }
  vocab.str("tokenizer.ggml.model", "gpt2").str("tokenizer.ggml.pre", "llama-bpe");
  vocab.str_array("tokenizer.ggml.tokens", tokens).i32_array("tokenizer.ggml.token_type", types);
  vocab.str_array("tokenizer.ggml.merges", {"a b", "ab c", "\xc4\xa0 a",
                                            "\xc4\xa0"
                                            "a b",
                                            "a b"});
  vocab.u32("tokenizer.ggml.bos_token_id", 256).u32("tokenizer.ggml.eos_token_id", 257);
  vocab.u32("tokenizer.ggml.eot_token_id", 258);
  write(out / "vocab-merges.gguf", vocab.build());

  if (argc > 2) {  // golden-a's header, metadata and tensor table (the data section would only slow fuzzing)
    std::ifstream in(argv[2], std::ios::binary);
    std::vector<uint8_t> g{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (g.size() > 40000) g.resize(40000);
    write(out / "golden-a-prefix.gguf", g);
  }
  return 0;
}
