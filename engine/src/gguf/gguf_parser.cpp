// GGUF v3 parser: every read is bounds-checked against the bytes that remain, and every count is capped by
// what those bytes could hold before anything is allocated, so a hostile file cannot make us read out of
// bounds or allocate more than a small multiple of its own size.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <unordered_set>

#include "gguf/gguf_types.h"
#include "trit/gguf.h"

namespace trit {
namespace {

constexpr uint32_t kSupportedVersion = 3;
constexpr uint64_t kDefaultAlignment = 32;
constexpr uint64_t kMaxAlignment = uint64_t{1} << 20;  // 1 MiB: real files use 32; more is nonsense
constexpr uint64_t kMaxKeyLength = 65535;              // the GGUF spec's limit for keys
constexpr uint64_t kMaxTensorNameLength = 4096;        // ggml uses 64; be lenient but finite
constexpr uint32_t kMaxDims = 4;                       // GGML_MAX_DIMS
constexpr int kMaxArrayDepth = 4;                      // nested arrays: no real file nests at all
constexpr uint64_t kMaxNestedArrays = uint64_t{1} << 20;
// Smallest encodings, to cap counts by the remaining bytes: a key/value pair is a 8-byte key length, a
// non-empty key, a 4-byte type and at least one byte of value; a tensor info is a 8-byte name length, a
// non-empty name, 4-byte n_dims, one 8-byte dimension, 4-byte type and 8-byte offset.
constexpr uint64_t kMinKvSize = 8 + 1 + 4 + 1;
constexpr uint64_t kMinTensorInfoSize = 8 + 1 + 4 + 8 + 4 + 8;

std::string hex_bytes(const uint8_t* p, size_t n) {
  std::string out;
  char buf[4];
  for (size_t i = 0; i < n; ++i) {
    std::snprintf(buf, sizeof buf, "%02x", p[i]);
    if (i) out += ' ';
    out += buf;
  }
  return out;
}

}  // namespace

class GgufParser {
 public:
  GgufParser(GgufFile& f) : f_(f), b_(f.bytes_) {}

  void run() {
    parse_header();
    parse_metadata();
    parse_alignment();
    parse_tensor_infos();
    place_data();
  }

 private:
  GgufFile& f_;
  std::span<const uint8_t> b_;
  uint64_t pos_ = 0;
  uint64_t n_tensors_ = 0;
  uint64_t n_kv_ = 0;
  uint64_t nested_arrays_ = 0;

  uint64_t remaining() const { return b_.size() - pos_; }

  void need(uint64_t n, const std::string& what) const {
    if (n > remaining())
      throw GgufError("truncated file: " + what + " needs " + std::to_string(n) + " bytes at offset " +
                      std::to_string(pos_) + ", but the file ends at " + std::to_string(b_.size()));
  }

  template <typename T>
  T read(const std::string& what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, b_.data() + pos_, sizeof v);
    pos_ += sizeof v;
    return v;
  }

  std::span<const uint8_t> take(uint64_t n, const std::string& what) {
    need(n, what);
    auto s = b_.subspan(pos_, n);
    pos_ += n;
    return s;
  }

  std::string_view read_string(const std::string& what, uint64_t max_len) {
    uint64_t at = pos_;
    auto len = read<uint64_t>("the length of " + what);
    if (len > remaining())
      throw GgufError("truncated file: string length " + std::to_string(len) + " of " + what + " at offset " +
                      std::to_string(at) + " runs past the end of the file (" + std::to_string(remaining()) +
                      " bytes remain)");
    if (len > max_len)
      throw GgufError(what + " at offset " + std::to_string(at) + " is " + std::to_string(len) +
                      " bytes long, more than the limit of " + std::to_string(max_len));
    auto s = take(len, what);
    return {reinterpret_cast<const char*>(s.data()), s.size()};
  }

