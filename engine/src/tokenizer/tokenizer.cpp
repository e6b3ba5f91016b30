// Byte-level BPE: vocabulary validation, special-token splitting, the merge loop, decoding.
#include "trit/tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "tokenizer/tokenizer_impl.h"
#include "tokenizer/utf8.h"

namespace trit {
namespace {

// Inverse of byte_to_unicode(): code point -> byte, -1 for code points outside the alphabet.
const std::array<int16_t, 512>& unicode_to_byte() {
  static const std::array<int16_t, 512> table = [] {
    std::array<int16_t, 512> t;
    t.fill(-1);
    for (int b = 0; b < 256; ++b) {
      const std::string& s = byte_to_unicode(static_cast<uint8_t>(b));
      auto c0 = static_cast<unsigned char>(s[0]);
      uint32_t cp = s.size() == 1 ? c0 : ((c0 & 0x1Fu) << 6) | (static_cast<unsigned char>(s[1]) & 0x3Fu);
      t[cp] = static_cast<int16_t>(b);
    }
    return t;
  }();
  return table;
}

// The bytes a GPT-2 byte-alphabet spelling stands for; false if a character is outside the alphabet.
bool alphabet_to_bytes(std::string_view spelling, std::string& out) {
  const auto& table = unicode_to_byte();
  out.clear();
  const auto* p = reinterpret_cast<const uint8_t*>(spelling.data());
  for (size_t i = 0; i < spelling.size();) {
    auto r = utf8::step(p + i, spelling.size() - i);
    if (r.step != utf8::Step::kValid || r.length > 2) return false;
    uint32_t cp = r.length == 1 ? p[i] : ((p[i] & 0x1Fu) << 6) | (p[i + 1] & 0x3Fu);
    if (cp >= table.size() || table[cp] < 0) return false;
    out += static_cast<char>(table[cp]);
    i += r.length;
  }
  return true;
}

std::string describe(int32_t id, std::string_view spelling) {
  return "token " + std::to_string(id) + " '" + std::string(spelling) + "'";
}

}  // namespace

Tokenizer::Tokenizer(const TokenizerVocab& vocab) : impl_(std::make_unique<Impl>()) {
  const std::vector<std::string_view> tokens(vocab.tokens.begin(), vocab.tokens.end()),
      merges(vocab.merges.begin(), vocab.merges.end());
  impl_->build(VocabView{tokens, vocab.token_types, merges, vocab.bos, vocab.eos, vocab.eot, vocab.eom});
}

Tokenizer::Tokenizer(const VocabView& vocab) : impl_(std::make_unique<Impl>()) {
  impl_->build(vocab);
}

void Tokenizer::Impl::build(const VocabView& vocab) {
  Impl& m = *this;
  const size_t n = vocab.tokens.size();
  if (n == 0) throw TokenizerError("the vocabulary is empty");
  if (n > 0x7FFFFFFF) throw TokenizerError("the vocabulary has too many tokens: " + std::to_string(n));
  if (vocab.token_types.size() != n)
    throw TokenizerError("the vocabulary has " + std::to_string(n) + " tokens but " +
                         std::to_string(vocab.token_types.size()) + " token types");
  size_t chars = 0;
  for (std::string_view s : vocab.tokens) chars += s.size();
  try {
    m.spelling.reserve(n, chars);
    m.bytes.reserve(n, chars);  // (a byte-alphabet spelling is at least as long as its bytes)
    m.types.resize(n);
    m.by_spelling = StringIdIndex(n);
    m.by_bytes = StringIdIndex(n);
    std::string decoded;
    for (size_t i = 0; i < n; ++i) {
      const auto id = static_cast<int32_t>(i);
      const std::string_view s = vocab.tokens[i];
      const int32_t type = vocab.token_types[i];
      if (type < kTokenNormal || type > kTokenByte)
        throw TokenizerError(describe(id, s) + " has token type " + std::to_string(type) + " (valid: 1..6)");
      if (s.empty()) throw TokenizerError("token " + std::to_string(id) + " is the empty string");
      m.types[i] = static_cast<int8_t>(type);
      m.spelling.push(s);
      m.by_spelling.insert(s, id, m.spelling);  // a duplicate spelling keeps its lowest id
      if (type == kTokenControl || type == kTokenUserDefined) {
        // Added tokens are literal text, matched whole before pre-tokenization.
        m.bytes.push(s);
        m.specials.push_back({std::string(s), id, type == kTokenControl});
        continue;
      }
      if (!alphabet_to_bytes(s, decoded)) {
        if (type == kTokenNormal)
          throw TokenizerError(describe(id, s) +
                               " is not spelled in the GPT-2 byte alphabet (is this a byte-level BPE vocabulary?)");
        m.bytes.push(s);  // unknown/unused/byte tokens outside the alphabet never come out of encode
        continue;
      }
      m.bytes.push(decoded);
      if (type == kTokenNormal) m.by_bytes.insert(decoded, id, m.bytes);
    }
  } catch (const std::length_error& e) {
    throw TokenizerError(e.what());
  }
  m.bytes.shrink();
  for (int b = 0; b < 256; ++b) {
    const std::string& spelled = byte_to_unicode(static_cast<uint8_t>(b));
    const int32_t id = m.by_spelling.find(spelled, m.spelling);
    if (id < 0 || m.types[static_cast<size_t>(id)] != kTokenNormal) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02X", b);
      throw TokenizerError(std::string("the vocabulary has no normal token for byte ") + hex + " ('" + spelled +
                           "'), so some text could not be encoded");
    }
    m.byte_token[static_cast<size_t>(b)] = id;
  }
  m.merges = MergeTable(vocab.merges.size());
  std::string joined;
  for (size_t rank = 0; rank < vocab.merges.size(); ++rank) {
    const std::string_view merge = vocab.merges[rank];
    auto bad = [&](const std::string& why) {
      return TokenizerError("merge " + std::to_string(rank) + " '" + std::string(merge) + "': " + why);
    };
    size_t sp = merge.find(' ');
    if (sp == std::string::npos || sp == 0 || sp + 1 == merge.size() || merge.find(' ', sp + 1) != std::string::npos)
      throw bad("not two tokens separated by one space");
    const std::string_view left = merge.substr(0, sp), right = merge.substr(sp + 1);
    const int32_t l = m.by_spelling.find(left, m.spelling), r = m.by_spelling.find(right, m.spelling);
    if (l < 0) throw bad("'" + std::string(left) + "' is not in the vocabulary");
    if (r < 0) throw bad("'" + std::string(right) + "' is not in the vocabulary");
    joined.assign(left).append(right);
    const int32_t j = m.by_spelling.find(joined, m.spelling);
    if (j < 0) throw bad("the merged token '" + joined + "' is not in the vocabulary");
    if (rank > 0x7FFFFFFE) throw bad("too many merges");
    m.merges.insert(l, r, MergeTable::Merge{static_cast<int32_t>(rank), j});
  }
  std::stable_sort(m.specials.begin(), m.specials.end(),
                   [](const Impl::Special& a, const Impl::Special& b) { return a.text.size() > b.text.size(); });
  for (const auto& s : m.specials) {
    m.special_lead[static_cast<unsigned char>(s.text[0])] = true;
    m.has_user_defined = m.has_user_defined || !s.control;
  }
  auto check = [&](int32_t id, const char* what) {
    if (id < -1 || id >= static_cast<int32_t>(n))
      throw TokenizerError(std::string(what) + " id " + std::to_string(id) + " is outside the vocabulary of " +
                           std::to_string(n) + " tokens");
  };
  check(vocab.bos, "BOS");
  check(vocab.eos, "EOS");
  check(vocab.eot, "EOT");
  check(vocab.eom, "EOM");
  m.bos = vocab.bos;
  m.eos = vocab.eos;
  m.eot = vocab.eot >= 0 ? vocab.eot : vocab.eos;
  m.eom = vocab.eom;
}

