// The GGUF reader on valid files (every value type, the golden files) and on a corpus of broken ones,
// one test each, asserting the specific error.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <future>
#include <iterator>

#include "gguf_test_builder.h"
#include "test_support.h"
#include "trit/gguf.h"

using namespace trit;
using namespace trit::test;

namespace {

std::vector<uint8_t> read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> golden_a() {
  return read_file(shared_dir() / "golden" / "golden-a.gguf");
}

std::string parse_error(std::vector<uint8_t> bytes) {
  try {
    GgufFile::parse(std::move(bytes));
  } catch (const GgufError& e) {
    return e.what();
  }
  return "(parsed without error)";
}

#define EXPECT_ERROR(bytes, substr)                                           \
  do {                                                                        \
    std::string err_ = parse_error(bytes);                                    \
    EXPECT_NE(err_.find(substr), std::string::npos) << "error was: " << err_; \
  } while (0)

// Offset of the first occurrence of `needle` in `hay`.
size_t find_bytes(const std::vector<uint8_t>& hay, const std::string& needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end());
  EXPECT_NE(it, hay.end()) << needle;
  return static_cast<size_t>(it - hay.begin());
}

std::vector<uint8_t> cut(std::vector<uint8_t> v, size_t n) {
  v.resize(n);
  return v;
}

GgufBuilder one_tensor() {
  GgufBuilder b;
  b.str("general.architecture", "test");
  b.tensor("t", kTF32, {4}, f32_data(4));
  return b;
}

}  // namespace

// ---- valid files ----

TEST(GgufReader, ParsesEveryValueType) {
  GgufBuilder b;
  b.kv("u8", kU8, Bytes().put<uint8_t>(200).v).kv("i8", kI8, Bytes().put<int8_t>(-5).v);
  b.kv("u16", kU16, Bytes().put<uint16_t>(60000).v).kv("i16", kI16, Bytes().put<int16_t>(-30000).v);
  b.u32("u32", 4000000000u).i32("i32", -7).f32("f32", 1.5f).kv("bool", kBool, Bytes().put<uint8_t>(1).v);
  b.str("string", "héllo").kv("u64", kU64, Bytes().put<uint64_t>(1ull << 40).v);
  b.kv("i64", kI64, Bytes().put<int64_t>(-(1ll << 40)).v).kv("f64", kF64, Bytes().put(2.25).v);
  b.str_array("strs", {"a", "", "ccc"}).i32_array("ints", {1, -2, 3});
  Bytes nested;  // [[1, 2], [3]] as arrays of u16
  nested.put<uint32_t>(kArray).put<uint64_t>(2);
  nested.put<uint32_t>(kU16).put<uint64_t>(2).put<uint16_t>(1).put<uint16_t>(2);
  nested.put<uint32_t>(kU16).put<uint64_t>(1).put<uint16_t>(3);
  b.kv("nested", kArray, nested.v);
  auto f = GgufFile::parse(b.build());
  const auto& md = f->metadata();
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(md.entries().size(), 15u);
  EXPECT_EQ(md.get_u32("u8"), 200u);
  EXPECT_EQ(md.get_i32("i8"), -5);
  EXPECT_EQ(md.get_u32("u16"), 60000u);
  EXPECT_EQ(md.get_i32("i16"), -30000);
  EXPECT_EQ(md.get_u32("u32"), 4000000000u);
  EXPECT_EQ(md.get_i64("u32"), 4000000000ll);  // any integer type that fits
  EXPECT_EQ(md.get_i32("i32"), -7);
  EXPECT_FLOAT_EQ(md.get_f32("f32"), 1.5f);
  EXPECT_FLOAT_EQ(md.get_f32("u16"), 60000.f);  // integers convert to float
  EXPECT_TRUE(md.get_bool("bool"));
  EXPECT_EQ(md.get_string("string"), "héllo");
  EXPECT_EQ(md.get_u64("u64"), 1ull << 40);
  EXPECT_EQ(md.get_i64("i64"), -(1ll << 40));
  EXPECT_DOUBLE_EQ(md.get_f64("f64"), 2.25);
  EXPECT_EQ(md.get_string_array("strs"), (std::vector<std::string_view>{"a", "", "ccc"}));
  EXPECT_EQ(md.get_i32_array("ints"), (std::vector<int32_t>{1, -2, 3}));
  EXPECT_EQ(md.get_f32_array("ints"), (std::vector<float>{1.f, -2.f, 3.f}));
  const GgufArray& outer = md.get_array("nested");
  ASSERT_EQ(outer.size(), 2u);
  ASSERT_EQ(outer.elem_type(), GgufValueType::ARRAY);
  EXPECT_EQ(outer.array_at(0).as_array()->uint_at(1), 2u);
  EXPECT_EQ(outer.array_at(1).as_array()->uint_at(0), 3u);
  EXPECT_EQ(md.find_u32("absent"), std::nullopt);
  EXPECT_EQ(md.find("absent"), nullptr);
  EXPECT_EQ(md.find("nested")->to_string(), "[array x 2] [[u16 x 2] [1, 2], [u16 x 1] [3]]");
}

