// Benchmarks the graph workloads of paper §5.2 on one R-MAT graph against straightforward CSR
// code over plain std::vector arrays, side by side in the same run, the same graph and the same
// worker pool: PageRank time per iteration for the U, V and V+E layouts vs the vector version,
// degree centrality vs the vector version, and the memory of each layout (measured bytes and the
// paper's formula). Prints a table and writes JSON.
#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;
namespace sg = smartarrays::graph;

namespace {

struct Config {
  unsigned scale = 20;
  std::uint64_t edge_factor = 16;
  std::size_t threads = 2;
  int repetitions = 5;
  unsigned iterations = 10;  // PageRank iterations per timed run (tolerance 0, so always this many)
  std::string out_dir = sb::default_out_dir;
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks PageRank and degree centrality over U, V and V+E graphs against plain std::vector CSR code.",
               "bench_graph");
  app.add_option("--scale", c.scale, "R-MAT graph of 2^S vertices, 4..30 (default 20)")->check(CLI::Range(4, 30));
  app.add_option("--edge-factor", c.edge_factor, "edges per vertex before removing duplicates and self-loops (default 16)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--threads", c.threads, "workers of the one pool every version runs on (default 2)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--reps", c.repetitions, "timed runs per measurement, median reported (default 5)")->check(CLI::Range(1, 1000));
  app.add_option("--iterations", c.iterations, "PageRank iterations per timed run (default 10)")->check(CLI::Range(1, 1000));
  app.add_option("--out", c.out_dir, "where the JSON result goes (default build/bench-results)");
  return sb::parse_command_line(app, argc, argv);
}

// Decodes a whole array (the conversion to plain vectors).
std::vector<std::uint64_t> values_of(const sa::SmartArray& a) {
  std::vector<std::uint64_t> v(a.length());
  if (!v.empty()) a.decode(0, v.size(), v.data());
  return v;
}

// The baseline: the same graph in plain vectors (64-bit offsets and degrees, 32-bit ids, as U).
struct VectorCsr {
  std::vector<std::uint64_t> begin, rbegin, out_degree;
  std::vector<std::uint32_t> redge;
};

VectorCsr to_vectors(const sg::CsrGraph& g) {
  VectorCsr v;
  v.begin = values_of(g.begin());
  v.rbegin = values_of(g.rbegin());
  v.out_degree = values_of(g.out_degree());
  const std::vector<std::uint64_t> redge = values_of(g.redge());
  v.redge.assign(redge.begin(), redge.end());
  return v;
}

// Straightforward PageRank over vectors: the same algorithm (pull, contributions refreshed once per
// iteration, no dangling redistribution) on the same pool; returns the ranks and adds the mean
// time per iteration to *seconds_per_iteration when given (timed like algo::pagerank's iterations:
// the edge loop and the contributions refresh, not the set-up).
std::vector<double> vector_pagerank(const VectorCsr& g, unsigned iterations, sa::runtime::ThreadPool& pool,
                                    double* seconds_per_iteration = nullptr) {
  const std::uint64_t n = g.out_degree.size();
  const double d = 0.85;
  const double base = (1 - d) / static_cast<double>(n);
  std::vector<double> ranks(n, 1.0 / static_cast<double>(n)), contributions(n);
  // Raw pointers, so the compiler never reloads a vector's data pointer inside the loops.
  double* rank = ranks.data();
  double* contrib = contributions.data();
  const std::uint64_t* rbegin = g.rbegin.data();
  const std::uint32_t* redge = g.redge.data();
  const std::uint64_t* out_degree = g.out_degree.data();
  auto refresh = [&] {
    pool.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t v = lo; v < hi; ++v) contrib[v] = out_degree[v] ? rank[v] / static_cast<double>(out_degree[v]) : 0.0;
    });
  };
  refresh();
  auto iteration = [&] {
    const double diff = pool.parallel_reduce(
        0, n, 0.0,
        [&](std::uint64_t lo, std::uint64_t hi) {
          double local = 0;
          for (std::uint64_t v = lo; v < hi; ++v) {
            double sum = 0;
            const std::uint64_t last = rbegin[v + 1];
            for (std::uint64_t e = rbegin[v]; e < last; ++e) sum += contrib[redge[e]];
            const double r = base + d * sum;
            local += std::fabs(r - rank[v]);
            rank[v] = r;
          }
          return local;
        },
        [](double a, double b) { return a + b; });
    sb::keep(diff);
    refresh();
  };
  const double seconds = sm::time_once([&] {
    for (unsigned it = 0; it < iterations; ++it) iteration();
  });
  if (seconds_per_iteration != nullptr) *seconds_per_iteration = seconds / iterations;
  return ranks;
}