Tokenizer::Tokenizer(Tokenizer&&) noexcept = default;
Tokenizer& Tokenizer::operator=(Tokenizer&&) noexcept = default;
Tokenizer::~Tokenizer() = default;

void Tokenizer::Impl::bpe(std::string_view piece, std::vector<int32_t>& out) const {
  if (piece.size() == 1) {
    out.push_back(byte_token[static_cast<unsigned char>(piece[0])]);
    return;
  }
  // A piece that is a token is that token, even where merges would not build it (LLaMA 3 / tiktoken).
  if (const int32_t id = by_bytes.find(piece, bytes); id >= 0) {
    out.push_back(id);
    return;
  }
  // Symbols in a linked list; candidate merges in a min-heap by (rank, position). A popped candidate is
  // stale if either side was merged since; merging pushes the two new neighbour pairs. O(n log n).
  struct Symbol {
    int32_t id, prev, next;
  };
  struct Candidate {
    int32_t rank, left, left_id, right_id, result;
    // std::push_heap builds a max-heap: "less" means later (higher rank, then further right).
    bool operator<(const Candidate& o) const { return rank != o.rank ? rank > o.rank : left > o.left; }
  };
  thread_local std::vector<Symbol> sym;
  thread_local std::vector<Candidate> heap;
  const auto n = static_cast<int32_t>(piece.size());
  sym.resize(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i)
    sym[static_cast<size_t>(i)] = {byte_token[static_cast<unsigned char>(piece[static_cast<size_t>(i)])], i - 1,
                                   i + 1 < n ? i + 1 : -1};
  heap.clear();
  auto consider = [&](int32_t left) {
    if (left < 0) return;
    int32_t right = sym[static_cast<size_t>(left)].next;
    if (right < 0) return;
    const int32_t lid = sym[static_cast<size_t>(left)].id, rid = sym[static_cast<size_t>(right)].id;
    const MergeTable::Merge* mg = merges.find(lid, rid);
    if (!mg) return;
    heap.push_back({mg->rank, left, lid, rid, mg->result});
    std::push_heap(heap.begin(), heap.end());
  };
  for (int32_t i = 0; i + 1 < n; ++i) consider(i);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end());
    const Candidate c = heap.back();
    heap.pop_back();
    // Stale if either side merged since it was queued: a symbol's id changes whenever it grows, and a
    // dead symbol's id is -1. Ids never repeat for a growing symbol (its bytes get longer).
    Symbol& l = sym[static_cast<size_t>(c.left)];
    if (l.id != c.left_id || l.next < 0) continue;
    Symbol& r = sym[static_cast<size_t>(l.next)];
    if (r.id != c.right_id) continue;
    l.id = c.result;
    l.next = r.next;
    if (r.next >= 0) sym[static_cast<size_t>(r.next)].prev = c.left;
    r.id = -1;
    consider(l.prev);
    consider(c.left);
  }
  for (int32_t i = 0; i >= 0; i = sym[static_cast<size_t>(i)].next) out.push_back(sym[static_cast<size_t>(i)].id);
  // A pathological piece (megabytes without a break) must not leave its buffers pinned to the thread.
  constexpr size_t kKeep = 1 << 16;
  if (sym.capacity() > kKeep) std::vector<Symbol>().swap(sym);
  if (heap.capacity() > kKeep) std::vector<Candidate>().swap(heap);
}

