// Owns the fuzz harnesses' in-memory file: the input bytes in a memfd, reachable by path through
// /proc/self/fd like any file, closed on destruction.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace smartarrays::fuzz {

/// A file in memory holding the given bytes (or none), reachable by path().
class MemoryFile {
 public:
  /// An empty file.
  MemoryFile() : fd_(memfd_create("fuzz", 0)) {
    if (fd_ < 0) std::abort();
  }
  /// A file holding size bytes of data.
  MemoryFile(const std::uint8_t* data, std::size_t size) : MemoryFile() {
    for (std::size_t done = 0; done < size;) {
      const ssize_t n = write(fd_, data + done, size - done);
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
  }
  ~MemoryFile() { close(fd_); }
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;
  /// The path that opens this file.
  std::string path() const { return "/proc/self/fd/" + std::to_string(fd_); }
  /// The descriptor, positioned at the file's start (for readers of a stream).
  int rewound() const {
    if (lseek(fd_, 0, SEEK_SET) != 0) std::abort();
    return fd_;
  }

 private:
  int fd_;
};

}  // namespace smartarrays::fuzz
