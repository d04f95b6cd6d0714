// Owns the value parsers and the flag helpers of options.hpp.
#include "cli/options.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <utility>

#include "smartarrays/os/topology.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

std::uint64_t parse_whole(const std::string& text, std::uint64_t min, std::uint64_t max) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value < min || value > max) {
    throw UsageError("expected a whole number from " + std::to_string(min) + " to " + std::to_string(max) + ", got " +
                     util::quoted(text));
  }
  return value;
}

std::uint64_t parse_count(const std::string& text) {
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
    throw UsageError("expected a count like 1000000, 512K, 64M or 1G (1 to 2^40), got " + util::quoted(text));
  }
  return value << shift;
}

double parse_real(const std::string& text) {
  char* end = nullptr;
  const double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(value)) {
    throw UsageError("expected a finite number like 0.85 or 1e-3, got " + util::quoted(text));
  }
  return value;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (item.empty()) throw UsageError("expected a comma-separated list without empty items, got " + util::quoted(text));
    items.push_back(std::move(item));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return items;
}

CLI::Option* add_each(CLI::App& app, const std::string& flag, const std::string& value_name,
                      std::function<void(const std::string&)> each, const std::string& help) {
  auto run = [flag, each](const std::vector<std::string>& texts) {
    for (const std::string& text : texts) {
      parse_flag_value<int>(flag, [&](const std::string& t) { return each(t), 0; }, text);
    }
  };
  // One value per occurrence, so a following positional argument is never taken as a second value.
  return app.add_option_function<std::vector<std::string>>(flag, run, help)
      ->type_name(value_name)
      ->expected(1)
      ->allow_extra_args(false)
      ->take_all();
}

CLI::Option* add_flag(CLI::App& app, const std::string& flag, bool& target, const std::string& help) {
  return app.add_flag(flag, target, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
}

namespace {

bool data_on_stdout = false;
std::string stdout_taken_by;  // the flag whose output standard output is, since the last clear

// Gives standard output to flag's output; a second flag asking for it is a bad command line, so two
// outputs never mix in one stream.
void claim_stdout(const std::string& flag) {
  if (!stdout_taken_by.empty()) {
    throw UsageError(flag + ": standard output already takes " + stdout_taken_by + "'s output; give one of them a file");
  }
  stdout_taken_by = flag;
}

// True when st is the file, terminal or pipe standard output is.
bool is_stdout(const struct stat& st) {
  struct stat out {};
  return ::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}

}  // namespace

bool output_on_stdout() noexcept { return data_on_stdout; }

void clear_output_on_stdout() noexcept {
  data_on_stdout = false;
  stdout_taken_by.clear();
}

void check_output_file(const std::string& flag, const std::string& path, OutputPath kind) {
  if (path.empty()) return;
  if (path == "-") {
    if (!kind.dash_is_stdout) {
      throw UsageError(flag + ": '-' names no file here: give /dev/stdout for standard output, or ./- for a file named '-'");
    }
    return claim_stdout(flag);
  }
  const auto fail = [&](const std::string& reason) {
    throw UsageError(flag + ": cannot write " + util::quoted(path) + ": " + reason);
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) fail("it is a directory");
    if (is_stdout(st)) {
      claim_stdout(flag);
      data_on_stdout = true;
    }
    if (::access(path.c_str(), W_OK) != 0) fail(std::strerror(errno));
    return;
  }
  if (errno != ENOENT) fail(std::strerror(errno));
  // The directory the file would be created in: its parent, or with creates_parents the nearest
  // existing ancestor.
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  while (::stat(dir.c_str(), &st) != 0) {
    if (errno != ENOENT || !kind.creates_parents) fail("no directory " + util::quoted(dir.string()));
    std::filesystem::path up = dir.parent_path();
    if (up.empty() && dir != ".") up = ".";
    if (up.empty() || up == dir) fail("no directory " + util::quoted(dir.string()));
    dir = up;
  }
  if (!S_ISDIR(st.st_mode)) fail(util::quoted(dir.string()) + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) fail(std::strerror(errno));
}

std::string count_text(double count) {
  if (count < 0x1p64) return std::to_string(static_cast<std::uint64_t>(count));
  if (std::isinf(count)) return "more than 1.8e+308";
  char text[32];
  return std::string(text, std::to_chars(text, text + sizeof text, count, std::chars_format::scientific, 3).ptr);
}

void check_machine_memory(const std::string& flags, const std::string& what, double needed) {
  std::uint64_t memory = 0;
  for (const os::Node& node : os::topology().nodes()) memory += node.memory_total;
  if (memory == 0 || !(needed > static_cast<double>(memory))) return;
  throw UsageError(flags + ": " + what + " at least " + count_text(needed) + " bytes, more than the machine's " +
                   std::to_string(memory) + " bytes of memory");
}

}  // namespace smartarrays::cli
