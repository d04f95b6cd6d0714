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
#include "cli/options.hpp"
#include "measure/timing.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::cli::graph_cli {

namespace {

const char* const degree_header =
    "usage: smartarrays graph degree INPUT [options]\n"
    "\n"
    "Degree centrality (paper Figure 11): out-degree + in-degree of every vertex from the offset\n"
    "arrays begin and rbegin, into an output array (interleaved unless --placement degrees=...).\n"
    "Prints the time per variant, the top-k vertices and the memory of every array.\n";

const char* const pagerank_header =
    "usage: smartarrays graph pagerank INPUT [options]\n"
    "\n"
    "PageRank as in the paper (Figure 12): pull over the reverse edges, Jacobi iterations from\n"
    "1/n, until the sum of |rank - previous rank| < tolerance or the iteration cap. With several\n"
    "--variant values each runs on its own copy of the graph and the results are shown side by side.\n";

struct AnalyticsFlags {
  LoadFlags load;
  std::size_t top = 10;
  std::string output;
  unsigned repetitions = 3;
  algo::PageRankOptions pagerank;
};

// The members degree and pagerank results start with.
struct AnalyticsGraph {
  measure::Json graph;  // input, vertices, edges, directed
  std::size_t threads = 0;
};

measure::Json common_json(const AnalyticsGraph& g) {
  measure::Json json = g.graph;
  json["threads"] = g.threads;
  json["nodes"] = os::topology().node_count();
  return json;
}

void print_common(const AnalyticsGraph& g) {
  std::cout << g.graph["input"].get<std::string>() << ": " << g.graph["vertices"] << " vertices, " << g.graph["edges"]
            << " edges, " << g.threads << " threads";
}

// The memory table of several runs, one column pair per variant.
template <typename Run>
void print_memory(const std::vector<Run>& runs) {
  std::vector<std::string> titles;
  std::vector<graph::MemoryReport> reports;
  for (const Run& run : runs) {
    titles.push_back(run.variant);
    reports.push_back(run.memory);
  }
  print_memory_table(std::cout, titles, reports);
  std::cout << "\n";
}

// The text after the tables: where the --json and --output files went.
void print_files(const AnalyticsFlags& f) {
  if (!f.load.json_path.empty()) std::cout << "results: " << f.load.json_path << "\n";
  if (!f.output.empty()) std::cout << "values:  " << f.output << "\n";
}

void add_top_flag(CLI::App& app, AnalyticsFlags& f, const char* help) {
  add_value(app, "--top", "K", f.top, whole_number<std::size_t>(0, 1u << 20), help);
}

void add_output_flag(CLI::App& app, AnalyticsFlags& f, const char* help) {
  // "-" is standard output, as /dev/stdout is (the tables then go to stderr).
  add_value<std::string>(app, "--output", "FILE", f.output, [](const std::string& s) { return s == "-" ? "/dev/stdout" : s; },
                         help);
}

// ---- degree ----

struct DegreeRun {
  std::string variant;
  graph::MemoryReport memory;
  measure::Timing timing;
};

struct DegreeResult {
  AnalyticsGraph graph;
  std::vector<DegreeRun> runs;
  std::optional<SmartArray> first_degrees;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> top;
};

DegreeResult run_degree(const AnalyticsFlags& f) {
  DegreeResult r;
  auto pool = make_pool(f.load);
  load_variants(f.load, pool, [&](graph::Variant v, graph::CsrGraph&& g, double, const graph::LayoutSpec&) {
    r.graph.threads = pool->size();
    ArrayOptions out = f.load.layout.for_output("degrees");
    out.bits = v == graph::Variant::U ? 64 : 0;
    // The first call allocates the output array; the timed ones refill it.
    SmartArray degrees = algo::degree_centrality(g.begin(), g.rbegin(), out, *pool);
    DegreeRun run{graph::to_string(v), g.memory_report(), {}};
    run.timing = measure::run_trials({.warmup = 0, .repetitions = static_cast<int>(f.repetitions)},
                                     [&] { algo::degree_centrality(g.begin(), g.rbegin(), degrees, *pool); });
    run.memory.add("degrees", degrees);
    r.runs.push_back(std::move(run));
    if (!r.first_degrees) {
      r.graph.graph = graph_json(f.load.input, g);
      r.first_degrees.emplace(std::move(degrees));
    }
  });
  r.top = algo::top_k(*r.first_degrees, f.top);
  return r;
}

measure::Report degree_report(const DegreeResult& r) {
  measure::Report report("smartarrays.graph.degree/1", common_json(r.graph));
  report.fields["runs"] = measure::Json::array();
  for (const DegreeRun& run : r.runs) {
    report.fields["runs"].push_back({{"variant", run.variant},
                                     {"median_s", run.timing.median},
                                     {"seconds", run.timing.seconds},
                                     {"memory", memory_json(run.memory)}});
  }
  report.fields["top"] = measure::Json::array();
  for (auto [v, d] : r.top) report.fields["top"].push_back({{"vertex", v}, {"degree", d}});
  return report;
}

void print_degree(const DegreeResult& r, const AnalyticsFlags& f) {
  print_common(r.graph);
  std::cout << "\n\ndegree centrality, median of " << f.repetitions << " runs:\n";
  for (const DegreeRun& run : r.runs) {
    std::cout << "  " << std::left << std::setw(4) << run.variant << std::right << std::fixed << std::setprecision(6)
              << run.timing.median << " s\n";
  }
  std::cout << "\ntop " << r.top.size() << " vertices by degree:\n";
  for (auto [v, d] : r.top) std::cout << "  " << std::setw(12) << v << std::setw(12) << d << "\n";
  std::cout << "\n";
  print_memory(r.runs);
}

int degree(AnalyticsFlags f) {
  const DegreeResult result = run_degree(f);
  if (!f.output.empty()) {
    const SmartArray& degrees = *result.first_degrees;
    write_vertex_values(f.output, degrees.length(), [&](graph::BufferedOutput& out, std::uint64_t v) {
      out.number(degrees.get(v));
      out.text("\n");
    });
  }
  if (f.load.json_path != "-") print_degree(result, f);
  if (!f.load.json_path.empty()) measure::write_report(degree_report(result), f.load.json_path);
  if (f.load.json_path != "-") print_files(f);
  return 0;
}

// ---- pagerank ----

struct PageRankRun {
  std::string variant;
  graph::MemoryReport memory;
  double paper_bits = 0, paper_saving = 0, build_seconds = 0;
  unsigned iterations = 0;
  bool converged = false;
  double difference = 0;
  measure::Timing iteration;   // the iterations' times
  double total_seconds = 0;    // their sum
  double max_rank_difference = 0;  // vs the first variant
};

struct PageRankResult {
  AnalyticsGraph graph;
  std::vector<PageRankRun> runs;
  std::optional<SmartArray> first_ranks;
  std::vector<std::pair<std::uint64_t, double>> top;  // (vertex, rank)
};

PageRankRun pagerank_run(graph::Variant v, const graph::CsrGraph& g, const algo::PageRankResult& result,
                         double build_seconds) {
  PageRankRun run;
  run.variant = graph::to_string(v);
  run.build_seconds = build_seconds;
  run.memory.add("rbegin", g.rbegin());
  run.memory.add("redge", g.redge());
  // Out-degrees are read from begin, which for an undirected graph is rbegin itself.
  if (g.shares_reverse()) {
    run.memory.add_shared("begin", g.begin(), "rbegin");
  } else {
    run.memory.add("begin", g.begin());
  }
  run.memory.add("contributions", result.contributions);
  run.memory.add("ranks", result.ranks);
  run.paper_bits = g.paper_memory_bits();
  run.paper_saving = g.paper_saving();
  run.iterations = result.iterations;
  run.converged = result.converged;
  run.difference = result.difference;
  run.iteration = measure::summarize(result.iteration_seconds);
  for (double s : result.iteration_seconds) run.total_seconds += s;
  return run;
}

PageRankResult run_pagerank(const AnalyticsFlags& f) {
  PageRankResult r;
  auto pool = make_pool(f.load);
  const bool quiet = f.load.quiet || f.load.json_path == "-";
  load_variants(f.load, pool, [&](graph::Variant v, graph::CsrGraph&& g, double build_seconds,
                                   const graph::LayoutSpec& layout) {
    r.graph.threads = pool->size();
    if (!quiet) {
      std::cerr << "variant " << graph::to_string(v) << ": graph built in " << std::fixed << std::setprecision(2)
                << build_seconds << " s, running PageRank\n";
    }
    algo::PageRankOptions options = f.pagerank;
    options.contributions = layout.for_array("contributions");
    algo::PageRankResult result = algo::pagerank(g.rbegin(), g.redge(), g.begin(), options, *pool);
    PageRankRun run = pagerank_run(v, g, result, build_seconds);
    if (r.first_ranks) {
      for (std::uint64_t u = 0; u < g.vertices(); ++u) {
        run.max_rank_difference = std::max(run.max_rank_difference,
                                           std::fabs(algo::rank_at(result.ranks, u) - algo::rank_at(*r.first_ranks, u)));
      }
    } else {
      r.graph.graph = graph_json(f.load.input, g);
      r.first_ranks.emplace(std::move(result.ranks));
    }
    r.runs.push_back(std::move(run));
  });
  for (auto [v, bits] : algo::top_k(*r.first_ranks, f.top)) r.top.emplace_back(v, algo::rank_at(*r.first_ranks, v));
  return r;
}

measure::Json pagerank_run_json(const PageRankRun& run) {
  return {{"variant", run.variant},
          {"iterations", run.iterations},
          {"converged", run.converged},
          {"difference", run.difference},
          {"total_seconds", run.total_seconds},
          {"seconds_per_iteration", run.iterations ? run.total_seconds / run.iterations : 0.0},
          {"median_iteration_seconds", run.iteration.median},
          {"iteration_seconds", run.iteration.seconds},
          {"build_seconds", run.build_seconds},
          {"max_rank_difference_vs_first", run.max_rank_difference},
          {"memory", memory_json(run.memory)},
          {"paper_formula_bits", run.paper_bits},
          {"paper_saving_vs_u", run.paper_saving}};
}

measure::Report pagerank_report(const PageRankResult& r, const algo::PageRankOptions& options) {
  measure::Report report("smartarrays.graph.pagerank/1", common_json(r.graph));
  report.fields["options"] = {{"damping", options.damping},
                              {"tolerance", options.tolerance},
                              {"max_iterations", options.max_iterations},
                              {"dangling", algo::to_string(options.dangling)},
                              {"scores", algo::to_string(options.scores)}};
  report.fields["runs"] = measure::Json::array();
  for (const PageRankRun& run : r.runs) report.fields["runs"].push_back(pagerank_run_json(run));
  report.fields["top"] = measure::Json::array();
  for (auto [v, rank] : r.top) report.fields["top"].push_back({{"vertex", v}, {"rank", rank}});
  return report;
}

void print_pagerank_runs(const std::vector<PageRankRun>& runs) {
  std::cout << std::left << std::setw(9) << "variant" << std::right << std::setw(11) << "iterations" << std::setw(14)
            << "s/iteration" << std::setw(12) << "total s" << std::setw(14) << "PR memory" << std::setw(15) << "paper saving"
            << std::setw(16) << "max |rank diff|" << "\n";
  for (const PageRankRun& run : runs) {
    std::cout << std::left << std::setw(9) << run.variant << std::right << std::setw(10) << run.iterations
              << (run.converged ? " " : "*") << std::fixed << std::setprecision(5) << std::setw(14)
              << (run.iterations ? run.total_seconds / run.iterations : 0.0) << std::setprecision(3) << std::setw(12)
              << run.total_seconds << std::setw(14) << mib(run.memory.total_bytes) << std::setprecision(1) << std::setw(14)
              << 100 * run.paper_saving << "%" << std::scientific << std::setprecision(1) << std::setw(16)
              << run.max_rank_difference << std::defaultfloat << "\n";
  }
  if (std::any_of(runs.begin(), runs.end(), [](const PageRankRun& r) { return !r.converged; })) {
    std::cout << "* stopped at --max-iterations before reaching the tolerance\n";
  }
}

void print_pagerank(const PageRankResult& r, const algo::PageRankOptions& options) {
  print_common(r.graph);
  std::cout << "; damping " << options.damping << ", tolerance " << options.tolerance << ", dangling "
            << algo::to_string(options.dangling) << ", scores " << algo::to_string(options.scores) << "\n\n";
  print_pagerank_runs(r.runs);
  std::cout << "\ntop " << r.top.size() << " vertices by rank:\n";
  for (auto [v, rank] : r.top) {
    std::cout << "  " << std::setw(12) << v << "  " << std::setprecision(6) << rank << "\n";
  }
  std::cout << "\nmemory of the arrays PageRank uses:\n";
  print_memory(r.runs);
}

// The check of graph pagerank: the loading flags, and the options as the library validates them with
// the placements --placement gives (the ranks array cannot be replicated).
void check_pagerank(AnalyticsFlags& f) {
  finish_load_flags(f.load);
  check_output_file("--output", f.output, {.dash_is_stdout = false});
  f.pagerank.contributions = f.load.layout.for_array("contributions");
  f.pagerank.ranks = f.load.layout.for_output("ranks");
  try {
    algo::validate(f.pagerank);
  } catch (const Error& e) {
    throw UsageError(std::string("--placement: ") + e.what());
  }
}

// A PageRank option's flag: its value parsed by parse, then validated by the library as the only
// option set, so the flag is rejected with the library's own words.
template <typename T>
Parser<T> pagerank_option(T algo::PageRankOptions::*field, Parser<T> parse) {
  return [field, parse](const std::string& text) {
    algo::PageRankOptions options;
    options.*field = parse(text);
    algo::validate(options);
    return options.*field;
  };
}

int pagerank(AnalyticsFlags f) {
  const PageRankResult result = run_pagerank(f);
  if (!f.output.empty()) {
    const SmartArray& ranks = *result.first_ranks;
    write_vertex_values(f.output, ranks.length(), [&](graph::BufferedOutput& out, std::uint64_t v) {
      char text[32];
      const int size = std::snprintf(text, sizeof text, "%.17g\n", algo::rank_at(ranks, v));
      out.bytes(text, static_cast<std::size_t>(size));
    });
  }
  if (f.load.json_path != "-") print_pagerank(result, f.pagerank);
  if (!f.load.json_path.empty()) measure::write_report(pagerank_report(result, f.pagerank), f.load.json_path);
  if (f.load.json_path != "-") print_files(f);
  return 0;
}

}  // namespace