  void parse_header() {
    if (b_.size() < 4)
      throw GgufError("not a GGUF file: it is only " + std::to_string(b_.size()) + " bytes long (truncated header)");
    if (std::memcmp(b_.data(), "GGUF", 4) != 0)
      throw GgufError("not a GGUF file: wrong magic " + hex_bytes(b_.data(), 4) + " (expected 47 47 55 46, \"GGUF\")");
    pos_ = 4;
    auto version = read<uint32_t>("the header's version");
    if (version != kSupportedVersion) {
      if (__builtin_bswap32(version) == kSupportedVersion)
        throw GgufError("big-endian GGUF files are not supported (version field reads " + std::to_string(version) +
                        ")");
      if (version == 1 || version == 2)
        throw GgufError("GGUF version " + std::to_string(version) +
                        " is not supported: only version 3 is (re-convert the model with a current converter)");
      throw GgufError("unknown GGUF version " + std::to_string(version) + ": only version 3 is supported");
    }
    f_.version_ = version;
    n_tensors_ = read<uint64_t>("the header's tensor count");
    n_kv_ = read<uint64_t>("the header's metadata count");
    // Cheap sanity first: what remains must at least hold that many minimal entries.
    if (n_kv_ > remaining() / kMinKvSize)
      throw GgufError("absurd metadata key/value count " + std::to_string(n_kv_) + ": the " +
                      std::to_string(remaining()) + " bytes after the header can hold at most " +
                      std::to_string(remaining() / kMinKvSize));
    if (n_tensors_ > remaining() / kMinTensorInfoSize)
      throw GgufError("absurd tensor count " + std::to_string(n_tensors_) + ": the " + std::to_string(remaining()) +
                      " bytes after the header can hold at most " + std::to_string(remaining() / kMinTensorInfoSize));
  }

  void parse_metadata() {
    auto& md = f_.metadata_;
    md.entries_.reserve(n_kv_);  // bounded by remaining() / kMinKvSize
    for (uint64_t i = 0; i < n_kv_; ++i) {
      std::string where = "metadata key #" + std::to_string(i);
      std::string key(read_string(where, kMaxKeyLength));
      if (key.empty()) throw GgufError(where + " is an empty string");
      if (md.index_.count(key)) throw GgufError("duplicate metadata key '" + key + "'");
      std::string ctx = "metadata key '" + key + "'";
      auto type = read<uint32_t>("the type of " + ctx);
      if (!gguf_detail::gguf_value_type_known(type))
        throw GgufError(ctx + " has unknown value type " + std::to_string(type));
      GgufValue v = parse_value(static_cast<GgufValueType>(type), ctx, 0);
      md.index_.emplace(key, md.entries_.size());
      md.entries_.push_back(GgufKv{std::move(key), std::move(v)});
    }
  }

  GgufValue parse_value(GgufValueType t, const std::string& ctx, int depth) {
    GgufValue v;
    v.type_ = t;
    switch (t) {
      case GgufValueType::U8:
        v.u_ = read<uint8_t>("the value of " + ctx);
        break;
      case GgufValueType::U16:
        v.u_ = read<uint16_t>("the value of " + ctx);
        break;
      case GgufValueType::U32:
        v.u_ = read<uint32_t>("the value of " + ctx);
        break;
      case GgufValueType::U64:
        v.u_ = read<uint64_t>("the value of " + ctx);
        break;
      case GgufValueType::I8:
        v.i_ = read<int8_t>("the value of " + ctx);
        break;
      case GgufValueType::I16:
        v.i_ = read<int16_t>("the value of " + ctx);
        break;
      case GgufValueType::I32:
        v.i_ = read<int32_t>("the value of " + ctx);
        break;
      case GgufValueType::I64:
        v.i_ = read<int64_t>("the value of " + ctx);
        break;
      case GgufValueType::F32:
        v.f_ = static_cast<double>(read<float>("the value of " + ctx));
        break;
      case GgufValueType::F64:
        v.f_ = read<double>("the value of " + ctx);
        break;
      case GgufValueType::BOOL:
        v.u_ = read<uint8_t>("the value of " + ctx) != 0;
        break;
      case GgufValueType::STRING:
        v.s_ = read_string("the value of " + ctx, std::numeric_limits<uint64_t>::max());
        break;
      case GgufValueType::ARRAY:
        v.arr_ = parse_array(ctx, depth);
        break;
    }
    return v;
  }

