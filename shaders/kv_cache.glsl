// The KV cache's element format: the one rule for every kernel that appends keys and values to the cache
// or reads them (the includer declares the KV_F16 specialization constant first; a writer also includes
// rope_f16.glsl, whose pack_f16 rounds to F16). The caches are uint[] buffers:
//  - KV_F16: IEEE binary16, two elements per 32-bit word (element e in word e / 2, the low half when e
//    is even), rounded once to nearest even;
//  - else full precision, the activation type: float (one word) in fp32 builds, double (two words, the
//    low one first) in TRIT_F64 builds. So the double build's "F32" cache rounds nothing, as the CPU
//    reference and the golden files' f32kv variant keep K and V. The host sizes the caches by the same
//    rule (trit::kv_element_bytes, trit/forward.h).
// Keys and values are written as pairs of neighbouring elements (e, e + 1), e even (a pair is one F16
// word): a new writer stores each pair with KV_STORE_PAIR and nothing else. (The one exception is the
// persistent kernel, decode_layer.glsl, which runs only with F16 caches and fp32's floats and keeps its
// own words for them: the double build's full-precision cache decodes on the fused kernels.)
#ifdef TRIT_F64
#define KV_FULL_WORDS 2u  // words of a full-precision element
#define kv_pair_t uvec4   // a pair's words: F16 in .x; else element e in .xy, e + 1 in .zw
#else
#define KV_FULL_WORDS 1u
#define kv_pair_t uvec2   // F16 in .x; else e in .x, e + 1 in .y
#endif

// Word offset of element e from element 0 (for F16, of the word holding it).
uint kv_word(uint e) { return KV_F16 ? e / 2u : e * KV_FULL_WORDS; }
// Words of a pair, and elements per uvec4.
const uint KV_PAIR_WORDS = KV_F16 ? 1u : 2u * KV_FULL_WORDS;
const uint KV_PER_UVEC4 = KV_F16 ? 8u : 4u / KV_FULL_WORDS;

// A full-precision element from its words (fp32 builds: one word, lo; hi is the same word).
real kv_full(uint lo, uint hi) {
#ifdef TRIT_F64
  return packDouble2x32(uvec2(lo, hi));
#else
  return uintBitsToFloat(lo);
#endif
}

// Four full-precision elements from their words: a's (fp32 builds), or a's two then b's (double).
real4 kv_full4(uvec4 a, uvec4 b) {
#ifdef TRIT_F64
  return real4(kv_full(a.x, a.y), kv_full(a.z, a.w), kv_full(b.x, b.y), kv_full(b.z, b.w));
#else
  return real4(uintBitsToFloat(a));
#endif
}

// Element e of an F16 cache from the word holding it.
real kv_half(uint w, uint e) {
  const vec2 p = unpackHalf2x16(w);
  return real((e & 1u) == 0u ? p.x : p.y);
}

// The two elements of a pair's words (KV_LOAD_PAIR).
real2 kv_unpack_pair(kv_pair_t w) {
#ifdef TRIT_F64
  return KV_F16 ? real2(unpackHalf2x16(w.x)) : real2(kv_full(w.x, w.y), kv_full(w.z, w.w));
#else
  return KV_F16 ? real2(unpackHalf2x16(w.x)) : real2(uintBitsToFloat(w.x), uintBitsToFloat(w.y));
#endif
}

// (Macros, not functions: GLSL passes no buffers to functions. `cache` is the includer's uint[] buffer,
// or a shared array of its words; `at` a word offset, kv_word's plus the includer's base.)

// A full-precision element whose words start at `at`.
#define KV_FULL_AT(cache, at) kv_full(cache[at], cache[(at) + KV_FULL_WORDS - 1u])
// Element e of a cache whose element 0 is at word w0, as `real`.
#define KV_AT(cache, w0, e) \
  (KV_F16 ? kv_half(cache[(w0) + (e) / 2u], e) : KV_FULL_AT(cache, (w0) + (e) * KV_FULL_WORDS))
// The words of the pair whose first word is at `at` (kv_word of its first element), for kv_unpack_pair.
#ifdef TRIT_F64
#define KV_LOAD_PAIR(cache, at) \
  (KV_F16 ? uvec4(cache[at], 0u, 0u, 0u) : uvec4(cache[at], cache[(at) + 1u], cache[(at) + 2u], cache[(at) + 3u]))
#else
#define KV_LOAD_PAIR(cache, at) (KV_F16 ? uvec2(cache[at], 0u) : uvec2(cache[at], cache[(at) + 1u]))
#endif

// Stores elements e and e + 1 (e even) with the values a and b into a cache whose element 0 is at word
// w0: F16 pairs rounded once to nearest even (pack_f16), else the values as they are.
#ifdef TRIT_F64
#define KV_STORE_FULL_PAIR(cache, at, a, b)       \
  {                                               \
    const uvec2 kv_a_ = unpackDouble2x32(a);      \
    const uvec2 kv_b_ = unpackDouble2x32(b);      \
    cache[at] = kv_a_.x;                          \
    cache[(at) + 1u] = kv_a_.y;                   \
    cache[(at) + 2u] = kv_b_.x;                   \
    cache[(at) + 3u] = kv_b_.y;                   \
  }
#else
#define KV_STORE_FULL_PAIR(cache, at, a, b) \
  {                                         \
    cache[at] = floatBitsToUint(a);         \
    cache[(at) + 1u] = floatBitsToUint(b);  \
  }
#endif
#define KV_STORE_PAIR(cache, w0, e, a, b)            \
  {                                                  \
    const uint kv_at_ = (w0) + kv_word(e);           \
    if (KV_F16) {                                    \
      cache[kv_at_] = pack_f16(a, b);                \
    } else {                                         \
      KV_STORE_FULL_PAIR(cache, kv_at_, a, b)        \
    }                                                \
  }