void vector_degrees(const VectorCsr& g, std::vector<std::uint64_t>& out, sa::runtime::ThreadPool& pool) {
  const std::uint64_t* begin = g.begin.data();
  const std::uint64_t* rbegin = g.rbegin.data();
  std::uint64_t* degree = out.data();
  pool.parallel_for(0, out.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t v = lo; v < hi; ++v) degree[v] = (begin[v + 1] - begin[v]) + (rbegin[v + 1] - rbegin[v]);
  });
}

// The graph in U, V and V+E, and the same graph in plain vectors (the baseline).
struct Graphs {
  std::vector<sg::CsrGraph> variants;  // U, V, V+E
  VectorCsr plain;
  std::uint64_t n = 0;
};

const sg::Variant variants[] = {sg::Variant::U, sg::Variant::V, sg::Variant::VE};
constexpr int versions = 4;  // std::vector, then the variants

Graphs make_graphs(const Config& cfg, sa::runtime::ThreadPool& pool) {
  sg::RmatOptions rmat;
  rmat.scale = cfg.scale;
  rmat.edge_factor = cfg.edge_factor;
  const sg::EdgeList edges = sg::generate_rmat(rmat, pool);
  sg::BuildOptions build;
  build.dedup = true;
  build.drop_self_loops = true;
  Graphs g;
  for (sg::Variant v : variants) {
    build.layout = sg::GraphLayout::for_variant(v);
    g.variants.push_back(sg::build_csr(edges, build, pool));
  }
  g.plain = to_vectors(g.variants[0]);
  g.n = g.variants[0].vertices();
  return g;
}

// "" when every variant computes the ranks of the vector version, else where they differ.
std::string check_ranks(const Config& cfg, const Graphs& g, const sa::algo::PageRankOptions& pr, sa::runtime::ThreadPool& pool) {
  const std::vector<double> expected = vector_pagerank(g.plain, cfg.iterations, pool);
  for (const sg::CsrGraph& graph : g.variants) {
    const sa::algo::PageRankResult r = sa::algo::pagerank(graph.rbegin(), graph.redge(), graph.out_degree(), pr, pool);
    for (std::uint64_t v = 0; v < g.n; ++v) {
      if (std::fabs(sa::algo::rank_at(r.ranks, v) - expected[v]) > 1e-9) return "ranks differ at vertex " + std::to_string(v);
    }
  }
  return "";
}

// Every version's samples: PageRank seconds per iteration and degree-centrality seconds.
struct Samples {
  std::vector<std::vector<double>> pagerank = std::vector<std::vector<double>>(versions);
  std::vector<std::vector<double>> degree = std::vector<std::vector<double>>(versions);
  std::vector<std::uint64_t> plain_degrees;
  std::vector<sa::SmartArray> variant_degrees;
};

// One sample of version k (0 = vectors): PageRank seconds per iteration, degree-centrality seconds.
std::pair<double, double> sample(int k, const Config& cfg, const Graphs& g, const sa::algo::PageRankOptions& pr, Samples& s,
                                 sa::runtime::ThreadPool& pool) {
  // Degree centrality is a few milliseconds: each sample averages several back-to-back runs.
  constexpr int degree_runs = 10;
  double pr_s = 0;
  if (k == 0) {
    sb::keep(vector_pagerank(g.plain, cfg.iterations, pool, &pr_s));
    const double dc_s = sm::time_once([&] {
      for (int r = 0; r < degree_runs; ++r) vector_degrees(g.plain, s.plain_degrees, pool);
    });
    return {pr_s, dc_s / degree_runs};
  }
  const auto index = static_cast<std::size_t>(k - 1);
  const sg::CsrGraph& graph = g.variants[index];
  const sa::algo::PageRankResult r = sa::algo::pagerank(graph.rbegin(), graph.redge(), graph.out_degree(), pr, pool);
  pr_s = std::accumulate(r.iteration_seconds.begin(), r.iteration_seconds.end(), 0.0) /
         static_cast<double>(r.iteration_seconds.size());
  const double dc_s = sm::time_once([&] {
    for (int r2 = 0; r2 < degree_runs; ++r2) sa::algo::degree_centrality(graph.begin(), graph.rbegin(), s.variant_degrees[index], pool);
  });
  return {pr_s, dc_s / degree_runs};
}

