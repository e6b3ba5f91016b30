#pragma once
// GGUF v3 reader: header, metadata of every value type, tensor table, memory-mapped zero-copy tensor data.
// Every read is bounds-checked; hostile files fail with a GgufError naming what is wrong and where.
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md ; I2_S per ../../shared/docs/bitnet-b158.md.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trit/model.h"  // ModelError

namespace trit {

// GGML tensor types (numbering of ggml.h; 36 is I2_S of Microsoft's BitNet fork, not upstream's 36).
enum class GgmlType : uint32_t {
  F32 = 0,
  F16 = 1,
  Q4_0 = 2,
  Q4_1 = 3,
  Q5_0 = 6,
  Q5_1 = 7,
  Q8_0 = 8,
  Q8_1 = 9,
  Q2_K = 10,
  Q3_K = 11,
  Q4_K = 12,
  Q5_K = 13,
  Q6_K = 14,
  Q8_K = 15,
  I8 = 24,
  I16 = 25,
  I32 = 26,
  I64 = 27,
  F64 = 28,
  BF16 = 30,
  TQ1_0 = 34,
  TQ2_0 = 35,
  I2_S = 36,
};

// "F32", "I2_S", ...; "type N" for a number this reader has no name for.
std::string ggml_type_name(GgmlType t);
// True for the types whose data size this reader knows: the plain ones, ggml's block types up to Q8_K,
// TQ1_0, TQ2_0 and I2_S. (Knowing a size is not running it: the loader names what the engine runs.)
bool ggml_type_supported(GgmlType t);

// Every GGUF parse failure. A ModelError, so callers of Model::open catch one type.
class GgufError : public ModelError {
 public:
  using ModelError::ModelError;
};

enum class GgufValueType : uint32_t {
  U8 = 0,
  I8 = 1,
  U16 = 2,
  I16 = 3,
  U32 = 4,
  I32 = 5,
  F32 = 6,
  BOOL = 7,
  STRING = 8,
  ARRAY = 9,
  U64 = 10,
  I64 = 11,
  F64 = 12,
};

// "u8", "string", "array", ...; "type N" for an unknown number.
std::string gguf_value_type_name(GgufValueType t);

class GgufValue;

// An array value. Numeric elements stay in the file (zero-copy, little-endian, read with memcpy);
// string elements are views into the file; nested arrays are parsed values.
class GgufArray {
 public:
  GgufValueType elem_type() const { return elem_type_; }
  size_t size() const { return size_; }

  // Element i as a signed/unsigned integer, float or bool. Throw GgufError if the element type does not
  // convert (e.g. int_at on a float array) or i is out of range. Integers convert to float; floats never
  // convert to integers.
  int64_t int_at(size_t i) const;
  uint64_t uint_at(size_t i) const;
  double float_at(size_t i) const;
  bool bool_at(size_t i) const;
  std::string_view string_at(size_t i) const;
  const GgufValue& array_at(size_t i) const;

  // All string elements (elem_type() == STRING), views into the file.
  const std::vector<std::string_view>& strings() const { return strings_; }
  // Raw little-endian bytes of a numeric array (size() * element size).
  std::span<const uint8_t> raw() const { return raw_; }

 private:
  friend class GgufParser;
  GgufValueType elem_type_ = GgufValueType::U8;
  size_t size_ = 0;
  std::span<const uint8_t> raw_;
  std::vector<std::string_view> strings_;
  std::vector<GgufValue> arrays_;
};

// One metadata value. Strings are views into the file (valid while the GgufFile lives).
class GgufValue {
 public:
  GgufValueType type() const { return type_; }
  bool is_integer() const;  // u8..i64 (not bool)
  bool is_float() const;    // f32, f64

  // Conversions that succeed only when exact: any integer type whose value fits; floats for as_double
  // also accept integers. std::nullopt otherwise.
  std::optional<uint64_t> as_u64() const;
  std::optional<int64_t> as_i64() const;
  std::optional<double> as_double() const;
  std::optional<bool> as_bool() const;
  std::optional<std::string_view> as_string() const;
  const GgufArray* as_array() const;  // nullptr if not an array

  // Short human-readable rendering: numbers, quoted strings, arrays abbreviated to max_items elements.
  std::string to_string(size_t max_items = 8) const;

