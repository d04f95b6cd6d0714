// Owns the list of the command's subcommands: each registers its flags, its check and its runner in
// the command tree; the check validates every flag before any work, and the runner parses nothing
// itself, runs (a result struct), then prints a table or writes JSON.
#pragma once

#include <memory>

#include "cli/command_line.hpp"
#include "smartarrays/adapt/machine_profile.hpp"

namespace smartarrays::cli {

/// The `smartarrays` command tree with every command registered; a command's flags are defined
/// only when a command line names it (so `smartarrays run` does not pay for the other commands,
/// docs/tune.md: the start overhead).
std::unique_ptr<CommandTree> make_command_tree();
/// `smartarrays topology [--json]`.
void add_topology_command(CommandTree& tree);
/// `smartarrays bench aggregate ...`.
void add_bench_command(CommandTree& tree);
/// `smartarrays bench adaptivity ...` under bench.
void add_bench_adaptivity(CommandTree& tree, CLI::App& bench);
/// `smartarrays bench workload w1|w2|w3|w4 ...` under bench.
void add_bench_workload(CommandTree& tree, CLI::App& bench);
/// `smartarrays calibrate ...` and `smartarrays advise ...` (the adaptive choice).
void add_adapt_commands(CommandTree& tree);
/// Calibrates this machine (quick or full) with a progress line on stderr unless quiet, and caches
/// the profile for the auto options and the adaptive commands; returns it.
adapt::MachineProfile calibrate_and_cache(bool quick, bool quiet);
/// `smartarrays graph generate|convert|info|degree|pagerank ...`.
void add_graph_command(CommandTree& tree);
/// `smartarrays store list|info|verify|append ...`.
void add_store_command(CommandTree& tree);
/// `smartarrays run [knobs] -- COMMAND ...`.
void add_run_command(CommandTree& tree);
/// `smartarrays tune [grid] -- COMMAND ...`.
void add_tune_command(CommandTree& tree);

}  // namespace smartarrays::cli
