// Owns mapping files read-only: open, fstat, mmap (the whole file, or the first bytes of an open
// descriptor), registering the mapping with the mapping guard, closing the descriptor at once (the
// mapping keeps the file's pages reachable without it), and dropping resident pages of a range read.
#include "smartarrays/os/mapped_file.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "os/open_file.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/mapping_guard.hpp"

namespace smartarrays::os {
MappedFile MappedFile::open(const std::string& path) {
  const InputFile input = InputFile::open(path, InputKind::regular);
  if (input.size() == 0) return {};
  return map(input.descriptor(), static_cast<std::size_t>(input.size()), path);
}

MappedFile MappedFile::map(int fd, std::size_t bytes, const std::string& path) {
  void* data = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) fail_on_path("map", path, errno);
  MappedFile file;
  file.data_ = static_cast<const std::uint8_t*>(data);
  file.size_ = bytes;
  file.guard_ = guard_mapping(data, bytes, path);
  return file;
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)), guard_(std::exchange(other.guard_, -1)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    unmap();
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    guard_ = std::exchange(other.guard_, -1);
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

void MappedFile::unmap() noexcept {
  if (data_ == nullptr) return;
  unguard_mapping(guard_);
  ::munmap(const_cast<std::uint8_t*>(data_), size_);
  data_ = nullptr;
  guard_ = -1;
}

MappedFile::~MappedFile() { unmap(); }

}  // namespace smartarrays::os