  std::shared_ptr<const GgufArray> parse_array(const std::string& ctx, int depth) {
    if (depth >= kMaxArrayDepth)
      throw GgufError(ctx + " nests arrays more than " + std::to_string(kMaxArrayDepth) + " levels deep");
    auto et = read<uint32_t>("the element type of the array in " + ctx);
    if (!gguf_detail::gguf_value_type_known(et))
      throw GgufError("the array in " + ctx + " has unknown element type " + std::to_string(et));
    auto elem = static_cast<GgufValueType>(et);
    uint64_t at = pos_;
    auto count = read<uint64_t>("the length of the array in " + ctx);
    uint64_t min_size = gguf_detail::gguf_min_encoded_size(elem);
    if (count > remaining() / min_size)
      throw GgufError("truncated file: array length " + std::to_string(count) + " of " + ctx + " at offset " +
                      std::to_string(at) + " runs past the end of the file (" + std::to_string(remaining()) +
                      " bytes remain, each " + gguf_value_type_name(elem) + " element takes at least " +
                      std::to_string(min_size) + ")");
    auto a = std::make_shared<GgufArray>();
    a->elem_type_ = elem;
    a->size_ = count;
    if (elem == GgufValueType::STRING) {
      a->strings_.reserve(count);
      for (uint64_t i = 0; i < count; ++i)
        a->strings_.push_back(
            read_string("element " + std::to_string(i) + " of " + ctx, std::numeric_limits<uint64_t>::max()));
    } else if (elem == GgufValueType::ARRAY) {
      nested_arrays_ += count;
      if (nested_arrays_ > kMaxNestedArrays)
        throw GgufError(ctx + " holds more than " + std::to_string(kMaxNestedArrays) +
                        " nested arrays, more than any real file; refusing it");
      a->arrays_.reserve(count);
      for (uint64_t i = 0; i < count; ++i) a->arrays_.push_back(parse_value(GgufValueType::ARRAY, ctx, depth + 1));
    } else {
      a->raw_ = take(count * gguf_detail::gguf_scalar_size(elem), "the elements of " + ctx);
    }
    return a;
  }

  void parse_alignment() {
    const GgufValue* v = f_.metadata_.find("general.alignment");
    if (!v) {
      f_.alignment_ = kDefaultAlignment;
      return;
    }
    auto a = v->as_u64();
    if (!v->is_integer() || !a)
      throw GgufError("general.alignment must be a positive integer, got " + gguf_value_type_name(v->type()) + " " +
                      v->to_string());
    if (*a == 0 || (*a & (*a - 1)) != 0)
      throw GgufError("general.alignment is " + std::to_string(*a) + ", which is not a power of two");
    if (*a > kMaxAlignment)
      throw GgufError("general.alignment is " + std::to_string(*a) + ", larger than the sane limit of " +
                      std::to_string(kMaxAlignment));
    f_.alignment_ = *a;
  }

