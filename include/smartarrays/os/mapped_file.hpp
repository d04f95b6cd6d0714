// Owns read-only file mappings: a whole file (or its first bytes) mapped shared and read-only, so
// arrays can be views over its pages (the store's mapped mode) with no copy; every mapping is
// registered with the mapping guard (mapping_guard.hpp), so a file cut underneath is an error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "smartarrays/export.hpp"

namespace smartarrays::os {

/// A file mapped read-only (PROT_READ, MAP_SHARED); move-only; unmapped on destruction. Reading a
/// page that another process truncated away raises SIGBUS (POSIX), which the mapping guard turns
/// into zeros and an Error at the library's next check (os::check_mapping_faults).
class SMARTARRAYS_API MappedFile {
 public:
  MappedFile() = default;
  /// Maps the file at path; an empty file maps nothing (data() is nullptr). Throws Error(os_error) naming the path.
  static MappedFile open(const std::string& path);
  /// Maps the first bytes (> 0) of the regular file open as fd (which may be closed after);
  /// messages and the guard name it path. Throws Error(os_error) naming the path.
  static MappedFile map(int fd, std::size_t bytes, const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  /// The file's first byte (page aligned), nullptr for an empty file.
  const std::uint8_t* data() const noexcept { return data_; }
  /// The bytes mapped: the file's size when it was mapped (or the bytes asked of map).
  std::size_t size() const noexcept { return size_; }
  /// Drops this process's resident pages that lie wholly in bytes [offset, offset + bytes) of the
  /// mapping (MADV_DONTNEED), so a file read once in ranges is not held whole in resident memory;
  /// the file is unchanged and a later read maps its pages again.
  void release_pages(std::size_t offset, std::size_t bytes) const noexcept;

 private:
  void unmap() noexcept;
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
  int guard_ = -1;  // the mapping guard's registration
};

}  // namespace smartarrays::os
