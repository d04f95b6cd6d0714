// Owns the flag values of the tuning knobs shared by `smartarrays run` and `smartarrays tune`:
// allocator, memory policy, pinning, CPU list and THP spellings, and the check that turns a launch
// the topology refuses into a usage error naming the flag.
#pragma once

#include <string>
#include <vector>

#include "cli/options.hpp"
#include "smartarrays/tune/launch.hpp"

namespace smartarrays::cli {

/// "on" or "off" (any case) as true or false; throws Error(invalid_argument) otherwise.
bool parse_on_off(const std::string& text);

/// sparse, dense or none.
runtime::PinPolicy parse_pinning(const std::string& text);

/// A CPU list ("0-3,8"), not empty.
std::vector<int> parse_cpus(const std::string& text);

/// Resolves options against the topology, naming the flag whose value is refused (--allocator for a
/// missing library, --policy for a node without memory, --cpus for an unusable CPU) in a UsageError.
tune::Launch checked_launch(const tune::LaunchOptions& options);

/// Adds --allocator, --policy, --cpus, --pinning, --threads and --thp, filling options.
void add_knob_flags(CLI::App& app, tune::LaunchOptions& options);

/// The command after `--`: throws UsageError when it is empty.
void check_command(const std::vector<std::string>& command, const std::string& usage);

}  // namespace smartarrays::cli