TEST(GgufReader, GettersNameTheKeyAndTheProblem) {
  GgufBuilder b;
  b.str("s", "x").i32("neg", -1).kv("big", kU64, Bytes().put<uint64_t>(1ull << 33).v).i32_array("ints", {1, -2});
  auto f = GgufFile::parse(b.build());
  const auto& md = f->metadata();
  auto msg = [](auto fn) {
    try {
      fn();
    } catch (const GgufError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_EQ(msg([&] { md.get_u32("nope"); }), "metadata key 'nope' is missing");
  EXPECT_EQ(msg([&] { md.get_u32("s"); }), "metadata key 's' has type string, expected u32");
  EXPECT_EQ(msg([&] { md.get_u32("neg"); }), "metadata key 'neg' = -1 is out of range for u32");
  EXPECT_EQ(msg([&] { md.get_u32("big"); }), "metadata key 'big' = 8589934592 is out of range for u32");
  EXPECT_EQ(msg([&] { md.get_string("neg"); }), "metadata key 'neg' has type i32, expected string");
  EXPECT_EQ(msg([&] { md.get_string_array("ints"); }),
            "metadata key 'ints' is an array of i32, expected an array of strings");
  EXPECT_EQ(msg([&] { md.get_u32_array("ints"); }), "metadata key 'ints' element 1 is out of range for u32");
  EXPECT_EQ(md.get_u64("big"), 1ull << 33);
}

TEST(GgufReader, TensorDataIsZeroCopyAndAligned) {
  auto bytes = tiny_model().build();
  auto f = GgufFile::parse(std::span<const uint8_t>(bytes));
  EXPECT_EQ(f->alignment(), 32u);
  EXPECT_EQ(f->data_offset() % 32, 0u);
  const auto* t = f->find_tensor("blk.0.attn_q.weight");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->type, GgmlType::I2_S);
  EXPECT_EQ(t->shape, (std::vector<uint64_t>{128, 128}));
  EXPECT_EQ(t->size_bytes, 128u * 128 / 4 + 32);
  auto d = f->tensor_data(*t);
  EXPECT_EQ(d.data(), bytes.data() + t->offset);  // a view of the caller's bytes, not a copy
  EXPECT_EQ(t->offset % 32, 0u);
  EXPECT_EQ(f->find_tensor("nope"), nullptr);
}

TEST(GgufReader, OpensGoldenFilesByMmap) {
  for (const char* name : {"golden-a.gguf", "golden-b.gguf"}) {
    auto path = shared_dir() / "golden" / name;
    auto f = GgufFile::open(path);
    EXPECT_EQ(f->version(), 3u);
    EXPECT_EQ(f->file_size(), std::filesystem::file_size(path));
    EXPECT_EQ(f->metadata().get_string("general.architecture"), "bitnet-25");
    EXPECT_EQ(f->data_offset() % f->alignment(), 0u);
    EXPECT_NE(f->find_tensor("token_embd.weight"), nullptr);
  }
  EXPECT_EQ(GgufFile::open(shared_dir() / "golden" / "golden-a.gguf")->tensors().size(), 35u);
  EXPECT_EQ(GgufFile::open(shared_dir() / "golden" / "golden-b.gguf")->tensors().size(), 24u);
}

TEST(GgufReader, OpenNamesMissingFile) {
  try {
    GgufFile::open("/nonexistent/model.gguf");
    FAIL();
  } catch (const GgufError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open '/nonexistent/model.gguf'"), std::string::npos) << e.what();
  }
}

TEST(GgufReader, OpenRejectsEmptyFileAndDirectory) {
  auto dir = scratch_dir("GgufOpenRejectsEmptyFileAndDirectory");
  std::ofstream(dir / "empty.gguf").close();
  auto msg = [](const std::filesystem::path& p) {
    try {
      GgufFile::open(p);
    } catch (const GgufError& e) {
      return std::string(e.what());
    }
    return std::string("(opened)");
  };
  EXPECT_EQ(msg(dir / "empty.gguf"), "'" + (dir / "empty.gguf").string() + "' is empty, not a GGUF file");
  EXPECT_EQ(msg(dir), "'" + dir.string() + "' is not a regular file (it is a directory), so it cannot be a model");
}

// A FIFO named like a model must be refused at once: opening it for reading used to wait for a writer
// forever (trit-cli inspect and trit --model hung). The open runs on a thread so that the old behaviour
// fails the test instead of hanging it; a writer is then attached to release the blocked thread.
TEST(GgufReader, OpenRefusesFifoWithoutBlocking) {
  auto dir = scratch_dir("GgufOpenRefusesFifo");
  const auto fifo = dir / "x.gguf";
  std::filesystem::remove(fifo);
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0) << std::strerror(errno);
  auto opened = std::async(std::launch::async, [&] {
    try {
      GgufFile::open(fifo);
    } catch (const GgufError& e) {
      return std::string(e.what());
    }
    return std::string("(opened)");
  });
  if (opened.wait_for(std::chrono::seconds(5)) != std::future_status::ready) {
    const int w = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // unblocks the reader's open()
    opened.wait();
    if (w >= 0) ::close(w);
    FAIL() << "GgufFile::open blocked on a FIFO";
  }
  EXPECT_EQ(opened.get(),
            "'" + fifo.string() + "' is not a regular file (it is a FIFO (named pipe)), so it cannot be a model");
}

