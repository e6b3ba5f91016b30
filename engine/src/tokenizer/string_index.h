#pragma once
// The vocabulary's strings stored once, and ids found by a string's content. A LLaMA 3 vocabulary is
// 128,256 short strings (and twice as many merges): as a std::string each plus std::unordered_map nodes
// the tokenizer took ~40 MB and most of a model's open time in allocations. Here every string of a kind
// lies in one buffer, and an index is a flat table of ids with no allocation per entry.
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace trit {

// The tables below probe linearly over a power of two of slots, at most three quarters full: the slots
// for `expected` entries, and whether one more entry needs more.
inline size_t flat_table_slots(size_t expected) {
  size_t cap = 16;
  while (3 * cap < 4 * expected) cap *= 2;
  return cap;
}
inline bool flat_table_full(size_t count, size_t slots) {
  return 4 * (count + 1) > 3 * slots;
}

// Strings by id (0, 1, ... in the order pushed), their characters in one buffer.
class StringTable {
 public:
  void reserve(size_t strings, size_t chars) {
    at_.reserve(strings + 1);
    chars_.reserve(chars);
  }
  void push(std::string_view s) {
    chars_.append(s);
    if (chars_.size() > UINT32_MAX) throw std::length_error("the vocabulary's strings exceed 4 GiB");
    at_.push_back(static_cast<uint32_t>(chars_.size()));
  }
  std::string_view operator[](size_t id) const {
    const uint32_t b = id == 0 ? 0u : at_[id - 1];
    return std::string_view(chars_).substr(b, at_[id] - b);
  }
  size_t size() const { return at_.size(); }
  // Frees what reserve() over-estimated.
  void shrink() {
    chars_.shrink_to_fit();
    at_.shrink_to_fit();
  }

 private:
  std::string chars_;
  std::vector<uint32_t> at_;  // end of string i
};

// Ids of a StringTable's strings by content (open addressing), each slot the id and its string's hash
// (most probes that miss never read the string).
class StringIdIndex {
 public:
  explicit StringIdIndex(size_t expected = 0) : slots_(flat_table_slots(expected), Slot{0, -1}) {}
  // Adds id (whose string in `table` is s) unless an equal string is indexed already: the first id
  // kept stays, as std::unordered_map::try_emplace keeps it.
  void insert(std::string_view s, int32_t id, const StringTable& table) {
    if (flat_table_full(count_, slots_.size())) grow(table);
    const uint32_t h = hash(s);
    for (size_t i = h & mask();; i = (i + 1) & mask()) {
      Slot& slot = slots_[i];
      if (slot.id < 0) {
        slot = Slot{h, id};
        ++count_;
        return;
      }
      if (slot.hash == h && table[static_cast<size_t>(slot.id)] == s) return;
    }
  }
  // The id of s, or -1.
  int32_t find(std::string_view s, const StringTable& table) const {
    const uint32_t h = hash(s);
    for (size_t i = h & mask();; i = (i + 1) & mask()) {
      const Slot& slot = slots_[i];
      if (slot.id < 0) return -1;
      if (slot.hash == h && table[static_cast<size_t>(slot.id)] == s) return slot.id;
    }
  }

 private:
  struct Slot {
    uint32_t hash;
    int32_t id;  // -1: empty
  };
  static uint32_t hash(std::string_view s) { return static_cast<uint32_t>(std::hash<std::string_view>{}(s)); }
  size_t mask() const { return slots_.size() - 1; }
  void grow(const StringTable& table) {
    std::vector<Slot> old(slots_.size() * 2, Slot{0, -1});
    old.swap(slots_);
    count_ = 0;
    for (const Slot& s : old)
      if (s.id >= 0) insert(table[static_cast<size_t>(s.id)], s.id, table);
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

// BPE merges by their pair of token ids: (rank, merged token), open addressing as above.
class MergeTable {
 public:
  struct Merge {
    int32_t rank;
    int32_t result;
  };
  explicit MergeTable(size_t expected = 0) : slots_(flat_table_slots(expected), Slot{kEmpty, {0, 0}}) {}
  // Adds the merge of (left, right) unless the pair has one already (the lower rank, added first, stays).
  void insert(int32_t left, int32_t right, Merge m) {
    if (flat_table_full(count_, slots_.size())) grow();
    const uint64_t k = key(left, right);
    for (size_t i = hash(k) & mask();; i = (i + 1) & mask()) {
      Slot& slot = slots_[i];
      if (slot.key == kEmpty) {
        slot = Slot{k, m};
        ++count_;
        return;
      }
      if (slot.key == k) return;
    }
  }
  // The merge of (left, right), or nullptr.
  const Merge* find(int32_t left, int32_t right) const {
    const uint64_t k = key(left, right);
    for (size_t i = hash(k) & mask();; i = (i + 1) & mask()) {
      const Slot& slot = slots_[i];
      if (slot.key == k) return &slot.merge;
      if (slot.key == kEmpty) return nullptr;
    }
  }

 private:
  struct Slot {
    uint64_t key;
    Merge merge;
  };
  // Ids are non-negative, so no pair's key has the top bit set.
  static constexpr uint64_t kEmpty = ~uint64_t{0};
  static uint64_t key(int32_t left, int32_t right) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left)) << 32) | static_cast<uint32_t>(right);
  }
  // Fibonacci hashing: the multiply spreads both ids over the high bits, which the shift keeps.
  static size_t hash(uint64_t k) { return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> 32); }
  size_t mask() const { return slots_.size() - 1; }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2, Slot{kEmpty, {0, 0}});
    old.swap(slots_);
    count_ = 0;
    for (const Slot& s : old)
      if (s.key != kEmpty)
        insert(static_cast<int32_t>(s.key >> 32), static_cast<int32_t>(s.key & 0xFFFFFFFFu), s.merge);
  }
  std::vector<Slot> slots_;
  size_t count_ = 0;
};

}  // namespace trit
