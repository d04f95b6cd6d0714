// Owns a GAP .sg file as every .sg reader sees it (the layout is in gap_sg.cpp's first comment): the
// one header parser and its messages, where each CSR's offsets and ids lie, and reads at byte offsets
// through os::InputFile, safe from many threads at once, whose failures name the file and the offset.
#pragma once

#include <cstdint>
#include <string>

#include "os/open_file.hpp"
#include "smartarrays/graph/formats.hpp"

namespace smartarrays::graph::detail {

/// The bytes of a .sg header: the directed flag (1), m (8) and n (8).
inline constexpr std::uint64_t sg_header_bytes = 1 + 8 + 8;

/// Where one CSR of a .sg file lies: n + 1 int64 offsets, then m int32 ids.
struct SgPart {
  std::uint64_t offsets_at = 0;  ///< the byte offset of the offsets
  std::uint64_t ids_at = 0;      ///< the byte offset of the ids
};

/// A .sg file open for reading at offsets, its header read and checked against its size.
class SgFile {
 public:
  /// Opens path (a regular file only) and checks its header: throws Error(invalid_argument)
  /// "PATH: byte offset N: ..." for a file shorter than the header, a flag other than 0 or 1, a
  /// negative count, more vertices than int32 ids name, or a size other than n and m imply (the
  /// exact byte figure, even beyond 2^64); Error(os_error) when it cannot be opened or read.
  explicit SgFile(const std::string& path);

  /// The path, as messages name it.
  const std::string& path() const noexcept { return file_.path(); }
  /// The file's size when opened (what n and m imply).
  std::uint64_t size() const noexcept { return file_.size(); }
  /// The checked header.
  const SgHeader& header() const noexcept { return header_; }
  /// The out-edges.
  SgPart out() const noexcept;
  /// The in-edges: a directed file's second CSR, an undirected file's out-edges.
  SgPart in() const noexcept;
  /// The open file (for its descriptor's status).
  const os::InputFile& input() const noexcept { return file_; }

  /// "PATH: byte offset N: ", the prefix of messages about the byte at offset.
  std::string where(std::uint64_t offset) const;
  /// Throws Error(invalid_argument) where(offset) + message.
  [[noreturn]] void fail(std::uint64_t offset, const std::string& message) const;

  /// Reads bytes at offset into out after the calling thread's interrupt check; false when the
  /// file ends first (it changed since it was opened).
  bool read_at(std::uint64_t offset, void* out, std::uint64_t bytes) const;
  /// read_at, throwing Error(invalid_argument) "PATH: byte offset N: the file ends early" when the
  /// file ends first.
  void read(std::uint64_t offset, void* out, std::uint64_t bytes) const;

 private:
  os::InputFile file_;
  SgHeader header_;
};

}  // namespace smartarrays::graph::detail
