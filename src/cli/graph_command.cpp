// Owns `smartarrays graph`: the dispatch to its subcommands, their help texts, and the three that
// move graphs around — generate (R-MAT or uniform to a file), convert (between el, mtx and sg) and
// info (sizes, degrees, and the memory of each variant with the paper's formula).
#include <algorithm>
#include <iomanip>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/graph_options.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::cli {

const char* const graph_help =
    "usage: smartarrays graph <subcommand> [options]\n"
    "\n"
    "CSR graphs stored as smart arrays (paper section 5.2).\n"
    "\n"
    "subcommands:\n"
    "  generate   write an R-MAT (Graph500) or uniform random graph to a file\n"
    "  convert    convert between edge lists (.el), Matrix Market (.mtx) and GAP binary (.sg)\n"
    "  info       vertices, edges, degrees and the memory of each compression variant\n"
    "  degree     degree centrality (out-degree + in-degree of every vertex)\n"
    "  pagerank   PageRank (pull over reverse edges), variants side by side\n"
    "\n"
    "Run 'smartarrays graph <subcommand> --help' for its options; formats: docs/graph.md.\n";

const char* const graph_generate_help =
    "usage: smartarrays graph generate --output FILE [options]\n"
    "\n"
    "Generates a graph, builds its CSR and writes it; the same seed gives the same file whatever\n"
    "the thread count.\n"
    "\n"
    "options:\n"
    "  --output FILE       where to write it (format from the extension, or --format)\n"
    "  --format FMT        output format: el, mtx or sg\n"
    "  --kind KIND         rmat (Kronecker, Graph500 a=0.57 b=0.19 c=0.19) or uniform (default rmat)\n"
    "  --scale S           rmat: 2^S vertices (default 16)\n"
    "  --edge-factor F     rmat: F * 2^S edges (default 16)\n"
    "  --no-scramble       rmat: keep the generator's vertex ids (hubs at small ids)\n"
    "  --vertices N        uniform: vertex count, K/M/G suffixes allowed (default 64K)\n"
    "  --degree D          uniform: average out-degree (default 16)\n"
    "  --seed N            random seed (default 1)\n"
    "  --undirected        store every edge in both directions\n"
    "  --dedup             keep one copy of repeated edges\n"
    "  --drop-self-loops   drop edges v -> v\n"
    "  --threads N         worker threads\n"
    "  --quiet             no progress on stderr\n"
    "  -h, --help          show this help\n"
    "\n"
    "example:\n"
    "  smartarrays graph generate --scale 20 --dedup --drop-self-loops --output rmat20.sg\n";

const char* const graph_convert_help =
    "usage: smartarrays graph convert INPUT OUTPUT [options]\n"
    "\n"
    "Reads INPUT, builds its CSR (sorted neighbour lists) and writes OUTPUT. Formats come from the\n"
    "extensions (.el .txt .edges .tsv / .mtx / .sg) unless given.\n"
    "\n"
    "options:\n"
    "  --format FMT        input format: el, mtx or sg\n"
    "  --to FMT            output format: el, mtx or sg\n"
    "  --undirected        treat an edge-list input as undirected\n"
    "  --dedup             keep one copy of repeated edges\n"
    "  --drop-self-loops   drop edges v -> v\n"
    "  --threads N         worker threads\n"
    "  --quiet             no progress on stderr\n"
    "  -h, --help          show this help\n";

const char* const graph_info_help =
    "usage: smartarrays graph info INPUT [options]\n"
    "\n"
    "Loads INPUT once per variant and prints vertices, edges, the largest degrees, the memory of\n"
    "every array side by side, and the paper's memory formula with its saving over U.\n"
    "\n";

