#pragma once
// Text handed from the engine thread to the UI thread. The engine appends every piece as it is
// decoded (possibly thousands per second); the UI takes everything pending once per frame. One lock,
// held for an append or a swap, never across engine or UI work.
#include <QString>
#include <cstdint>
#include <mutex>
#include <string_view>

namespace trit::chat {

class StreamBuffer {
 public:
  struct Chunk {
    QString text;
    int pieces = 0;  // pieces of text (about one per token) in `text`
  };

  // Starts a new reply: anything pending for an older one is dropped.
  void begin(std::uint64_t id) {
    std::lock_guard lock(mutex_);
    id_ = id;
    bytes_.clear();
    pieces_ = 0;
  }
  // Engine thread. Pieces for a reply other than the current one are ignored.
  void append(std::uint64_t id, std::string_view piece) {
    std::lock_guard lock(mutex_);
    if (id != id_) return;
    bytes_.append(piece);
    ++pieces_;
  }
  // UI thread: everything pending for reply `id`. Pieces are whole UTF-8 characters (the engine's
  // streaming decoder guarantees it), so converting the batch never splits a character.
  Chunk take(std::uint64_t id) {
    std::string bytes;
    int pieces = 0;
    {
      std::lock_guard lock(mutex_);
      if (id != id_) return {};
      bytes.swap(bytes_);
      pieces = pieces_;
      pieces_ = 0;
    }
    return {QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size())), pieces};
  }

 private:
  std::mutex mutex_;
  std::uint64_t id_ = 0;
  std::string bytes_;
  int pieces_ = 0;
};

}  // namespace trit::chat
