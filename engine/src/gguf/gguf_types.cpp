// Names and sizes of GGML tensor types and GGUF metadata value types.
#include "gguf/gguf_types.h"

#include <string>

namespace trit {

std::string ggml_type_name(GgmlType t) {
  switch (t) {
    case GgmlType::F32:
      return "F32";
    case GgmlType::F16:
      return "F16";
    case GgmlType::Q4_0:
      return "Q4_0";
    case GgmlType::Q4_1:
      return "Q4_1";
    case GgmlType::Q5_0:
      return "Q5_0";
    case GgmlType::Q5_1:
      return "Q5_1";
    case GgmlType::Q8_0:
      return "Q8_0";
    case GgmlType::Q8_1:
      return "Q8_1";
    case GgmlType::Q2_K:
      return "Q2_K";
    case GgmlType::Q3_K:
      return "Q3_K";
    case GgmlType::Q4_K:
      return "Q4_K";
    case GgmlType::Q5_K:
      return "Q5_K";
    case GgmlType::Q6_K:
      return "Q6_K";
    case GgmlType::Q8_K:
      return "Q8_K";
    case GgmlType::I8:
      return "I8";
    case GgmlType::I16:
      return "I16";
    case GgmlType::I32:
      return "I32";
    case GgmlType::I64:
      return "I64";
    case GgmlType::F64:
      return "F64";
    case GgmlType::BF16:
      return "BF16";
    case GgmlType::TQ1_0:
      return "TQ1_0";
    case GgmlType::TQ2_0:
      return "TQ2_0";
    case GgmlType::I2_S:
      return "I2_S";
  }
  return "type " + std::to_string(static_cast<uint32_t>(t));
}

bool ggml_type_supported(GgmlType t) {
  return gguf_detail::tensor_data_size(t, 0).has_value();
}

std::string gguf_value_type_name(GgufValueType t) {
  switch (t) {
    case GgufValueType::U8:
      return "u8";
    case GgufValueType::I8:
      return "i8";
    case GgufValueType::U16:
      return "u16";
    case GgufValueType::I16:
      return "i16";
    case GgufValueType::U32:
      return "u32";
    case GgufValueType::I32:
      return "i32";
    case GgufValueType::F32:
      return "f32";
    case GgufValueType::BOOL:
      return "bool";
    case GgufValueType::STRING:
      return "string";
    case GgufValueType::ARRAY:
      return "array";
    case GgufValueType::U64:
      return "u64";
    case GgufValueType::I64:
      return "i64";
    case GgufValueType::F64:
      return "f64";
  }
  return "type " + std::to_string(static_cast<uint32_t>(t));
}

namespace gguf_detail {

std::optional<BlockLayout> block_layout(GgmlType t) {
  switch (t) {
    case GgmlType::Q4_0:
      return BlockLayout{32, 18};
    case GgmlType::Q4_1:
      return BlockLayout{32, 20};
    case GgmlType::Q5_0:
      return BlockLayout{32, 22};
    case GgmlType::Q5_1:
      return BlockLayout{32, 24};
    case GgmlType::Q8_0:
      return BlockLayout{32, 34};
    case GgmlType::Q8_1:
      return BlockLayout{32, 36};
    case GgmlType::Q2_K:
      return BlockLayout{256, 84};
    case GgmlType::Q3_K:
      return BlockLayout{256, 110};
    case GgmlType::Q4_K:
      return BlockLayout{256, 144};
    case GgmlType::Q5_K:
      return BlockLayout{256, 176};
    case GgmlType::Q6_K:
      return BlockLayout{256, 210};
    case GgmlType::Q8_K:
      return BlockLayout{256, 292};
    case GgmlType::TQ1_0:
      return BlockLayout{256, 54};
    case GgmlType::TQ2_0:
      return BlockLayout{256, 66};
    default:
      return std::nullopt;
  }
}

std::optional<uint64_t> tensor_data_size(GgmlType t, uint64_t n) {
  if (auto b = block_layout(t)) return n / b->elements * b->bytes;  // the parser checks n % elements
  switch (t) {
    case GgmlType::I8:
      return n;
    case GgmlType::F16:
    case GgmlType::BF16:
    case GgmlType::I16:
      return n * 2;
    case GgmlType::F32:
    case GgmlType::I32:
      return n * 4;
    case GgmlType::F64:
    case GgmlType::I64:
      return n * 8;
    case GgmlType::I2_S:
      return n / 4 + 32;
    default:
      return std::nullopt;
  }
}

uint64_t gguf_scalar_size(GgufValueType t) {
  switch (t) {
    case GgufValueType::U8:
    case GgufValueType::I8:
    case GgufValueType::BOOL:
      return 1;
    case GgufValueType::U16:
    case GgufValueType::I16:
      return 2;
    case GgufValueType::U32:
    case GgufValueType::I32:
    case GgufValueType::F32:
      return 4;
    case GgufValueType::U64:
    case GgufValueType::I64:
    case GgufValueType::F64:
      return 8;
    case GgufValueType::STRING:
    case GgufValueType::ARRAY:
      return 0;
  }
  return 0;
}

uint64_t gguf_min_encoded_size(GgufValueType t) {
  if (t == GgufValueType::STRING) return 8;
  if (t == GgufValueType::ARRAY) return 12;
  return gguf_scalar_size(t);
}

bool gguf_value_type_known(uint32_t t) {
  return t <= static_cast<uint32_t>(GgufValueType::F64);
}

}  // namespace gguf_detail
}  // namespace trit
