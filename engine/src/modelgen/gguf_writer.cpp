// GGUF v3 serialisation: header, metadata, tensor table, aligned tensor data streamed from producers.
#include "trit/gguf_writer.h"

#include "gguf/gguf_types.h"

#include <bit>
#include <cstring>
#include <unordered_set>

#include "modelgen/atomic_file.h"

namespace trit {
namespace {

static_assert(std::endian::native == std::endian::little, "GGUF is little-endian; this writer copies host values");

constexpr uint32_t kGgufVersion = 3;
constexpr size_t kMaxTensorName = 63;  // GGML_MAX_NAME is 64 including the terminating NUL
constexpr uint32_t kDefaultAlignment = 32;

// Little-endian primitives onto the file.
class Encoder {
 public:
  explicit Encoder(modelgen::AtomicFile& f) : f_(f) {}
  template <typename T>
  void pod(T v) {
    f_.write(&v, sizeof v);
  }
  void str(std::string_view s) {
    pod<uint64_t>(s.size());
    f_.write(s.data(), s.size());
  }
  void value(const GgufWriter::Value& v);
  void array(const GgufWriter::Array& a);

 private:
  modelgen::AtomicFile& f_;
};

void Encoder::value(const GgufWriter::Value& v) {
  std::visit(
      [this](const auto& x) {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::string>) {
          str(x);
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const GgufWriter::Array>>) {
          array(*x);
        } else if constexpr (std::is_same_v<T, bool>) {
          pod<uint8_t>(x ? 1 : 0);
        } else {
          pod<T>(x);
        }
      },
      v);
}

void Encoder::array(const GgufWriter::Array& a) {
  pod<uint32_t>(static_cast<uint32_t>(a.elem_type()));
  pod<uint64_t>(a.size());
  std::visit(
      [this](const auto& items) {
        using T = typename std::decay_t<decltype(items)>::value_type;
        if constexpr (std::is_same_v<T, std::string>) {
          for (const auto& s : items) str(s);
        } else if constexpr (std::is_same_v<T, GgufWriter::Array>) {
          for (const auto& sub : items) array(sub);
        } else if constexpr (std::is_same_v<T, bool>) {
          for (bool b : items) pod<uint8_t>(b ? 1 : 0);
        } else {
          f_.write(items.data(), items.size() * sizeof(T));  // contiguous little-endian numbers
        }
      },
      a.items);
}

// Forwards a producer's bytes to the file while counting them against the declared size.
class CountingSink final : public GgufWriter::Sink {
 public:
  CountingSink(modelgen::AtomicFile& f, const std::string& name, uint64_t expected)
      : f_(f), name_(name), expected_(expected) {}
  using Sink::write;
  void write(const void* data, size_t size) override {
    if (size > expected_ - written_)
      throw GgufWriteError("tensor '" + name_ + "': its producer wrote more than the " + std::to_string(expected_) +
                           " bytes its type and shape take");
    f_.write(data, size);
    written_ += size;
  }
  uint64_t written() const { return written_; }

 private:
  modelgen::AtomicFile& f_;
  const std::string& name_;
  uint64_t expected_;
  uint64_t written_ = 0;
};

uint64_t pad_to(uint64_t n, uint64_t align) {
  return (n + align - 1) / align * align;
}

}  // namespace

size_t GgufWriter::Array::size() const {
  return std::visit([](const auto& v) { return v.size(); }, items);
}

void GgufWriter::add(std::string key, Value value) {
  if (key.empty()) throw GgufWriteError("metadata key is empty");
  for (const auto& kv : kvs_)
    if (kv.first == key) throw GgufWriteError("metadata key '" + key + "' is added twice");
  if (value.index() == static_cast<size_t>(GgufValueType::ARRAY) && !std::get<9>(value))
    throw GgufWriteError("metadata key '" + key + "': array value is null");
  kvs_.emplace_back(std::move(key), std::move(value));
}

void GgufWriter::add_array(std::string key, Array v) {
  add(std::move(key), Value{std::in_place_index<9>, std::make_shared<const Array>(std::move(v))});
}

