// Owns mapping whole files read-only: open, fstat, mmap, and closing the descriptor at once (the
// mapping keeps the file's pages reachable without it), and dropping resident pages of a range read.
#include "smartarrays/os/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::os {
namespace {

[[noreturn]] void fail(const std::string& what, const std::string& path, int err) {
  throw_error(err == ENOMEM ? ErrorCode::out_of_memory : ErrorCode::os_error,
              "cannot " + what + " " + util::quoted(path, 256) + ": " + std::strerror(err));
}

// Closes the descriptor on scope exit.
class Descriptor {
 public:
  explicit Descriptor(int fd) noexcept : fd_(fd) {}
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const noexcept { return fd_; }

 private:
  int fd_;
};

}  // namespace

MappedFile MappedFile::open(const std::string& path) {
  const Descriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) fail("open", path, errno);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) fail("stat", path, errno);
  if (!S_ISREG(st.st_mode)) throw_error(ErrorCode::invalid_argument, util::quoted(path, 256) + " is not a regular file");
  MappedFile file;
  if (st.st_size == 0) return file;
  const auto bytes = static_cast<std::size_t>(st.st_size);
  void* data = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (data == MAP_FAILED) fail("map", path, errno);
  file.data_ = static_cast<const std::uint8_t*>(data);
  file.size_ = bytes;
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void MappedFile::release_pages(std::size_t offset, std::size_t bytes) const noexcept {
  if (data_ == nullptr || offset >= size_) return;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t end = offset + std::min(bytes, size_ - offset);
  const std::size_t first = (offset + page - 1) / page * page;
  const std::size_t last = end / page * page;
  // Advice only: a failure leaves the pages resident, which is what not asking would do.
  if (first < last) ::madvise(const_cast<std::uint8_t*>(data_) + first, last - first, MADV_DONTNEED);
}

MappedFile::~MappedFile() {
  if (data_ != nullptr) ::munmap(const_cast<std::uint8_t*>(data_), size_);
}

}  // namespace smartarrays::os