void Tokenizer::Impl::encode_plain(std::string_view text, std::vector<int32_t>& out) const {
  if (text.empty()) return;
  pretokenizer.split(text, [&](std::string_view piece) { bpe(piece, out); });
}

std::vector<int32_t> Tokenizer::encode(std::string_view text, bool allow_special, bool add_bos) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 3 + 2);
  if (add_bos) {
    if (impl_->bos < 0) throw TokenizerError("BOS requested but the vocabulary has no BOS token");
    ids.push_back(impl_->bos);
  }
  encode_append(text, allow_special, ids);
  return ids;
}

void Tokenizer::encode_append(std::string_view text, bool allow_special, std::vector<int32_t>& out) const {
  // The merge loop indexes symbols with int32; no real prompt comes near this.
  if (text.size() > static_cast<size_t>(0x7FFFFFFF))
    throw TokenizerError("cannot tokenize " + std::to_string(text.size()) + " bytes at once (the limit is 2 GiB)");
  if (auto bad = find_invalid_utf8(text))
    throw TokenizerError("cannot tokenize: the text is not valid UTF-8 at byte " + std::to_string(*bad) + " of " +
                         std::to_string(text.size()));
  const Impl& m = *impl_;
  if (!allow_special && !m.has_user_defined) {
    m.encode_plain(text, out);
    return;
  }
  size_t segment = 0;  // start of text not yet encoded
  for (size_t i = 0; i < text.size();) {
    if (!m.special_lead[static_cast<unsigned char>(text[i])]) {
      ++i;
      continue;
    }
    const Impl::Special* hit = nullptr;
    for (const auto& s : m.specials) {  // longest first: the longest token at a position wins
      if ((s.control && !allow_special) || s.text.size() > text.size() - i) continue;
      if (std::memcmp(text.data() + i, s.text.data(), s.text.size()) == 0) {
        hit = &s;
        break;
      }
    }
    if (!hit) {
      ++i;
      continue;
    }
    m.encode_plain(text.substr(segment, i - segment), out);
    out.push_back(hit->id);
    i += hit->text.size();
    segment = i;
  }
  m.encode_plain(text.substr(segment), out);
}

