#pragma once
// A file written through OUT.part and renamed to OUT only on commit(): readers never see a half-written
// file under the real name. Writes are buffered in large chunks (one write(2) per few MiB); chunks of
// a quarter of the buffer or more go straight to the kernel without a copy. Every failure throws
// GgufWriteError naming the path and the system's reason (disk full, permission denied, ...).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <vector>

namespace trit::modelgen {

class AtomicFile {
 public:
  // Creates (truncates) out + ".part". The parent folder must exist.
  explicit AtomicFile(std::filesystem::path out, size_t buffer_bytes = size_t{8} << 20);
  // Removes the .part file unless commit() succeeded.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  void write(const void* data, size_t size);
  void write_zeros(size_t size);
  // Flushes, closes and renames OUT.part to OUT (replacing an existing OUT).
  void commit();

  uint64_t bytes_written() const { return written_; }
  const std::filesystem::path& part_path() const { return part_; }

 private:
  void flush();
  void write_all(const uint8_t* p, size_t n);
  [[noreturn]] void fail(const char* what, int err) const;

  std::filesystem::path out_;
  std::filesystem::path part_;
  int fd_ = -1;
  bool committed_ = false;
  std::vector<uint8_t> buf_;
  size_t used_ = 0;
  uint64_t written_ = 0;  // logical bytes accepted (buffered or written)
};

}  // namespace trit::modelgen
