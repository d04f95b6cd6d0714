// Owns what the `smartarrays graph` subcommands share: the flags that say how a graph is loaded
// (format, variants, per-array placement and bits, duplicates, self-loops, threads), loading with
// progress on stderr, and the memory table, JSON and per-vertex output helpers.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "graph/buffered_output.hpp"
#include "measure/report.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/layout_spec.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::cli::graph_cli {

/// How a subcommand loads its graph.
struct LoadFlags {
  std::string input;                            ///< the graph file
  std::vector<std::string> inputs;              ///< the positional arguments, checked by finish_load_flags
  std::optional<graph::GraphFormat> format;     ///< --format, else from the extension
  std::vector<graph::Variant> variants{graph::Variant::U};  ///< --variant list
  graph::LayoutSpec layout;                     ///< --placement, --node, --bits
  bool dedup = false;                           ///< --dedup
  bool drop_self_loops = false;                 ///< --drop-self-loops
  bool undirected = false;                      ///< --undirected: symmetrise an edge list
  std::size_t threads = 0;                      ///< --threads (0 = default)
  runtime::PinPolicy pinning = runtime::PinPolicy::sparse;  ///< --pinning
  bool pinning_given = false;                   ///< --pinning was given
  bool quiet = false;                           ///< --quiet
  std::string json_path;                        ///< --json FILE ('-' = stdout)
  std::optional<graph::OpenMode> mode;          ///< --mode (or --load): how a compact file's graph is opened
  bool load = false;                            ///< --load
  std::string object;                           ///< --object: the graph's name in a compact file
  bool variants_given = false;                  ///< --variant was given
  bool bits_given = false;                      ///< --bits was given
  bool placement_given = false;                 ///< --placement was given
  /// --variant auto or --placement auto: the adaptive layer picks each graph array's placement and
  /// width for adaptive_workload ("degree" or "pagerank"; docs/adaptivity.md).
  bool adaptive = false;
  std::string adaptive_workload;                ///< set by the command that runs a workload
  unsigned adaptive_iterations = 15;            ///< PageRank iterations the decision assumes
};

/// True when a compact file's graph is used as stored (mapped, or loaded with --load) rather than
/// rebuilt: no --variant, --bits, --dedup or --drop-self-loops asks for another layout.
bool uses_stored_graph(const LoadFlags& flags);

/// Adds the flags of reading a graph file (--format, --undirected, --dedup, --drop-self-loops,
/// --threads, --quiet) to app, in group.
void add_read_flags(CLI::App& app, LoadFlags& flags, const std::string& group);

/// Adds every loading flag (the read flags, --variant, --placement, --node, --bits, --pinning,
/// --json) and the INPUT argument to app, in the group "graph flags".
void add_load_flags(CLI::App& app, LoadFlags& flags);
/// Makes the load flags that apply only in some cases (--node: single_node placements) an error
/// elsewhere, for app, whose load flags are flags.
void scope_load_flags(CommandTree& tree, CLI::App& app, std::shared_ptr<const LoadFlags> flags);

/// Takes the one input from flags.inputs and derives the format (graph::SourceOptions::format_of);
/// throws UsageError when the input is missing or repeated, the format unknown, or the flags do
/// not fit together.
void finish_load_flags(LoadFlags& flags);

/// The worker pool the flags ask for.
std::unique_ptr<runtime::ThreadPool> make_pool(const LoadFlags& flags);

/// Build options for one variant: the variant's widths, placements and --bits overrides.
graph::BuildOptions build_options(const LoadFlags& flags, graph::Variant variant);

/// The library's graph source for flags.input, read once with progress on stderr for big files
/// (unless quiet).
graph::GraphSource open_source(const LoadFlags& flags, runtime::ThreadPool& pool);

/// What each(...) of load_variants gets: the variant, its graph, the seconds building it took, and
/// the layout of --placement and --bits it was built with (with --variant/--placement auto, the
/// adaptive choice, which also names the analytics' arrays such as contributions).
using VariantVisitor = std::function<void(graph::Variant, graph::CsrGraph&&, double, const graph::LayoutSpec&)>;

/// The one place info, degree and pagerank load graphs: reads flags.input once and calls
/// each(variant, graph, build_seconds, layout) for every --variant in order, each graph built in turn on pool;
/// a compact file's graph used as stored (uses_stored_graph) is passed once, with its own variant
/// and the seconds opening it took. An Error(out_of_memory) of each names the file, as the build's do.
/// With --variant/--placement auto, the adaptive decision also picks the thread count (when --threads
/// is not given) and the pinning (when --pinning is not given): pool is then replaced by a pool of its
/// choice before the graph is built, so each(...) must reach the pool through it.
void load_variants(const LoadFlags& flags, std::unique_ptr<runtime::ThreadPool>& pool, const VariantVisitor& each);

/// "12.3 MiB".
std::string mib(std::uint64_t bytes);

/// Prints one memory table with a column pair (bits, MiB) per report, rows by array name.
void print_memory_table(std::ostream& out, const std::vector<std::string>& titles,
                        const std::vector<graph::MemoryReport>& reports);

/// A memory report as a JSON object {"arrays": [...], "total_bytes": N}.
measure::Json memory_json(const graph::MemoryReport& report);

/// The members every graph result starts with: input, vertices, edges, directed.
measure::Json graph_json(const std::string& input, const graph::CsrGraph& g);

/// Writes one line per vertex, appended by line(out, v) for v = 0..n-1, to path (staged, so an
/// error or Ctrl-C leaves no partial file).
void write_vertex_values(const std::string& path, std::uint64_t n,
                         const std::function<void(graph::BufferedOutput&, std::uint64_t)>& line);

/// An average degree flag's value: a finite number >= 0, else UsageError quoting text.
double parse_average_degree(const std::string& text);

/// The size check of a command that generates a graph: its edge list (16 bytes an edge, twice with
/// both directions) must fit in the machine's memory, else UsageError naming flags.
void check_edge_list_memory(const std::string& flags, double edges, bool both_directions);

/// Adds `graph degree` under graph.
void add_degree_command(CommandTree& tree, CLI::App& graph);
/// Adds `graph pagerank` under graph.
void add_pagerank_command(CommandTree& tree, CLI::App& graph);

}  // namespace smartarrays::cli::graph_cli
