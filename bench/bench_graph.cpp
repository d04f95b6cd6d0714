// Benchmarks the graph workloads of paper §5.2 on one R-MAT graph against straightforward CSR
// code over plain std::vector arrays, side by side in the same run, the same graph and the same
// worker pool: PageRank time per iteration for the U, V and V+E layouts vs the vector version,
// degree centrality vs the vector version, and the memory of each layout (measured bytes and the
// paper's formula). Prints a table and writes JSON.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sg = smartarrays::graph;

namespace {

struct Config {
  unsigned scale = 20;
  std::uint64_t edge_factor = 16;
  std::size_t threads = 2;
  int repetitions = 5;
  unsigned iterations = 10;  // PageRank iterations per timed run (tolerance 0, so always this many)
  std::string out_dir = "build/bench-results";
};

Config parse(int argc, char** argv) {
  const std::string usage =
      "usage: bench_graph [--scale S] [--edge-factor F] [--threads T] [--reps R] [--iterations I] [--out DIR]\n"
      "  --scale S        R-MAT graph of 2^S vertices, 4..30 (default 20)\n"
      "  --edge-factor F  edges per vertex before removing duplicates and self-loops (default 16)\n"
      "  --threads T      workers of the one pool every version runs on (default 2)\n"
      "  --reps R         timed runs per measurement, median reported (default 5)\n"
      "  --iterations I   PageRank iterations per timed run (default 10)\n"
      "  --out DIR        where the JSON result goes (default build/bench-results)\n";
  Config c;
  // Range checks throw std::out_of_range, which parse_flags reports as a bad value.
  auto within = [](const std::string& v, unsigned long long lo, unsigned long long hi) {
    const unsigned long long x = std::stoull(v);
    if (x < lo || x > hi) throw std::out_of_range(v);
    return x;
  };
  sb::parse_flags(argc, argv, "bench_graph", usage,
                  {{"--scale", [&](const std::string& v) { c.scale = static_cast<unsigned>(within(v, 4, 30)); }},
                   {"--edge-factor", [&](const std::string& v) { c.edge_factor = within(v, 1, 1024); }},
                   {"--threads", [&](const std::string& v) { c.threads = within(v, 1, 4096); }},
                   {"--reps", [&](const std::string& v) { c.repetitions = static_cast<int>(within(v, 1, 1000)); }},
                   {"--iterations", [&](const std::string& v) { c.iterations = static_cast<unsigned>(within(v, 1, 1000)); }},
                   {"--out", [&](const std::string& v) { c.out_dir = v; }}});
  return c;
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
  const auto start = std::chrono::steady_clock::now();
  for (unsigned it = 0; it < iterations; ++it) {
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
  }
  if (seconds_per_iteration != nullptr) {
    *seconds_per_iteration = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / iterations;
  }
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

struct Row {
  std::string name;
  sb::Timing pagerank;  // per iteration
  sb::Timing degree;
  std::uint64_t graph_bytes = 0;
  std::uint64_t pagerank_bytes = 0;  // graph arrays PageRank reads plus its two vertex arrays
  double paper_saving = 0;
  std::string bits;
};

std::string gib(std::uint64_t bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return o.str();
}

std::string timing_json(const sb::Timing& t) {
  std::ostringstream o;
  o << "{\"median_s\": " << t.median << ", \"min_s\": " << t.min << ", \"max_s\": " << t.max << ", \"spread\": " << t.spread() << "}";
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  const Config cfg = parse(argc, argv);
  sa::runtime::ThreadPool pool(sa::runtime::PoolOptions{.threads = cfg.threads});
  std::cerr << "bench_graph: R-MAT scale " << cfg.scale << ", edge factor " << cfg.edge_factor << ", " << cfg.threads
            << " threads, " << cfg.repetitions << " repetitions of " << cfg.iterations << " PageRank iterations\n";

  sg::RmatOptions rmat;
  rmat.scale = cfg.scale;
  rmat.edge_factor = cfg.edge_factor;
  sg::EdgeList edges = sg::generate_rmat(rmat, pool);
  sg::BuildOptions build;
  build.dedup = true;
  build.drop_self_loops = true;

  const sg::Variant variants[] = {sg::Variant::U, sg::Variant::V, sg::Variant::VE};
  std::vector<sg::CsrGraph> graphs;
  for (sg::Variant v : variants) {
    build.layout = sg::GraphLayout::for_variant(v);
    graphs.push_back(sg::build_csr(edges, build, pool));
  }
  edges = {};
  const sg::CsrGraph& gu = graphs[0];
  const VectorCsr plain = to_vectors(gu);
  const std::uint64_t n = gu.vertices();
  std::cerr << "bench_graph: " << n << " vertices, " << gu.edges() << " edges\n";

  sa::algo::PageRankOptions pr;
  pr.tolerance = 0;
  pr.max_iterations = cfg.iterations;

  // Check once that every version computes the same ranks.
  const std::vector<double> expected = vector_pagerank(plain, cfg.iterations, pool);
  for (const sg::CsrGraph& g : graphs) {
    const sa::algo::PageRankResult r = sa::algo::pagerank(g.rbegin(), g.redge(), g.out_degree(), pr, pool);
    for (std::uint64_t v = 0; v < n; ++v) {
      if (std::fabs(sa::algo::rank_at(r.ranks, v) - expected[v]) > 1e-9) {
        std::cerr << "bench_graph: ranks differ at vertex " << v << "\n";
        return 1;
      }
    }
  }

  // Measurements are interleaved (vector, U, V, V+E, then rotated) so load changes on a shared
  // machine hit every version alike; each list is then reduced to its median.
  const int versions = 4;
  std::vector<std::vector<double>> pr_seconds(versions), dc_seconds(versions);
  std::vector<std::uint64_t> plain_degrees(n);
  std::vector<sa::SmartArray> degree_out;
  for (const sg::CsrGraph& g : graphs) {
    sa::ArrayOptions out = sa::algo::interleaved_options();
    out.bits = g.variant() == sg::Variant::U ? 64 : sa::codec::min_bits(2 * g.edges());
    degree_out.push_back(sa::SmartArray::allocate(n, out));
  }
  auto seconds = [](auto&& f) {
    const auto start = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  // Degree centrality is a few milliseconds: each sample averages several back-to-back runs.
  const int degree_runs = 10;
  for (int rep = -1; rep < cfg.repetitions; ++rep) {  // rep -1 warms up
    // The order rotates every repetition, so no version always runs right after the same one.
    for (int slot = 0; slot < versions; ++slot) {
      const int k = (slot + rep + 1) % versions;
      double pr_s = 0, dc_s = 0;
      if (k == 0) {
        sb::keep(vector_pagerank(plain, cfg.iterations, pool, &pr_s));
        dc_s = seconds([&] {
                 for (int k2 = 0; k2 < degree_runs; ++k2) vector_degrees(plain, plain_degrees, pool);
               }) / degree_runs;
      } else {
        const sg::CsrGraph& g = graphs[static_cast<std::size_t>(k - 1)];
        const sa::algo::PageRankResult r = sa::algo::pagerank(g.rbegin(), g.redge(), g.out_degree(), pr, pool);
        std::vector<double> its = r.iteration_seconds;
        pr_s = std::accumulate(its.begin(), its.end(), 0.0) / static_cast<double>(its.size());
        dc_s = seconds([&] {
                 for (int k2 = 0; k2 < degree_runs; ++k2) {
                   sa::algo::degree_centrality(g.begin(), g.rbegin(), degree_out[static_cast<std::size_t>(k - 1)], pool);
                 }
               }) / degree_runs;
      }
      if (rep >= 0) {
        pr_seconds[static_cast<std::size_t>(k)].push_back(pr_s);
        dc_seconds[static_cast<std::size_t>(k)].push_back(dc_s);
      }
    }
  }
  auto timing = [](std::vector<double> s) {
    std::sort(s.begin(), s.end());
    return sb::Timing{s[s.size() / 2], s.front(), s.back()};
  };
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    if (values_of(degree_out[k]) != plain_degrees) {
      std::cerr << "bench_graph: degree centrality differs for " << sg::to_string(variants[k]) << "\n";
      return 1;
    }
  }

  std::vector<Row> rows;
  sa::ArrayOptions wide;
  wide.bits = 64;
  {
    Row r;
    r.name = "std::vector";
    r.pagerank = timing(pr_seconds[0]);
    r.degree = timing(dc_seconds[0]);
    r.graph_bytes = (plain.begin.size() + plain.rbegin.size() + plain.out_degree.size()) * 8 + gu.edges() * 4 * 2;
    r.pagerank_bytes = (plain.rbegin.size() + plain.out_degree.size() + 2 * n) * 8 + gu.edges() * 4;
    r.bits = "64/32/64";
    rows.push_back(r);
  }
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    const sg::CsrGraph& g = graphs[k];
    Row r;
    r.name = sg::to_string(variants[k]);
    r.pagerank = timing(pr_seconds[k + 1]);
    r.degree = timing(dc_seconds[k + 1]);
    r.graph_bytes = g.memory_report().total_bytes;
    // rbegin, redge, out_degree, plus the 64-bit contributions and ranks.
    r.pagerank_bytes = g.rbegin().memory_bytes() + g.redge().memory_bytes() + g.out_degree().memory_bytes() +
                       2 * sa::SmartArray::memory_estimate(n, wide);
    r.paper_saving = g.paper_saving();
    r.bits = std::to_string(g.begin().bits()) + "/" + std::to_string(g.edge().bits()) + "/" + std::to_string(g.out_degree().bits());
    rows.push_back(r);
  }

  const Row& base = rows[0];
  const Row& u = rows[1];
  std::cout << "\nPageRank and degree centrality, R-MAT 2^" << cfg.scale << " (" << n << " vertices, " << gu.edges()
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
              << gib(r.graph_bytes) << std::setw(11) << 100.0 * (1.0 - static_cast<double>(r.graph_bytes) / u.graph_bytes)
              << "%" << std::setw(13) << 100.0 * r.paper_saving << "%\n";
  }
  const Row& ve = rows[3];
  std::cout << "\ntargets: PageRank U / vector = " << std::setprecision(3) << u.pagerank.median / base.pagerank.median
            << " (<= 1.05); V+E memory saving vs U = " << std::setprecision(1)
            << 100.0 * (1.0 - static_cast<double>(ve.graph_bytes) / u.graph_bytes) << "% (>= 20%), V+E PageRank "
            << std::setprecision(3) << ve.pagerank.median / u.pagerank.median << "x U's time per iteration; degree centrality U speed / vector = "
            << base.degree.median / u.degree.median << " (>= 0.9)\n";

