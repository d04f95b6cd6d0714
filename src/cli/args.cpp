// Owns the argument cursor and the number, size and list parsers of args.hpp.
#include "cli/args.hpp"

#include <charconv>
#include <utility>

namespace smartarrays::cli {

ArgCursor::ArgCursor(std::vector<std::string> args, std::string command)
    : args_(std::move(args)), command_(std::move(command)) {}

std::string ArgCursor::next() {
  current_ = args_.at(pos_++);
  has_inline_value_ = false;
  const std::size_t eq = current_.find('=');
  if (current_.rfind("--", 0) == 0 && eq != std::string::npos) {
    inline_value_ = current_.substr(eq + 1);
    has_inline_value_ = true;
    current_.resize(eq);
  }
  return current_;
}

std::string ArgCursor::value() {
  if (has_inline_value_) {
    has_inline_value_ = false;
    return inline_value_;
  }
  if (pos_ >= args_.size()) fail(current_ + " needs a value");
  return args_[pos_++];
}

void ArgCursor::unknown() const {
  if (current_.rfind("-", 0) == 0) fail("unknown flag '" + current_ + "'");
  fail("unexpected argument '" + current_ + "'");
}

void ArgCursor::fail(const std::string& why) const {
  throw UsageError(command_ + ": " + why + " (see 'smartarrays " + command_ + " --help')");
}

std::uint64_t parse_number(std::string_view text, std::string_view flag, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw UsageError(std::string(flag) + " takes a whole number from " + std::to_string(min) + " to " +
                     std::to_string(max) + ", got '" + std::string(text) + "'");
  }
  return value;
}

std::uint64_t parse_count(std::string_view text, std::string_view flag) {
  unsigned shift = 0;
  std::string_view digits = text;
  if (!text.empty()) {
    switch (text.back()) {
      case 'K': case 'k': shift = 10; break;
      case 'M': case 'm': shift = 20; break;
      case 'G': case 'g': shift = 30; break;
      default: break;
    }
  }
  if (shift != 0) digits.remove_suffix(1);
  const std::uint64_t max = (std::uint64_t{1} << 40) >> shift;  // 2^40 values: far past any memory here
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || value < 1 || value > max) {
    throw UsageError(std::string(flag) + " takes a count like 1000000, 512K, 64M or 1G (1 to 2^40), got '" +
                     std::string(text) + "'");
  }
  return value << shift;
}

std::vector<std::string> split_list(std::string_view text, std::string_view flag) {
  std::vector<std::string> items;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    const std::string_view item = text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (item.empty()) {
      throw UsageError(std::string(flag) + " takes a comma-separated list without empty items, got '" +
                       std::string(text) + "'");
    }
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return items;
}

}  // namespace smartarrays::cli