// The reader's sizes (gguf/gguf_types.h): one rule for what a tensor of a type occupies.
uint64_t GgufWriter::tensor_data_size(GgmlType type, uint64_t n) {
  if (type == GgmlType::I2_S && n % 4 != 0)
    throw GgufWriteError("I2_S tensor of " + std::to_string(n) + " elements: the count must be a multiple of 4");
  if (auto b = gguf_detail::block_layout(type); b && n % b->elements != 0)
    throw GgufWriteError(ggml_type_name(type) + " tensor of " + std::to_string(n) +
                         " elements: the count must be a multiple of " + std::to_string(b->elements));
  const auto size = gguf_detail::tensor_data_size(type, n);
  if (!size) throw GgufWriteError("tensor type " + ggml_type_name(type) + " is not supported by the GGUF writer");
  return *size;
}

void GgufWriter::add_tensor(std::string name, std::vector<uint64_t> shape, GgmlType type, Producer produce) {
  if (name.empty()) throw GgufWriteError("tensor name is empty");
  if (name.size() > kMaxTensorName)
    throw GgufWriteError("tensor name '" + name + "' is longer than " + std::to_string(kMaxTensorName) + " bytes");
  for (const auto& t : tensors_)
    if (t.name == name) throw GgufWriteError("tensor '" + name + "' is added twice");
  if (shape.empty() || shape.size() > 4)
    throw GgufWriteError("tensor '" + name + "' has " + std::to_string(shape.size()) + " dimensions (1 to 4 allowed)");
  uint64_t n = 1;
  for (uint64_t d : shape) {
    if (d == 0) throw GgufWriteError("tensor '" + name + "' has a zero dimension");
    if (n > (uint64_t{1} << 62) / d) throw GgufWriteError("tensor '" + name + "' has too many elements");
    n *= d;
  }
  if (!produce) throw GgufWriteError("tensor '" + name + "' has no data producer");
  uint64_t size = 0;
  try {
    size = tensor_data_size(type, n);
  } catch (const GgufWriteError& e) {
    throw GgufWriteError("tensor '" + name + "': " + e.what());
  }
  tensors_.push_back(Tensor{std::move(name), std::move(shape), type, size, std::move(produce)});
}

uint32_t GgufWriter::alignment() const {
  for (const auto& [key, value] : kvs_) {
    if (key != "general.alignment") continue;
    if (value.index() != static_cast<size_t>(GgufValueType::U32))
      throw GgufWriteError("metadata key 'general.alignment' must be a u32");
    uint32_t a = std::get<4>(value);
    if (a == 0 || (a & (a - 1)) != 0)
      throw GgufWriteError("metadata key 'general.alignment' is " + std::to_string(a) + ", not a power of two");
    return a;
  }
  return kDefaultAlignment;
}

uint64_t GgufWriter::write(const std::filesystem::path& out) const {
  const uint64_t align = alignment();
  modelgen::AtomicFile file(out);
  Encoder enc(file);

  file.write("GGUF", 4);
  enc.pod<uint32_t>(kGgufVersion);
  enc.pod<uint64_t>(tensors_.size());
  enc.pod<uint64_t>(kvs_.size());
  for (const auto& [key, value] : kvs_) {
    enc.str(key);
    enc.pod<uint32_t>(static_cast<uint32_t>(value.index()));
    enc.value(value);
  }
  uint64_t offset = 0;  // relative to the data section
  for (const auto& t : tensors_) {
    enc.str(t.name);
    enc.pod<uint32_t>(static_cast<uint32_t>(t.shape.size()));
    for (uint64_t d : t.shape) enc.pod<uint64_t>(d);
    enc.pod<uint32_t>(static_cast<uint32_t>(t.type));
    enc.pod<uint64_t>(offset);
    offset = pad_to(offset + t.size, align);
  }
  file.write_zeros(pad_to(file.bytes_written(), align) - file.bytes_written());

  for (const auto& t : tensors_) {
    CountingSink sink(file, t.name, t.size);
    t.produce(sink);
    if (sink.written() != t.size)
      throw GgufWriteError("tensor '" + t.name + "': its producer wrote " + std::to_string(sink.written()) +
                           " bytes, its type and shape take " + std::to_string(t.size));
    file.write_zeros(pad_to(t.size, align) - t.size);
  }
  uint64_t total = file.bytes_written();
  file.commit();
  return total;
}

}  // namespace trit
