#pragma once
// GGUF v3 writer: metadata of every GGUF value type (nested arrays included), a tensor table, and tensor
// data streamed straight to disk in large buffered chunks, so a multi-gigabyte file never sits in memory.
// The file is written to OUT.part and renamed to OUT only once complete, so a failed write (disk full,
// a producer that throws) never leaves a half file under the real name.
// Format: https://github.com/ggml-org/ggml/blob/master/docs/gguf.md ; I2_S per shared/docs/bitnet-b158.md.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "trit/gguf.h"  // GgmlType, GgufValueType

namespace trit {

// Every writer failure: a bad key or tensor declaration, a producer that wrote the wrong amount, an I/O
// error. what() names the file path (for I/O) or the key/tensor concerned.
class GgufWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class GgufWriter {
 public:
  struct Array;
  // One metadata value. The variant index equals the GGUF value type id (0 = u8 ... 12 = f64), which is
  // why the alternatives are listed in this order; an array is held by pointer so Value stays small.
  using Value = std::variant<uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, float, bool, std::string,
                             std::shared_ptr<const Array>, uint64_t, int64_t, double>;

  // An array value of one element type; the variant index is again the GGUF element type id. Nested arrays
  // (element type ARRAY) are vectors of Array, each of which may have its own element type.
  struct Array {
    std::variant<std::vector<uint8_t>, std::vector<int8_t>, std::vector<uint16_t>, std::vector<int16_t>,
                 std::vector<uint32_t>, std::vector<int32_t>, std::vector<float>, std::vector<bool>,
                 std::vector<std::string>, std::vector<Array>, std::vector<uint64_t>, std::vector<int64_t>,
                 std::vector<double>>
        items;
    GgufValueType elem_type() const { return static_cast<GgufValueType>(items.index()); }
    size_t size() const;
  };

  // Receives a tensor's bytes from its producer. Large writes bypass the internal buffer.
  class Sink {
   public:
    virtual ~Sink() = default;
    virtual void write(const void* data, size_t size) = 0;
    void write(std::span<const uint8_t> bytes) { write(bytes.data(), bytes.size()); }
  };
  // Writes exactly the tensor's data size (GgufWriter::tensor_data_size) into the sink.
  using Producer = std::function<void(Sink&)>;

  GgufWriter() = default;

  // Metadata, written in the order added. Keys must be non-empty and unique. The alignment of the data
  // section is general.alignment when present (must be a u32 power of two), else GGUF's default 32.
  void add(std::string key, Value value);
  void add_u8(std::string key, uint8_t v) { add(std::move(key), Value{std::in_place_index<0>, v}); }
  void add_i8(std::string key, int8_t v) { add(std::move(key), Value{std::in_place_index<1>, v}); }
  void add_u16(std::string key, uint16_t v) { add(std::move(key), Value{std::in_place_index<2>, v}); }
  void add_i16(std::string key, int16_t v) { add(std::move(key), Value{std::in_place_index<3>, v}); }
  void add_u32(std::string key, uint32_t v) { add(std::move(key), Value{std::in_place_index<4>, v}); }
  void add_i32(std::string key, int32_t v) { add(std::move(key), Value{std::in_place_index<5>, v}); }
  void add_f32(std::string key, float v) { add(std::move(key), Value{std::in_place_index<6>, v}); }
  void add_bool(std::string key, bool v) { add(std::move(key), Value{std::in_place_index<7>, v}); }
  void add_string(std::string key, std::string v) { add(std::move(key), Value{std::in_place_index<8>, std::move(v)}); }
  void add_array(std::string key, Array v);
  void add_u64(std::string key, uint64_t v) { add(std::move(key), Value{std::in_place_index<10>, v}); }
  void add_i64(std::string key, int64_t v) { add(std::move(key), Value{std::in_place_index<11>, v}); }
  void add_f64(std::string key, double v) { add(std::move(key), Value{std::in_place_index<12>, v}); }

  // Declares a tensor; its data is produced when write() reaches it, in the order declared.
  // shape is ne0 first (1 to 4 dimensions, none zero); the name must be unique and under 64 bytes.
  // Throws GgufWriteError if the type's data size is unknown or the element count does not fit the type.
  void add_tensor(std::string name, std::vector<uint64_t> shape, GgmlType type, Producer produce);

  // Writes the whole file to `out` (via out + ".part", renamed at the end) and returns its size in bytes.
  // On any failure the .part file is removed and a GgufWriteError (or the producer's exception) escapes.
  uint64_t write(const std::filesystem::path& out) const;

  // Bytes of data a tensor of this type and element count takes (I2_S: n/4 codes + the 32-byte scale tail).
  static uint64_t tensor_data_size(GgmlType type, uint64_t n_elements);

  size_t tensor_count() const { return tensors_.size(); }
  size_t metadata_count() const { return kvs_.size(); }

 private:
  struct Tensor {
    std::string name;
    std::vector<uint64_t> shape;
    GgmlType type;
    uint64_t size;
    Producer produce;
  };
  uint32_t alignment() const;
  std::vector<std::pair<std::string, Value>> kvs_;
  std::vector<Tensor> tensors_;
};

}  // namespace trit
