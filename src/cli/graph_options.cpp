// Owns the shared parts of `smartarrays graph`: loading flags, reading with progress, building
// per variant, and the memory table / JSON / per-vertex file writers.
#include "cli/graph_options.hpp"

#include <unistd.h>

#include <iomanip>
#include <iostream>
#include <sstream>

#include "cli/options.hpp"
#include "measure/timing.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/decision.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli::graph_cli {

namespace {

void add_format_flag(CLI::App& app, LoadFlags& f, const std::string& group) {
  add_value<std::optional<graph::GraphFormat>>(
      app, "--format", "FMT", f.format, [](const std::string& s) { return graph::parse_graph_format(s); },
      "input format: el (edge list), mtx (Matrix Market), sg (GAP binary),\n"
      "compact (store file); default from the extension (.el .txt .edges .tsv /\n"
      ".mtx / .sg / .sa)")
      ->group(group);
}

// --mode, --load and --object: how a compact file's graph is opened.
void add_compact_flags(CLI::App& app, LoadFlags& f, const std::string& group) {
  add_value<std::optional<graph::OpenMode>>(
      app, "--mode", "MODE", f.mode, [](const std::string& s) { return graph::parse_open_mode(s); },
      "compact files: map (use the file's pages in place, the default) or load\n"
      "(copy into --placement, checksums checked)")
      ->group(group);
  add_flag(app, "--load", f.load, "compact files: the same as --mode load")->group(group);
  add_value<std::string>(app, "--object", "NAME", f.object, [](const std::string& s) { return s; },
                         "compact files: the graph's name in the store (default: its only graph)")
      ->group(group);
}

// --dedup, --drop-self-loops, --undirected and --threads.
void add_build_flags(CLI::App& app, LoadFlags& f, const std::string& group) {
  add_flag(app, "--dedup", f.dedup, "keep one copy of repeated edges")->group(group);
  add_flag(app, "--drop-self-loops", f.drop_self_loops, "drop edges v -> v")->group(group);
  add_flag(app, "--undirected", f.undirected, "treat an edge list as undirected (store both directions)")->group(group);
  add_value(app, "--threads", "N", f.threads, whole_number<std::size_t>(1, 4096),
            "worker threads (default: SMARTARRAYS_THREADS, else every usable CPU)")
      ->group(group);
}

// --variant LIST, and --variants as its hidden spelling.
void add_variant_flags(CLI::App& app, LoadFlags& f, const std::string& group) {
  const Parser<std::vector<graph::Variant>> listed = list_of<graph::Variant>(graph::parse_variant);
  // "auto" hands the widths to the adaptive layer (one graph, built as it decides).
  const Parser<std::vector<graph::Variant>> variants = [&f, listed](const std::string& text) {
    f.variants_given = true;
    if (text == "auto" || text == "AUTO") {
      f.adaptive = true;
      return std::vector<graph::Variant>{graph::Variant::VE};
    }
    return listed(text);
  };
  add_value(app, "--variant", "LIST", f.variants, variants,
            "compression variants, run side by side: U (64-bit offsets and degrees,\n"
            "32-bit ids), V (offsets and degrees in minimum bits), V+E (ids too),\n"
            "or auto (the adaptive choice per array, docs/adaptivity.md) (default U)")
      ->group(group);
  add_value(app, "--variants", "LIST", f.variants, variants, "")->group("");
}

// --placement, --node and --bits: where each array goes and how wide it is.
void add_layout_flags(CLI::App& app, LoadFlags& f, const std::string& group) {
  add_each(
      app, "--placement", "LIST",
      [&f](const std::string& text) {
        f.placement_given = true;
        if (text == "auto" || text == "AUTO") {
          f.adaptive = true;
        } else {
          f.layout.add_placements(text);
        }
      },
      "PLACEMENT for every array and/or ARRAY=PLACEMENT overrides; placements\n"
      "os_default, single_node, interleaved, replicated, partitioned; arrays\n"
      "begin, edge, rbegin, redge, contributions, ranks, degrees;\n"
      "auto: the adaptive choice per array (docs/adaptivity.md)\n"
      "(default os_default; the outputs ranks and degrees stay interleaved\n"
      "unless named)")
      ->group(group);
  add_each(
      app, "--node", "N", [&f](const std::string& text) { f.layout.set_node(static_cast<int>(parse_whole(text, 0, 4095))); },
      "the node of single_node placements (default 0)")
      ->group(group);
  add_each(
      app, "--bits", "LIST",
      [&f](const std::string& text) {
        f.layout.add_bits(text);
        f.bits_given = true;
      },
      "ARRAY=B overrides of the variant's widths (1..64), e.g. edge=24")
      ->group(group);
}

}  // namespace

