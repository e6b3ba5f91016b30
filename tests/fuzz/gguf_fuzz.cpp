// libFuzzer target: the GGUF parser, every metadata accessor and the BitNet model validation, on arbitrary
// bytes. Any crash, sanitizer report, leak, or exception other than ModelError/GgufError is a bug.
// Built with clang (tests/engine/gguf_fuzz.cmake), run for a bounded time as the CTest test gguf_fuzz.
#include <cstddef>
#include <cstdint>
#include <span>

#include "gguf/model_loader.h"
#include "trit/gguf.h"

namespace {

// Touch every metadata value through the public accessors, the way the tokenizer and inspect do.
void walk(const trit::GgufValue& v) {
  (void)v.as_u64();
  (void)v.as_i64();
  (void)v.as_double();
  (void)v.as_bool();
  (void)v.as_string();
  if (const auto* a = v.as_array()) {
    for (size_t i = 0; i < a->size() && i < 64; ++i) {
      switch (a->elem_type()) {
        case trit::GgufValueType::STRING:
          (void)a->string_at(i);
          break;
        case trit::GgufValueType::ARRAY:
          walk(a->array_at(i));
          break;
        case trit::GgufValueType::BOOL:
          (void)a->bool_at(i);
          break;
        default:
          (void)a->float_at(i);
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    auto f = trit::GgufFile::parse(std::span<const uint8_t>(data, size));
    for (const auto& kv : f->metadata().entries()) {
      walk(kv.value);
      (void)kv.value.to_string(4);
    }
    for (const auto& t : f->tensors()) {
      auto bytes = f->tensor_data(t);
      if (!bytes.empty()) (void)(bytes.front() + bytes.back());  // ASan checks both ends lie in the input
    }
    const auto& md = f->metadata();
    if (md.contains("tokenizer.ggml.token_type")) (void)md.get_i32_array("tokenizer.ggml.token_type");
    if (md.contains("tokenizer.ggml.scores")) (void)md.get_f32_array("tokenizer.ggml.scores");
    auto m = trit::gguf_detail::load_model(*f);
    // A model that loads must be internally consistent: spot-check the views against the input.
    for (const auto& l : m.weights.layers)
      if (l.down.codes) (void)l.down.codes[uint64_t{l.down.rows} * l.down.cols / 4 - 1];
  } catch (const trit::ModelError&) {
    // Rejected with a message: the expected outcome for almost every input.
  }
  return 0;
}
