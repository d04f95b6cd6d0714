// Owns `smartarrays graph degree` and `smartarrays graph pagerank`: load the graph once per
// variant, run the algorithm on the chosen pool, print times, top-k vertices and the memory of
// every array side by side, and write --json and --output files.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>

#include "cli/graph_options.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::cli::graph_cli {

namespace {

const char* const degree_help =
    "usage: smartarrays graph degree INPUT [options]\n"
    "\n"
    "Degree centrality (paper Figure 11): out-degree + in-degree of every vertex from the offset\n"
    "arrays begin and rbegin, into an output array (interleaved unless --placement degrees=...).\n"
    "Prints the time per variant, the top-k vertices and the memory of every array.\n"
    "\n"
    "options:\n"
    "  --top K             vertices to list, largest degree first (default 10)\n"
    "  --repetitions N     timed runs per variant, median reported (default 3)\n"
    "  --output FILE       write the degree of every vertex, one per line in vertex order\n";

const char* const pagerank_help =
    "usage: smartarrays graph pagerank INPUT [options]\n"
    "\n"
    "PageRank as in the paper (Figure 12): pull over the reverse edges, Jacobi iterations from\n"
    "1/n, until the sum of |rank - previous rank| < tolerance or the iteration cap. With several\n"
    "--variant values each runs on its own copy of the graph and the results are shown side by side.\n"
    "\n"
    "options:\n"
    "  --damping D         damping factor (default 0.85)\n"
    "  --tolerance T       convergence threshold (default 1e-3)\n"
    "  --max-iterations N  iteration cap (default 100)\n"
    "  --dangling RULE     none: rank of vertices without out-edges is lost (paper, GAP pr_spmv);\n"
    "                      uniform: it is spread over all vertices (networkx) (default none)\n"
    "  --top K             vertices to list, highest rank first (default 10)\n"
    "  --output FILE       write the rank of every vertex (first variant), one per line in vertex order\n";

struct AnalyticsFlags {
  LoadFlags load;
  std::size_t top = 10;
  std::string output;
  unsigned repetitions = 3;
  algo::PageRankOptions pagerank;
};

double parse_real(ArgCursor& cursor, const std::string& flag) {
  const std::string text = cursor.value();
  try {
    std::size_t used = 0;
    const double v = std::stod(text, &used);
    if (used == text.size() && std::isfinite(v)) return v;
  } catch (const std::logic_error&) {
  }
  cursor.fail(flag + ": '" + text + "' is not a number");
}

AnalyticsFlags parse(const std::vector<std::string>& args, const char* command, const char* help, bool pagerank, bool& shown) {
  AnalyticsFlags f;
  ArgCursor cursor(args, command);
  while (!cursor.done()) {
    const std::string flag = cursor.next();
    if (flag == "--help" || flag == "-h") {
      std::cout << help << load_flags_help << "  -h, --help          show this help\n";
      shown = true;
      return f;
    }
    if (parse_load_flag(flag, cursor, f.load)) continue;
    if (flag == "--top") {
      f.top = parse_number(cursor.value(), flag, 0, 1u << 20);
    } else if (flag == "--output") {
      f.output = cursor.value();
    } else if (!pagerank && flag == "--repetitions") {
      f.repetitions = static_cast<unsigned>(parse_number(cursor.value(), flag, 1, 1000));
    } else if (pagerank && flag == "--damping") {
      f.pagerank.damping = parse_real(cursor, flag);
    } else if (pagerank && flag == "--tolerance") {
      f.pagerank.tolerance = parse_real(cursor, flag);
    } else if (pagerank && flag == "--max-iterations") {
      f.pagerank.max_iterations = static_cast<unsigned>(parse_number(cursor.value(), flag, 1, 1000000));
    } else if (pagerank && flag == "--dangling") {
      try {
        f.pagerank.dangling = algo::parse_dangling_rule(cursor.value());
      } catch (const Error& e) {
        cursor.fail(e.what());
      }
    } else {
      take_input(flag, cursor, f.load);
    }
  }
  finish_load_flags(cursor, f.load);
  return f;
}

void write_common_json(JsonWriter& json, const char* format, const LoadFlags& flags, const graph::CsrGraph& g,
                       std::size_t threads) {
  json.member("format", format);
  json.member("input", flags.input);
  json.member("vertices", g.vertices());
  json.member("edges", g.edges());
  json.member("directed", g.directed());
  json.member("threads", static_cast<std::uint64_t>(threads));
  json.member("nodes", static_cast<std::uint64_t>(os::topology().node_count()));
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

void finish_output(const AnalyticsFlags& f, const std::function<void(JsonWriter&)>& write) {
  if (!f.load.json_path.empty() && f.load.json_path != "-") {
    write_json_file(f.load.json_path, write);
    std::cout << "results: " << f.load.json_path << "\n";
  }
  if (!f.output.empty() && f.load.json_path != "-") std::cout << "values:  " << f.output << "\n";
}

}  // namespace

int degree_command(const std::vector<std::string>& args) {
  bool shown = false;
  const AnalyticsFlags f = parse(args, "graph degree", degree_help, false, shown);
  if (shown) return 0;
  auto pool = make_pool(f.load);
  const GraphSource source(f.load, *pool);
  struct Run {
    std::string variant;
    graph::MemoryReport memory;
    std::vector<double> seconds;
  };
  std::vector<Run> runs;
  std::optional<SmartArray> first_degrees;
  std::optional<graph::CsrGraph> first_graph;
  for (graph::Variant v : f.load.variants) {
    graph::CsrGraph g = source.build(build_options(f.load, v), *pool);
    ArrayOptions out = f.load.placement.for_output("degrees");
    out.bits = v == graph::Variant::U ? 64 : 0;
    SmartArray degrees = algo::degree_centrality(g.begin(), g.rbegin(), out, *pool);
    Run run{graph::to_string(v), g.memory_report(), {}};
    for (unsigned r = 0; r < f.repetitions; ++r) {
      const auto start = std::chrono::steady_clock::now();
      algo::degree_centrality(g.begin(), g.rbegin(), degrees, *pool);
      run.seconds.push_back(seconds_since(start));
    }
    run.memory.add("degrees", degrees);
    runs.push_back(std::move(run));
    if (!first_degrees) {
      first_degrees.emplace(std::move(degrees));
      first_graph.emplace(std::move(g));
    }
  }
  const graph::CsrGraph& g = *first_graph;
  const auto top = algo::top_k(*first_degrees, f.top);
  auto write = [&](JsonWriter& json) {
    json.begin_object();
    write_common_json(json, "smartarrays.graph.degree/1", f.load, g, pool->size());
    json.key("runs");
    json.begin_array();
    for (const Run& run : runs) {
      json.begin_object();
      json.member("variant", run.variant);
      json.member("median_s", median(run.seconds));
      json.key("seconds");
      json.begin_array();
      for (double s : run.seconds) json.value(s);
      json.end_array();
      json.key("memory");
      write_memory_json(json, run.memory);
      json.end_object();
    }
    json.end_array();
    json.key("top");
    json.begin_array();
    for (auto [v, d] : top) {
      json.begin_object();
      json.member("vertex", v);
      json.member("degree", d);
      json.end_object();
    }
    json.end_array();
    json.end_object();
  };
  if (!f.output.empty()) {
    write_vertex_values(f.output, g.vertices(), [&](std::ostream& out, std::uint64_t v) { out << first_degrees->get(v) << '\n'; });
  }
  if (f.load.json_path == "-") {
    write_json_file("-", write);
    return 0;
  }
  std::cout << f.load.input << ": " << g.vertices() << " vertices, " << g.edges() << " edges, " << pool->size()
            << " threads\n\ndegree centrality, median of " << f.repetitions << " runs:\n";
  for (const Run& run : runs) {
    std::cout << "  " << std::left << std::setw(4) << run.variant << std::right << std::fixed << std::setprecision(6)
              << median(run.seconds) << " s\n";
  }
  std::cout << "\ntop " << top.size() << " vertices by degree:\n";
  for (auto [v, d] : top) std::cout << "  " << std::setw(12) << v << std::setw(12) << d << "\n";
  std::cout << "\n";
  std::vector<std::string> titles;
  std::vector<graph::MemoryReport> reports;
  for (const Run& run : runs) {
    titles.push_back(run.variant);
    reports.push_back(run.memory);
  }
  print_memory_table(std::cout, titles, reports);
  std::cout << "\n";
  finish_output(f, write);
  return 0;
}

int pagerank_command(const std::vector<std::string>& args) {
  bool shown = false;
  AnalyticsFlags f = parse(args, "graph pagerank", pagerank_help, true, shown);
  if (shown) return 0;
  f.pagerank.contributions = f.load.placement.for_array("contributions");
  f.pagerank.ranks = f.load.placement.for_output("ranks");
  auto pool = make_pool(f.load);
  const bool quiet = f.load.quiet || f.load.json_path == "-";
  const GraphSource source(f.load, *pool);
  struct Run {
    std::string variant;
    graph::MemoryReport memory;
    double paper_bits = 0, paper_saving = 0, build_seconds = 0;
    unsigned iterations = 0;
    bool converged = false;
    double difference = 0;
    std::vector<double> seconds;
    double max_rank_difference = 0;  // vs the first variant
  };
  std::vector<Run> runs;
  std::optional<algo::PageRankResult> first;
  std::optional<graph::CsrGraph> first_graph;
  for (graph::Variant v : f.load.variants) {
    const auto start = std::chrono::steady_clock::now();
    graph::CsrGraph g = source.build(build_options(f.load, v), *pool);
    Run run;
    run.variant = graph::to_string(v);
    run.build_seconds = seconds_since(start);
    if (!quiet) std::cerr << "variant " << run.variant << ": graph built in " << std::fixed << std::setprecision(2) << run.build_seconds << " s, running PageRank\n";
    algo::PageRankResult result = algo::pagerank(g.rbegin(), g.redge(), g.out_degree(), f.pagerank, *pool);
    run.memory.add("rbegin", g.rbegin());
    run.memory.add("redge", g.redge());
    run.memory.add("out_degree", g.out_degree());
    run.memory.add("contributions", result.contributions);
    run.memory.add("ranks", result.ranks);
    run.paper_bits = g.paper_memory_bits();
    run.paper_saving = g.paper_saving();
    run.iterations = result.iterations;
    run.converged = result.converged;
    run.difference = result.difference;
    run.seconds = result.iteration_seconds;
    if (first) {
      for (std::uint64_t u = 0; u < g.vertices(); ++u) {
        run.max_rank_difference = std::max(run.max_rank_difference,
                                           std::fabs(algo::rank_at(result.ranks, u) - algo::rank_at(first->ranks, u)));
      }
    } else {
      first.emplace(std::move(result));
      first_graph.emplace(std::move(g));
    }
    runs.push_back(std::move(run));
  }
  const graph::CsrGraph& g = *first_graph;
  const auto top = algo::top_k(first->ranks, f.top);
  auto total = [](const Run& r) {
    double s = 0;
    for (double x : r.seconds) s += x;
    return s;
  };
  auto write = [&](JsonWriter& json) {
    json.begin_object();
    write_common_json(json, "smartarrays.graph.pagerank/1", f.load, g, pool->size());
    json.key("options");
    json.begin_object();
    json.member("damping", f.pagerank.damping);
    json.member("tolerance", f.pagerank.tolerance);
    json.member("max_iterations", f.pagerank.max_iterations);
    json.member("dangling", algo::to_string(f.pagerank.dangling));
    json.end_object();
    json.key("runs");
    json.begin_array();
    for (const Run& run : runs) {
      json.begin_object();
      json.member("variant", run.variant);
      json.member("iterations", run.iterations);
      json.member("converged", run.converged);
      json.member("difference", run.difference);
      json.member("total_seconds", total(run));
      json.member("seconds_per_iteration", run.iterations ? total(run) / run.iterations : 0.0);
      json.member("median_iteration_seconds", median(run.seconds));
      json.key("iteration_seconds");
      json.begin_array();
      for (double s : run.seconds) json.value(s);
      json.end_array();
      json.member("build_seconds", run.build_seconds);
      json.member("max_rank_difference_vs_first", run.max_rank_difference);
      json.key("memory");
      write_memory_json(json, run.memory);
      json.member("paper_formula_bits", run.paper_bits);
      json.member("paper_saving_vs_u", run.paper_saving);
      json.end_object();
    }
    json.end_array();
    json.key("top");
    json.begin_array();
    for (auto [v, bits] : top) {
      json.begin_object();
      json.member("vertex", v);
      json.member("rank", std::bit_cast<double>(bits));
      json.end_object();
    }
    json.end_array();
    json.end_object();
  };
  if (!f.output.empty()) {
    write_vertex_values(f.output, g.vertices(), [&](std::ostream& out, std::uint64_t v) {
      char text[32];
      std::snprintf(text, sizeof text, "%.17g\n", algo::rank_at(first->ranks, v));
      out << text;
    });
  }
  if (f.load.json_path == "-") {
    write_json_file("-", write);
    return 0;
  }
  std::cout << f.load.input << ": " << g.vertices() << " vertices, " << g.edges() << " edges, " << pool->size()
            << " threads; damping " << f.pagerank.damping << ", tolerance " << f.pagerank.tolerance << ", dangling "
            << algo::to_string(f.pagerank.dangling) << "\n\n";
  std::cout << std::left << std::setw(9) << "variant" << std::right << std::setw(11) << "iterations" << std::setw(14)
            << "s/iteration" << std::setw(12) << "total s" << std::setw(14) << "PR memory" << std::setw(15) << "paper saving"
            << std::setw(16) << "max |rank diff|" << "\n";
  for (const Run& run : runs) {
    std::cout << std::left << std::setw(9) << run.variant << std::right << std::setw(10) << run.iterations
              << (run.converged ? " " : "*") << std::fixed << std::setprecision(5) << std::setw(14)
              << (run.iterations ? total(run) / run.iterations : 0.0) << std::setprecision(3) << std::setw(12) << total(run)
              << std::setw(14) << mib(run.memory.total_bytes) << std::setprecision(1) << std::setw(14)
              << 100 * run.paper_saving << "%" << std::scientific << std::setprecision(1) << std::setw(16)
              << run.max_rank_difference << std::defaultfloat << "\n";
  }
  if (std::any_of(runs.begin(), runs.end(), [](const Run& r) { return !r.converged; })) {
    std::cout << "* stopped at --max-iterations before reaching the tolerance\n";
  }
  std::cout << "\ntop " << top.size() << " vertices by rank:\n";
  for (auto [v, bits] : top) {
    std::cout << "  " << std::setw(12) << v << "  " << std::setprecision(6) << std::bit_cast<double>(bits) << "\n";
  }
  std::cout << "\nmemory of the arrays PageRank uses:\n";
  std::vector<std::string> titles;
  std::vector<graph::MemoryReport> reports;
  for (const Run& run : runs) {
    titles.push_back(run.variant);
    reports.push_back(run.memory);
  }
  print_memory_table(std::cout, titles, reports);
  std::cout << "\n";
  finish_output(f, write);
  return 0;
}

}  // namespace smartarrays::cli::graph_cli
