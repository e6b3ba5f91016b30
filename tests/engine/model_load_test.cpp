// Model::open and the BitNet validation: the golden files load with the shapes their README lists, and each
// inconsistent model is rejected with its specific reason (one test each).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <limits>

#include "gguf/f16_scan.h"
#include "gguf/i2s_scan.h"
#include "gguf/model_loader.h"
#include "gguf/ternary_blocks.h"
#include "gguf_test_builder.h"
#include "test_support.h"
#include "trit/gguf.h"
#include "trit/model.h"
#include "trit/tokenizer.h"

using namespace trit;
using namespace trit::test;

namespace {

std::string load_error(const std::vector<uint8_t>& bytes) {
  try {
    auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
    gguf_detail::load_model(*f);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(loaded without error)";
}

// Model::open on the bytes written to a scratch file: its error, or "(loaded without error)". Unlike
// load_error, this is everything the engine checks before it runs a model, the tokenizer included.
std::string open_error(const std::string& name, const std::vector<uint8_t>& bytes) {
  const auto path = scratch_dir("ModelOpenError") / (name + ".gguf");
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  try {
    Model::open(path);
  } catch (const ModelError& e) {
    return e.what();
  } catch (const std::exception& e) {
    return std::string("(not a ModelError) ") + e.what();
  }
  return "(loaded without error)";
}

TinySpec byte_level() {
  TinySpec s;
  s.vocab = kTinyByteVocab;
  return s;
}

void put_f32(std::vector<uint8_t>& d, size_t index, float x) {
  std::memcpy(d.data() + 4 * index, &x, 4);
}
void put_f16(std::vector<uint8_t>& d, size_t index, uint16_t h) {
  std::memcpy(d.data() + 2 * index, &h, 2);
}

#define EXPECT_LOAD_ERROR(builder, substr)                                    \
  do {                                                                        \
    std::string err_ = load_error((builder).build());                         \
    EXPECT_NE(err_.find(substr), std::string::npos) << "error was: " << err_; \
  } while (0)

// Sets the 2-bit code of flat element i (spec layout) in I2_S data.
void set_code(std::vector<uint8_t>& d, uint64_t i, unsigned code) {
  uint64_t block = i / 128, pos = i % 128, group = pos / 32, gp = pos % 32;
  unsigned shift = 6 - 2 * static_cast<unsigned>(group);
  uint8_t old = d.at(block * 32 + gp);
  d.at(block * 32 + gp) = static_cast<uint8_t>((old & ~(3u << shift)) | (code << shift));
}

void expect_matrix(const TernaryMatrix& m, uint32_t rows, uint32_t cols) {
  EXPECT_EQ(m.rows, rows);
  EXPECT_EQ(m.cols, cols);
  EXPECT_NE(m.codes, nullptr);
  EXPECT_TRUE(std::isfinite(m.scale) && m.scale > 0.f) << m.scale;
}

void expect_golden(const char* file, uint32_t dim, uint32_t heads, uint32_t kv, uint32_t ffn, uint32_t layers,
                   uint32_t vocab) {
  SCOPED_TRACE(file);
  auto m = Model::open(shared_dir() / "golden" / file);
  const ModelConfig& c = m->config();
  EXPECT_EQ(c.architecture, "bitnet-25");
  EXPECT_EQ(c.dim, dim);
  EXPECT_EQ(c.heads, heads);
  EXPECT_EQ(c.kv_heads, kv);
  EXPECT_EQ(c.head_dim, dim / heads);
  EXPECT_EQ(c.ffn, ffn);
  EXPECT_EQ(c.layers, layers);
  EXPECT_EQ(c.vocab, vocab);
  EXPECT_EQ(c.context, 4096u);
  EXPECT_FLOAT_EQ(c.rms_eps, 1e-5f);
  EXPECT_FLOAT_EQ(c.rope_base, 500000.f);
  EXPECT_EQ(c.bos, static_cast<int32_t>(vocab - 3));  // the README: the last three ids are BOS, EOT-ish specials
  EXPECT_EQ(c.eot, static_cast<int32_t>(vocab - 1));  // "<|eot_id|>"
  const ModelWeights& w = m->weights();
  ASSERT_EQ(w.layers.size(), layers);
  const GgufFile& f = m->file();
  // Zero-copy: the embedding and the codes point into the mapped file.
  EXPECT_EQ(static_cast<const void*>(w.token_embd), f.tensor_data(*f.find_tensor("token_embd.weight")).data());
  EXPECT_EQ(w.output_norm.size(), dim);
  for (uint32_t l = 0; l < layers; ++l) {
    const LayerWeights& lw = w.layers[l];
    const uint32_t hd = dim / heads;
    EXPECT_EQ(lw.attn_norm.size(), dim);
    EXPECT_EQ(lw.attn_sub_norm.size(), heads * hd);
    EXPECT_EQ(lw.ffn_norm.size(), dim);
    EXPECT_EQ(lw.ffn_sub_norm.size(), ffn);
    expect_matrix(lw.wq, heads * hd, dim);
    expect_matrix(lw.wk, kv * hd, dim);
    expect_matrix(lw.wv, kv * hd, dim);
    expect_matrix(lw.wo, dim, heads * hd);
    expect_matrix(lw.gate, ffn, dim);
    expect_matrix(lw.up, ffn, dim);
    expect_matrix(lw.down, dim, ffn);
    const auto* t = f.find_tensor("blk." + std::to_string(l) + ".ffn_down.weight");
    EXPECT_EQ(lw.down.codes, f.tensor_data(*t).data());
    float tail;
    std::memcpy(&tail, f.tensor_data(*t).data() + uint64_t{dim} * ffn / 4, 4);
    EXPECT_EQ(lw.down.scale, tail);
  }
}

}  // namespace

// ---- valid models ----

TEST(ModelLoad, GoldenA) {
  expect_golden("golden-a.gguf", 512, 4, 1, 1408, 3, 1003);
}
TEST(ModelLoad, GoldenB) {
  expect_golden("golden-b.gguf", 1280, 10, 2, 3456, 2, 2051);
}

TEST(ModelLoad, TinyModelReadsEveryHyperParameterFromMetadata) {
  TinySpec s;
  s.dim = 256;
  s.heads = 4;
  s.kv_heads = 2;
  s.ffn = 384;
  s.layers = 2;
  s.vocab = 9;
  auto b = tiny_model(s);
  b.f32("bitnet-25.attention.layer_norm_rms_epsilon", 1e-6f).f32("bitnet-25.rope.freq_base", 12345.f);
  auto bytes = b.build();
  auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
  auto m = gguf_detail::load_model(*f);
  const auto& c = m.config;
  EXPECT_EQ(c.name, "tiny");
  EXPECT_EQ(c.dim, 256u);
  EXPECT_EQ(c.heads, 4u);
  EXPECT_EQ(c.kv_heads, 2u);
  EXPECT_EQ(c.head_dim, 64u);
  EXPECT_EQ(c.ffn, 384u);
  EXPECT_EQ(c.layers, 2u);
  EXPECT_EQ(c.vocab, 9u);
  EXPECT_EQ(c.context, 256u);
  EXPECT_FLOAT_EQ(c.rms_eps, 1e-6f);
  EXPECT_FLOAT_EQ(c.rope_base, 12345.f);
  EXPECT_EQ(c.bos, 6);
  EXPECT_EQ(c.eos, 7);
  EXPECT_EQ(c.eot, 8);  // found by the token's text: the file has no eot_token_id
  EXPECT_FLOAT_EQ(m.weights.layers[1].up.scale, 0.5f);
  EXPECT_TRUE(m.owned_norms.empty());  // F32 norms are views, not copies
}

TEST(ModelLoad, ArchitectureBitnetB158) {
  TinySpec s;
  s.arch = "bitnet-b1.58";
  auto bytes = tiny_model(s).build();
  auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
  EXPECT_EQ(gguf_detail::load_model(*f).config.architecture, "bitnet-b1.58");
}

TEST(ModelLoad, OptionalKeysTakeGgufDefaults) {
  auto b = tiny_model();
  b.remove_kv("bitnet-25.attention.head_count_kv");
  b.remove_kv("bitnet-25.rope.freq_base");
  b.remove_kv("tokenizer.ggml.bos_token_id");
  TinySpec s;
  s.kv_heads = s.heads;  // no grouping when head_count_kv is absent: K/V have heads*hd rows
  auto full = tiny_model(s);
  for (const char* t : {"blk.0.attn_k.weight", "blk.0.attn_v.weight"}) *b.find_tensor(t) = *full.find_tensor(t);
  auto bytes = b.build();
  auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
  auto c = gguf_detail::load_model(*f).config;
  EXPECT_EQ(c.kv_heads, c.heads);
  EXPECT_FLOAT_EQ(c.rope_base, 10000.f);
  EXPECT_EQ(c.bos, -1);
}

TEST(ModelLoad, F16NormsAreWidened) {
  auto b = tiny_model();
  auto* t = b.find_tensor("blk.0.ffn_norm.weight");
  t->type = kTF16;
  t->data = Bytes().put<uint16_t>(0x3c00).put<uint16_t>(0xc000).put<uint16_t>(0x0001).v;  // 1, -2, 2^-24
  t->data.resize(128 * 2, 0);
  auto bytes = b.build();
  auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
  auto m = gguf_detail::load_model(*f);
  auto norm = m.weights.layers[0].ffn_norm;
  ASSERT_EQ(norm.size(), 128u);
  EXPECT_EQ(norm[0], 1.f);
  EXPECT_EQ(norm[1], -2.f);
  EXPECT_EQ(norm[2], std::ldexp(1.f, -24));
  EXPECT_EQ(norm[3], 0.f);
  EXPECT_EQ(m.owned_norms.size(), 1u);
}

TEST(ModelLoad, ModelOpenPrefixesErrorsWithThePath) {
  TinySpec valid;  // a vocabulary the tokenizer accepts: Model::open builds it
  valid.vocab = kTinyByteVocab;
  auto v = tiny_model(valid).build();
  auto dir = scratch_dir("ModelOpenPrefixesErrorsWithThePath");
  std::ofstream(dir / "ok.gguf", std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
  EXPECT_EQ(Model::open(dir / "ok.gguf")->config().dim, 128u);
  auto b = tiny_model();
  b.remove_tensor("blk.0.ffn_up.weight");
  v = b.build();
  std::ofstream(dir / "bad.gguf", std::ios::binary)
      .write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size()));
  try {
    Model::open(dir / "bad.gguf");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "bad.gguf").string() + ": missing tensor 'blk.0.ffn_up.weight'");
  }
}