  std::ostringstream json;
  json << "{\"config\": {\"scale\": " << cfg.scale << ", \"edge_factor\": " << cfg.edge_factor << ", \"threads\": " << cfg.threads
       << ", \"repetitions\": " << cfg.repetitions << ", \"iterations\": " << cfg.iterations << ", \"vertices\": " << n
       << ", \"edges\": " << gu.edges() << "}, \"rows\": [";
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const Row& r = rows[k];
    json << (k ? ", " : "") << "{\"version\": " << sb::json_string(r.name) << ", \"bits_begin_edge_degree\": "
         << sb::json_string(r.bits) << ", \"pagerank_per_iteration\": " << timing_json(r.pagerank)
         << ", \"pagerank_vs_vector\": " << r.pagerank.median / base.pagerank.median
         << ", \"degree_centrality\": " << timing_json(r.degree)
         << ", \"degree_speed_vs_vector\": " << base.degree.median / r.degree.median << ", \"graph_bytes\": " << r.graph_bytes
         << ", \"pagerank_bytes\": " << r.pagerank_bytes << ", \"memory_saving_vs_u\": "
         << 1.0 - static_cast<double>(r.graph_bytes) / u.graph_bytes << ", \"paper_formula_saving\": " << r.paper_saving << "}";
  }
  json << "]}";
  std::cout << "\nresults: " << sb::write_result_file(cfg.out_dir, "bench_graph", json.str()) << "\n";
  return 0;
}
