// Owns the internal line reader of the text formats: a file read in blocks, split into numbered
// lines without copying, with progress callbacks, interrupt checks and the line-length cap, and
// the number parsing and error messages ("FILE:LINE: ...") the edge-list and Matrix Market readers
// share.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>

#include "os/open_file.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"

namespace smartarrays::graph::detail {

/// Reads a text file line by line; '\r' before '\n' is dropped. Throws Error(os_error) if the file
/// cannot be opened or read, Error(invalid_argument) naming the line when one is longer than
/// max_line_bytes, and Error(cancelled) when the thread's interrupt check asks to stop.
class LineReader {
 public:
  /// Opens path.
  LineReader(const std::string& path, const ReadOptions& options);
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line (valid until the next call), false at the end of the file.
  bool next(std::string_view& line);
  /// The lines of a regular file that hold a field not starting with a byte of comment_starts
  /// (neither blank nor comments), read from its start without moving the position next() reads
  /// from; 0 for a pipe or device.
  std::uint64_t count_data_lines(std::string_view comment_starts);
  /// 1-based number of the last line next() returned.
  std::uint64_t line_number() const noexcept { return line_; }
  /// The file's path.
  const std::string& path() const noexcept { return path_; }
  /// The file's size when it is a regular file, else 0 (a pipe or device has none).
  std::uint64_t size() const noexcept { return size_; }
  /// Bytes read so far; at the end of the file, its length (a pipe's too).
  std::uint64_t bytes_read() const noexcept { return read_; }
  /// "PATH:LINE: ", the prefix of this reader's messages about line.
  std::string where(std::uint64_t line) const;
  /// Throws Error(invalid_argument) "PATH:LINE: message" for the last line returned.
  [[noreturn]] void fail(const std::string& message) const;

 private:
  bool refill();

  std::string path_;
  const ReadOptions& options_;
  os::InputFile file_;
  std::uint64_t size_ = 0;
  std::uint64_t read_ = 0;
  std::uint64_t next_progress_ = 0;
  std::unique_ptr<char[]> buffer_;
  std::size_t capacity_ = 0;
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

/// Runs read(), turning std::bad_alloc and std::length_error (an input larger than memory) into
/// Error(out_of_memory) "<where()>out of memory"; where() names the file and the line or offset
/// reached. What had been read is freed by the unwinding.
template <typename Where, typename Read>
auto out_of_memory_naming(Where&& where, Read&& read) -> decltype(read()) {
  try {
    return read();
  } catch (const std::bad_alloc&) {
    throw_error(ErrorCode::out_of_memory, where() + "out of memory holding what the file describes so far");
  } catch (const std::length_error&) {
    throw_error(ErrorCode::out_of_memory, where() + "out of memory holding what the file describes so far");
  }
}

}  // namespace smartarrays::graph::detail
