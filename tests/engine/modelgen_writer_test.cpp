// GgufWriter: byte-exact layout, every metadata value type and tensor type read back by the reader,
// alignment, and the OUT.part / rename behaviour on success and on every kind of failure.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <cstring>
#include <fstream>
#include <iterator>

#include "test_support.h"
#include "trit/gguf.h"
#include "trit/gguf_writer.h"

namespace {

using trit::GgmlType;
using trit::GgufValueType;
using trit::GgufWriteError;
using trit::GgufWriter;
namespace fs = std::filesystem;

std::vector<uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

GgufWriter::Producer bytes_of(std::vector<uint8_t> data) {
  return [data = std::move(data)](GgufWriter::Sink& s) { s.write(data); };
}

template <typename T>
std::vector<uint8_t> as_bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// Expected bytes assembled by hand from the GGUF v3 specification.
struct Bytes {
  std::vector<uint8_t> b;
  template <typename T>
  Bytes& pod(T v) {
    uint8_t tmp[sizeof(T)];
    std::memcpy(tmp, &v, sizeof v);
    b.insert(b.end(), tmp, tmp + sizeof v);
    return *this;
  }
  Bytes& str(std::string_view s) {
    pod<uint64_t>(s.size());
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Bytes& zeros(size_t n) {
    b.insert(b.end(), n, 0);
    return *this;
  }
};

TEST(GgufWriter, WritesTheExactBytesOfTheSpecification) {
  auto dir = trit::test::scratch_dir("GgufWriter.exact");
  GgufWriter w;
  w.add_u32("general.alignment", 32);
  w.add_string("a", "xy");
  w.add_array("b", GgufWriter::Array{std::vector<int32_t>{-1, 2}});
  w.add_tensor("t0", {3}, GgmlType::F32, bytes_of(as_bytes(std::vector<float>{1.f, 2.f, 3.f})));
  w.add_tensor("t1", {4, 2}, GgmlType::I8, bytes_of({1, 2, 3, 4, 5, 6, 7, 8}));
  uint64_t size = w.write(dir / "x.gguf");

  Bytes e;
  e.b = {'G', 'G', 'U', 'F'};
  e.pod<uint32_t>(3).pod<uint64_t>(2).pod<uint64_t>(3);
  e.str("general.alignment").pod<uint32_t>(4).pod<uint32_t>(32);
  e.str("a").pod<uint32_t>(8).str("xy");
  e.str("b").pod<uint32_t>(9).pod<uint32_t>(5).pod<uint64_t>(2).pod<int32_t>(-1).pod<int32_t>(2);
  e.str("t0").pod<uint32_t>(1).pod<uint64_t>(3).pod<uint32_t>(0).pod<uint64_t>(0);
  e.str("t1").pod<uint32_t>(2).pod<uint64_t>(4).pod<uint64_t>(2).pod<uint32_t>(24).pod<uint64_t>(32);
  e.zeros((32 - e.b.size() % 32) % 32);
  e.pod<float>(1.f).pod<float>(2.f).pod<float>(3.f).zeros(20);
  for (uint8_t i = 1; i <= 8; ++i) e.pod<uint8_t>(i);
  e.zeros(24);

  EXPECT_EQ(size, e.b.size());
  EXPECT_EQ(read_all(dir / "x.gguf"), e.b);
  EXPECT_FALSE(fs::exists(dir / "x.gguf.part"));
}

TEST(GgufWriter, EveryMetadataValueTypeReadsBack) {
  auto dir = trit::test::scratch_dir("GgufWriter.values");
  GgufWriter w;
  w.add_u8("u8", 200);
  w.add_i8("i8", -100);
  w.add_u16("u16", 60000);
  w.add_i16("i16", -30000);
  w.add_u32("u32", 4000000000u);
  w.add_i32("i32", -2000000000);
  w.add_f32("f32", 1.5e-5f);
  w.add_bool("bool", true);
  w.add_bool("bool0", false);
  w.add_string("string", "h\xC3\xA9llo <|eot_id|>");
  w.add_string("empty", "");
  w.add_u64("u64", 18000000000000000000ull);
  w.add_i64("i64", -9000000000000000000ll);
  w.add_f64("f64", 3.141592653589793);
  w.add_array("a_str", GgufWriter::Array{std::vector<std::string>{"\xC4\xA0the", "", "a b"}});
  w.add_array("a_i32", GgufWriter::Array{std::vector<int32_t>{1, -2, 3}});
  w.add_array("a_u8", GgufWriter::Array{std::vector<uint8_t>{0, 255}});
  w.add_array("a_i8", GgufWriter::Array{std::vector<int8_t>{-128, 127}});
  w.add_array("a_u16", GgufWriter::Array{std::vector<uint16_t>{65535}});
  w.add_array("a_i16", GgufWriter::Array{std::vector<int16_t>{-32768}});
  w.add_array("a_u32", GgufWriter::Array{std::vector<uint32_t>{7, 4294967295u}});
  w.add_array("a_f32", GgufWriter::Array{std::vector<float>{0.25f, -1.f}});
  w.add_array("a_bool", GgufWriter::Array{std::vector<bool>{true, false, true}});
  w.add_array("a_u64", GgufWriter::Array{std::vector<uint64_t>{1ull << 63}});
  w.add_array("a_i64", GgufWriter::Array{std::vector<int64_t>{-(1ll << 62)}});
  w.add_array("a_f64", GgufWriter::Array{std::vector<double>{1e300}});
  w.add_array("a_empty", GgufWriter::Array{std::vector<std::string>{}});
  w.add_array("a_nested",
              GgufWriter::Array{std::vector<GgufWriter::Array>{GgufWriter::Array{std::vector<int32_t>{5, 6}},
                                                               GgufWriter::Array{std::vector<std::string>{"x"}}}});
  w.write(dir / "v.gguf");

  auto f = trit::GgufFile::open(dir / "v.gguf");
  const auto& md = f->metadata();
  ASSERT_EQ(md.entries().size(), 28u);
  // File order is the order added.
  EXPECT_EQ(md.entries()[0].key, "u8");
  EXPECT_EQ(md.entries()[27].key, "a_nested");
  auto type = [&](const char* k) { return md.find(k)->type(); };
  EXPECT_EQ(type("u8"), GgufValueType::U8);
  EXPECT_EQ(type("i8"), GgufValueType::I8);
  EXPECT_EQ(type("u16"), GgufValueType::U16);
  EXPECT_EQ(type("i16"), GgufValueType::I16);
  EXPECT_EQ(type("u32"), GgufValueType::U32);
  EXPECT_EQ(type("i32"), GgufValueType::I32);
  EXPECT_EQ(type("f32"), GgufValueType::F32);
  EXPECT_EQ(type("bool"), GgufValueType::BOOL);
  EXPECT_EQ(type("string"), GgufValueType::STRING);
  EXPECT_EQ(type("u64"), GgufValueType::U64);
  EXPECT_EQ(type("i64"), GgufValueType::I64);
  EXPECT_EQ(type("f64"), GgufValueType::F64);
  EXPECT_EQ(md.get_u64("u8"), 200u);
  EXPECT_EQ(md.get_i64("i8"), -100);
  EXPECT_EQ(md.get_u64("u16"), 60000u);
  EXPECT_EQ(md.get_i64("i16"), -30000);
  EXPECT_EQ(md.get_u32("u32"), 4000000000u);
  EXPECT_EQ(md.get_i32("i32"), -2000000000);
  EXPECT_EQ(md.get_f32("f32"), 1.5e-5f);
  EXPECT_TRUE(md.get_bool("bool"));
  EXPECT_FALSE(md.get_bool("bool0"));
  EXPECT_EQ(md.get_string("string"), "h\xC3\xA9llo <|eot_id|>");
  EXPECT_EQ(md.get_string("empty"), "");
  EXPECT_EQ(md.get_u64("u64"), 18000000000000000000ull);
  EXPECT_EQ(md.get_i64("i64"), -9000000000000000000ll);
  EXPECT_EQ(md.get_f64("f64"), 3.141592653589793);

  const auto& strs = md.get_string_array("a_str");
  ASSERT_EQ(strs.size(), 3u);
  EXPECT_EQ(strs[0], "\xC4\xA0the");
  EXPECT_EQ(strs[1], "");
  EXPECT_EQ(strs[2], "a b");
  EXPECT_EQ(md.get_i32_array("a_i32"), (std::vector<int32_t>{1, -2, 3}));
  EXPECT_EQ(md.get_array("a_i32").elem_type(), GgufValueType::I32);
  auto check_array = [&](const char* k, GgufValueType t, size_t n) {
    const auto& a = md.get_array(k);
    EXPECT_EQ(a.elem_type(), t) << k;
    EXPECT_EQ(a.size(), n) << k;
    return &a;
  };
  auto a = check_array("a_u8", GgufValueType::U8, 2);
  EXPECT_EQ(a->uint_at(1), 255u);
  a = check_array("a_i8", GgufValueType::I8, 2);
  EXPECT_EQ(a->int_at(0), -128);
  EXPECT_EQ(a->int_at(1), 127);
  EXPECT_EQ(check_array("a_u16", GgufValueType::U16, 1)->uint_at(0), 65535u);
  EXPECT_EQ(check_array("a_i16", GgufValueType::I16, 1)->int_at(0), -32768);
  EXPECT_EQ(md.get_u32_array("a_u32"), (std::vector<uint32_t>{7, 4294967295u}));
  EXPECT_EQ(md.get_f32_array("a_f32"), (std::vector<float>{0.25f, -1.f}));
  a = check_array("a_bool", GgufValueType::BOOL, 3);
  EXPECT_TRUE(a->bool_at(0));
  EXPECT_FALSE(a->bool_at(1));
  EXPECT_TRUE(a->bool_at(2));
  EXPECT_EQ(check_array("a_u64", GgufValueType::U64, 1)->uint_at(0), 1ull << 63);
  EXPECT_EQ(check_array("a_i64", GgufValueType::I64, 1)->int_at(0), -(1ll << 62));
  EXPECT_EQ(check_array("a_f64", GgufValueType::F64, 1)->float_at(0), 1e300);
  check_array("a_empty", GgufValueType::STRING, 0);
  a = check_array("a_nested", GgufValueType::ARRAY, 2);
  const auto* inner0 = a->array_at(0).as_array();
  const auto* inner1 = a->array_at(1).as_array();
  ASSERT_TRUE(inner0 && inner1);
  EXPECT_EQ(inner0->elem_type(), GgufValueType::I32);
  EXPECT_EQ(inner0->int_at(1), 6);
  EXPECT_EQ(inner1->string_at(0), "x");
}

TEST(GgufWriter, EveryTensorTypeReadsBackAligned) {
  auto dir = trit::test::scratch_dir("GgufWriter.tensors");
  struct Case {
    std::string name;
    std::vector<uint64_t> shape;
    GgmlType type;
    uint64_t size;
  };
  const std::vector<Case> cases = {
      {"f32", {3}, GgmlType::F32, 12},
      {"f16", {5, 3}, GgmlType::F16, 30},
      {"bf16", {7}, GgmlType::BF16, 14},
      {"f64", {2, 1, 1}, GgmlType::F64, 16},
      {"i8", {33}, GgmlType::I8, 33},
      {"i16", {3, 3}, GgmlType::I16, 18},
      {"i32", {1, 2, 3, 4}, GgmlType::I32, 96},
      {"i64", {1}, GgmlType::I64, 8},
      {"i2s", {128, 3}, GgmlType::I2_S, 128 * 3 / 4 + 32},
  };
  GgufWriter w;
  std::vector<std::vector<uint8_t>> data;
  for (size_t c = 0; c < cases.size(); ++c) {
    std::vector<uint8_t> d(cases[c].size);
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>(i * 7 + c * 31 + 1);
    data.push_back(d);
    uint64_t n = 1;
    for (uint64_t dim : cases[c].shape) n *= dim;
    ASSERT_EQ(GgufWriter::tensor_data_size(cases[c].type, n), cases[c].size) << cases[c].name;
    // Produce in uneven pieces: the sink must concatenate them.
    w.add_tensor(cases[c].name, cases[c].shape, cases[c].type, [d](GgufWriter::Sink& s) {
      s.write(d.data(), 1);
      s.write(d.data() + 1, d.size() - 1);
    });
  }
  w.write(dir / "t.gguf");
  auto f = trit::GgufFile::open(dir / "t.gguf");
  EXPECT_EQ(f->version(), 3u);
  EXPECT_EQ(f->alignment(), 32u);
  EXPECT_EQ(f->data_offset() % 32, 0u);
  ASSERT_EQ(f->tensors().size(), cases.size());
  for (size_t c = 0; c < cases.size(); ++c) {
    const auto& t = f->tensors()[c];
    EXPECT_EQ(t.name, cases[c].name);
    EXPECT_EQ(t.shape, cases[c].shape);
    EXPECT_EQ(t.type, cases[c].type);
    EXPECT_EQ(t.size_bytes, cases[c].size);
    EXPECT_EQ(t.offset % 32, 0u) << t.name;
    auto bytes = f->tensor_data(t);
    EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), data[c]) << t.name;
  }
}