TEST(GgufReader, MetadataOnlyFileParses) {
  GgufBuilder b;  // a vocabulary-only file: no tensors, and it ends before any data-section padding
  b.str_array("tokenizer.ggml.tokens", {"a", "b"});
  auto v = b.build();
  while (v.back() == 0) v.pop_back();  // drop the builder's padding: the file ends with the token "b"
  ASSERT_NE(v.size() % 32, 0u);
  auto f = GgufFile::parse(std::move(v));
  EXPECT_TRUE(f->tensors().empty());
  EXPECT_EQ(f->metadata().get_string_array("tokenizer.ggml.tokens").size(), 2u);
}

// ---- header ----

TEST(GgufReaderBad, TruncatedInMagic) {
  EXPECT_ERROR(cut(golden_a(), 3), "only 3 bytes long");
}

TEST(GgufReaderBad, TruncatedInHeader) {
  EXPECT_ERROR(cut(golden_a(), 12), "truncated file: the header's tensor count needs 8 bytes at offset 8");
}

TEST(GgufReaderBad, WrongMagic) {
  auto v = golden_a();
  v[0] = 'X';
  EXPECT_ERROR(v, "not a GGUF file: wrong magic 58 47 55 46");
}

TEST(GgufReaderBad, Version2) {
  auto b = one_tensor();
  b.version = 2;
  EXPECT_ERROR(b.build(), "GGUF version 2 is not supported: only version 3 is");
}

TEST(GgufReaderBad, Version4) {
  auto b = one_tensor();
  b.version = 4;
  EXPECT_ERROR(b.build(), "unknown GGUF version 4: only version 3 is supported");
}

TEST(GgufReaderBad, BigEndian) {
  auto b = one_tensor();
  b.version = 0x03000000;
  EXPECT_ERROR(b.build(), "big-endian GGUF files are not supported");
}

TEST(GgufReaderBad, AbsurdTensorCount) {
  auto b = one_tensor();
  b.override_counts = true;
  b.n_kv = 1;
  b.n_tensors = 1ull << 60;
  EXPECT_ERROR(b.build(), "absurd tensor count 1152921504606846976");
}

TEST(GgufReaderBad, AbsurdKvCount) {
  auto b = one_tensor();
  b.override_counts = true;
  b.n_kv = 0xffffffffffffffffull;
  b.n_tensors = 1;
  EXPECT_ERROR(b.build(), "absurd metadata key/value count 18446744073709551615");
}

// ---- metadata ----

TEST(GgufReaderBad, TruncatedInMetadata) {
  auto v = golden_a();
  // Inside the token strings: enough bytes remain for the array's count check, not for every string.
  size_t at = find_bytes(v, "tokenizer.ggml.tokens") + 9000;
  EXPECT_ERROR(cut(v, at), "truncated file");
  EXPECT_ERROR(cut(v, at), "of metadata key 'tokenizer.ggml.tokens'");
}

TEST(GgufReaderBad, StringLengthPastEnd) {
  GgufBuilder b;
  b.kv("general.name", kString, Bytes().put<uint64_t>(1ull << 40).v);
  EXPECT_ERROR(b.build(), "string length 1099511627776 of the value of metadata key 'general.name' at offset");
}