// Measurements are interleaved (vector, U, V, V+E, then rotated) so load changes on a shared
// machine hit every version alike; the first round warms up.
Samples measure_versions(const Config& cfg, const Graphs& g, const sa::algo::PageRankOptions& pr, sa::runtime::ThreadPool& pool) {
  Samples s;
  s.plain_degrees.resize(g.n);
  for (const sg::CsrGraph& graph : g.variants) {
    sa::ArrayOptions out = sa::algo::interleaved_options();
    out.bits = graph.variant() == sg::Variant::U ? 64 : sa::codec::min_bits(2 * graph.edges());
    s.variant_degrees.push_back(sa::SmartArray::allocate(g.n, out));
  }
  for (int rep = -1; rep < cfg.repetitions; ++rep) {
    // The order rotates every repetition, so no version always runs right after the same one.
    for (int slot = 0; slot < versions; ++slot) {
      const int k = (slot + rep + 1) % versions;
      const auto [pr_s, dc_s] = sample(k, cfg, g, pr, s, pool);
      if (rep < 0) continue;
      s.pagerank[static_cast<std::size_t>(k)].push_back(pr_s);
      s.degree[static_cast<std::size_t>(k)].push_back(dc_s);
    }
  }
  return s;
}

// "" when every variant's degree centrality equals the vector version's.
std::string check_degrees(const Samples& s) {
  for (std::size_t k = 0; k < s.variant_degrees.size(); ++k) {
    if (values_of(s.variant_degrees[k]) != s.plain_degrees) {
      return "degree centrality differs for " + std::string(sg::to_string(variants[k]));
    }
  }
  return "";
}

struct Row {
  std::string name;
  sm::Timing pagerank;  // per iteration
  sm::Timing degree;
  std::uint64_t graph_bytes = 0;
  std::uint64_t pagerank_bytes = 0;  // graph arrays PageRank reads plus its two vertex arrays
  double paper_saving = 0;
  std::string bits;
};

std::vector<Row> rows_of(const Graphs& g, const Samples& s) {
  std::vector<Row> rows;
  const VectorCsr& plain = g.plain;
  const std::uint64_t edges = g.variants[0].edges();
  rows.push_back({"std::vector", sm::summarize(s.pagerank[0]), sm::summarize(s.degree[0]),
                  (plain.begin.size() + plain.rbegin.size() + plain.out_degree.size()) * 8 + edges * 4 * 2,
                  (plain.rbegin.size() + plain.out_degree.size() + 2 * g.n) * 8 + edges * 4, 0, "64/32/64"});
  sa::ArrayOptions wide;
  wide.bits = 64;
  for (std::size_t k = 0; k < g.variants.size(); ++k) {
    const sg::CsrGraph& graph = g.variants[k];
    // rbegin, redge, out_degree, plus the 64-bit contributions and ranks.
    const std::uint64_t pagerank_bytes = graph.rbegin().memory_bytes() + graph.redge().memory_bytes() +
                                         graph.out_degree().memory_bytes() + 2 * sa::SmartArray::memory_estimate(g.n, wide);
    rows.push_back({sg::to_string(variants[k]), sm::summarize(s.pagerank[k + 1]), sm::summarize(s.degree[k + 1]),
                    graph.memory_report().total_bytes, pagerank_bytes, graph.paper_saving(),
                    std::to_string(graph.begin().bits()) + "/" + std::to_string(graph.edge().bits()) + "/" +
                        std::to_string(graph.out_degree().bits())});
  }
  return rows;
}

std::string mib(std::uint64_t bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return o.str();
}