TEST(GgufWriter, HonoursGeneralAlignment) {
  auto dir = trit::test::scratch_dir("GgufWriter.alignment");
  GgufWriter w;
  w.add_u32("general.alignment", 64);
  w.add_tensor("a", {3}, GgmlType::I8, bytes_of({1, 2, 3}));
  w.add_tensor("b", {2}, GgmlType::I8, bytes_of({4, 5}));
  w.write(dir / "a.gguf");
  auto f = trit::GgufFile::open(dir / "a.gguf");
  EXPECT_EQ(f->alignment(), 64u);
  EXPECT_EQ(f->data_offset() % 64, 0u);
  EXPECT_EQ(f->tensors()[1].offset - f->tensors()[0].offset, 64u);
  EXPECT_EQ(f->file_size() % 64, 0u);

  for (uint32_t bad : {0u, 48u}) {
    GgufWriter b;
    b.add_u32("general.alignment", bad);
    try {
      b.write(dir / "bad.gguf");
      ADD_FAILURE() << "alignment " << bad << " accepted";
    } catch (const GgufWriteError& e) {
      EXPECT_NE(std::string(e.what()).find("power of two"), std::string::npos) << e.what();
    }
  }
  GgufWriter wrong_type;
  wrong_type.add_u64("general.alignment", 32);
  EXPECT_THROW(wrong_type.write(dir / "bad.gguf"), GgufWriteError);
  EXPECT_FALSE(fs::exists(dir / "bad.gguf"));
  EXPECT_FALSE(fs::exists(dir / "bad.gguf.part"));
}

