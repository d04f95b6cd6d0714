// Owns the knob parsers and the launch check of launch_options.hpp.
#include "cli/launch_options.hpp"

#include "os/cpu_list.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

constexpr util::NameTable<bool, 2> on_off_names{"setting", {{{true, "on"}, {false, "off"}}}};

}  // namespace

bool parse_on_off(const std::string& text) { return on_off_names.parse(text); }

runtime::PinPolicy parse_pinning(const std::string& text) { return runtime::parse_pin_policy(text); }

std::vector<int> parse_cpus(const std::string& text) {
  std::vector<int> cpus = os::parse_cpu_list(text);
  if (cpus.empty()) throw UsageError("expected a CPU list like 0-3,8, got " + util::quoted(text));
  return cpus;
}

tune::Launch checked_launch(const tune::LaunchOptions& options) {
  if (!options.cpus.empty() && options.pinning != runtime::PinPolicy::none) {
    throw UsageError("--cpus and --pinning exclude each other (give one)");
  }
  // The usual case resolves once (the topology read only when a knob needs it, the allocator searched
  // once: the start overhead of `smartarrays run`); a refusal is then traced to the flag that caused it.
  try {
    return tune::prepare_launch(options);
  } catch (const Error& first) {
    const auto with_flag = [](const char* flag, const tune::LaunchOptions& only) {
      try {
        tune::prepare_launch(only);
      } catch (const Error& e) {
        throw UsageError(std::string(flag) + ": " + e.what());
      }
    };
    tune::LaunchOptions only;
    only.allocator = options.allocator;
    with_flag("--allocator", only);
    only = {};
    only.policy = options.policy;
    with_flag("--policy", only);
    only = {};
    only.cpus = options.cpus;
    with_flag("--cpus", only);
    only = {};
    only.pinning = options.pinning;
    only.threads = options.threads;
    with_flag("--pinning", only);
    throw UsageError(first.what());
  }
}

void add_knob_flags(CLI::App& app, tune::LaunchOptions& options) {
  add_value<tune::Allocator>(app, "--allocator", "NAME", options.allocator, tune::parse_allocator,
                             "glibc (default), jemalloc, tcmalloc, mimalloc or tbbmalloc");
  add_value<std::optional<tune::MemoryPolicy>>(
      app, "--policy", "POLICY", options.policy, [](const std::string& t) { return tune::parse_memory_policy(t); },
      "first-touch, interleave[=NODES], localalloc, preferred=N or bind=NODES\n(default: inherited)");
  add_value<std::vector<int>>(app, "--cpus", "LIST", options.cpus, parse_cpus, "run on these CPUs (e.g. 0-3,8)");
  add_value<runtime::PinPolicy>(app, "--pinning", "P", options.pinning, parse_pinning,
                                "sparse (over nodes first) or dense (a node at a time) over\n--threads CPUs; none (default)");
  add_value<std::size_t>(app, "--threads", "N", options.threads, whole_number<std::size_t>(1, 4096),
                         "threads: SMARTARRAYS_THREADS, OMP_NUM_THREADS, MKL_NUM_THREADS,\nOPENBLAS_NUM_THREADS");
  add_value<std::optional<bool>>(
      app, "--thp", "on|off", options.thp, [](const std::string& t) { return std::optional<bool>(parse_on_off(t)); },
      "transparent huge pages for the process (off: PR_SET_THP_DISABLE)");
}

void check_command(const std::vector<std::string>& command, const std::string& usage) {
  if (command.empty()) throw UsageError("no command to run (" + usage + ")");
}

}  // namespace smartarrays::cli
