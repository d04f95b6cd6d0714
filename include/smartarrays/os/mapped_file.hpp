// Owns read-only file mappings: a whole file mapped shared and read-only, so arrays can be views
// over its pages (the store's mapped mode) with no copy.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "smartarrays/export.hpp"

namespace smartarrays::os {

/// A whole file mapped read-only (PROT_READ, MAP_SHARED); move-only; unmapped on destruction.
/// Reading a page that another process truncated away raises SIGBUS (POSIX): owners of untrusted
/// or shared files copy instead (the store's load mode).
class SMARTARRAYS_API MappedFile {
 public:
  MappedFile() = default;
  /// Maps the file at path; an empty file maps nothing (data() is nullptr). Throws Error(os_error) naming the path.
  static MappedFile open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  /// The file's first byte (page aligned), nullptr for an empty file.
  const std::uint8_t* data() const noexcept { return data_; }
  /// The file's size when it was mapped.
  std::size_t size() const noexcept { return size_; }
  /// Drops this process's resident pages that lie wholly in bytes [offset, offset + bytes) of the
  /// mapping (MADV_DONTNEED), so a file read once in ranges is not held whole in resident memory;
  /// the file is unchanged and a later read maps its pages again.
  void release_pages(std::size_t offset, std::size_t bytes) const noexcept;

 private:
  const std::uint8_t* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace smartarrays::os