void add_read_flags(CLI::App& app, LoadFlags& f, const std::string& group) {
  add_format_flag(app, f, group);
  add_compact_flags(app, f, group);
  add_build_flags(app, f, group);
  add_flag(app, "--quiet", f.quiet, "no progress on stderr")->group(group);
}

void add_load_flags(CLI::App& app, LoadFlags& f) {
  const std::string group = "graph flags";
  app.add_option("INPUT", f.inputs);
  add_format_flag(app, f, group);
  add_compact_flags(app, f, group);
  add_variant_flags(app, f, group);
  add_layout_flags(app, f, group);
  add_build_flags(app, f, group);
  add_value<runtime::PinPolicy>(
      app, "--pinning", "POLICY", f.pinning,
      [&f](const std::string& name) {
        f.pinning_given = true;
        return runtime::parse_pin_policy(name);
      },
      "none, sparse or dense worker placement (default sparse; with --placement auto, decided)")
      ->group(group);
  add_value<std::string>(app, "--json", "FILE", f.json_path, [](const std::string& s) { return s; },
                         "also write the results as JSON to FILE, '-' for stdout instead of the\n"
                         "text (formats: docs/graph.md)")
      ->group(group);
  add_flag(app, "--quiet", f.quiet, "no progress on stderr")->group(group);
}

void scope_load_flags(CommandTree& tree, CLI::App& app, std::shared_ptr<const LoadFlags> flags) {
  tree.applies_only(app, {"--node"}, "to single_node placements (--placement single_node or ARRAY=single_node)",
                    [flags] { return flags->layout.places_single_node(); });
}

void finish_load_flags(LoadFlags& flags) {
  if (flags.inputs.empty()) throw UsageError("missing the input graph file");
  if (flags.inputs.size() > 1) {
    throw UsageError("more than one input file (" + util::quoted(flags.inputs[0]) + " and " + util::quoted(flags.inputs[1]) + ")");
  }
  flags.input = flags.inputs.front();
  check_output_file("--json", flags.json_path);
  try {
    graph::SourceOptions options;
    options.format = flags.format;
    options.undirected = flags.undirected;
    flags.format = options.format_of(flags.input);
  } catch (const Error& e) {
    throw UsageError(e.what());
  }
  if (flags.load) {
    if (flags.mode == graph::OpenMode::map) throw UsageError("--load contradicts --mode map");
    flags.mode = graph::OpenMode::load;
  }
  if (flags.format != graph::GraphFormat::compact) {
    if (flags.mode) throw UsageError("--mode/--load: only compact files are mapped or loaded; " + util::quoted(flags.input) + " is not one");
    if (!flags.object.empty()) throw UsageError("--object: only compact files hold named graphs; " + util::quoted(flags.input) + " is not one");
    return;
  }
  if (uses_stored_graph(flags) && flags.placement_given && flags.mode.value_or(graph::OpenMode::map) == graph::OpenMode::map) {
    throw UsageError("--placement: a mapped compact graph stays in the file's pages; add --load to copy it into a placement");
  }
}

bool uses_stored_graph(const LoadFlags& flags) {
  return flags.format == graph::GraphFormat::compact && !flags.variants_given && !flags.bits_given && !flags.dedup &&
         !flags.drop_self_loops && !flags.adaptive;
}

std::unique_ptr<runtime::ThreadPool> make_pool(const LoadFlags& flags) {
  return std::make_unique<runtime::ThreadPool>(runtime::PoolOptions{.threads = flags.threads, .pinning = flags.pinning});
}

graph::BuildOptions build_options(const LoadFlags& flags, graph::Variant variant) {
  return {.dedup = flags.dedup, .drop_self_loops = flags.drop_self_loops, .layout = flags.layout.layout(variant)};
}