  void parse_tensor_infos() {
    if (n_tensors_ > remaining() / kMinTensorInfoSize)
      throw GgufError("absurd tensor count " + std::to_string(n_tensors_) + ": the " + std::to_string(remaining()) +
                      " bytes after the metadata can hold at most " + std::to_string(remaining() / kMinTensorInfoSize));
    f_.tensors_.reserve(n_tensors_);
    std::unordered_set<std::string> names;  // owns its keys: views into tensors_ would move with the elements
    for (uint64_t i = 0; i < n_tensors_; ++i) {
      std::string where = "tensor info #" + std::to_string(i);
      GgufTensorInfo t;
      t.name = std::string(read_string("the name of " + where, kMaxTensorNameLength));
      if (t.name.empty()) throw GgufError(where + " has an empty name");
      std::string ctx = "tensor '" + t.name + "'";
      if (!names.insert(t.name).second) throw GgufError("duplicate tensor name '" + t.name + "'");
      auto n_dims = read<uint32_t>("the dimension count of " + ctx);
      if (n_dims < 1 || n_dims > kMaxDims)
        throw GgufError(ctx + " has " + std::to_string(n_dims) + " dimensions (1 to " + std::to_string(kMaxDims) +
                        " are supported)");
      uint64_t n = 1;
      for (uint32_t d = 0; d < n_dims; ++d) {
        auto ne = read<uint64_t>("dimension " + std::to_string(d) + " of " + ctx);
        // Keep the element count within int64 (ggml's int64_t ne): reject before the product overflows.
        if (ne > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
            (ne != 0 && n > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / ne))
          throw GgufError(ctx + " has an absurd shape: the element count overflows 63 bits at dimension " +
                          std::to_string(d) + " (" + std::to_string(ne) + ")");
        n *= ne;
        t.shape.push_back(ne);
      }
      auto type = read<uint32_t>("the type of " + ctx);
      t.type = static_cast<GgmlType>(type);
      auto size = gguf_detail::tensor_data_size(t.type, n);
      if (!size)
        throw GgufError("unsupported tensor type " + std::to_string(type) + " in tensor '" + t.name + "' (" +
                        ggml_type_name(t.type) +
                        "; known: F32, F16, BF16, F64, I8, I16, I32, I64, Q4_0 to Q8_K, TQ1_0, TQ2_0, I2_S)");
      if (auto b = gguf_detail::block_layout(t.type); b && (t.shape.empty() || t.shape[0] % b->elements != 0))
        throw GgufError(ggml_type_name(t.type) + " " + ctx + " has rows of " +
                        std::to_string(t.shape.empty() ? 0 : t.shape[0]) + " elements, not a multiple of its " +
                        std::to_string(b->elements) + "-element blocks");
      if (t.type == GgmlType::I2_S && n % 4 != 0)
        throw GgufError("I2_S " + ctx + " has " + std::to_string(n) + " elements, not a multiple of 4");
      t.size_bytes = *size;
      t.offset = read<uint64_t>("the data offset of " + ctx);  // relative until place_data()
      if (t.offset % f_.alignment_ != 0)
        throw GgufError(ctx + " has misaligned data offset " + std::to_string(t.offset) +
                        ": not a multiple of general.alignment " + std::to_string(f_.alignment_));
      f_.tensors_.push_back(std::move(t));
    }
    // tensor_index_ holds views of the names: build it only now that the vector no longer changes.
    for (size_t i = 0; i < f_.tensors_.size(); ++i) f_.tensor_index_.emplace(f_.tensors_[i].name, i);
  }

  void place_data() {
    uint64_t a = f_.alignment_;
    uint64_t data = (pos_ + a - 1) / a * a;  // pos_ <= file size < 2^63, no overflow
    f_.data_offset_ = data;
    uint64_t size = b_.size();
    for (auto& t : f_.tensors_) {
      std::string ctx = "tensor '" + t.name + "'";
      if (t.offset > std::numeric_limits<uint64_t>::max() - data)
        throw GgufError(ctx + " data offset " + std::to_string(t.offset) +
                        " overflows when added to the data section start " + std::to_string(data));
      uint64_t abs = data + t.offset;
      if (abs > size)
        throw GgufError(ctx + " data offset " + std::to_string(t.offset) + " (absolute " + std::to_string(abs) +
                        ") lies outside the file (size " + std::to_string(size) + ")");
      if (t.size_bytes > size - abs)
        throw GgufError("truncated file: " + ctx + " data (" + std::to_string(t.size_bytes) + " bytes at offset " +
                        std::to_string(abs) + ") runs past the end of the file (size " + std::to_string(size) + ")");
      t.offset = abs;
    }
    // Overlapping tensors mean a corrupt table (writers lay tensors out one after another).
    std::vector<const GgufTensorInfo*> order;
    order.reserve(f_.tensors_.size());
    for (const auto& t : f_.tensors_)
      if (t.size_bytes) order.push_back(&t);
    std::stable_sort(order.begin(), order.end(), [](auto* x, auto* y) { return x->offset < y->offset; });
    for (size_t i = 1; i < order.size(); ++i)
      if (order[i - 1]->offset + order[i - 1]->size_bytes > order[i]->offset)
        throw GgufError("tensors '" + order[i - 1]->name + "' and '" + order[i]->name + "' overlap in the file");
  }
};

std::unique_ptr<GgufFile> parse_into(std::unique_ptr<GgufFile> f) {
  GgufParser(*f).run();
  return f;
}

}  // namespace trit