void print_table(const Config& cfg, const Graphs& g, const std::vector<Row>& rows) {
  const Row& base = rows[0];
  const Row& u = rows[1];
  std::cout << "\nPageRank and degree centrality, R-MAT 2^" << cfg.scale << " (" << g.n << " vertices, " << g.variants[0].edges()
            << " edges), " << cfg.threads << " threads; medians of " << cfg.repetitions << " runs (spread = (max-min)/median)\n\n";
  std::cout << std::left << std::setw(12) << "version" << std::setw(11) << "bits b/e/d" << std::right << std::setw(12)
            << "PR s/iter" << std::setw(8) << "spread" << std::setw(12) << "vs vector" << std::setw(12) << "DC s"
            << std::setw(8) << "spread" << std::setw(14) << "speed vs vec" << std::setw(12) << "graph mem" << std::setw(12)
            << "vs U" << std::setw(14) << "paper saving" << "\n";
  for (const Row& r : rows) {
    std::cout << std::left << std::setw(12) << r.name << std::setw(11) << r.bits << std::right << std::fixed
              << std::setprecision(4) << std::setw(12) << r.pagerank.median << std::setprecision(2) << std::setw(8)
              << r.pagerank.spread() << std::setw(11) << r.pagerank.median / base.pagerank.median << "x"
              << std::setprecision(5) << std::setw(12) << r.degree.median << std::setprecision(2) << std::setw(8)
              << r.degree.spread() << std::setw(13) << base.degree.median / r.degree.median << "x" << std::setw(12)
              << mib(r.graph_bytes) << std::setw(11) << 100.0 * (1.0 - static_cast<double>(r.graph_bytes) / u.graph_bytes)
              << "%" << std::setw(13) << 100.0 * r.paper_saving << "%\n";
  }
  const Row& ve = rows[3];
  std::cout << "\ntargets: PageRank U / vector = " << std::setprecision(3) << u.pagerank.median / base.pagerank.median
            << " (<= 1.05); V+E memory saving vs U = " << std::setprecision(1)
            << 100.0 * (1.0 - static_cast<double>(ve.graph_bytes) / u.graph_bytes) << "% (>= 20%), V+E PageRank "
            << std::setprecision(3) << ve.pagerank.median / u.pagerank.median << "x U's time per iteration; degree centrality U speed / vector = "
            << base.degree.median / u.degree.median << " (>= 0.9)\n";
}

sm::Report report(const Config& cfg, const Graphs& g, const std::vector<Row>& rows) {
  const Row& base = rows[0];
  const Row& u = rows[1];
  sm::Json results;
  results["config"] = {{"scale", cfg.scale},     {"edge_factor", cfg.edge_factor}, {"threads", cfg.threads},
                       {"repetitions", cfg.repetitions}, {"iterations", cfg.iterations}, {"vertices", g.n},
                       {"edges", g.variants[0].edges()}};
  results["rows"] = sm::Json::array();
  for (const Row& r : rows) {
    results["rows"].push_back({{"version", r.name},
                               {"bits_begin_edge_degree", r.bits},
                               {"pagerank_per_iteration", sm::timing_json(r.pagerank)},
                               {"pagerank_vs_vector", r.pagerank.median / base.pagerank.median},
                               {"degree_centrality", sm::timing_json(r.degree)},
                               {"degree_speed_vs_vector", base.degree.median / r.degree.median},
                               {"graph_bytes", r.graph_bytes},
                               {"pagerank_bytes", r.pagerank_bytes},
                               {"memory_saving_vs_u", 1.0 - static_cast<double>(r.graph_bytes) / u.graph_bytes},
                               {"paper_formula_saving", r.paper_saving}});
  }
  sm::Report report("smartarrays.bench.graph/1");
  report.fields["benchmark"] = "bench_graph";
  report.fields["results"] = results;
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int code = parse(argc, argv, cfg); code >= 0) return code;
  sa::runtime::ThreadPool pool(sa::runtime::PoolOptions{.threads = cfg.threads});
  std::cerr << "bench_graph: R-MAT scale " << cfg.scale << ", edge factor " << cfg.edge_factor << ", " << cfg.threads
            << " threads, " << cfg.repetitions << " repetitions of " << cfg.iterations << " PageRank iterations\n";
  const Graphs graphs = make_graphs(cfg, pool);
  std::cerr << "bench_graph: " << graphs.n << " vertices, " << graphs.variants[0].edges() << " edges\n";
  sa::algo::PageRankOptions pr;
  pr.tolerance = 0;
  pr.max_iterations = cfg.iterations;
  std::string wrong = check_ranks(cfg, graphs, pr, pool);
  const Samples samples = wrong.empty() ? measure_versions(cfg, graphs, pr, pool) : Samples{};
  if (wrong.empty()) wrong = check_degrees(samples);
  if (!wrong.empty()) {
    std::cerr << "bench_graph: " << wrong << "\n";
    return 1;
  }
  const std::vector<Row> rows = rows_of(graphs, samples);
  print_table(cfg, graphs, rows);
  const std::string path = sm::result_path(cfg.out_dir, "bench_graph");
  sm::write_report(report(cfg, graphs, rows), path);
  std::cout << "\nresults: " << path << "\n";
  return 0;
}