TEST(ModelLoad, GoldenCopyWithCode3IsRejected) {
  auto src = shared_dir() / "golden" / "golden-a.gguf";
  auto f = GgufFile::open(src);
  const auto* t = f->find_tensor("blk.2.ffn_up.weight");
  ASSERT_NE(t, nullptr);
  std::ifstream in(src, std::ios::binary);
  std::vector<uint8_t> v{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const uint64_t e = 512 * 700 + 300;  // row 700, column 300
  std::vector<uint8_t> codes(v.begin() + static_cast<std::ptrdiff_t>(t->offset),
                             v.begin() + static_cast<std::ptrdiff_t>(t->offset + t->size_bytes));
  ASSERT_EQ(codes.size(), 512u * 1408 / 4 + 32);
  set_code(codes, e, 3);
  std::copy(codes.begin(), codes.end(), v.begin() + static_cast<std::ptrdiff_t>(t->offset));
  EXPECT_EQ(load_error(v),
            "tensor blk.2.ffn_up.weight contains the invalid I2_S code 3 at element 358700 (row 700, column 300)");
}

// ---- the code-3 scan ----

TEST(I2sScan, FindsTheFirstElementInSpecOrder) {
  std::vector<uint8_t> d(32 * 1000 + 32, 0x55);  // all codes 1 (weight 0)
  EXPECT_EQ(gguf_detail::find_i2s_code3(d), std::nullopt);
  // Two hits in one block: element order is group-major, so group 0 at byte 31 precedes group 1 at byte 0.
  set_code(d, 777 * 128 + 32 + 0, 3);  // group 1, byte 0
  set_code(d, 777 * 128 + 31, 3);      // group 0, byte 31
  set_code(d, 900 * 128 + 5, 3);
  EXPECT_EQ(gguf_detail::find_i2s_code3(d), 777u * 128 + 31);
}

TEST(I2sScan, EveryPositionAndSizeIsCovered) {
  for (size_t n : {1u, 31u, 32u, 63u, 64u, 4095u, 4096u, 4097u, 8192u + 96u}) {
    for (size_t b : {size_t{0}, n / 2, n - 1}) {
      for (unsigned group = 0; group < 4; ++group) {
        std::vector<uint8_t> d(n, 0x99);  // codes 2,1,2,1
        d[b] = static_cast<uint8_t>(d[b] | (3u << (6 - 2 * group)));
        auto e = gguf_detail::find_i2s_code3(d);
        ASSERT_TRUE(e.has_value()) << n << " " << b << " " << group;
        EXPECT_EQ(*e, b / 32 * 128 + group * 32 + b % 32);
      }
    }
  }
}

// ---- the non-finite F16 scan ----

TEST(F16Scan, EveryPositionSizeAndKindIsCovered) {
  // NaN, +inf, -inf, a NaN with payload; 0x7BFF (65504, the largest finite half) and -0 are finite.
  for (size_t n : {1u, 15u, 16u, 17u, 2047u, 2048u, 2049u, 4096u + 48u}) {
    std::vector<uint8_t> d(2 * n);
    for (size_t i = 0; i < n; ++i) put_f16(d, i, i % 3 == 0 ? 0x7BFF : (i % 3 == 1 ? 0x8000 : 0x3C00));
    ASSERT_EQ(gguf_detail::find_nonfinite_f16(d), std::nullopt) << n;
    for (size_t at : {size_t{0}, n / 2, n - 1}) {
      for (uint16_t bad : {uint16_t{0x7E00}, uint16_t{0x7C00}, uint16_t{0xFC00}, uint16_t{0x7C01}}) {
        auto e = d;
        put_f16(e, at, bad);
        if (at + 1 < n) put_f16(e, n - 1, 0x7C00);  // a later hit must not hide the first
        auto i = gguf_detail::find_nonfinite_f16(e);
        ASSERT_TRUE(i.has_value()) << n << " " << at << " " << bad;
        EXPECT_EQ(*i, at) << n << " " << bad;
      }
    }
  }
}

// ---- inconsistent models ----

TEST(ModelLoadBad, ShapeMismatchAttnQ) {
  auto b = tiny_model();
  auto* t = b.find_tensor("blk.0.attn_q.weight");
  t->shape = {128, 64};
  t->data = i2s_data(128 * 64, 0.5f);
  EXPECT_LOAD_ERROR(b, "tensor 'blk.0.attn_q.weight' has shape [128, 64], expected [128, 128] (dim x heads*head_dim)");
}

TEST(ModelLoadBad, F16WhereI2sExpected) {
  auto b = tiny_model();
  auto* t = b.find_tensor("blk.0.ffn_gate.weight");
  t->type = kTF16;
  t->data = f16_data(128 * 256);
  EXPECT_LOAD_ERROR(b,
                    "tensor 'blk.0.ffn_gate.weight' has type F16, not a ternary weight format (I2_S, TQ2_0 or TQ1_0)");
}

TEST(ModelLoadBad, I2sCode3) {
  auto b = tiny_model();
  set_code(b.find_tensor("blk.0.ffn_up.weight")->data, 5 * 128 + 77, 3);
  EXPECT_LOAD_ERROR(b, "tensor blk.0.ffn_up.weight contains the invalid I2_S code 3 at element 717 (row 5, column 77)");
}

TEST(ModelLoadBad, I2sScaleNotPositive) {
  auto b = tiny_model();
  auto& d = b.find_tensor("blk.0.attn_k.weight")->data;
  float zero = 0.f;
  std::memcpy(d.data() + 128 * 64 / 4, &zero, 4);
  EXPECT_LOAD_ERROR(b, "tensor 'blk.0.attn_k.weight' has invalid I2_S scale 0.000000");
}

TEST(ModelLoadBad, I2sScaleNaN) {
  auto b = tiny_model();
  auto& d = b.find_tensor("blk.0.attn_v.weight")->data;
  float nan = std::nanf("");
  std::memcpy(d.data() + 128 * 64 / 4, &nan, 4);
  EXPECT_LOAD_ERROR(b, "tensor 'blk.0.attn_v.weight' has invalid I2_S scale nan");
}

TEST(ModelLoadBad, DimNotDivisibleByHeads) {
  auto b = tiny_model();
  b.u32("bitnet-25.attention.head_count", 3);
  EXPECT_LOAD_ERROR(b,
                    "inconsistent hyper-parameters: embedding_length 128 is not divisible by attention.head_count 3");
}

TEST(ModelLoadBad, HeadsNotDivisibleByKvHeads) {
  TinySpec s;
  s.dim = 384;
  s.heads = 6;
  auto b = tiny_model(s);
  b.u32("bitnet-25.attention.head_count_kv", 4);
  EXPECT_LOAD_ERROR(
      b, "inconsistent hyper-parameters: attention.head_count 6 is not divisible by attention.head_count_kv 4");
}

TEST(ModelLoadBad, OddHeadDim) {
  auto b = tiny_model();
  b.u32("bitnet-25.attention.head_count", 128).u32("bitnet-25.attention.head_count_kv", 128);
  EXPECT_LOAD_ERROR(b, "head dimension 1 (embedding_length / head_count) is odd");
}

TEST(ModelLoadBad, ZeroBlockCount) {
  auto b = tiny_model();
  b.u32("bitnet-25.block_count", 0);
  EXPECT_LOAD_ERROR(b, "metadata key 'bitnet-25.block_count' is 0; it must be positive");
}

TEST(ModelLoadBad, BlockCountBelowTheTensors) {
  TinySpec s;
  s.layers = 2;
  auto b = tiny_model(s);
  b.u32("bitnet-25.block_count", 1);
  EXPECT_LOAD_ERROR(b, "tensor 'blk.1.attn_norm.weight' belongs to layer 1, but block_count is 1");
}

TEST(ModelLoadBad, RopeDimensionDisagrees) {
  auto b = tiny_model();
  b.u32("bitnet-25.rope.dimension_count", 32);
  EXPECT_LOAD_ERROR(b, "rope.dimension_count 32 differs from the head dimension 64");
}

TEST(ModelLoadBad, KNotMultipleOf128) {
  TinySpec s;
  s.dim = 192;
  s.heads = 2;
  EXPECT_LOAD_ERROR(tiny_model(s), "tensor 'blk.0.attn_q.weight' has K = 192 inputs per row, not a multiple of 128");
}

TEST(ModelLoadBad, MissingTensor) {
  auto b = tiny_model();
  b.remove_tensor("blk.0.attn_sub_norm.weight");
  EXPECT_LOAD_ERROR(b, "missing tensor 'blk.0.attn_sub_norm.weight'");
}

TEST(ModelLoadBad, MissingHyperParameter) {
  auto b = tiny_model();
  b.remove_kv("bitnet-25.embedding_length");
  EXPECT_LOAD_ERROR(b, "metadata key 'bitnet-25.embedding_length' is missing");
}

TEST(ModelLoadBad, HyperParameterOfWrongType) {
  auto b = tiny_model();
  b.str("bitnet-25.feed_forward_length", "256");
  EXPECT_LOAD_ERROR(b, "metadata key 'bitnet-25.feed_forward_length' has type string, expected u32");
}

TEST(ModelLoadBad, UnknownArchitecture) {
  auto b = tiny_model();
  b.str("general.architecture", "qwen2");
  EXPECT_LOAD_ERROR(b,
                    "unknown architecture 'qwen2' (general.architecture): supported are bitnet-25, bitnet-b1.58 and "
                    "llama with ternary weights");
}

TEST(ModelLoadBad, BitnetArchitectureRefusedByName) {
  TinySpec s;
  s.arch = "bitnet";
  EXPECT_LOAD_ERROR(tiny_model(s),
                    "architecture 'bitnet' (1bitLLM's BitNet b1.58 with a SentencePiece vocabulary) is not supported");
}

TEST(ModelLoadBad, EmptyVocabulary) {
  auto b = tiny_model();
  b.str_array("tokenizer.ggml.tokens", {});
  EXPECT_LOAD_ERROR(b, "metadata key 'tokenizer.ggml.tokens' is empty");
}

TEST(ModelLoadBad, VocabDisagreesWithEmbedding) {
  auto b = tiny_model();
  b.str_array("tokenizer.ggml.tokens", tiny_vocab(7));
  EXPECT_LOAD_ERROR(b, "tensor 'token_embd.weight' has shape [128, 6], expected [128, 7] (dim x vocab)");
}

TEST(ModelLoadBad, VocabSizeKeyDisagreesWithTokens) {
  auto b = tiny_model();
  b.u32("bitnet-25.vocab_size", 5);
  EXPECT_LOAD_ERROR(b, "bitnet-25.vocab_size 5 differs from the 6 entries of tokenizer.ggml.tokens");
}

TEST(ModelLoadBad, EmbeddingNotF16) {
  auto b = tiny_model();
  auto* t = b.find_tensor("token_embd.weight");
  t->type = kTF32;
  t->data = f32_data(128 * 6);
  EXPECT_LOAD_ERROR(b, "tensor 'token_embd.weight' has type F32, expected F16");
}

TEST(ModelLoadBad, NormOfWrongType) {
  auto b = tiny_model();
  auto* t = b.find_tensor("output_norm.weight");
  t->type = kTI2_S;
  t->data = i2s_data(128, 1.f);
  EXPECT_LOAD_ERROR(b, "tensor 'output_norm.weight' has type I2_S, expected F32 (or F16)");
}

TEST(ModelLoadBad, BosOutsideVocabulary) {
  auto b = tiny_model();
  b.u32("tokenizer.ggml.bos_token_id", 6);
  EXPECT_LOAD_ERROR(b, "metadata key 'tokenizer.ggml.bos_token_id' = 6 is outside the vocabulary (6 tokens)");
}

TEST(ModelLoadBad, BadEpsilon) {
  auto b = tiny_model();
  b.f32("bitnet-25.attention.layer_norm_rms_epsilon", -1.f);
  EXPECT_LOAD_ERROR(b, "attention.layer_norm_rms_epsilon' = -1.000000 is not a sane epsilon");
}

// ---- issue 27: the architecture description, the untied head, the TQ formats ----

TEST(ModelLoad, UntiedOutputIsTheHead) {
  auto b = tiny_model();
  b.tensor("output.weight", kTF16, {128, 6}, f16_data(128 * 6));
  auto bytes = b.build();
  auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
  const auto m = gguf_detail::load_model(*f);
  EXPECT_FALSE(m.config.arch.tied_head);
  EXPECT_EQ(static_cast<const void*>(m.weights.output), f->tensor_data(*f->find_tensor("output.weight")).data());
  EXPECT_EQ(m.weights.head(), m.weights.output);
}

TEST(ModelLoadBad, UntiedOutputOfTheWrongType) {
  auto b = tiny_model();
  b.tensor("output.weight", kTF32, {128, 6}, f32_data(128 * 6));
  EXPECT_LOAD_ERROR(b, "tensor 'output.weight' has type F32, expected F16");
}

TEST(ModelLoad, LlamaIsSwiGluNormalRopeWithoutSubNorms) {
  TinySpec s;
  s.arch = "llama";
  s.sub_norms = false;
  auto bytes = tiny_model(s).build();
  auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
  const auto m = gguf_detail::load_model(*f);
  EXPECT_EQ(m.config.arch.ffn, FfnKind::SiluGated);
  EXPECT_EQ(m.config.arch.rope, RopeStyle::Normal);
  EXPECT_FALSE(m.config.arch.sub_norms);
  EXPECT_TRUE(m.config.arch.tied_head);
  EXPECT_TRUE(m.weights.layers[0].attn_sub_norm.empty());
  EXPECT_EQ(m.config.weight_format, "I2_S");
  uint64_t elements = 0;
  for (const auto& t : f->tensors()) elements += t.n_elements();
  EXPECT_EQ(m.config.parameters, elements);
}

TEST(ModelLoadBad, SubNormInLlamaHasNoPlace) {
  TinySpec s;
  s.arch = "llama";
  EXPECT_LOAD_ERROR(tiny_model(s), "tensor 'blk.0.attn_sub_norm.weight' has no place in the llama graph");
}

TEST(ModelLoadBad, RopeFrequencyFactorsHaveNoPlace) {
  TinySpec s;
  s.arch = "llama";
  s.sub_norms = false;
  auto b = tiny_model(s);
  b.tensor("rope_freqs.weight", kTF32, {32}, f32_data(32));
  EXPECT_LOAD_ERROR(b, "tensor 'rope_freqs.weight' has no place in the llama graph");
}

TEST(ModelLoadBad, QuantizedLlamaIsNotTernary) {
  TinySpec s;
  s.arch = "llama";
  s.sub_norms = false;
  s.dim = 256;
  auto b = tiny_model(s);
  auto* t = b.find_tensor("blk.0.attn_k.weight");
  t->type = kTQ4_K;
  t->data = std::vector<uint8_t>(128 * 144);  // 128 rows of one 256-element block
  EXPECT_LOAD_ERROR(b,
                    "tensor 'blk.0.attn_k.weight' has type Q4_K, not a ternary weight format (I2_S, TQ2_0 or TQ1_0)");
}

TEST(ModelLoadBad, HeadWidthOtherThanTheHiddenSizesShare) {
  auto b = tiny_model();
  b.u32("bitnet-25.attention.key_length", 128);
  EXPECT_LOAD_ERROR(b, "bitnet-25.attention.key_length 128 differs from embedding_length / head_count = 64");
}

namespace {
// A TQ tensor of rows x cols (cols a multiple of 256) with codes (r + c) % 3 and block scale 0.5.
std::vector<uint8_t> tq_data(WeightFormat f, uint64_t cols, uint64_t rows) {
  const uint64_t bb = ternary::row_bytes(f, ternary::kTqBlock);
  std::vector<uint8_t> d(rows * cols / 256 * bb);
  uint8_t codes[256];
  for (uint64_t r = 0; r < rows; ++r)
    for (uint64_t b = 0; b < cols / 256; ++b) {
      for (int i = 0; i < 256; ++i) codes[i] = static_cast<uint8_t>((r + b * 256 + static_cast<uint64_t>(i)) % 3);
      uint8_t* out = d.data() + (r * cols / 256 + b) * bb;
      if (f == WeightFormat::TQ2_0)
        ternary::encode_tq2_block(codes, 0x3800, out);
      else
        ternary::encode_tq1_block(codes, 0x3800, out);
    }
  return d;
}

GgufBuilder tq_model(WeightFormat f) {
  TinySpec s;
  s.dim = 256;
  s.ffn = 512;
  auto b = tiny_model(s);
  for (const char* name : {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_gate", "ffn_up", "ffn_down"}) {
    auto* t = b.find_tensor("blk.0." + std::string(name) + ".weight");
    t->type = f == WeightFormat::TQ2_0 ? kTTQ2_0 : kTTQ1_0;
    t->data = tq_data(f, t->shape[0], t->shape[1]);
  }
  return b;
}
}  // namespace

TEST(ModelLoad, TqFormatsLoadWithTheirName) {
  for (WeightFormat f : {WeightFormat::TQ2_0, WeightFormat::TQ1_0}) {
    auto bytes = tq_model(f).build();
    auto file = GgufFile::parse(std::span<const uint8_t>(bytes));
    const auto m = gguf_detail::load_model(*file);
    EXPECT_EQ(m.config.weight_format, weight_format_name(f));
    EXPECT_EQ(m.weights.layers[0].down.format, f);
  }
}

TEST(ModelLoadBad, Tq2Code3) {
  auto b = tq_model(WeightFormat::TQ2_0);
  auto& d = b.find_tensor("blk.0.ffn_up.weight")->data;
  d[66 * 2 + 33] |= 3 << 4;  // row 2 (one block a row), half 1, byte 1, n = 2: column 128 + 1 + 64
  EXPECT_LOAD_ERROR(b, "tensor 'blk.0.ffn_up.weight' contains the invalid TQ2_0 code 3 at row 2, column 193");
}

TEST(ModelLoadBad, TqBlockScaleNotFinite) {
  auto b = tq_model(WeightFormat::TQ1_0);
  auto& d = b.find_tensor("blk.0.attn_v.weight")->data;
  put_f16(d, (54 * 3 + 52) / 2, 0x7e00);  // NaN as row 3's block scale (one block a row)
  EXPECT_LOAD_ERROR(b, "tensor 'blk.0.attn_v.weight' has a non-finite TQ1_0 block scale (nan) in row 3, block 0");
}

TEST(ModelLoadBad, BiasIsUnsupported) {
  auto b = tiny_model();
  b.tensor("blk.0.attn_q.bias", kTF32, {128}, f32_data(128));
  EXPECT_LOAD_ERROR(b, "bias tensor 'blk.0.attn_q.bias' is not supported");
}

// ---- issue 30 #4 and #6: what "loadable" means is what the engine runs ----

TEST(ModelLoad, OpenBuildsTheTokenizerItRuns) {
  auto bytes = tiny_model(byte_level()).build();
  auto m = Model::from_file(GgufFile::parse(std::move(bytes), "tiny.gguf"));
  EXPECT_EQ(m->tokenizer().vocab_size(), static_cast<int32_t>(kTinyByteVocab));
  EXPECT_EQ(m->tokenizer().bos(), m->config().bos);
  EXPECT_EQ(m->tokenizer().decode(m->tokenizer().encode("hi!")), "hi!");
}

// A token type of 3841 passed `trit-cli inspect` and the model list, then failed when a chat began.
TEST(ModelLoadBad, TokenizerIsValidatedWhenTheModelOpens) {
  auto b = tiny_model(byte_level());
  auto types = tiny_token_types(kTinyByteVocab);
  types[70] = 3841;
  b.i32_array("tokenizer.ggml.token_type", types);
  const std::string err = open_error("token-type", b.build());
  EXPECT_NE(err.find("bad tokenizer vocabulary: token 70 'F' has token type 3841 (valid: 1..6)"), std::string::npos)
      << err;
  EXPECT_NE(err.find("token-type.gguf"), std::string::npos) << err;  // the file is named
  b = tiny_model(byte_level());
  b.remove_kv("tokenizer.ggml.model");
  EXPECT_NE(open_error("no-tokenizer", b.build()).find("metadata key 'tokenizer.ggml.model' is missing"),
            std::string::npos);
}

// A context_length of 2^31 or more wrapped to a negative int: "context length 0 is outside 1..-1".
TEST(ModelLoadBad, CountsBeyondInt32AreOutOfRange) {
  for (uint32_t v : {0x80000000u, 0xFFFFFFFFu}) {
    auto b = tiny_model();
    b.u32("bitnet-25.context_length", v);
    EXPECT_LOAD_ERROR(b, "metadata key 'bitnet-25.context_length' = " + std::to_string(v) +
                             " is out of range; it must be between 1 and 2147483647");
  }
  auto b = tiny_model();
  b.u32("bitnet-25.feed_forward_length", 0x80000000u);
  EXPECT_LOAD_ERROR(b, "metadata key 'bitnet-25.feed_forward_length' = 2147483648 is out of range");
  b = tiny_model();
  b.u32("bitnet-25.context_length", 0x7FFFFFFFu);  // the largest count is still loadable
  EXPECT_EQ(load_error(b.build()), "(loaded without error)");
}

// NaN or infinity in a norm or the embedding loaded, and the reply was "!!!!!!" (CPU and Vulkan disagreeing).
TEST(ModelLoadBad, NonFiniteNormIsNamedWithItsIndex) {
  auto b = tiny_model();
  put_f32(b.find_tensor("blk.0.ffn_sub_norm.weight")->data, 17, std::numeric_limits<float>::infinity());
  EXPECT_LOAD_ERROR(
      b, "tensor 'blk.0.ffn_sub_norm.weight' holds a non-finite value (inf) at index 17; norm weights must be finite");
  b = tiny_model();
  put_f32(b.find_tensor("output_norm.weight")->data, 127, -std::numeric_limits<float>::infinity());
  EXPECT_LOAD_ERROR(b, "tensor 'output_norm.weight' holds a non-finite value (-inf) at index 127");
  b = tiny_model();
  auto* t = b.find_tensor("blk.0.attn_norm.weight");  // F16 norms are widened, then checked alike
  t->type = kTF16;
  t->data = f16_data(128);
  put_f16(t->data, 3, 0x7E00);
  EXPECT_LOAD_ERROR(b, "tensor 'blk.0.attn_norm.weight' holds a non-finite value (nan) at index 3");
}

TEST(ModelLoadBad, NonFiniteEmbeddingIsNamedWithItsToken) {
  auto b = tiny_model();
  put_f16(b.find_tensor("token_embd.weight")->data, 4 * 128 + 57, 0xFC00);
  EXPECT_LOAD_ERROR(b,
                    "tensor 'token_embd.weight' holds a non-finite value (-inf) at index 569 (token 4, element 57); "
                    "weights must be finite");
}

// `trit-cli inspect` gives the verdict Model::open gives: loadable for a valid file, and for each hostile
// one "not loadable" with the engine's reason and exit 1. Each of these files used to be "loadable".
TEST(InspectCli, VerdictIsModelOpens) {
  const auto dir = scratch_dir("InspectCliVerdict");
  auto inspect = [&](const std::string& name, const std::vector<uint8_t>& bytes, std::string& out) {
    const auto path = dir / (name + ".gguf");
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto log = dir / (name + ".out");
    const std::string cmd =
        std::string("'") + TRIT_CLI_EXE + "' inspect '" + path.string() + "' >'" + log.string() + "' 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(log);
    out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  };
  std::string out;
  EXPECT_EQ(inspect("valid", tiny_model(byte_level()).build(), out), 0) << out;
  EXPECT_NE(out.find("verdict: loadable (bitnet-25, 1 layers"), std::string::npos) << out;

  auto b = tiny_model(byte_level());
  auto types = tiny_token_types(kTinyByteVocab);
  types[70] = 3841;
  b.i32_array("tokenizer.ggml.token_type", types);
  EXPECT_EQ(inspect("token-type", b.build(), out), 1) << out;
  EXPECT_NE(out.find("verdict: not loadable: "), std::string::npos) << out;
  EXPECT_NE(out.find("token 70 'F' has token type 3841 (valid: 1..6)"), std::string::npos) << out;

  b = tiny_model(byte_level());
  b.u32("bitnet-25.context_length", 0x80000000u);
  EXPECT_EQ(inspect("context", b.build(), out), 1) << out;
  EXPECT_NE(out.find("verdict: not loadable: "), std::string::npos) << out;
  EXPECT_NE(out.find("metadata key 'bitnet-25.context_length' = 2147483648 is out of range"), std::string::npos) << out;

  b = tiny_model(byte_level());
  put_f32(b.find_tensor("blk.0.attn_sub_norm.weight")->data, 9, std::nanf(""));
  EXPECT_EQ(inspect("nan-norm", b.build(), out), 1) << out;
  EXPECT_NE(out.find("verdict: not loadable: "), std::string::npos) << out;
  EXPECT_NE(out.find("tensor 'blk.0.attn_sub_norm.weight' holds a non-finite value (nan) at index 9"),
            std::string::npos)
      << out;

  b = tiny_model(byte_level());
  put_f16(b.find_tensor("token_embd.weight")->data, 3 * 128 + 1, 0x7C00);
  EXPECT_EQ(inspect("inf-embedding", b.build(), out), 1) << out;
  EXPECT_NE(out.find("tensor 'token_embd.weight' holds a non-finite value (inf) at index 385 (token 3, element 1)"),
            std::string::npos)
      << out;
}