void Tokenizer::Impl::check_id(int32_t id) const {
  if (id < 0 || static_cast<size_t>(id) >= bytes.size())
    throw TokenizerError("token id " + std::to_string(id) + " is outside the vocabulary of " +
                         std::to_string(bytes.size()) + " tokens");
}

std::string Tokenizer::decode(std::span<const int32_t> ids, bool skip_special) const {
  StreamingDecoder d(*this, skip_special);
  std::string text;
  for (int32_t id : ids) text += d.push(id);
  text += d.flush();
  return text;
}

std::string_view Tokenizer::token_bytes(int32_t id) const {
  impl_->check_id(id);
  return impl_->bytes[static_cast<size_t>(id)];
}

std::string_view Tokenizer::token_text(int32_t id) const {
  impl_->check_id(id);
  return impl_->spelling[static_cast<size_t>(id)];
}

int32_t Tokenizer::token_type(int32_t id) const {
  impl_->check_id(id);
  return impl_->types[static_cast<size_t>(id)];
}

std::optional<int32_t> Tokenizer::find_token(std::string_view spelling) const {
  const int32_t id = impl_->by_spelling.find(spelling, impl_->spelling);
  if (id < 0) return std::nullopt;
  return id;
}

int32_t Tokenizer::vocab_size() const {
  return static_cast<int32_t>(impl_->spelling.size());
}
int32_t Tokenizer::bos() const {
  return impl_->bos;
}
int32_t Tokenizer::eos() const {
  return impl_->eos;
}
int32_t Tokenizer::eot() const {
  return impl_->eot;
}
int32_t Tokenizer::eom() const {
  return impl_->eom;
}
bool Tokenizer::is_end_of_turn(int32_t id) const {
  return id >= 0 && (id == impl_->eos || id == impl_->eot || id == impl_->eom);
}
bool Tokenizer::is_control(int32_t id) const {
  return id >= 0 && static_cast<size_t>(id) < impl_->types.size() &&
         impl_->types[static_cast<size_t>(id)] == kTokenControl;
}

StreamingDecoder::StreamingDecoder(const Tokenizer& tokenizer, bool skip_special)
    : tokenizer_(&tokenizer), skip_special_(skip_special) {}

std::string StreamingDecoder::push(int32_t id) {
  const std::string_view b = tokenizer_->token_bytes(id);
  if (skip_special_ && tokenizer_->is_control(id)) return {};
  pending_ += b;
  std::string out;
  size_t used = utf8::append_sanitized(pending_, out, /*hold_incomplete=*/true);
  pending_.erase(0, used);
  return out;
}

std::string StreamingDecoder::flush() {
  std::string out;
  utf8::append_sanitized(pending_, out, /*hold_incomplete=*/false);
  pending_.clear();
  return out;
}

}  // namespace trit
