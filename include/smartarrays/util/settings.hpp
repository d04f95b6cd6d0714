// Owns the one table of the SMARTARRAYS_* environment variables (name, accepted values, meaning)
// and the one way they are read: an unset or empty variable means "the default", anything else is
// parsed by the layer that owns the setting, and a value that does not parse is
// Error(invalid_argument) naming the variable and its value. docs/settings.md mirrors this table.
#pragma once

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::util {

/// One environment variable the library reads.
struct Setting {
  std::string_view name;     ///< the variable
  std::string_view values;   ///< what it accepts
  std::string_view meaning;  ///< what it changes
};

/// Every SMARTARRAYS_* variable; each is read once, when the library first needs it.
inline constexpr std::array<Setting, 5> settings{{
    {"SMARTARRAYS_THREADS", "a count from 1 to 4096",
     "worker threads of the default runtime (like OMP_NUM_THREADS); default: every usable CPU"},
    {"SMARTARRAYS_TOPOLOGY", "nodes=N, or cpus=LIST;LIST;... (one CPU list per node, may be empty)",
     "a fake NUMA topology over the real memory, for testing multi-node logic on one node"},
    {"SMARTARRAYS_ISA", "scalar or avx2",
     "the bit-compression kernel set; default: the best this CPU runs"},
    {"SMARTARRAYS_MEMORY_LIMIT_MB", "a count of MiB from 1 to 17592186044416 (2^44)",
     "the memory the library assumes it may use when it refuses a graph too large to build; default: the "
     "smallest of physical memory, the cgroup memory limit, RLIMIT_AS and RLIMIT_DATA"},
    {"SMARTARRAYS_STORE_LOCK_WAIT", "a count of seconds from 0 to 86400",
     "how long a store writer waits for another writer of the same file (and a reader for a commit) before it "
     "fails; default: 60"},
}};

/// The value of the setting called name, or "" when it is unset or empty; name must be in settings.
inline std::string_view setting_text(std::string_view name) {
  bool known = false;
  for (const Setting& s : settings) known = known || s.name == name;
  if (!known) throw_error(ErrorCode::internal, "setting " + std::string(name) + " is missing from util::settings");
  const char* text = std::getenv(std::string(name).c_str());
  return text == nullptr ? std::string_view{} : std::string_view(text);
}

/// Throws Error(code) "environment variable NAME='TEXT': why".
[[noreturn]] inline void bad_setting(std::string_view name, std::string_view text, std::string_view why,
                                     ErrorCode code = ErrorCode::invalid_argument) {
  throw_error(code, "environment variable " + std::string(name) + "=" + quoted(text) + ": " + std::string(why));
}

/// The whole number in [min, max] that setting name holds, or fallback when it is unset or empty.
inline std::uint64_t setting_count(std::string_view name, std::uint64_t min, std::uint64_t max, std::uint64_t fallback) {
  const std::string_view text = setting_text(name);
  if (text.empty()) return fallback;
  const std::string copy(text);
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(copy.c_str(), &end, 10);
  if (errno != 0 || *end != '\0' || copy[0] < '0' || copy[0] > '9' || value < min || value > max) {
    bad_setting(name, text, "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
  }
  return value;
}

/// The value that setting name spells in table, or fallback when it is unset or empty.
template <typename Table, typename E>
E setting_choice(std::string_view name, const Table& table, E fallback) {
  const std::string_view text = setting_text(name);
  if (text.empty()) return fallback;
  try {
    return table.parse(text);
  } catch (const Error& e) {
    bad_setting(name, text, e.what());
  }
}

}  // namespace smartarrays::util