graph::GraphSource open_source(const LoadFlags& flags, runtime::ThreadPool& pool) {
  graph::SourceOptions options;
  options.format = flags.format;
  options.undirected = flags.undirected;
  options.mode = flags.mode.value_or(graph::OpenMode::map);
  options.placement = flags.layout.layout(graph::Variant::U);
  options.object = flags.object;
  if (!flags.quiet) options.read.progress = graph::progress_writer(flags.input, std::cerr, ::isatty(STDERR_FILENO) == 1);
  return graph::GraphSource::open(flags.input, options, pool);
}

namespace {

// What the adaptive layer decides for a graph: its layout, the variant that names it best, and the
// workers (the count only when --threads was not given).
struct AdaptiveChoice {
  graph::LayoutSpec layout;
  graph::Variant variant = graph::Variant::U;
  unsigned threads = 0;
  runtime::PinPolicy pinning = runtime::PinPolicy::sparse;
};

// The adaptive choice for the graph of source (built once at its fewest widths to learn them),
// printed with its explanation unless quiet.
AdaptiveChoice adaptive_layout(const LoadFlags& flags, const graph::GraphSource& source, runtime::ThreadPool& pool) {
  if (flags.adaptive_workload.empty()) throw UsageError("--variant/--placement auto: only degree and pagerank decide");
  graph::BuildOptions probe_options = build_options(flags, graph::Variant::VE);
  const graph::CsrGraph probe = source.build(probe_options, pool);
  const auto threads = static_cast<unsigned>(flags.threads);  // 0: the decision's to pick
  adapt::WorkloadProfile w = flags.adaptive_workload == "degree"
                                 ? adapt::degree_workload(probe.vertices(), probe.edges(), threads)
                                 : adapt::pagerank_workload(probe.vertices(), probe.edges(), threads, flags.adaptive_iterations);
  const adapt::Decision d = adapt::decide(adapt::current_machine_profile(), w);
  AdaptiveChoice choice{flags.layout, graph::Variant::U, d.threads, flags.pinning_given ? flags.pinning : d.pinning};
  graph::LayoutSpec& layout = choice.layout;
  graph::Variant& variant = choice.variant;
  std::string placements, bits;
  for (const adapt::ArrayDecision& a : d.arrays) {
    if (a.fixed) continue;
    placements += (placements.empty() ? "" : ",") + a.name + "=" + to_string(a.choice.placement);
    // Contributions hold scores: their width is --scores', only their placement is decided here.
    if (a.name == "contributions") continue;
    bits += (bits.empty() ? "" : ",") + a.name + "=" + std::to_string(a.choice.bits);
    if (a.choice.bits < 64 && a.name != "redge" && variant == graph::Variant::U) variant = graph::Variant::V;
    if (a.name == "redge" && a.choice.bits < 32) variant = graph::Variant::VE;
  }
  layout.add_placements(placements);
  layout.add_bits(bits);
  if (!flags.quiet) {
    std::cerr << "adaptive choice (" << flags.adaptive_workload << ", " << choice.threads << " threads"
              << (d.threads_decided ? " decided" : "") << ", " << runtime::to_string(choice.pinning)
              << " pinning): " << placements << "; bits " << bits << "\n" << d.text();
  }
  return choice;
}

}  // namespace