TEST(GgufReaderBad, KeyLengthPastEnd) {
  auto v = Bytes()
               .raw({'G', 'G', 'U', 'F'})
               .put<uint32_t>(3)
               .put<uint64_t>(0)
               .put<uint64_t>(1)
               .put<uint64_t>(1000)
               .raw(std::vector<uint8_t>(20, 'k'))
               .v;
  EXPECT_ERROR(v, "string length 1000 of metadata key #0 at offset 24 runs past the end of the file");
}

TEST(GgufReaderBad, ArrayLengthPastEnd) {
  GgufBuilder b;
  b.kv("tokenizer.ggml.scores", kArray, Bytes().put<uint32_t>(kF32).put<uint64_t>(1ull << 62).v);
  EXPECT_ERROR(b.build(), "array length 4611686018427387904 of metadata key 'tokenizer.ggml.scores'");
}

TEST(GgufReaderBad, StringArrayLengthPastEnd) {
  GgufBuilder b;  // 100 strings need at least 800 bytes of lengths: rejected before reserving anything
  b.kv("tokenizer.ggml.tokens", kArray, Bytes().put<uint32_t>(kString).put<uint64_t>(100).put<uint64_t>(0).v);
  EXPECT_ERROR(b.build(), "array length 100 of metadata key 'tokenizer.ggml.tokens'");
}

TEST(GgufReaderBad, NestedArrayBombDepth) {
  Bytes v;
  for (int i = 0; i < 1000; ++i) v.put<uint32_t>(kArray).put<uint64_t>(1);
  GgufBuilder b;
  b.kv("bomb", kArray, v.v);
  EXPECT_ERROR(b.build(), "metadata key 'bomb' nests arrays more than 4 levels deep");
}

TEST(GgufReaderBad, NestedArrayBombCount) {
  // 2^20 + 1 empty nested arrays: small per element in the file, large as parsed objects.
  const uint64_t n = (1ull << 20) + 1;
  Bytes v;
  v.put<uint32_t>(kArray).put<uint64_t>(n);
  v.v.reserve(v.v.size() + n * 12);
  for (uint64_t i = 0; i < n; ++i) v.put<uint32_t>(kU8).put<uint64_t>(0);
  GgufBuilder b;
  b.kv("bomb", kArray, std::move(v.v));
  EXPECT_ERROR(b.build(), "metadata key 'bomb' holds more than 1048576 nested arrays");
}

TEST(GgufReaderBad, UnknownValueType) {
  GgufBuilder b;
  b.kv("weird", 13, Bytes().put<uint32_t>(0).v);
  EXPECT_ERROR(b.build(), "metadata key 'weird' has unknown value type 13");
}

TEST(GgufReaderBad, DuplicateKeys) {
  GgufBuilder b;
  b.u32("general.alignment", 32).add_kv_dup("general.alignment", kU32, Bytes().put<uint32_t>(64).v);
  EXPECT_ERROR(b.build(), "duplicate metadata key 'general.alignment'");
}

TEST(GgufReaderBad, AlignmentZero) {
  auto b = one_tensor();
  b.u32("general.alignment", 0);
  EXPECT_ERROR(b.build(), "general.alignment is 0, which is not a power of two");
}

TEST(GgufReaderBad, AlignmentNotPowerOfTwo) {
  auto b = one_tensor();
  b.u32("general.alignment", 48);
  b.alignment = 48;
  EXPECT_ERROR(b.build(), "general.alignment is 48, which is not a power of two");
}

TEST(GgufReaderBad, AlignmentAbsurd) {
  auto b = one_tensor();
  b.u32("general.alignment", 1u << 30);
  EXPECT_ERROR(b.build(), "general.alignment is 1073741824, larger than the sane limit");
}

TEST(GgufReaderBad, AlignmentWrongType) {
  auto b = one_tensor();
  b.str("general.alignment", "32");
  EXPECT_ERROR(b.build(), "general.alignment must be a positive integer, got string");
}

// ---- tensor table ----

TEST(GgufReaderBad, TruncatedInTensorTable) {
  auto v = golden_a();
  size_t at = find_bytes(v, "output_norm.weight") + 18 + 4 + 3;  // inside its first dimension
  EXPECT_ERROR(cut(v, at), "truncated file: dimension 0 of tensor 'output_norm.weight' needs 8 bytes");
}

TEST(GgufReaderBad, DuplicateTensorNames) {
  auto b = one_tensor();
  b.tensor("t", kTF32, {4}, f32_data(4));
  EXPECT_ERROR(b.build(), "duplicate tensor name 't'");
}

TEST(GgufReaderBad, UnsupportedTensorType) {
  auto b = one_tensor();
  b.tensor("blk.0.attn_q.weight", 20, {32}, std::vector<uint8_t>(18));  // IQ4_NL: no size known here
  EXPECT_ERROR(b.build(), "unsupported tensor type 20 in tensor 'blk.0.attn_q.weight' (type 20;");
}

