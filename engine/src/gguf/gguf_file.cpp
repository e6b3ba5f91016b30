// GgufFile: memory mapping (read-only, MAP_PRIVATE, zero-copy) and the lookups over a parsed file.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "trit/gguf.h"

namespace trit {

std::unique_ptr<GgufFile> parse_into(std::unique_ptr<GgufFile> f);  // gguf_parser.cpp

namespace {
// What a non-regular file is, for the error that refuses it.
const char* file_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "neither a file nor a directory";
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};
}  // namespace

std::unique_ptr<GgufFile> GgufFile::open(const std::filesystem::path& path) {
  const std::string name = path.string();
  // O_NONBLOCK: opening a FIFO (or a device) for reading would otherwise wait for a writer forever; the
  // type is checked on the opened descriptor, so nothing can swap the file between check and use.
  Fd fd{::open(name.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};
  if (fd.fd < 0) throw GgufError("cannot open '" + name + "': " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd.fd, &st) != 0) throw GgufError("cannot stat '" + name + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw GgufError("'" + name + "' is not a regular file (it is " + file_kind(st.st_mode) +
                    "), so it cannot be a model");
  if (st.st_size == 0) throw GgufError("'" + name + "' is empty, not a GGUF file");
  auto size = static_cast<size_t>(st.st_size);
  void* map = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.fd, 0);
  if (map == MAP_FAILED) throw GgufError("cannot memory-map '" + name + "': " + std::strerror(errno));
  std::unique_ptr<GgufFile> f(new GgufFile);
  f->map_ = map;  // owned from here: ~GgufFile unmaps, also when parsing throws
  f->map_size_ = size;
  f->source_name_ = name;
  f->bytes_ = {static_cast<const uint8_t*>(map), size};
  try {
    return parse_into(std::move(f));
  } catch (const GgufError& e) {
    throw GgufError(name + ": " + e.what());
  }
}

std::unique_ptr<GgufFile> GgufFile::parse(std::span<const uint8_t> bytes, std::string source_name) {
  std::unique_ptr<GgufFile> f(new GgufFile);
  f->source_name_ = std::move(source_name);
  f->bytes_ = bytes;
  return parse_into(std::move(f));
}

std::unique_ptr<GgufFile> GgufFile::parse(std::vector<uint8_t> bytes, std::string source_name) {
  std::unique_ptr<GgufFile> f(new GgufFile);
  f->source_name_ = std::move(source_name);
  f->owned_ = std::move(bytes);
  f->bytes_ = f->owned_;
  return parse_into(std::move(f));
}

GgufFile::~GgufFile() {
  if (map_) ::munmap(map_, map_size_);
}

const GgufTensorInfo* GgufFile::find_tensor(std::string_view name) const {
  auto it = tensor_index_.find(name);
  return it == tensor_index_.end() ? nullptr : &tensors_[it->second];
}

std::span<const uint8_t> GgufFile::tensor_data(const GgufTensorInfo& t) const {
  if (t.offset > bytes_.size() || t.size_bytes > bytes_.size() - t.offset)
    throw GgufError("tensor '" + t.name + "' does not lie inside " + source_name_);
  return bytes_.subspan(t.offset, t.size_bytes);
}

void GgufFile::release_resident_pages() const {
  // A read-only private mapping is never dirty, so dropping its pages loses nothing.
  if (map_) ::madvise(map_, map_size_, MADV_DONTNEED);
}

}  // namespace trit
