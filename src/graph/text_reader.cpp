// Owns the block-buffered line reader and field parsing of the text graph formats. The buffer is
// sized to the file (at most 8 MiB, so a multi-gigabyte file is read at disk speed without being
// held in memory, and a small file costs a small buffer) and grows only for a line longer than it,
// up to max_line_bytes. Reads go through os::InputFile at the file offset, so a pipe delivers lines
// as they arrive and a signal (EINTR) gives the interrupt check its turn instead of failing the read.
#include "graph/text_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::graph::detail {

namespace {

constexpr std::size_t block_bytes = std::size_t{8} << 20;
// A pipe or device has no size: start small, grow by doubling.
constexpr std::size_t stream_block_bytes = std::size_t{64} << 10;
// The buffer must hold a whole line of max_line_bytes, its "\r\n" and one byte more to see it is too long.
constexpr std::size_t largest_buffer = max_line_bytes + 3;

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

LineReader::LineReader(const std::string& path, const ReadOptions& options)
    : path_(path), options_(options), file_(os::InputFile::open(path, os::InputKind::stream)) {
  size_ = file_.size();
  next_progress_ = options_.progress_step;
  // One byte more than a regular file holds, so its first read reaches the end.
  capacity_ = file_.regular() ? static_cast<std::size_t>(std::min<std::uint64_t>(size_ + 1, block_bytes)) : stream_block_bytes;
  try {
    buffer_ = std::make_unique_for_overwrite<char[]>(capacity_);
  } catch (const std::bad_alloc&) {
    throw_error(ErrorCode::out_of_memory, "cannot allocate the read buffer of " + path);
  }
}

std::string LineReader::where(std::uint64_t line) const { return path_ + ":" + std::to_string(line) + ": "; }

void LineReader::fail(const std::string& message) const { throw_error(ErrorCode::invalid_argument, where(line_) + message); }

bool LineReader::refill() {
  if (eof_) return false;
  runtime::check_interrupt();
  // Keep the unfinished line at the front; grow the buffer if it fills it.
  const std::size_t pending = end_ - begin_;
  if (pending > max_line_bytes + 1) {
    throw_error(ErrorCode::invalid_argument, where(line_ + 1) + "the line is longer than " +
                                                 std::to_string(max_line_bytes) + " bytes, the limit of a text graph line");
  }
  std::memmove(buffer_.get(), buffer_.get() + begin_, pending);
  begin_ = 0;
  end_ = pending;
  if (end_ == capacity_) {
    const std::size_t grown = std::min(std::max(capacity_ * 2, stream_block_bytes), std::max(largest_buffer, capacity_));
    auto bigger = std::make_unique_for_overwrite<char[]>(grown);
    std::memcpy(bigger.get(), buffer_.get(), end_);
    buffer_ = std::move(bigger);
    capacity_ = grown;
  }
  const std::size_t got = file_.read(buffer_.get() + end_, capacity_ - end_);
  if (got == 0) {
    eof_ = true;
    if (options_.progress) options_.progress(read_, std::max(size_, read_));
    return pending > 0;
  }
  end_ += got;
  read_ += got;
  if (options_.progress && read_ >= next_progress_) {
    // A pipe's total is unknown (0) until its end.
    options_.progress(read_, size_ == 0 ? 0 : std::max(size_, read_));
    next_progress_ = read_ + options_.progress_step;
  }
  return true;
}

std::uint64_t LineReader::count_data_lines(std::string_view comment_starts) {
  if (size_ == 0) return 0;
  // A separate buffer: next() may hold an unfinished line in buffer_.
  const std::size_t block = static_cast<std::size_t>(std::min<std::uint64_t>(size_, block_bytes));
  const auto scratch = std::make_unique_for_overwrite<char[]>(block);
  std::uint64_t lines = 0, offset = 0;
  bool line_start = true;  // before the first field of a line, perhaps across blocks
  for (;;) {
    runtime::check_interrupt();
    const std::size_t got = file_.read_at(offset, scratch.get(), block);
    if (got == 0) return lines;
    offset += got;
    const char* p = scratch.get();
    const char* const end = p + got;
    while (p != end) {
      if (line_start) {
        if (*p == '\n' || is_space(*p)) {
          ++p;
          continue;
        }
        lines += comment_starts.find(*p) == std::string_view::npos ? 1 : 0;
        line_start = false;
      }
      const auto* newline = static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
      p = newline == nullptr ? end : newline + 1;
      line_start = newline != nullptr;
    }
  }
}

bool LineReader::next(std::string_view& line) {
  for (;;) {
    const char* start = buffer_.get() + begin_;
    const void* newline = std::memchr(start, '\n', end_ - begin_);
    if (newline != nullptr) {
      const auto length = static_cast<std::size_t>(static_cast<const char*>(newline) - start);
      begin_ += length + 1;
      line = std::string_view(start, length);
    } else if (eof_ || !refill()) {
      if (begin_ == end_) return false;
      // The last line has no newline.
      line = std::string_view(buffer_.get() + begin_, end_ - begin_);
      begin_ = end_;
    } else {
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_;
    if (line.size() > max_line_bytes) {
      fail("the line is longer than " + std::to_string(max_line_bytes) + " bytes, the limit of a text graph line");
    }
    return true;
  }
}

std::string_view next_field(std::string_view& line) noexcept {
  std::size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  std::size_t j = i;
  while (j < line.size() && !is_space(line[j])) ++j;
  const std::string_view field = line.substr(i, j - i);
  line.remove_prefix(j);
  return field;
}

bool parse_u64(std::string_view field, std::uint64_t& value) noexcept {
  if (field.empty() || field[0] == '+' || field[0] == '-') return false;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return ec == std::errc() && end == field.data() + field.size();
}

bool is_number(std::string_view field) noexcept {
  if (!field.empty() && field[0] == '+') field.remove_prefix(1);
  double value = 0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  return !field.empty() && (ec == std::errc() || ec == std::errc::result_out_of_range) && end == field.data() + field.size();
}

}  // namespace smartarrays::graph::detail
