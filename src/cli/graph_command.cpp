// Owns `smartarrays graph`: the group of its subcommands and the three that move graphs around —
// generate (R-MAT or uniform to a file), convert (between el, mtx and sg) and info (sizes, degrees,
// and the memory of each variant with the paper's formula).
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/graph_options.hpp"
#include "cli/options.hpp"
#include "measure/timing.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::cli {

namespace {

using graph_cli::LoadFlags;

const char* const graph_header =
    "usage: smartarrays graph <subcommand> [options]\n"
    "\n"
    "CSR graphs stored as smart arrays (paper section 5.2).\n"
    "\n"
    "subcommands:\n"
    "  generate   write an R-MAT (Graph500) or uniform random graph to a file\n"
    "  convert    convert between edge lists (.el), Matrix Market (.mtx), GAP binary (.sg) and\n"
    "             the compact form (.sa: mapped back in place, docs/compact-format.md)\n"
    "  info       vertices, edges, degrees and the memory of each compression variant\n"
    "  degree     degree centrality (out-degree + in-degree of every vertex)\n"
    "  pagerank   PageRank (pull over reverse edges), variants side by side\n"
    "\n"
    "Run 'smartarrays graph <subcommand> --help' for its options; formats: docs/graph.md.\n";

const char* const generate_header =
    "usage: smartarrays graph generate --output FILE [options]\n"
    "\n"
    "Generates a graph, builds its CSR and writes it; the same seed gives the same file whatever\n"
    "the thread count.\n";

const char* const generate_footer =
    "example:\n"
    "  smartarrays graph generate --scale 20 --dedup --drop-self-loops --output rmat20.sg\n";

const char* const convert_header =
    "usage: smartarrays graph convert INPUT OUTPUT [options]\n"
    "\n"
    "Reads INPUT, builds its CSR (sorted neighbour lists) and writes OUTPUT. Formats come from the\n"
    "extensions (.el .txt .edges .tsv / .mtx / .sg / .sa) unless given. A compact (.sa) input is\n"
    "mapped and written as stored; a compact output is a store holding the graph as \"graph\".\n";

const char* const info_header =
    "usage: smartarrays graph info INPUT [options]\n"
    "\n"
    "Loads INPUT once per variant and prints vertices, edges, the largest degrees, the memory of\n"
    "every array side by side, and the paper's memory formula with its saving over U. A compact\n"
    "(.sa) INPUT is mapped and shown as stored unless --variant or --bits asks for a rebuild.\n";

// What generate and convert say about the file they wrote.
struct WrittenGraph {
  std::string path;
  graph::GraphFormat format = graph::GraphFormat::edge_list;
  std::uint64_t vertices = 0, edges = 0;
  bool directed = true;
  double seconds = 0;
};

// Writes g to w's path in w's format and records its sizes in w.
void write_graph(const graph::CsrGraph& g, WrittenGraph& w) {
  graph::save_graph(g, w.path, w.format);
  w.vertices = g.vertices();
  w.edges = g.edges();
  w.directed = g.directed();
}

void print_written(const WrittenGraph& w) {
  std::cout << "wrote " << w.path << " (" << graph::to_string(w.format) << "): " << w.vertices << " vertices, " << w.edges
            << " edges, " << (w.directed ? "directed" : "undirected") << ", " << std::fixed << std::setprecision(2)
            << w.seconds << " s\n";
}

// The format of an output file: given, else from its extension (flag names the flag that gives it).
graph::GraphFormat output_format(const std::optional<graph::GraphFormat>& given, const std::string& path,
                                 const std::string& flag) {
  if (given) return *given;
  try {
    return graph::format_of_path(path);
  } catch (const Error& e) {
    throw UsageError(std::string(e.what()) + " with " + flag);
  }
}

struct GenerateFlags {
  std::string kind = "rmat", output;
  std::optional<graph::GraphFormat> format;
  graph::RmatOptions rmat;
  graph::UniformOptions uniform{.vertices = 64 << 10};
  std::uint64_t seed = 1;
  bool undirected = false, quiet = false, no_scramble = false;
  graph::BuildOptions build;
  std::size_t threads = 0;
};

// The check of graph generate: an output with a known format and an edge list that fits in the
// machine's memory (16 bytes an edge, twice when undirected).
void check_generate(GenerateFlags& f) {
  if (f.output.empty()) throw UsageError("missing --output FILE");
  check_output_file("--output", f.output, {.dash_is_stdout = false});
  f.format = output_format(f.format, f.output, "--format");
  const bool rmat = f.kind == "rmat";
  const double edges = rmat ? std::ldexp(static_cast<double>(f.rmat.edge_factor), static_cast<int>(f.rmat.scale))
                            : static_cast<double>(f.uniform.vertices) * f.uniform.average_degree;
  graph_cli::check_edge_list_memory(rmat ? "--scale and --edge-factor" : "--vertices and --degree", edges, f.undirected);
}

int generate(GenerateFlags f) {
  WrittenGraph w{.path = f.output, .format = *f.format};
  f.rmat.seed = f.uniform.seed = f.seed;
  f.rmat.scramble = !f.no_scramble;
  runtime::ThreadPool pool(runtime::PoolOptions{.threads = f.threads});
  w.seconds = measure::time_once([&] {
    if (!f.quiet) std::cerr << "generating " << f.kind << " graph on " << pool.size() << " threads\n";
    const graph::CsrGraph g = (f.kind == "rmat" ? graph::GraphSource::rmat(f.rmat, f.undirected, pool)
                                                : graph::GraphSource::uniform(f.uniform, f.undirected, pool))
                                  .build(f.build, pool);
    if (!f.quiet) std::cerr << "writing " << f.output << "\n";
    write_graph(g, w);
  });
  print_written(w);
  return 0;
}

std::string graph_kind(const std::string& text) {
  if (text != "rmat" && text != "uniform") throw UsageError("expected rmat or uniform, got " + util::quoted(text));
  return text;
}

void add_generate_flags(CLI::App& app, GenerateFlags& f) {
  add_value<std::string>(app, "--output", "FILE", f.output, [](const std::string& s) { return s; },
                         "where to write it (format from the extension, or --format)");
  add_value<std::optional<graph::GraphFormat>>(app, "--format", "FMT", f.format, graph::parse_graph_format,
                                               "output format: el, mtx, sg or compact");
  add_value<std::string>(app, "--kind", "KIND", f.kind, graph_kind,
                         "rmat (Kronecker, Graph500 a=0.57 b=0.19 c=0.19) or uniform (default rmat)");
  add_value(app, "--scale", "S", f.rmat.scale, whole_number<unsigned>(1, 40), "rmat: 2^S vertices (default 16)");
  add_value(app, "--edge-factor", "F", f.rmat.edge_factor, whole_number<std::uint64_t>(1, std::uint64_t{1} << 20),
            "rmat: F * 2^S edges (default 16)");
  add_flag(app, "--no-scramble", f.no_scramble, "rmat: keep the generator's vertex ids (hubs at small ids)");
  add_value<std::uint64_t>(app, "--vertices", "N", f.uniform.vertices, parse_count,
                           "uniform: vertex count, K/M/G suffixes allowed (default 64K)");
  add_value<double>(app, "--degree", "D", f.uniform.average_degree, graph_cli::parse_average_degree,
                    "uniform: average out-degree (default 16)");
  add_value(app, "--seed", "N", f.seed, whole_number<std::uint64_t>(0, ~std::uint64_t{0}), "random seed (default 1)");
  add_flag(app, "--undirected", f.undirected, "store every edge in both directions");
  add_flag(app, "--dedup", f.build.dedup, "keep one copy of repeated edges");
  add_flag(app, "--drop-self-loops", f.build.drop_self_loops, "drop edges v -> v");
  add_value(app, "--threads", "N", f.threads, whole_number<std::size_t>(1, 4096), "worker threads");
  add_flag(app, "--quiet", f.quiet, "no progress on stderr");
}

void add_generate(CommandTree& tree, CLI::App& graph) {
  auto f = std::make_shared<GenerateFlags>();
  CLI::App& app = tree.add(graph, "generate", generate_header, [f] { return generate(*f); }, generate_footer);
  tree.check(app, [f] { check_generate(*f); });
  tree.applies_only(app, {"--scale", "--edge-factor", "--no-scramble"}, "to --kind rmat", [f] { return f->kind == "rmat"; });
  tree.applies_only(app, {"--vertices", "--degree"}, "to --kind uniform", [f] { return f->kind == "uniform"; });
  tree.define(app, [f](CLI::App& defined) { add_generate_flags(defined, *f); });
}

struct ConvertFlags {
  LoadFlags load;
  std::vector<std::string> files;
  std::optional<graph::GraphFormat> to;
};

// convert's loading: the file read once, built with the flags' duplicate and self-loop rules (a
// compact file's graph is written as stored unless a rule asks for a rebuild).
graph::CsrGraph load_graph(const LoadFlags& flags, runtime::ThreadPool& pool) {
  graph::GraphSource source = graph_cli::open_source(flags, pool);
  if (source.stored() && graph_cli::uses_stored_graph(flags)) return std::move(source).take_stored();
  return std::move(source).build({.dedup = flags.dedup, .drop_self_loops = flags.drop_self_loops}, pool);
}

// The check of graph convert: two files, the input's format and the output's.
void check_convert(ConvertFlags& f) {
  if (f.files.size() != 2) throw UsageError("expected INPUT and OUTPUT files");
  f.load.inputs = {f.files[0]};
  graph_cli::finish_load_flags(f.load);
  f.to = output_format(f.to, f.files[1], "--to");
  check_output_file("OUTPUT", f.files[1], {.dash_is_stdout = false});
}

int convert(ConvertFlags f) {
  WrittenGraph w{.path = f.files[1], .format = *f.to};
  auto pool = graph_cli::make_pool(f.load);
  w.seconds = measure::time_once([&] {
    write_graph(load_graph(f.load, *pool), w);
  });
  print_written(w);
  return 0;
}

void add_convert(CommandTree& tree, CLI::App& graph) {
  auto f = std::make_shared<ConvertFlags>();
  CLI::App& app = tree.add(graph, "convert", convert_header, [f] { return convert(*f); });
  tree.check(app, [f] { check_convert(*f); });
  tree.define(app, [f](CLI::App& defined) {
    defined.add_option("FILES", f->files);
    graph_cli::add_read_flags(defined, f->load, "options");
    add_value<std::optional<graph::GraphFormat>>(defined, "--to", "FMT", f->to, graph::parse_graph_format,
                                                 "output format: el, mtx, sg or compact");
  });
}

struct InfoVariant {
  std::string title;
  graph::MemoryReport memory;
  double paper_bits = 0, paper_saving = 0;
};

struct InfoResult {
  measure::Json graph;  // input, vertices, edges, directed
  graph::DegreeStats stats;
  std::vector<InfoVariant> variants;
};

InfoResult run_info(const LoadFlags& flags) {
  InfoResult r;
  auto pool = graph_cli::make_pool(flags);
  graph_cli::load_variants(flags, pool, [&](graph::Variant v, graph::CsrGraph&& g, double, const graph::LayoutSpec&) {
    if (r.variants.empty()) {
      r.graph = graph_cli::graph_json(flags.input, g);
      r.stats = g.degree_stats(*pool);
    }
    r.variants.push_back({graph::to_string(v), g.memory_report(), g.paper_memory_bits(), g.paper_saving()});
  });
  return r;
}

measure::Report info_report(const InfoResult& r) {
  measure::Report report("smartarrays.graph.info/1", r.graph);
  report.fields["max_out_degree"] = r.stats.max_out_degree;
  report.fields["max_in_degree"] = r.stats.max_in_degree;
  report.fields["vertices_without_out_edges"] = r.stats.without_out_edges;
  report.fields["vertices_without_in_edges"] = r.stats.without_in_edges;
  report.fields["variants"] = measure::Json::array();
  for (const InfoVariant& v : r.variants) {
    report.fields["variants"].push_back({{"variant", v.title},
                                         {"memory", graph_cli::memory_json(v.memory)},
                                         {"paper_formula_bits", v.paper_bits},
                                         {"paper_saving_vs_u", v.paper_saving}});
  }
  return report;
}

void print_info(const InfoResult& r) {
  const measure::Json& g = r.graph;
  std::cout << g["input"].get<std::string>() << ": " << g["vertices"] << " vertices, " << g["edges"] << " edges, "
            << (g["directed"].get<bool>() ? "directed" : "undirected (both directions stored)") << "\n"
            << "largest out-degree " << r.stats.max_out_degree << ", largest in-degree " << r.stats.max_in_degree << "; "
            << r.stats.without_out_edges << " vertices without out-edges, " << r.stats.without_in_edges << " without in-edges\n\n";
  std::vector<std::string> titles;
  std::vector<graph::MemoryReport> reports;
  for (const InfoVariant& v : r.variants) {
    titles.push_back(v.title);
    reports.push_back(v.memory);
  }
  graph_cli::print_memory_table(std::cout, titles, reports);
  std::cout << "\npaper formula 2*b_begin*V + 2*b_edge*E + b_degree*V + 64*V:\n";
  for (const InfoVariant& v : r.variants) {
    std::cout << "  " << std::left << std::setw(4) << v.title << std::right
              << graph_cli::mib(static_cast<std::uint64_t>(v.paper_bits / 8)) << ", saving vs U " << std::fixed
              << std::setprecision(1) << 100 * v.paper_saving << "%\n";
  }
}

int info(LoadFlags flags) {
  const InfoResult result = run_info(flags);
  if (flags.json_path != "-") print_info(result);
  if (!flags.json_path.empty()) measure::write_report(info_report(result), flags.json_path);
  if (!flags.json_path.empty() && flags.json_path != "-") std::cout << "\nresults: " << flags.json_path << "\n";
  return 0;
}

}  // namespace

void add_graph_command(CommandTree& tree) {
  CLI::App& graph = tree.add(tree.root(), "graph", graph_header, {}, "", "subcommand");
  tree.runner(graph, [&graph] {
    std::cerr << CommandTree::help(graph);
    return exit_usage;
  });
  tree.define(graph, [&tree](CLI::App& app) {
    add_generate(tree, app);
    add_convert(tree, app);
    auto info_flags = std::make_shared<LoadFlags>();
    CLI::App& info_app = tree.add(app, "info", info_header, [info_flags] { return info(*info_flags); });
    tree.check(info_app, [info_flags] { graph_cli::finish_load_flags(*info_flags); });
    graph_cli::scope_load_flags(tree, info_app, info_flags);
    tree.define(info_app, [info_flags](CLI::App& defined) { graph_cli::add_load_flags(defined, *info_flags); });
    graph_cli::add_degree_command(tree, app);
    graph_cli::add_pagerank_command(tree, app);
  });
}

}  // namespace smartarrays::cli
