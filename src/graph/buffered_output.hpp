// Owns writing a text or binary output file through a buffer: the writers of every graph format
// and the command's per-vertex value files. The file is staged (os::OutputFile), so a failure or
// Ctrl-C leaves no truncated file; write errors (a full disk) are Error(os_error) naming the path.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "os/output_file.hpp"
#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::graph {

/// An output file written through a buffer of up to 1 MiB and committed by close().
class BufferedOutput {
 public:
  /// Stages the file that close() puts at path.
  explicit BufferedOutput(const std::string& path) : file_(path) {}

  /// Appends size bytes.
  void bytes(const void* data, std::size_t size) {
    buffer_.append(static_cast<const char*>(data), size);
    if (buffer_.size() >= capacity) flush();
  }
  /// Appends s.
  void text(std::string_view s) { bytes(s.data(), s.size()); }
  /// Appends v in decimal.
  void number(std::uint64_t v) {
    char digits[24];
    const auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
    bytes(digits, static_cast<std::size_t>(end - digits));
  }
  /// Writes what is buffered and puts the file at its path.
  void close() {
    flush();
    file_.commit();
  }

 private:
  // Flushed at this size; the buffer grows to it as a file needs, so a small file stays small.
  static constexpr std::size_t capacity = std::size_t{1} << 20;
  // An interrupt (Ctrl-C in Python or the command) is taken here, once per buffer written.
  void flush() {
    runtime::check_interrupt();
    file_.write(buffer_.data(), buffer_.size());
    buffer_.clear();
  }

  os::OutputFile file_;
  std::string buffer_;
};

}  // namespace smartarrays::graph