void add_degree_command(CommandTree& tree, CLI::App& graph) {
  auto f = std::make_shared<AnalyticsFlags>();
  CLI::App& app = tree.add(graph, "degree", degree_header, [f] { return degree(*f); });
  tree.check(app, [f] {
    finish_load_flags(f->load);
    check_output_file("--output", f->output, {.dash_is_stdout = false});
  });
  scope_load_flags(tree, app, std::shared_ptr<const LoadFlags>(f, &f->load));
  tree.define(app, [f](CLI::App& defined) {
    add_top_flag(defined, *f, "vertices to list, largest degree first (default 10)");
    add_value(defined, "--repetitions", "N", f->repetitions, whole_number<unsigned>(1, 1000),
              "timed runs per variant, median reported (default 3)");
    add_output_flag(defined, *f, "write the degree of every vertex, one per line in vertex order (- for stdout)");
    add_load_flags(defined, f->load);
    f->load.adaptive_workload = "degree";
  });
}

void add_pagerank_flags(CLI::App& app, AnalyticsFlags& f) {
  algo::PageRankOptions& pr = f.pagerank;
  add_value(app, "--damping", "D", pr.damping, pagerank_option<double>(&algo::PageRankOptions::damping, parse_real),
            "damping factor, in (0, 1] (default 0.85)");
  add_value(app, "--tolerance", "T", pr.tolerance,
            pagerank_option<double>(&algo::PageRankOptions::tolerance, parse_real),
            "convergence threshold, >= 0 (default 1e-3)");
  add_value(app, "--max-iterations", "N", pr.max_iterations,
            pagerank_option<unsigned>(&algo::PageRankOptions::max_iterations, whole_number<unsigned>(0, 1000000)),
            "iteration cap, 1..1000000 (default 100)");
  add_value<algo::DanglingRule>(app, "--dangling", "RULE", pr.dangling, algo::parse_dangling_rule,
                                "none: rank of vertices without out-edges is lost (paper, GAP pr_spmv);\n"
                                "uniform: it is spread over all vertices (networkx) (default none)");
  add_value<algo::ScorePrecision>(app, "--scores", "PREC", pr.scores, algo::parse_score_precision,
                                  "precision of the rank and contribution arrays: f64 (doubles, exact against\n"
                                  "the references) or f32 (floats, half the bytes, as GAP's reference) (default f64)");
  add_top_flag(app, f, "vertices to list, highest rank first (default 10)");
  add_output_flag(app, f, "write the rank of every vertex (first variant), one per line in vertex order\n(- for stdout)");
  add_load_flags(app, f.load);
  f.load.adaptive_workload = "pagerank";
}

void add_pagerank_command(CommandTree& tree, CLI::App& graph) {
  auto f = std::make_shared<AnalyticsFlags>();
  CLI::App& app = tree.add(graph, "pagerank", pagerank_header, [f] { return pagerank(*f); });
  tree.check(app, [f] { check_pagerank(*f); });
  scope_load_flags(tree, app, std::shared_ptr<const LoadFlags>(f, &f->load));
  tree.define(app, [f](CLI::App& defined) { add_pagerank_flags(defined, *f); });
}

}  // namespace smartarrays::cli::graph_cli