TEST(GgufWriter, RejectsBadDeclarations) {
  GgufWriter w;
  w.add_u32("k", 1);
  EXPECT_THROW(w.add_u32("k", 2), GgufWriteError);
  EXPECT_THROW(w.add_string("", "x"), GgufWriteError);
  auto p = bytes_of({});
  w.add_tensor("t", {4}, GgmlType::I8, p);
  EXPECT_THROW(w.add_tensor("t", {4}, GgmlType::I8, p), GgufWriteError);
  EXPECT_THROW(w.add_tensor("", {4}, GgmlType::I8, p), GgufWriteError);
  EXPECT_THROW(w.add_tensor(std::string(64, 'n'), {4}, GgmlType::I8, p), GgufWriteError);
  EXPECT_NO_THROW(w.add_tensor(std::string(63, 'n'), {4}, GgmlType::I8, p));
  EXPECT_THROW(w.add_tensor("z", {}, GgmlType::I8, p), GgufWriteError);
  EXPECT_THROW(w.add_tensor("z", {1, 1, 1, 1, 1}, GgmlType::I8, p), GgufWriteError);
  EXPECT_THROW(w.add_tensor("z", {4, 0}, GgmlType::I8, p), GgufWriteError);
  EXPECT_THROW(w.add_tensor("z", {1ull << 40, 1ull << 30}, GgmlType::I8, p), GgufWriteError);
  EXPECT_THROW(w.add_tensor("z", {4}, GgmlType::Q4_0, p), GgufWriteError);
  EXPECT_THROW(w.add_tensor("z", {4}, GgmlType::I8, GgufWriter::Producer{}), GgufWriteError);
  try {
    w.add_tensor("odd", {6}, GgmlType::I2_S, p);
    ADD_FAILURE() << "I2_S with 6 elements accepted";
  } catch (const GgufWriteError& e) {
    EXPECT_NE(std::string(e.what()).find("'odd'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(GgufWriter::tensor_data_size(GgmlType::I2_S, 2560ull * 6912), 2560ull * 6912 / 4 + 32);
}

// A producer that writes too little or too much data fails the write and leaves nothing behind.
TEST(GgufWriter, ProducerSizeMismatchFailsCleanly) {
  auto dir = trit::test::scratch_dir("GgufWriter.mismatch");
  for (size_t n : {3u, 5u}) {
    GgufWriter w;
    w.add_tensor("short_or_long", {4}, GgmlType::I8, bytes_of(std::vector<uint8_t>(n, 1)));
    try {
      w.write(dir / "m.gguf");
      ADD_FAILURE() << n << " bytes for a 4-byte tensor accepted";
    } catch (const GgufWriteError& e) {
      EXPECT_NE(std::string(e.what()).find("short_or_long"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir / "m.gguf"));
    EXPECT_FALSE(fs::exists(dir / "m.gguf.part"));
  }
}

// While tensors are produced the data goes to OUT.part and OUT does not exist yet; a failure midway
// removes the .part and keeps an older OUT untouched; success replaces OUT.
TEST(GgufWriter, WritesThroughPartFileAndRenames) {
  auto dir = trit::test::scratch_dir("GgufWriter.part");
  const fs::path out = dir / "model.gguf", part = dir / "model.gguf.part";
  bool seen = false;
  GgufWriter w;
  w.add_tensor("t", {1u << 20}, GgmlType::I8, [&](GgufWriter::Sink& s) {
    seen = fs::exists(part) && !fs::exists(out);
    std::vector<uint8_t> d(1u << 20, 9);
    s.write(d);
  });
  w.write(out);
  EXPECT_TRUE(seen);
  EXPECT_TRUE(fs::exists(out));
  EXPECT_FALSE(fs::exists(part));
  const auto good = read_all(out);

  GgufWriter failing;
  failing.add_tensor("t", {1u << 22}, GgmlType::I8, [&](GgufWriter::Sink& s) {
    std::vector<uint8_t> d(1u << 21, 7);
    s.write(d);  // half the data reaches the .part file, then the producer fails
    EXPECT_TRUE(fs::exists(part));
    throw std::runtime_error("producer failed");
  });
  EXPECT_THROW(failing.write(out), std::runtime_error);
  EXPECT_FALSE(fs::exists(part));
  EXPECT_EQ(read_all(out), good);  // the previous complete file is still there, unchanged
}

TEST(GgufWriter, IoErrorsNameThePath) {
  auto dir = trit::test::scratch_dir("GgufWriter.io");
  GgufWriter w;
  w.add_tensor("t", {1u << 20}, GgmlType::I8, bytes_of(std::vector<uint8_t>(1u << 20, 3)));
  const fs::path missing = dir / "no-such-folder" / "x.gguf";
  try {
    w.write(missing);
    ADD_FAILURE() << "write into a missing folder succeeded";
  } catch (const GgufWriteError& e) {
    EXPECT_NE(std::string(e.what()).find(missing.string() + ".part"), std::string::npos) << e.what();
  }

  // A file size limit makes write(2) fail midway (EFBIG), like a full disk does (ENOSPC).
  struct rlimit old {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old;
  small.rlim_cur = 64 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  std::string message;
  try {
    w.write(dir / "big.gguf");
  } catch (const GgufWriteError& e) {
    message = e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_NE(message.find("cannot write '" + (dir / "big.gguf.part").string() + "'"), std::string::npos) << message;
  EXPECT_FALSE(fs::exists(dir / "big.gguf"));
  EXPECT_FALSE(fs::exists(dir / "big.gguf.part"));
}

}  // namespace
