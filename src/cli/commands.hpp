// Owns the list of the command's subcommands: each registers its flags and runner in the command
// tree; a runner parses nothing itself, runs (a result struct), then prints a table or writes JSON.
#pragma once

#include "cli/command_line.hpp"

namespace smartarrays::cli {

/// `smartarrays topology [--json]`.
void add_topology_command(CommandTree& tree);
/// `smartarrays bench aggregate ...`.
void add_bench_command(CommandTree& tree);
/// `smartarrays graph generate|convert|info|degree|pagerank ...`.
void add_graph_command(CommandTree& tree);

}  // namespace smartarrays::cli
