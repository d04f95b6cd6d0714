// Owns mapping whole files read-only: open, fstat, mmap, and closing the descriptor at once (the
// mapping keeps the file's pages reachable without it), and dropping resident pages of a range read.
#include "smartarrays/os/mapped_file.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <utility>

#include "os/open_file.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::os {
MappedFile MappedFile::open(const std::string& path) {
  const InputFile input = InputFile::open(path, InputKind::regular);
  MappedFile file;
  if (input.size() == 0) return file;
  const auto bytes = static_cast<std::size_t>(input.size());
  void* data = ::mmap(nullptr, bytes, PROT_READ, MAP_SHARED, input.descriptor(), 0);
  if (data == MAP_FAILED) fail_on_path("map", path, errno);
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