void load_variants(const LoadFlags& flags, std::unique_ptr<runtime::ThreadPool>& pool, const VariantVisitor& each) {
  // What runs on each graph (an algorithm and its arrays) names the file when memory runs out, as
  // its build does.
  const VariantVisitor named = [&](graph::Variant v, graph::CsrGraph&& g, double seconds, const graph::LayoutSpec& layout) {
    graph::naming_graph_file(flags.input, [&] { each(v, std::move(g), seconds, layout); });
  };
  std::optional<graph::GraphSource> opened;
  const double open_seconds = measure::time_once([&] { opened.emplace(open_source(flags, *pool)); });
  if (opened->stored() && uses_stored_graph(flags)) {
    graph::CsrGraph g = std::move(*opened).take_stored();
    const graph::Variant v = g.variant();
    named(v, std::move(g), open_seconds, flags.layout);
    return;
  }
  const graph::GraphSource& source = *opened;
  if (flags.adaptive) {
    AdaptiveChoice decided = adaptive_layout(flags, source, *pool);
    const graph::Variant variant = decided.variant;
    LoadFlags chosen = flags;
    chosen.layout = std::move(decided.layout);
    chosen.threads = decided.threads;
    chosen.pinning = decided.pinning;
    if (decided.threads != pool->size() || decided.pinning != flags.pinning) pool = make_pool(chosen);
    std::optional<graph::CsrGraph> g;
    const double seconds =
        measure::time_once([&] { g.emplace(std::move(*opened).build(build_options(chosen, variant), *pool)); });
    named(variant, std::move(*g), seconds, chosen.layout);
    return;
  }
  // The last build is the source's last use: it is given up, so a text file's edges are freed once placed.
  for (std::size_t k = 0; k < flags.variants.size(); ++k) {
    const graph::Variant v = flags.variants[k];
    std::optional<graph::CsrGraph> g;
    const double seconds = measure::time_once([&] {
      g.emplace(k + 1 < flags.variants.size() ? source.build(build_options(flags, v), *pool)
                                              : std::move(*opened).build(build_options(flags, v), *pool));
    });
    named(v, std::move(*g), seconds, flags.layout);
  }
}

std::string mib(std::uint64_t bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return o.str();
}

void print_memory_table(std::ostream& out, const std::vector<std::string>& titles,
                        const std::vector<graph::MemoryReport>& reports) {
  out << std::left << std::setw(15) << "array" << std::right << std::setw(12) << "length" << std::setw(14) << "placement";
  for (const std::string& t : titles) out << std::setw(7) << (t + " b") << std::setw(13) << (t + " size");
  out << "\n";
  const std::size_t rows = reports.empty() ? 0 : reports[0].arrays.size();
  for (std::size_t r = 0; r < rows; ++r) {
    const graph::ArrayMemory& first = reports[0].arrays[r];
    std::string placement = to_string(first.placement);
    if (first.replicas > 1) placement += " x" + std::to_string(first.replicas);
    out << std::left << std::setw(15) << first.name << std::right << std::setw(12) << first.length << std::setw(14) << placement;
    for (const graph::MemoryReport& report : reports) {
      const graph::ArrayMemory& line = report.arrays[r];
      out << std::setw(7) << line.bits << std::setw(13) << (line.shared_with.empty() ? mib(line.bytes) : "= " + line.shared_with);
    }
    out << "\n";
  }
  out << std::left << std::setw(41) << "total" << std::right;
  for (const graph::MemoryReport& report : reports) out << std::setw(7) << "" << std::setw(13) << mib(report.total_bytes);
  out << "\n";
}

measure::Json memory_json(const graph::MemoryReport& report) {
  measure::Json arrays = measure::Json::array();
  for (const graph::ArrayMemory& a : report.arrays) {
    arrays.push_back({{"name", a.name},
                      {"length", a.length},
                      {"bits", a.bits},
                      {"placement", to_string(a.placement)},
                      {"replicas", a.replicas},
                      {"bytes", a.bytes},
                      {"shared_with", a.shared_with}});
  }
  return {{"arrays", arrays}, {"total_bytes", report.total_bytes}};
}

measure::Json graph_json(const std::string& input, const graph::CsrGraph& g) {
  return {{"input", input}, {"vertices", g.vertices()}, {"edges", g.edges()}, {"directed", g.directed()}};
}

double parse_average_degree(const std::string& text) {
  const double degree = parse_real(text);
  if (degree < 0) throw UsageError("expected an average degree >= 0, got " + util::quoted(text));
  return degree;
}

void check_edge_list_memory(const std::string& flags, double edges, bool both_directions) {
  check_machine_memory(flags,
                       "an edge list of " + count_text(edges) + " edges" + (both_directions ? ", both directions," : "") +
                           " needs",
                       edges * 16 * (both_directions ? 2 : 1));
}

void write_vertex_values(const std::string& path, std::uint64_t n,
                         const std::function<void(graph::BufferedOutput&, std::uint64_t)>& line) {
  graph::BufferedOutput out(path);
  for (std::uint64_t v = 0; v < n; ++v) line(out, v);
  out.close();
}

}  // namespace smartarrays::cli::graph_cli