// ggml's block types are read (inspect lists them, the loader names them when it refuses a model);
// their rows must be whole blocks.
TEST(GgufReader, BlockTypesHaveTheirSizes) {
  auto b = one_tensor();
  b.tensor("q4", kTQ4_0, {64, 2}, std::vector<uint8_t>(4 * 18));
  b.tensor("tq2", kTTQ2_0, {256}, std::vector<uint8_t>(66));
  b.tensor("tq1", kTTQ1_0, {512}, std::vector<uint8_t>(2 * 54));
  auto f = GgufFile::parse(b.build());
  EXPECT_EQ(f->find_tensor("q4")->size_bytes, 72u);
  EXPECT_EQ(f->find_tensor("tq2")->size_bytes, 66u);
  EXPECT_EQ(f->find_tensor("tq1")->size_bytes, 108u);
}

TEST(GgufReaderBad, BlockTypeRowNotWholeBlocks) {
  auto b = one_tensor();
  b.tensor("blk.0.ffn_up.weight", kTTQ2_0, {128, 2}, std::vector<uint8_t>(66));
  EXPECT_ERROR(b.build(),
               "TQ2_0 tensor 'blk.0.ffn_up.weight' has rows of 128 elements, not a multiple of its 256-element blocks");
}

TEST(GgufReaderBad, UnknownTensorType) {
  auto b = one_tensor();
  b.tensor("x", 999, {32}, {});
  EXPECT_ERROR(b.build(), "unsupported tensor type 999 in tensor 'x' (type 999;");
}

TEST(GgufReaderBad, TooManyDimensions) {
  auto b = one_tensor();
  b.tensor("x", kTF32, {1, 1, 1, 1, 1}, f32_data(1));
  EXPECT_ERROR(b.build(), "tensor 'x' has 5 dimensions (1 to 4 are supported)");
}

TEST(GgufReaderBad, ShapeElementCountOverflow) {
  auto b = one_tensor();
  b.tensor("x", kTF32, {1ull << 32, 1ull << 32}, {});
  EXPECT_ERROR(b.build(), "tensor 'x' has an absurd shape: the element count overflows 63 bits at dimension 1");
}

TEST(GgufReaderBad, I2sElementsNotMultipleOf4) {
  auto b = one_tensor();
  b.tensor("x", kTI2_S, {6}, std::vector<uint8_t>(33));
  EXPECT_ERROR(b.build(), "I2_S tensor 'x' has 6 elements, not a multiple of 4");
}

TEST(GgufReaderBad, MisalignedOffset) {
  auto b = one_tensor();
  b.tensors[0].explicit_offset = true;
  b.tensors[0].offset = 4;
  EXPECT_ERROR(b.build(), "tensor 't' has misaligned data offset 4: not a multiple of general.alignment 32");
}

// ---- data section ----

TEST(GgufReaderBad, TensorOffsetOutsideFile) {
  auto b = one_tensor();
  b.tensors[0].explicit_offset = true;
  b.tensors[0].offset = 1ull << 30;
  EXPECT_ERROR(b.build(), "tensor 't' data offset 1073741824 (absolute");
  EXPECT_ERROR(b.build(), "lies outside the file");
}

TEST(GgufReaderBad, TensorSizePastEnd) {
  auto b = one_tensor();
  b.tensors[0].shape = {1024};  // declares 4 KiB, the file holds 16 bytes of data
  EXPECT_ERROR(b.build(), "truncated file: tensor 't' data (4096 bytes at offset");
}

TEST(GgufReaderBad, OffsetPlusSizeWraps) {
  auto b = one_tensor();
  b.tensors[0].explicit_offset = true;
  b.tensors[0].offset = 0xffffffffffffffe0ull;  // aligned, and data start + offset wraps past 2^64
  EXPECT_ERROR(b.build(), "tensor 't' data offset 18446744073709551584 overflows");
}

TEST(GgufReaderBad, TruncatedInData) {
  auto v = golden_a();
  EXPECT_ERROR(cut(v, v.size() - 1000), "runs past the end of the file (size 3214904)");
}

TEST(GgufReaderBad, OverlappingTensors) {
  auto b = one_tensor();
  b.tensor("u", kTF32, {16}, {});
  b.tensors[1].explicit_offset = true;
  b.tensors[1].offset = 0;
  auto v = b.build();
  v.resize(v.size() + 64);
  EXPECT_ERROR(v, "tensors 't' and 'u' overlap in the file");
}
