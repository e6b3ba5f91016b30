#include "modelgen/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "trit/gguf_writer.h"

namespace trit::modelgen {

AtomicFile::AtomicFile(std::filesystem::path out, size_t buffer_bytes)
    : out_(std::move(out)), part_(out_.string() + ".part"), buf_(buffer_bytes) {
  fd_ = ::open(part_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) fail("cannot create", errno);
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(part_.c_str());
}

void AtomicFile::fail(const char* what, int err) const {
  std::string reason = err == ENOSPC ? "the disk is full" : std::strerror(err);
  throw GgufWriteError(std::string(what) + " '" + part_.string() + "': " + reason);
}

void AtomicFile::write_all(const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t r = ::write(fd_, p, n);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail("cannot write", errno);
    }
    if (r == 0) fail("cannot write", EIO);
    p += r;
    n -= static_cast<size_t>(r);
  }
}

void AtomicFile::flush() {
  if (used_ == 0) return;
  write_all(buf_.data(), used_);
  used_ = 0;
}

void AtomicFile::write(const void* data, size_t size) {
  auto p = static_cast<const uint8_t*>(data);
  written_ += size;
  if (size >= buf_.size() / 4) {  // big chunk: no copy (the buffer is for headers and small tensors)
    flush();
    write_all(p, size);
    return;
  }
  if (used_ + size > buf_.size()) flush();
  std::memcpy(buf_.data() + used_, p, size);
  used_ += size;
}

void AtomicFile::write_zeros(size_t size) {
  static const uint8_t zeros[256] = {};
  while (size > 0) {
    size_t n = size < sizeof zeros ? size : sizeof zeros;
    write(zeros, n);
    size -= n;
  }
}

void AtomicFile::commit() {
  flush();
  // close() can report a deferred write error (NFS, quota): check it before the file gets its real name.
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot finish writing", errno);
  if (std::rename(part_.c_str(), out_.c_str()) != 0) {
    int err = errno;
    throw GgufWriteError("cannot rename '" + part_.string() + "' to '" + out_.string() + "': " + std::strerror(err));
  }
  committed_ = true;
}

}  // namespace trit::modelgen
