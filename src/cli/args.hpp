// Owns the command's argument handling: a cursor over flags (--flag VALUE or --flag=VALUE), the
// usage error that makes the command exit with code 2, and parsers for counts, sizes and lists.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace smartarrays::cli {

/// Exit code for a bad command line (as getopt-style tools use).
inline constexpr int exit_usage = 2;
/// Exit code when the library reports an error.
inline constexpr int exit_failure = 1;

/// A bad command line: printed with a pointer to --help, exit code 2.
class UsageError : public std::runtime_error {
 public:
  /// The message names the command and the offending argument.
  using std::runtime_error::runtime_error;
};

/// Walks the arguments of one command: flags with values, and bare words.
class ArgCursor {
 public:
  /// Arguments after the command words; command (e.g. "bench aggregate") prefixes error messages.
  ArgCursor(std::vector<std::string> args, std::string command);
  /// True when every argument has been taken.
  bool done() const noexcept { return pos_ >= args_.size(); }
  /// The next argument; for "--flag=value" only "--flag" (the value is kept for value()).
  std::string next();
  /// The value of the flag just taken; throws UsageError when it is missing.
  std::string value();
  /// Throws UsageError "unknown flag" (or "unexpected argument") for the argument just taken.
  [[noreturn]] void unknown() const;
  /// Throws UsageError with "<command>: why".
  [[noreturn]] void fail(const std::string& why) const;

 private:
  std::vector<std::string> args_;
  std::string command_;
  std::size_t pos_ = 0;
  std::string current_;
  std::string inline_value_;
  bool has_inline_value_ = false;
};

/// A whole number in [min, max]; throws UsageError naming flag and text.
std::uint64_t parse_number(std::string_view text, std::string_view flag, std::uint64_t min, std::uint64_t max);

/// An element count: digits with an optional K, M or G suffix (powers of 1024), e.g. 64M.
std::uint64_t parse_count(std::string_view text, std::string_view flag);

/// Comma-separated items, none empty; throws UsageError for an empty list or item.
std::vector<std::string> split_list(std::string_view text, std::string_view flag);

}  // namespace smartarrays::cli
