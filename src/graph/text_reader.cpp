// Owns the block-buffered line reader and field parsing of the text graph formats. Blocks are
// large (8 MiB) so a multi-gigabyte file is read at disk speed without holding it in memory.
#include "graph/text_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>

#include "smartarrays/error.hpp"

namespace smartarrays::graph::detail {

namespace {

constexpr std::size_t block_bytes = std::size_t{8} << 20;

bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

}  // namespace

LineReader::LineReader(const std::string& path, const ReadOptions& options) : path_(path), options_(options) {
  file_ = std::fopen(path.c_str(), "rb");
  if (file_ == nullptr) {
    throw_error(ErrorCode::os_error, "cannot open " + path + ": " + std::strerror(errno));
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  size_ = ec ? 0 : static_cast<std::uint64_t>(size);
  next_progress_ = options_.progress_step;
  buffer_.resize(block_bytes);
}

LineReader::~LineReader() { std::fclose(file_); }

void LineReader::fail(const std::string& message) const {
  throw_error(ErrorCode::invalid_argument, path_ + ":" + std::to_string(line_) + ": " + message);
}

bool LineReader::refill() {
  if (eof_) return false;
  // Keep the unfinished line at the front; grow the buffer if a single line fills it.
  const std::size_t pending = end_ - begin_;
  std::memmove(buffer_.data(), buffer_.data() + begin_, pending);
  begin_ = 0;
  end_ = pending;
  if (end_ == buffer_.size()) buffer_.resize(buffer_.size() * 2);
  const std::size_t got = std::fread(buffer_.data() + end_, 1, buffer_.size() - end_, file_);
  if (got == 0) {
    if (std::ferror(file_)) throw_error(ErrorCode::os_error, "cannot read " + path_ + ": " + std::strerror(errno));
    eof_ = true;
    if (options_.progress) options_.progress(read_, size_);
    return pending > 0;
  }
  end_ += got;
  read_ += got;
  if (options_.progress && read_ >= next_progress_) {
    options_.progress(read_, size_);
    next_progress_ = read_ + options_.progress_step;
  }
  return true;
}

bool LineReader::next(std::string_view& line) {
  for (;;) {
    const char* start = buffer_.data() + begin_;
    const void* newline = std::memchr(start, '\n', end_ - begin_);
    if (newline != nullptr) {
      const auto length = static_cast<std::size_t>(static_cast<const char*>(newline) - start);
      begin_ += length + 1;
      line = std::string_view(start, length);
    } else if (eof_ || !refill()) {
      if (begin_ == end_) return false;
      // The last line has no newline.
      line = std::string_view(buffer_.data() + begin_, end_ - begin_);
      begin_ = end_;
    } else {
      continue;
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    ++line_;
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

std::string quote(std::string_view field) {
  constexpr std::size_t longest = 40;
  std::string out(1, '\'');
  out.append(field.substr(0, longest));
  if (field.size() > longest) out.append("...");
  out.push_back('\'');
  return out;
}

}  // namespace smartarrays::graph::detail
