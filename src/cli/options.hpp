// Owns how the command's flags take their values: CLI11 options whose text goes through a parser
// (counts with K, M, G suffixes, whole numbers in a range, finite real numbers, comma-separated
// lists, the library's names), so that a bad value becomes one CLI11 ValidationError naming the
// flag and the text, and the usage error raised after parsing.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

/// A bad command line found after parsing (e.g. a missing input): exit code 2, like a CLI11 error.
class UsageError : public std::runtime_error {
 public:
  /// The message names the offending argument; the command and a pointer to --help are added when printed.
  using std::runtime_error::runtime_error;
};

/// Turns a flag's text into a value; throws UsageError or smartarrays::Error saying what was expected.
template <typename T>
using Parser = std::function<T(const std::string&)>;

/// An element count: digits with an optional K, M or G suffix (powers of 1024), 1 to 2^40, e.g. 64M.
std::uint64_t parse_count(const std::string& text);

/// A finite real number, e.g. 0.85 or 1e-3.
double parse_real(const std::string& text);

/// Comma-separated items, none empty.
std::vector<std::string> split_list(const std::string& text);

/// A whole number in [min, max].
std::uint64_t parse_whole(const std::string& text, std::uint64_t min, std::uint64_t max);

/// A whole number in [min, max] as T.
template <typename T>
Parser<T> whole_number(std::uint64_t min, std::uint64_t max) {
  return [min, max](const std::string& text) { return static_cast<T>(parse_whole(text, min, max)); };
}

/// Appends value, parsed from text, to values (texts holds the earlier values' texts), refusing one
/// equal to an earlier value: a run or grid point listed twice would only run twice. The check is
/// quadratic, and bounded: one argument holds at most 128 KiB on Linux (12,000 distinct tune
/// policies take 0.4 s), and a list of small values stops at its first repeat.
template <typename T>
void add_distinct(std::vector<T>& values, std::vector<std::string>& texts, T value, const std::string& text) {
  for (std::size_t k = 0; k < values.size(); ++k) {
    if (values[k] == value) {
      throw UsageError("lists one value twice: " + util::quoted(texts[k]) + " and " + util::quoted(text));
    }
  }
  values.push_back(std::move(value));
  texts.push_back(text);
}

/// A comma-separated list of distinct items, each parsed by item.
template <typename T>
Parser<std::vector<T>> list_of(Parser<T> item) {
  return [item](const std::string& text) {
    std::vector<T> values;
    std::vector<std::string> texts;
    for (const std::string& part : split_list(text)) add_distinct(values, texts, item(part), part);
    return values;
  };
}

/// Runs parse(text) for flag, turning its UsageError or Error into CLI11's ValidationError.
template <typename T>
T parse_flag_value(const std::string& flag, const Parser<T>& parse, const std::string& text) {
  try {
    return parse(text);
  } catch (const UsageError& e) {
    throw CLI::ValidationError(flag, e.what());
  } catch (const Error& e) {
    throw CLI::ValidationError(flag, e.what());
  }
}

/// Adds flag (e.g. "--size") with one value called value_name; parse turns its text into target, and
/// the last one given wins. help may span lines ('\n'); --help indents them.
template <typename T>
CLI::Option* add_value(CLI::App& app, const std::string& flag, const std::string& value_name, T& target, Parser<T> parse,
                       const std::string& help) {
  auto store = [flag, &target, parse](const std::string& text) { target = parse_flag_value(flag, parse, text); };
  return app.add_option_function<std::string>(flag, store, help)
      ->type_name(value_name)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

/// Adds flag with one value that may be given several times: each(text) runs for every one, in order.
CLI::Option* add_each(CLI::App& app, const std::string& flag, const std::string& value_name,
                      std::function<void(const std::string&)> each, const std::string& help);

/// Adds a flag without a value that sets target; --flag=false (no, off, 0) clears it, --flag=maybe is an error.
CLI::Option* add_flag(CLI::App& app, const std::string& flag, bool& target, const std::string& help);

/// How an output file's writer treats its path.
struct OutputPath {
  bool dash_is_stdout = true;    ///< "-" means standard output
  bool creates_parents = false;  ///< the writer creates missing parent directories
};

/// Throws UsageError "FLAG: cannot write 'PATH': REASON" when the command could not write its output
/// at path (a directory, no such directory, no permission, a read-only file system), so that a
/// long run does not end unable to save its result; also for "-" where it is no file, and for a
/// second output to standard output. Looks only (stat, access): creates nothing.
void check_output_file(const std::string& flag, const std::string& path, OutputPath kind = {});

/// True when a check_output_file since the last clear_output_on_stdout() named this process's
/// standard output as a file (/dev/stdout, or the file or pipe stdout is): the command's tables and
/// messages then go to stderr, so they do not mix into the data.
bool output_on_stdout() noexcept;
/// Forgets what output_on_stdout() says and which flag took standard output (at each parse's start).
void clear_output_on_stdout() noexcept;

/// A count computed in double as text: whole below 2^64, else in scientific notation ("1.68e+307"),
/// and "more than 1.8e+308" for one beyond double's range.
std::string count_text(double count);

/// Throws UsageError "FLAGS: WHAT need(s) at least N bytes, more than the machine's M bytes of memory"
/// when needed (a lower bound of what the command would hold) exceeds the memory of all the
/// machine's nodes; the check a command runs on its sizes before any work.
void check_machine_memory(const std::string& flags, const std::string& what, double needed);

}  // namespace smartarrays::cli
