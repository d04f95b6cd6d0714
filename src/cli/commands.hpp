// Owns the list of the command's subcommands: each takes the arguments after its name, prints to
// stdout (progress to stderr) and returns the exit code; usage errors are thrown as UsageError.
#pragma once

#include <string>
#include <vector>

namespace smartarrays::cli {

/// `smartarrays topology [--json]`.
int topology_command(const std::vector<std::string>& args);
/// `smartarrays bench <benchmark> ...` (today: aggregate).
int bench_command(const std::vector<std::string>& args);

/// `smartarrays graph <subcommand> ...` (generate, convert, info, degree, pagerank).
int graph_command(const std::vector<std::string>& args);

/// Help text of `smartarrays topology`.
extern const char* const topology_help;
/// Help text of `smartarrays bench`.
extern const char* const bench_help;
/// Help text of `smartarrays bench aggregate`.
extern const char* const bench_aggregate_help;

}  // namespace smartarrays::cli