namespace {

using graph_cli::LoadFlags;

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

int generate(const std::vector<std::string>& args) {
  ArgCursor cursor(args, "graph generate");
  std::string kind = "rmat", output;
  std::optional<graph::GraphFormat> format;
  graph::RmatOptions rmat;
  graph::UniformOptions uniform;
  uniform.vertices = 64 << 10;
  bool undirected = false, quiet = false;
  graph::BuildOptions build;
  std::size_t threads = 0;
  while (!cursor.done()) {
    const std::string flag = cursor.next();
    if (flag == "--help" || flag == "-h") {
      std::cout << graph_generate_help;
      return 0;
    } else if (flag == "--output") {
      output = cursor.value();
    } else if (flag == "--format") {
      try {
        format = graph::parse_graph_format(cursor.value());
      } catch (const Error& e) {
        cursor.fail(e.what());
      }
    } else if (flag == "--kind") {
      kind = cursor.value();
      if (kind != "rmat" && kind != "uniform") cursor.fail("--kind: expected rmat or uniform, got '" + kind + "'");
    } else if (flag == "--scale") {
      rmat.scale = static_cast<unsigned>(parse_number(cursor.value(), flag, 1, 40));
    } else if (flag == "--edge-factor") {
      rmat.edge_factor = parse_number(cursor.value(), flag, 1, std::uint64_t{1} << 20);
    } else if (flag == "--no-scramble") {
      rmat.scramble = false;
    } else if (flag == "--vertices") {
      uniform.vertices = parse_count(cursor.value(), flag);
    } else if (flag == "--degree") {
      const std::string text = cursor.value();
      try {
        std::size_t used = 0;
        uniform.average_degree = std::stod(text, &used);
        if (used != text.size()) throw std::invalid_argument(text);
      } catch (const std::logic_error&) {
        cursor.fail("--degree: '" + text + "' is not a number");
      }
    } else if (flag == "--seed") {
      rmat.seed = uniform.seed = parse_number(cursor.value(), flag, 0, ~std::uint64_t{0});
    } else if (flag == "--undirected") {
      undirected = true;
    } else if (flag == "--dedup") {
      build.dedup = true;
    } else if (flag == "--drop-self-loops") {
      build.drop_self_loops = true;
    } else if (flag == "--threads") {
      threads = parse_number(cursor.value(), flag, 1, 4096);
    } else if (flag == "--quiet") {
      quiet = true;
    } else {
      cursor.unknown();
    }
  }
  if (output.empty()) cursor.fail("missing --output FILE");
  if (!format) {
    try {
      format = graph::format_of_path(output);
    } catch (const Error& e) {
      cursor.fail(std::string(e.what()) + " with --format");
    }
  }
  runtime::ThreadPool pool(runtime::PoolOptions{.threads = threads});
  const auto start = std::chrono::steady_clock::now();
  if (!quiet) std::cerr << "generating " << kind << " graph on " << pool.size() << " threads\n";
  graph::EdgeList edges = kind == "rmat" ? graph::generate_rmat(rmat, pool) : graph::generate_uniform(uniform, pool);
  edges.directed = !undirected;
  const graph::CsrGraph g = graph::build_csr(edges, build, pool);
  edges = {};
  if (!quiet) std::cerr << "writing " << output << "\n";
  graph::save_graph(g, output, *format);
  std::cout << "wrote " << output << " (" << graph::to_string(*format) << "): " << g.vertices() << " vertices, " << g.edges()
            << " edges, " << (g.directed() ? "directed" : "undirected") << ", " << std::fixed << std::setprecision(2)
            << graph_cli::seconds_since(start) << " s\n";
  return 0;
}

int convert(const std::vector<std::string>& args) {
  ArgCursor cursor(args, "graph convert");
  LoadFlags flags;
  std::string output;
  std::optional<graph::GraphFormat> to;
  while (!cursor.done()) {
    const std::string flag = cursor.next();
    if (flag == "--help" || flag == "-h") {
      std::cout << graph_convert_help;
      return 0;
    } else if (flag == "--to") {
      try {
        to = graph::parse_graph_format(cursor.value());
      } catch (const Error& e) {
        cursor.fail(e.what());
      }
    } else if (flag == "--format" || flag == "--undirected" || flag == "--dedup" || flag == "--drop-self-loops" ||
               flag == "--threads" || flag == "--quiet") {
      graph_cli::parse_load_flag(flag, cursor, flags);
    } else if (flag.rfind("-", 0) == 0) {
      cursor.unknown();
    } else if (flags.input.empty()) {
      flags.input = flag;
    } else if (output.empty()) {
      output = flag;
    } else {
      cursor.unknown();
    }
  }
  if (output.empty()) cursor.fail("expected INPUT and OUTPUT files");
  graph_cli::finish_load_flags(cursor, flags);
  if (!to) {
    try {
      to = graph::format_of_path(output);
    } catch (const Error& e) {
      cursor.fail(std::string(e.what()) + " with --to");
    }
  }
  const auto start = std::chrono::steady_clock::now();
  auto pool = graph_cli::make_pool(flags);
  const graph_cli::GraphSource source(flags, *pool);
  graph::BuildOptions build;
  build.dedup = flags.dedup;
  build.drop_self_loops = flags.drop_self_loops;
  const graph::CsrGraph g = source.build(build, *pool);
  graph::save_graph(g, output, *to);
  std::cout << "wrote " << output << " (" << graph::to_string(*to) << "): " << g.vertices() << " vertices, " << g.edges()
            << " edges, " << (g.directed() ? "directed" : "undirected") << ", " << std::fixed << std::setprecision(2)
            << graph_cli::seconds_since(start) << " s\n";
  return 0;
}

struct DegreeStats {
  std::uint64_t max_out = 0, max_in = 0, sources = 0, sinks = 0;
};

DegreeStats degree_stats(const graph::CsrGraph& g) {
  DegreeStats s;
  std::uint64_t prev_out = 0, prev_in = 0;
  auto rb = g.rbegin().begin();
  bool first = true;
  for (auto b = g.begin().begin(); b != g.begin().end(); ++b, ++rb) {
    const std::uint64_t out = *b, in = *rb;
    if (!first) {
      s.max_out = std::max(s.max_out, out - prev_out);
      s.max_in = std::max(s.max_in, in - prev_in);
      s.sinks += out == prev_out ? 1 : 0;
      s.sources += in == prev_in ? 1 : 0;
    }
    first = false;
    prev_out = out;
    prev_in = in;
  }
  return s;
}

int info(const std::vector<std::string>& args) {
  ArgCursor cursor(args, "graph info");
  LoadFlags flags;
  while (!cursor.done()) {
    const std::string flag = cursor.next();
    if (flag == "--help" || flag == "-h") {
      std::cout << graph_info_help << "options:\n" << graph_cli::load_flags_help << "  -h, --help          show this help\n";
      return 0;
    }
    if (!graph_cli::parse_load_flag(flag, cursor, flags)) graph_cli::take_input(flag, cursor, flags);
  }
  graph_cli::finish_load_flags(cursor, flags);
  auto pool = graph_cli::make_pool(flags);
  const graph_cli::GraphSource source(flags, *pool);
  std::vector<graph::CsrGraph> graphs;
  std::vector<std::string> titles;
  std::vector<graph::MemoryReport> reports;
  for (graph::Variant v : flags.variants) {
    graphs.push_back(source.build(graph_cli::build_options(flags, v), *pool));
    titles.emplace_back(graph::to_string(v));
    reports.push_back(graphs.back().memory_report());
  }
  const graph::CsrGraph& g = graphs.front();
  const DegreeStats stats = degree_stats(g);
  auto write = [&](JsonWriter& json) {
    json.begin_object();
    json.member("format", "smartarrays.graph.info/1");
    json.member("input", flags.input);
    json.member("vertices", g.vertices());
    json.member("edges", g.edges());
    json.member("directed", g.directed());
    json.member("max_out_degree", stats.max_out);
    json.member("max_in_degree", stats.max_in);
    json.member("vertices_without_out_edges", stats.sinks);
    json.member("vertices_without_in_edges", stats.sources);
    json.key("variants");
    json.begin_array();
    for (std::size_t k = 0; k < graphs.size(); ++k) {
      json.begin_object();
      json.member("variant", titles[k]);
      json.key("memory");
      graph_cli::write_memory_json(json, reports[k]);
      json.member("paper_formula_bits", graphs[k].paper_memory_bits());
      json.member("paper_saving_vs_u", graphs[k].paper_saving());
      json.end_object();
    }
    json.end_array();
    json.end_object();
  };
  if (flags.json_path == "-") {
    graph_cli::write_json_file("-", write);
    return 0;
  }
  std::cout << flags.input << ": " << g.vertices() << " vertices, " << g.edges() << " edges, "
            << (g.directed() ? "directed" : "undirected (both directions stored)") << "\n"
            << "largest out-degree " << stats.max_out << ", largest in-degree " << stats.max_in << "; " << stats.sinks
            << " vertices without out-edges, " << stats.sources << " without in-edges\n\n";
  graph_cli::print_memory_table(std::cout, titles, reports);
  std::cout << "\npaper formula 2*b_begin*V + 2*b_edge*E + b_degree*V + 64*V:\n";
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    std::cout << "  " << std::left << std::setw(4) << titles[k] << std::right << graph_cli::mib(static_cast<std::uint64_t>(graphs[k].paper_memory_bits() / 8))
              << ", saving vs U " << std::fixed << std::setprecision(1) << 100 * graphs[k].paper_saving() << "%\n";
  }
  if (!flags.json_path.empty()) {
    graph_cli::write_json_file(flags.json_path, write);
    std::cout << "\nresults: " << flags.json_path << "\n";
  }
  return 0;
}

}  // namespace

int graph_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? std::cerr : std::cout) << graph_help;
    return args.empty() ? exit_usage : 0;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  const std::string& sub = args[0];
  if (sub == "generate") return generate(rest);
  if (sub == "convert") return convert(rest);
  if (sub == "info") return info(rest);
  if (sub == "degree") return graph_cli::degree_command(rest);
  if (sub == "pagerank") return graph_cli::pagerank_command(rest);
  const std::vector<std::string> known{"generate", "convert", "info", "degree", "pagerank"};
  throw UsageError("graph: unknown subcommand '" + sub + "' (expected " + join(known, ", ") + ")");
}

}  // namespace smartarrays::cli