 private:
  friend class GgufParser;
  GgufValueType type_ = GgufValueType::U8;
  uint64_t u_ = 0;  // unsigned integers and bool
  int64_t i_ = 0;   // signed integers
  double f_ = 0;    // f32, f64
  std::string_view s_;
  std::shared_ptr<const GgufArray> arr_;
};

struct GgufKv {
  std::string key;
  GgufValue value;
};

// The key/value metadata, in file order, with typed getters. Getters throw GgufError with messages like
// "metadata key 'bitnet-25.block_count' is missing" or "... has type string, expected an integer".
class GgufMetadata {
 public:
  const std::vector<GgufKv>& entries() const { return entries_; }
  const GgufValue* find(std::string_view key) const;  // nullptr if absent
  bool contains(std::string_view key) const { return find(key) != nullptr; }

  uint32_t get_u32(std::string_view key) const;  // any integer type whose value fits in u32
  int32_t get_i32(std::string_view key) const;
  uint64_t get_u64(std::string_view key) const;
  int64_t get_i64(std::string_view key) const;
  float get_f32(std::string_view key) const;  // f32, f64 or an integer
  double get_f64(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  std::string_view get_string(std::string_view key) const;
  const GgufArray& get_array(std::string_view key) const;
  // Array getters check the element type (any integer type that fits, for the integer ones).
  const std::vector<std::string_view>& get_string_array(std::string_view key) const;
  std::vector<int32_t> get_i32_array(std::string_view key) const;
  std::vector<uint32_t> get_u32_array(std::string_view key) const;
  std::vector<float> get_f32_array(std::string_view key) const;

  // The same, std::nullopt when the key is absent (still throws when present with a wrong type).
  std::optional<uint32_t> find_u32(std::string_view key) const;
  std::optional<int32_t> find_i32(std::string_view key) const;
  std::optional<float> find_f32(std::string_view key) const;
  std::optional<std::string_view> find_string(std::string_view key) const;

 private:
  friend class GgufParser;
  const GgufValue& require(std::string_view key) const;
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<GgufKv> entries_;
  std::unordered_map<std::string, size_t, Hash, std::equal_to<>> index_;
};

struct GgufTensorInfo {
  std::string name;
  GgmlType type = GgmlType::F32;
  std::vector<uint64_t> shape;  // ne0 first (ne0 is contiguous)
  uint64_t offset = 0;          // absolute offset in the file (data section start + relative offset)
  uint64_t size_bytes = 0;      // bytes of data, including I2_S's 32-byte scale tail
  uint64_t n_elements() const;
};

class GgufFile {
 public:
  // Memory-maps the file read-only (MAP_PRIVATE) and parses it. Throws GgufError.
  static std::unique_ptr<GgufFile> open(const std::filesystem::path& path);
  // Parses bytes the caller keeps alive for the GgufFile's lifetime (fuzzing, tests). Throws GgufError.
  static std::unique_ptr<GgufFile> parse(std::span<const uint8_t> bytes, std::string source_name = "<memory>");
  // Parses bytes the GgufFile takes ownership of.
  static std::unique_ptr<GgufFile> parse(std::vector<uint8_t> bytes, std::string source_name = "<memory>");
  ~GgufFile();
  GgufFile(const GgufFile&) = delete;
  GgufFile& operator=(const GgufFile&) = delete;

  uint32_t version() const { return version_; }
  uint64_t alignment() const { return alignment_; }
  uint64_t data_offset() const { return data_offset_; }  // absolute start of the tensor data section
  size_t file_size() const { return bytes_.size(); }
  const std::string& source_name() const { return source_name_; }  // the path, or "<memory>"

  const GgufMetadata& metadata() const { return metadata_; }
  const std::vector<GgufTensorInfo>& tensors() const { return tensors_; }
  const GgufTensorInfo* find_tensor(std::string_view name) const;  // nullptr if absent
  // The tensor's bytes inside the mapping (bounds were checked at parse time).
  std::span<const uint8_t> tensor_data(const GgufTensorInfo& t) const;
  std::span<const uint8_t> bytes() const { return bytes_; }
  // Drops this process's resident pages of the memory-mapped file (madvise MADV_DONTNEED; the mapping
  // stays valid and pages are re-read from the file if touched again). Called once the weights live
  // elsewhere, such as GPU memory, so no second host copy stays resident. No effect on a parsed buffer.
  void release_resident_pages() const;

 private:
  friend class GgufParser;
  GgufFile() = default;
  std::string source_name_;
  std::span<const uint8_t> bytes_;
  std::vector<uint8_t> owned_;  // when parsed from an owned buffer
  void* map_ = nullptr;         // when memory-mapped
  size_t map_size_ = 0;
  uint32_t version_ = 0;
  uint64_t alignment_ = 32;
  uint64_t data_offset_ = 0;
  GgufMetadata metadata_;
  std::vector<GgufTensorInfo> tensors_;
  std::unordered_map<std::string_view, size_t> tensor_index_;  // views of tensors_[i].name
};

}  // namespace trit
