// Metadata values, arrays and the typed metadata getters.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "gguf/gguf_types.h"
#include "trit/gguf.h"

namespace trit {
namespace {

bool is_unsigned_type(GgufValueType t) {
  return t == GgufValueType::U8 || t == GgufValueType::U16 || t == GgufValueType::U32 || t == GgufValueType::U64;
}
bool is_signed_type(GgufValueType t) {
  return t == GgufValueType::I8 || t == GgufValueType::I16 || t == GgufValueType::I32 || t == GgufValueType::I64;
}
bool is_float_type(GgufValueType t) {
  return t == GgufValueType::F32 || t == GgufValueType::F64;
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string format_double(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// A quoted string, control characters escaped, cut to `max_chars` bytes.
std::string quote(std::string_view s, size_t max_chars = 80) {
  std::string out = "\"";
  size_t n = std::min(s.size(), max_chars);
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  out += '"';
  if (n < s.size()) out += "... (" + std::to_string(s.size()) + " bytes)";
  return out;
}

}  // namespace

// ---- GgufArray ----

int64_t GgufArray::int_at(size_t i) const {
  uint64_t u = 0;
  if (is_unsigned_type(elem_type_)) {
    u = uint_at(i);
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw GgufError("array element " + std::to_string(i) + " = " + std::to_string(u) + " does not fit in i64");
    return static_cast<int64_t>(u);
  }
  if (i >= size_)
    throw GgufError("array index " + std::to_string(i) + " out of range (size " + std::to_string(size_) + ")");
  const uint8_t* p = raw_.data() + i * gguf_detail::gguf_scalar_size(elem_type_);
  switch (elem_type_) {
    case GgufValueType::I8:
      return load<int8_t>(p);
    case GgufValueType::I16:
      return load<int16_t>(p);
    case GgufValueType::I32:
      return load<int32_t>(p);
    case GgufValueType::I64:
      return load<int64_t>(p);
    default:
      break;
  }
  throw GgufError("array of " + gguf_value_type_name(elem_type_) + " read as integers");
}

uint64_t GgufArray::uint_at(size_t i) const {
  if (is_signed_type(elem_type_)) {
    int64_t v = int_at(i);
    if (v < 0) throw GgufError("array element " + std::to_string(i) + " = " + std::to_string(v) + " is negative");
    return static_cast<uint64_t>(v);
  }
  if (i >= size_)
    throw GgufError("array index " + std::to_string(i) + " out of range (size " + std::to_string(size_) + ")");
  const uint8_t* p = raw_.data() + i * gguf_detail::gguf_scalar_size(elem_type_);
  switch (elem_type_) {
    case GgufValueType::U8:
      return load<uint8_t>(p);
    case GgufValueType::U16:
      return load<uint16_t>(p);
    case GgufValueType::U32:
      return load<uint32_t>(p);
    case GgufValueType::U64:
      return load<uint64_t>(p);
    default:
      break;
  }
  throw GgufError("array of " + gguf_value_type_name(elem_type_) + " read as integers");
}

double GgufArray::float_at(size_t i) const {
  if (is_unsigned_type(elem_type_)) return static_cast<double>(uint_at(i));
  if (is_signed_type(elem_type_)) return static_cast<double>(int_at(i));
  if (i >= size_)
    throw GgufError("array index " + std::to_string(i) + " out of range (size " + std::to_string(size_) + ")");
  if (elem_type_ == GgufValueType::F32) return load<float>(raw_.data() + i * 4);
  if (elem_type_ == GgufValueType::F64) return load<double>(raw_.data() + i * 8);
  throw GgufError("array of " + gguf_value_type_name(elem_type_) + " read as numbers");
}

bool GgufArray::bool_at(size_t i) const {
  if (elem_type_ != GgufValueType::BOOL)
    throw GgufError("array of " + gguf_value_type_name(elem_type_) + " read as bools");
  if (i >= size_)
    throw GgufError("array index " + std::to_string(i) + " out of range (size " + std::to_string(size_) + ")");
  return raw_[i] != 0;
}

std::string_view GgufArray::string_at(size_t i) const {
  if (elem_type_ != GgufValueType::STRING)
    throw GgufError("array of " + gguf_value_type_name(elem_type_) + " read as strings");
  if (i >= size_)
    throw GgufError("array index " + std::to_string(i) + " out of range (size " + std::to_string(size_) + ")");
  return strings_[i];
}

const GgufValue& GgufArray::array_at(size_t i) const {
  if (elem_type_ != GgufValueType::ARRAY)
    throw GgufError("array of " + gguf_value_type_name(elem_type_) + " read as arrays");
  if (i >= size_)
    throw GgufError("array index " + std::to_string(i) + " out of range (size " + std::to_string(size_) + ")");
  return arrays_[i];
}

// ---- GgufValue ----

bool GgufValue::is_integer() const {
  return is_unsigned_type(type_) || is_signed_type(type_);
}
bool GgufValue::is_float() const {
  return is_float_type(type_);
}

std::optional<uint64_t> GgufValue::as_u64() const {
  if (is_unsigned_type(type_)) return u_;
  if (is_signed_type(type_) && i_ >= 0) return static_cast<uint64_t>(i_);
  return std::nullopt;
}

std::optional<int64_t> GgufValue::as_i64() const {
  if (is_signed_type(type_)) return i_;
  if (is_unsigned_type(type_) && u_ <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return static_cast<int64_t>(u_);
  return std::nullopt;
}

std::optional<double> GgufValue::as_double() const {
  if (is_float_type(type_)) return f_;
  if (is_unsigned_type(type_)) return static_cast<double>(u_);
  if (is_signed_type(type_)) return static_cast<double>(i_);
  return std::nullopt;
}

std::optional<bool> GgufValue::as_bool() const {
  if (type_ == GgufValueType::BOOL) return u_ != 0;
  return std::nullopt;
}

std::optional<std::string_view> GgufValue::as_string() const {
  if (type_ == GgufValueType::STRING) return s_;
  return std::nullopt;
}

const GgufArray* GgufValue::as_array() const {
  return type_ == GgufValueType::ARRAY ? arr_.get() : nullptr;
}

std::string GgufValue::to_string(size_t max_items) const {
  if (is_unsigned_type(type_)) return std::to_string(u_);
  if (is_signed_type(type_)) return std::to_string(i_);
  if (is_float_type(type_)) return format_double(f_);
  if (type_ == GgufValueType::BOOL) return u_ ? "true" : "false";
  if (type_ == GgufValueType::STRING) return quote(s_);
  const GgufArray& a = *arr_;
  // Appended piece by piece: GCC 12 at -O3 reports a false -Wrestrict on chained operator+ (GCC bug 105329).
  std::string out = "[";
  out += gguf_value_type_name(a.elem_type());
  out += " x ";
  out += std::to_string(a.size());
  out += "]";
  if (a.size() == 0) return out;
  out += " [";
  size_t n = std::min(a.size(), max_items);
  for (size_t i = 0; i < n; ++i) {
    if (i) out += ", ";
    switch (a.elem_type()) {
      case GgufValueType::STRING:
        out += quote(a.string_at(i), 40);
        break;
      case GgufValueType::ARRAY:
        out += a.array_at(i).to_string(std::max<size_t>(1, max_items / 2));
        break;
      case GgufValueType::BOOL:
        out += a.bool_at(i) ? "true" : "false";
        break;
      case GgufValueType::F32:
      case GgufValueType::F64:
        out += format_double(a.float_at(i));
        break;
      default:
        out += is_signed_type(a.elem_type()) ? std::to_string(a.int_at(i)) : std::to_string(a.uint_at(i));
    }
  }
  if (n < a.size()) out += ", ...";
  out += "]";
  return out;
}

// ---- GgufMetadata ----

const GgufValue* GgufMetadata::find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second].value;
}

const GgufValue& GgufMetadata::require(std::string_view key) const {
  const GgufValue* v = find(key);
  if (!v) throw GgufError("metadata key '" + std::string(key) + "' is missing");
  return *v;
}

namespace {

[[noreturn]] void wrong_type(std::string_view key, const GgufValue& v, const char* expected) {
  throw GgufError("metadata key '" + std::string(key) + "' has type " + gguf_value_type_name(v.type()) + ", expected " +
                  expected);
}
[[noreturn]] void out_of_range(std::string_view key, const GgufValue& v, const char* expected) {
  throw GgufError("metadata key '" + std::string(key) + "' = " + v.to_string() + " is out of range for " + expected);
}

template <typename T>
T get_int(std::string_view key, const GgufValue& v, const char* what) {
  if (!v.is_integer()) wrong_type(key, v, what);
  if constexpr (std::is_signed_v<T>) {
    auto x = v.as_i64();
    if (!x || *x < std::numeric_limits<T>::min() || *x > std::numeric_limits<T>::max()) out_of_range(key, v, what);
    return static_cast<T>(*x);
  } else {
    auto x = v.as_u64();
    if (!x || *x > std::numeric_limits<T>::max()) out_of_range(key, v, what);
    return static_cast<T>(*x);
  }
}

const GgufArray& get_arr(std::string_view key, const GgufValue& v) {
  const GgufArray* a = v.as_array();
  if (!a) wrong_type(key, v, "an array");
  return *a;
}

template <typename T>
std::vector<T> get_int_array(std::string_view key, const GgufArray& a, const char* what) {
  bool is_int = is_unsigned_type(a.elem_type()) || is_signed_type(a.elem_type());
  if (!is_int)
    throw GgufError("metadata key '" + std::string(key) + "' is an array of " + gguf_value_type_name(a.elem_type()) +
                    ", expected an array of " + what);
  std::vector<T> out(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    bool fits;
    if (is_signed_type(a.elem_type())) {
      int64_t x = a.int_at(i);
      fits = std::is_signed_v<T>
                 ? (x >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
                    x <= static_cast<int64_t>(std::numeric_limits<T>::max()))
                 : (x >= 0 && static_cast<uint64_t>(x) <= static_cast<uint64_t>(std::numeric_limits<T>::max()));
      out[i] = static_cast<T>(x);
    } else {
      uint64_t x = a.uint_at(i);
      fits = x <= static_cast<uint64_t>(std::numeric_limits<T>::max());
      out[i] = static_cast<T>(x);
    }
    if (!fits)
      throw GgufError("metadata key '" + std::string(key) + "' element " + std::to_string(i) + " is out of range for " +
                      what);
  }
  return out;
}

}  // namespace

uint32_t GgufMetadata::get_u32(std::string_view key) const {
  return get_int<uint32_t>(key, require(key), "u32");
}
int32_t GgufMetadata::get_i32(std::string_view key) const {
  return get_int<int32_t>(key, require(key), "i32");
}
uint64_t GgufMetadata::get_u64(std::string_view key) const {
  return get_int<uint64_t>(key, require(key), "u64");
}
int64_t GgufMetadata::get_i64(std::string_view key) const {
  return get_int<int64_t>(key, require(key), "i64");
}

double GgufMetadata::get_f64(std::string_view key) const {
  const GgufValue& v = require(key);
  auto d = v.as_double();
  if (!d) wrong_type(key, v, "a number");
  return *d;
}

float GgufMetadata::get_f32(std::string_view key) const {
  const GgufValue& v = require(key);
  auto d = v.as_double();
  if (!d) wrong_type(key, v, "a number");
  if (std::isfinite(*d) && std::fabs(*d) > static_cast<double>(std::numeric_limits<float>::max()))
    out_of_range(key, v, "f32");
  return static_cast<float>(*d);
}

bool GgufMetadata::get_bool(std::string_view key) const {
  const GgufValue& v = require(key);
  auto b = v.as_bool();
  if (!b) wrong_type(key, v, "bool");
  return *b;
}

std::string_view GgufMetadata::get_string(std::string_view key) const {
  const GgufValue& v = require(key);
  auto s = v.as_string();
  if (!s) wrong_type(key, v, "string");
  return *s;
}

const GgufArray& GgufMetadata::get_array(std::string_view key) const {
  return get_arr(key, require(key));
}

const std::vector<std::string_view>& GgufMetadata::get_string_array(std::string_view key) const {
  const GgufArray& a = get_array(key);
  if (a.elem_type() != GgufValueType::STRING)
    throw GgufError("metadata key '" + std::string(key) + "' is an array of " + gguf_value_type_name(a.elem_type()) +
                    ", expected an array of strings");
  return a.strings();
}

std::vector<int32_t> GgufMetadata::get_i32_array(std::string_view key) const {
  return get_int_array<int32_t>(key, get_array(key), "i32");
}
std::vector<uint32_t> GgufMetadata::get_u32_array(std::string_view key) const {
  return get_int_array<uint32_t>(key, get_array(key), "u32");
}

std::vector<float> GgufMetadata::get_f32_array(std::string_view key) const {
  const GgufArray& a = get_array(key);
  GgufValueType t = a.elem_type();
  if (t == GgufValueType::STRING || t == GgufValueType::ARRAY || t == GgufValueType::BOOL)
    throw GgufError("metadata key '" + std::string(key) + "' is an array of " + gguf_value_type_name(t) +
                    ", expected an array of numbers");
  std::vector<float> out(a.size());
  if (t == GgufValueType::F32) {
    if (!out.empty()) std::memcpy(out.data(), a.raw().data(), out.size() * sizeof(float));
    return out;
  }
  for (size_t i = 0; i < a.size(); ++i) out[i] = static_cast<float>(a.float_at(i));
  return out;
}

std::optional<uint32_t> GgufMetadata::find_u32(std::string_view key) const {
  if (!contains(key)) return std::nullopt;
  return get_u32(key);
}
std::optional<int32_t> GgufMetadata::find_i32(std::string_view key) const {
  if (!contains(key)) return std::nullopt;
  return get_i32(key);
}
std::optional<float> GgufMetadata::find_f32(std::string_view key) const {
  if (!contains(key)) return std::nullopt;
  return get_f32(key);
}
std::optional<std::string_view> GgufMetadata::find_string(std::string_view key) const {
  if (!contains(key)) return std::nullopt;
  return get_string(key);
}

uint64_t GgufTensorInfo::n_elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;  // the parser guarantees the product fits in 63 bits
  return n;
}

}  // namespace trit
