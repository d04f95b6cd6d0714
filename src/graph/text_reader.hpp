// Owns the internal line reader of the text formats: a file read in large blocks, split into
// numbered lines without copying, with progress callbacks, and the number parsing and error
// messages ("FILE:LINE: ...") the edge-list and Matrix Market readers share.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/graph/formats.hpp"

namespace smartarrays::graph::detail {

/// Reads a text file line by line; '\r' before '\n' is dropped. Throws Error(os_error) if the file
/// cannot be opened or read.
class LineReader {
 public:
  /// Opens path.
  LineReader(const std::string& path, const ReadOptions& options);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line (valid until the next call), false at the end of the file.
  bool next(std::string_view& line);
  /// 1-based number of the last line next() returned.
  std::uint64_t line_number() const noexcept { return line_; }
  /// The file's path.
  const std::string& path() const noexcept { return path_; }
  /// Throws Error(invalid_argument) "PATH:LINE: message".
  [[noreturn]] void fail(const std::string& message) const;

 private:
  bool refill();

  std::string path_;
  const ReadOptions& options_;
  std::FILE* file_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t read_ = 0;
  std::uint64_t next_progress_ = 0;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // first unread byte of buffer_
  std::size_t end_ = 0;    // one past the last valid byte
  bool eof_ = false;
  std::uint64_t line_ = 0;
};

/// Splits off the next whitespace-separated field of line (advancing line); empty when none is left.
std::string_view next_field(std::string_view& line) noexcept;

/// Parses a whole field as a non-negative decimal integer; false for anything else (sign, junk, overflow).
bool parse_u64(std::string_view field, std::uint64_t& value) noexcept;

/// True when the field is a whole decimal floating-point (or integer) number.
bool is_number(std::string_view field) noexcept;

/// field quoted for a message, shortened if long.
std::string quote(std::string_view field);

}  // namespace smartarrays::graph::detail
