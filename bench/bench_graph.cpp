// Benchmarks the graph workloads of paper §5.2 on one GAP .sg file (R-MAT generated when none is
// given) against plain code side by side in the same run, on the same worker pool: a baseline
// written the way GAP's reference does it (int64 offsets, int32 ids, float scores, pull, one gather
// and one add per edge), straightforward std::vector code in doubles, and the U, V and V+E layouts.
// Measures PageRank time per iteration, degree centrality, each layout's memory, and the load of the
// file — time and peak RSS from the kernel (VmHWM), each load in a child process of its own — next
// to a plain read() of the file, and with --text the load of an edge list or Matrix Market file. The
// order of the versions rotates every repetition. Prints a table
// and writes JSON.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

extern char** environ;

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;
namespace sg = smartarrays::graph;

namespace {

struct Config {
  std::string graph;  // a .sg file; empty = generate R-MAT at scale
  unsigned scale = 20;
  std::uint64_t edge_factor = 16;
  bool directed = false;  // the generated graph: undirected as GAP's kron, unless --directed
  std::size_t threads = 2;
  int repetitions = 5;
  int load_repetitions = 3;
  unsigned iterations = 10;  // PageRank iterations per timed run (tolerance 0, so always this many)
  std::string out_dir = sb::default_out_dir;
  std::string text;        // an edge list or Matrix Market file whose loads join the rotation; empty = none
  std::string load_child;  // internal: run one load of this kind in this process and print its figures
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app(
      "Benchmarks PageRank, degree centrality, memory and loading of a GAP .sg graph: U, V and V+E smart arrays "
      "against a GAP-style plain baseline and std::vector code.",
      "bench_graph");
  app.add_option("--graph", c.graph, "a GAP .sg file (default: an R-MAT graph generated at --scale, written to --out)");
  app.add_option("--scale", c.scale, "R-MAT graph of 2^S vertices when no --graph, 4..30 (default 20)")->check(CLI::Range(4, 30));
  app.add_option("--edge-factor", c.edge_factor, "edges per vertex before removing duplicates and self-loops (default 16)")
      ->check(CLI::Range(1, 1024));
  app.add_flag("--directed", c.directed, "generate a directed R-MAT graph (default undirected, as GAP's kron)");
  app.add_option("--threads", c.threads, "workers of the one pool every version runs on (default 2)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--reps", c.repetitions, "timed runs per measurement, median reported (default 5)")->check(CLI::Range(1, 1000));
  app.add_option("--load-reps", c.load_repetitions, "timed loads of the file per version (default 3; 0 skips loading)")
      ->check(CLI::Range(0, 100));
  app.add_option("--iterations", c.iterations, "PageRank iterations per timed run (default 10)")->check(CLI::Range(1, 1000));
  app.add_option("--out", c.out_dir, "where the JSON result (and a generated graph) goes (default build/bench-results)");
  app.add_option("--text", c.text,
                 "an edge list (.el) or Matrix Market (.mtx) file, e.g. the graph converted by "
                 "`smartarrays graph convert`; "
                 "its loads as U and V+E (\"text U\", \"text V+E\") join the load rotation")
      ->check(CLI::ExistingFile);
  app.add_option("--load-child", c.load_child,
                 "internal: load --graph once as KIND (read, U, V, V+E, text U, text V+E) and print the figures")
      ->group("");
  return sb::parse_command_line(app, argc, argv);
}

// ---------------------------------------------------------------------------------------------
// Memory figures from the kernel.

// A "VmHWM:"-style line of /proc/self/status in bytes, 0 when absent.
std::uint64_t status_bytes(const char* key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::size_t key_length = std::strlen(key);
  while (std::getline(status, line)) {
    if (line.compare(0, key_length, key) == 0) return std::stoull(line.substr(key_length)) * 1024;
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// The GAP-style baseline: the file's arrays as GAP's reader holds them.

struct GapGraph {
  std::int64_t n = 0;
  std::int64_t m = 0;
  bool directed = false;
  std::vector<std::int64_t> out_index, in_index;  // n+1 each; in_* empty when undirected (in = out)
  std::vector<std::int32_t> out_neigh, in_neigh;

  const std::int64_t* in_offsets() const { return directed ? in_index.data() : out_index.data(); }
  const std::int32_t* in_ids() const { return directed ? in_neigh.data() : out_neigh.data(); }
  std::uint64_t bytes() const {
    return (out_index.size() + in_index.size()) * 8 + (out_neigh.size() + in_neigh.size()) * 4;
  }
};

void read_exactly(int fd, void* out, std::uint64_t bytes, const std::string& path) {
  auto* p = static_cast<char*>(out);
  while (bytes > 0) {
    const ssize_t got = ::read(fd, p, std::min<std::uint64_t>(bytes, std::uint64_t{1} << 30));
    if (got <= 0) throw std::runtime_error("cannot read " + path);
    p += got;
    bytes -= static_cast<std::uint64_t>(got);
  }
}

// Reads a .sg file as GAP's reader.h does: the header, then each array with one read().
GapGraph read_gap(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("cannot open " + path);
  GapGraph g;
  std::uint8_t flag = 0;
  read_exactly(fd, &flag, 1, path);
  read_exactly(fd, &g.m, 8, path);
  read_exactly(fd, &g.n, 8, path);
  g.directed = flag != 0;
  auto part = [&](std::vector<std::int64_t>& index, std::vector<std::int32_t>& neigh) {
    index.resize(static_cast<std::size_t>(g.n + 1));
    neigh.resize(static_cast<std::size_t>(g.m));
    read_exactly(fd, index.data(), index.size() * 8, path);
    read_exactly(fd, neigh.data(), neigh.size() * 4, path);
  };
  part(g.out_index, g.out_neigh);
  if (g.directed) part(g.in_index, g.in_neigh);
  ::close(fd);
  return g;
}

// GAP's pr_spmv with scores as float: contributions at the start of each iteration, then pull.
template <typename Score>
std::vector<Score> gap_pagerank(const GapGraph& g, unsigned iterations, sa::runtime::ThreadPool& pool,
                                double* seconds_per_iteration = nullptr) {
  const auto n = static_cast<std::uint64_t>(g.n);
  const Score d = 0.85f;
  const Score base = (1 - d) / static_cast<Score>(n);
  std::vector<Score> scores(n, Score(1) / static_cast<Score>(n)), contributions(n);
  Score* score = scores.data();
  Score* contrib = contributions.data();
  const std::int64_t* out_index = g.out_index.data();
  const std::int64_t* in_index = g.in_offsets();
  const std::int32_t* in_neigh = g.in_ids();
  auto iteration = [&] {
    pool.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t v = lo; v < hi; ++v) {
        const std::int64_t degree = out_index[v + 1] - out_index[v];
        contrib[v] = degree ? score[v] / static_cast<Score>(degree) : Score(0);
      }
    });
    const double error = pool.parallel_reduce(
        0, n, 0.0,
        [&](std::uint64_t lo, std::uint64_t hi) {
          double local = 0;
          for (std::uint64_t u = lo; u < hi; ++u) {
            Score total = 0;
            for (std::int64_t e = in_index[u]; e < in_index[u + 1]; ++e) total += contrib[in_neigh[e]];
            const Score old = score[u];
            score[u] = base + d * total;
            local += std::fabs(score[u] - old);
          }
          return local;
        },
        [](double a, double b) { return a + b; });
    sb::keep(error);
  };
  const double seconds = sm::time_once([&] {
    for (unsigned it = 0; it < iterations; ++it) iteration();
  });
  if (seconds_per_iteration != nullptr) *seconds_per_iteration = seconds / iterations;
  return scores;
}

// ---------------------------------------------------------------------------------------------
// The std::vector version in doubles (the same algorithm as algo::pagerank).

std::vector<std::uint64_t> values_of(const sa::SmartArray& a) {
  std::vector<std::uint64_t> v(a.length());
  if (!v.empty()) a.decode(0, v.size(), v.data());
  return v;
}

struct VectorCsr {
  std::vector<std::uint64_t> begin, rbegin;
  std::vector<std::uint32_t> redge;
};

VectorCsr to_vectors(const sg::CsrGraph& g) {
  VectorCsr v;
  v.begin = values_of(g.begin());
  v.rbegin = values_of(g.rbegin());
  const std::vector<std::uint64_t> redge = values_of(g.redge());
  v.redge.assign(redge.begin(), redge.end());
  return v;
}

// Pull PageRank over vectors in doubles, contributions refreshed once per iteration, timed like
// algo::pagerank's iterations (the edge loop and the refresh, not the set-up).
std::vector<double> vector_pagerank(const VectorCsr& g, unsigned iterations, sa::runtime::ThreadPool& pool,
                                    double* seconds_per_iteration = nullptr) {
  const std::uint64_t n = g.begin.size() - 1;
  const double d = 0.85;
  const double base = (1 - d) / static_cast<double>(n);
  std::vector<double> ranks(n, 1.0 / static_cast<double>(n)), contributions(n);
  double* rank = ranks.data();
  double* contrib = contributions.data();
  const std::uint64_t* rbegin = g.rbegin.data();
  const std::uint32_t* redge = g.redge.data();
  const std::uint64_t* begin = g.begin.data();
  auto refresh = [&] {
    pool.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t v = lo; v < hi; ++v) {
        const std::uint64_t degree = begin[v + 1] - begin[v];
        contrib[v] = degree ? rank[v] / static_cast<double>(degree) : 0.0;
      }
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

// ---------------------------------------------------------------------------------------------
// The graphs.

const sg::Variant variants[] = {sg::Variant::U, sg::Variant::V, sg::Variant::VE};
constexpr std::size_t variant_count = 3;

sg::BuildOptions build_options(sg::Variant v) {
  sg::BuildOptions build;
  build.layout = sg::GraphLayout::for_variant(v);
  return build;
}

struct Graphs {
  std::vector<sg::CsrGraph> variants;  // U, V, V+E
  GapGraph gap;
  VectorCsr plain;
  std::uint64_t n = 0;
  std::uint64_t file_bytes = 0;
};

// The .sg file to measure: --graph, or an R-MAT graph written to the output directory.
std::string graph_file(const Config& cfg, sa::runtime::ThreadPool& pool) {
  if (!cfg.graph.empty()) return cfg.graph;
  sg::RmatOptions rmat;
  rmat.scale = cfg.scale;
  rmat.edge_factor = cfg.edge_factor;
  sg::BuildOptions build;
  build.dedup = true;
  build.drop_self_loops = true;
  const std::string path = cfg.out_dir + "/rmat" + std::to_string(cfg.scale) + (cfg.directed ? "d" : "u") + ".sg";
  ::mkdir(cfg.out_dir.c_str(), 0755);
  sg::EdgeList edges = sg::generate_rmat(rmat, pool);
  edges.directed = cfg.directed;
  sg::save_graph(sg::build_csr(edges, build, pool), path, sg::GraphFormat::gap_sg);
  return path;
}

Graphs load_graphs(const std::string& path, sa::runtime::ThreadPool& pool) {
  Graphs g;
  for (sg::Variant v : variants) g.variants.push_back(sg::load_graph(path, sg::GraphFormat::gap_sg, build_options(v), {}, pool));
  g.gap = read_gap(path);
  g.plain = to_vectors(g.variants[0]);
  g.n = g.variants[0].vertices();
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) g.file_bytes = static_cast<std::uint64_t>(st.st_size);
  return g;
}

// ---------------------------------------------------------------------------------------------
// PageRank versions: each sample is seconds per iteration.

struct PageRankVersion {
  std::string name;
  std::string scores;  // "f32" or "f64"
  int variant = -1;    // index into Graphs::variants, -1 for the plain versions
};

std::vector<PageRankVersion> pagerank_versions() {
  std::vector<PageRankVersion> v{{"gap baseline", "f32", -1}, {"std::vector", "f64", -1}};
  for (const char* scores : {"f32", "f64"}) {
    for (std::size_t k = 0; k < variant_count; ++k) v.push_back({sg::to_string(variants[k]), scores, static_cast<int>(k)});
  }
  return v;
}

sa::algo::PageRankOptions pagerank_options(const Config& cfg) {
  sa::algo::PageRankOptions pr;
  pr.tolerance = 0;
  pr.max_iterations = cfg.iterations;
  return pr;
}

double run_pagerank(const PageRankVersion& version, const Config& cfg, const Graphs& g, sa::runtime::ThreadPool& pool,
                    std::vector<double>* ranks = nullptr) {
  double seconds = 0;
  if (version.variant < 0) {
    if (version.scores == "f32") {
      const std::vector<float> r = gap_pagerank<float>(g.gap, cfg.iterations, pool, &seconds);
      if (ranks != nullptr) ranks->assign(r.begin(), r.end());
    } else {
      std::vector<double> r = vector_pagerank(g.plain, cfg.iterations, pool, &seconds);
      if (ranks != nullptr) *ranks = std::move(r);
    }
    return seconds;
  }
  const sg::CsrGraph& graph = g.variants[static_cast<std::size_t>(version.variant)];
  sa::algo::PageRankOptions pr = pagerank_options(cfg);
  pr.scores = sa::algo::parse_score_precision(version.scores);
  const sa::algo::PageRankResult r = sa::algo::pagerank(graph.rbegin(), graph.redge(), graph.begin(), pr, pool);
  if (ranks != nullptr) {
    ranks->resize(g.n);
    for (std::uint64_t v = 0; v < g.n; ++v) (*ranks)[v] = sa::algo::rank_at(r.ranks, v);
  }
  return std::accumulate(r.iteration_seconds.begin(), r.iteration_seconds.end(), 0.0) /
         static_cast<double>(r.iteration_seconds.size());
}

// "" when every version's ranks agree with the std::vector version's: to 1e-9 in doubles, to a
// relative 1e-3 in floats.
std::string check_ranks(const Config& cfg, const Graphs& g, const std::vector<PageRankVersion>& versions,
                        sa::runtime::ThreadPool& pool) {
  std::vector<double> expected;
  run_pagerank(versions[1], cfg, g, pool, &expected);
  for (const PageRankVersion& version : versions) {
    std::vector<double> ranks;
    run_pagerank(version, cfg, g, pool, &ranks);
    for (std::uint64_t v = 0; v < g.n; ++v) {
      const double error = std::fabs(ranks[v] - expected[v]);
      if (version.scores == "f64" ? error > 1e-9 : error > 1e-3 * expected[v] + 1e-12) {
        return version.name + " " + version.scores + ": ranks differ at vertex " + std::to_string(v) + " (" +
               std::to_string(ranks[v]) + " vs " + std::to_string(expected[v]) + ")";
      }
    }
  }
  return "";
}

std::vector<std::vector<double>> measure_pagerank(const Config& cfg, const Graphs& g,
                                                  const std::vector<PageRankVersion>& versions,
                                                  sa::runtime::ThreadPool& pool) {
  std::vector<std::vector<double>> samples(versions.size());
  const auto count = static_cast<int>(versions.size());
  for (int rep = -1; rep < cfg.repetitions; ++rep) {
    // The order rotates every repetition, so no version always runs right after the same one.
    for (int slot = 0; slot < count; ++slot) {
      const auto k = static_cast<std::size_t>((slot + rep + 1) % count);
      const double s = run_pagerank(versions[k], cfg, g, pool);
      if (rep >= 0) samples[k].push_back(s);
    }
  }
  return samples;
}

// ---------------------------------------------------------------------------------------------
// Degree centrality: std::vector, then the variants.

struct DegreeSamples {
  std::vector<std::vector<double>> seconds = std::vector<std::vector<double>>(1 + variant_count);
  std::string wrong;
};

DegreeSamples measure_degrees(const Config& cfg, const Graphs& g, sa::runtime::ThreadPool& pool) {
  // Degree centrality is a few milliseconds: each sample averages several back-to-back runs.
  constexpr int runs = 10;
  DegreeSamples s;
  std::vector<std::uint64_t> plain(g.n);
  std::vector<sa::SmartArray> outputs;
  for (const sg::CsrGraph& graph : g.variants) {
    sa::ArrayOptions out = sa::algo::interleaved_options();
    out.bits = graph.variant() == sg::Variant::U ? 64 : sa::codec::min_bits(2 * graph.edges());
    outputs.push_back(sa::SmartArray::allocate(g.n, out));
  }
  const int count = 1 + static_cast<int>(variant_count);
  for (int rep = -1; rep < cfg.repetitions; ++rep) {
    for (int slot = 0; slot < count; ++slot) {
      const int k = (slot + rep + 1) % count;
      const double seconds = sm::time_once([&] {
        for (int r = 0; r < runs; ++r) {
          if (k == 0) {
            vector_degrees(g.plain, plain, pool);
          } else {
            const sg::CsrGraph& graph = g.variants[static_cast<std::size_t>(k - 1)];
            sa::algo::degree_centrality(graph.begin(), graph.rbegin(), outputs[static_cast<std::size_t>(k - 1)], pool);
          }
        }
      });
      if (rep >= 0) s.seconds[static_cast<std::size_t>(k)].push_back(seconds / runs);
    }
  }
  for (std::size_t k = 0; k < variant_count; ++k) {
    if (values_of(outputs[k]) != plain) s.wrong = "degree centrality differs for " + std::string(sg::to_string(variants[k]));
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Loading, each load in a child process so VmHWM is its own.

struct LoadFigures {
  double seconds = 0;
  std::uint64_t rss_before = 0;  // VmRSS before the load (the program itself)
  std::uint64_t peak = 0;        // VmHWM after the load
  std::uint64_t final_bytes = 0;  // what the loaded arrays hold
};

constexpr std::string_view text_prefix = "text ";

// The child: one load of kind, its figures on stdout as "seconds rss_before peak final_bytes".
int load_child(const Config& cfg) {
  sa::runtime::ThreadPool pool(sa::runtime::PoolOptions{.threads = cfg.threads});
  LoadFigures f;
  f.rss_before = status_bytes("VmRSS:");
  if (cfg.load_child == "read") {
    std::vector<char> buffer;
    f.seconds = sm::time_once([&] {
      const int fd = ::open(cfg.graph.c_str(), O_RDONLY | O_CLOEXEC);
      struct stat st {};
      ::fstat(fd, &st);
      buffer.resize(static_cast<std::size_t>(st.st_size));
      read_exactly(fd, buffer.data(), buffer.size(), cfg.graph);
      ::close(fd);
    });
    f.final_bytes = buffer.size();
  } else {
    // "text V": the --graph file is a text file, its format named by its extension.
    const bool text = cfg.load_child.starts_with(text_prefix);
    const sg::Variant v = sg::parse_variant(cfg.load_child.substr(text ? text_prefix.size() : 0));
    const sg::GraphFormat format = text ? sg::format_of_path(cfg.graph) : sg::GraphFormat::gap_sg;
    std::optional<sg::CsrGraph> graph;
    f.seconds = sm::time_once([&] { graph.emplace(sg::load_graph(cfg.graph, format, build_options(v), {}, pool)); });
    f.final_bytes = graph->memory_report().total_bytes;
  }
  f.peak = status_bytes("VmHWM:");
  std::cout << std::setprecision(9) << f.seconds << " " << f.rss_before << " " << f.peak << " " << f.final_bytes << "\n";
  return 0;
}

LoadFigures spawn_load(const Config& cfg, const std::string& path, const std::string& kind) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  const std::string threads = std::to_string(cfg.threads);
  std::vector<std::string> args{"bench_graph", "--graph", path, "--threads", threads, "--load-child", kind};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (rc != 0) throw std::runtime_error("cannot start the load child");
  std::string text;
  char buffer[256];
  for (ssize_t got; (got = ::read(pipe_fds[0], buffer, sizeof buffer)) > 0;) text.append(buffer, static_cast<std::size_t>(got));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  LoadFigures f;
  std::istringstream in(text);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !(in >> f.seconds >> f.rss_before >> f.peak >> f.final_bytes)) {
    throw std::runtime_error("the " + kind + " load child failed");
  }
  return f;
}

struct LoadRow {
  std::string kind;
  sm::Timing seconds;
  std::uint64_t peak = 0;        // the largest VmHWM of its runs
  std::uint64_t rss_before = 0;  // VmRSS before loading, in that run
  std::uint64_t final_bytes = 0;
};

// The load rows, none when --load-reps 0 skips loading.
std::vector<LoadRow> measure_loads(const Config& cfg, const std::string& path) {
  if (cfg.load_repetitions == 0) return {};
  std::vector<std::string> kinds{"read", "U", "V", "V+E"};
  if (!cfg.text.empty()) kinds.insert(kinds.end(), {std::string(text_prefix) + "U", std::string(text_prefix) + "V+E"});
  std::vector<LoadRow> rows(kinds.size());
  std::vector<std::vector<double>> seconds(kinds.size());
  const auto count = static_cast<int>(kinds.size());
  for (int rep = 0; rep < cfg.load_repetitions; ++rep) {
    for (int slot = 0; slot < count; ++slot) {
      const auto k = static_cast<std::size_t>((slot + rep) % count);
      const bool text = kinds[k].starts_with(text_prefix);
      const LoadFigures f = spawn_load(cfg, text ? cfg.text : path, kinds[k]);
      seconds[k].push_back(f.seconds);
      rows[k].kind = kinds[k];
      if (f.peak >= rows[k].peak) {
        rows[k].peak = f.peak;
        rows[k].rss_before = f.rss_before;
      }
      rows[k].final_bytes = f.final_bytes;
    }
  }
  for (std::size_t k = 0; k < kinds.size(); ++k) rows[k].seconds = sm::summarize(seconds[k]);
  return rows;
}

// ---------------------------------------------------------------------------------------------
// Report.

std::string mib(std::uint64_t bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << static_cast<double>(bytes) / (1 << 20) << " MiB";
  return o.str();
}

std::string bits_of(const sg::CsrGraph& graph) {
  return std::to_string(graph.begin().bits()) + "/" + std::to_string(graph.edge().bits());
}

struct Results {
  std::vector<PageRankVersion> versions;
  std::vector<sm::Timing> pagerank;
  std::vector<sm::Timing> degree;  // std::vector, U, V, V+E
  std::vector<LoadRow> loads;
};

void print_tables(const Config& cfg, const std::string& path, const Graphs& g, const Results& r) {
  const sg::CsrGraph& u = g.variants[0];
  std::cout << "\n" << path << ": " << g.n << " vertices, " << u.edges() << " stored edges, "
            << (u.directed() ? "directed" : "undirected") << "; " << cfg.threads << " threads; medians of "
            << cfg.repetitions << " runs (spread = (max-min)/median)\n\n";
  const double gap = r.pagerank[0].median;
  std::cout << std::left << std::setw(14) << "PageRank" << std::setw(8) << "scores" << std::right << std::setw(12)
            << "s/iter" << std::setw(8) << "spread" << std::setw(12) << "vs gap f32" << "\n";
  for (std::size_t k = 0; k < r.versions.size(); ++k) {
    std::cout << std::left << std::setw(14) << r.versions[k].name << std::setw(8) << r.versions[k].scores << std::right
              << std::fixed << std::setprecision(4) << std::setw(12) << r.pagerank[k].median << std::setprecision(2)
              << std::setw(8) << r.pagerank[k].spread() << std::setw(11) << r.pagerank[k].median / gap << "x\n";
  }
  std::cout << "\n" << std::left << std::setw(14) << "graph" << std::setw(11) << "bits b/e" << std::right << std::setw(12)
            << "memory" << std::setw(12) << "vs gap" << std::setw(12) << "DC s" << std::setw(8) << "spread"
            << std::setw(14) << "DC vs vector" << "\n";
  const double gap_bytes = static_cast<double>(g.gap.bytes());
  std::cout << std::left << std::setw(14) << "gap baseline" << std::setw(11) << "64/32" << std::right << std::setw(12)
            << mib(g.gap.bytes()) << std::setw(12) << "1.00x" << "\n";
  for (std::size_t k = 0; k <= variant_count; ++k) {
    const bool vec = k == 0;
    const std::uint64_t bytes = vec ? (g.plain.begin.size() + g.plain.rbegin.size()) * 8 +
                                          u.edges() * 4 * 2
                                    : g.variants[k - 1].memory_report().total_bytes;
    std::cout << std::left << std::setw(14) << (vec ? "std::vector" : sg::to_string(variants[k - 1])) << std::setw(11)
              << (vec ? "64/32" : bits_of(g.variants[k - 1])) << std::right << std::setw(12) << mib(bytes)
              << std::setprecision(2) << std::setw(11) << static_cast<double>(bytes) / gap_bytes << "x"
              << std::setprecision(5) << std::setw(12) << r.degree[k].median << std::setprecision(2) << std::setw(8)
              << r.degree[k].spread() << std::setw(13) << r.degree[0].median / r.degree[k].median << "x\n";
  }
  if (r.loads.empty()) return;
  std::cout << "\n" << std::left << std::setw(14) << "load" << std::right << std::setw(10) << "seconds" << std::setw(8)
            << "spread" << std::setw(12) << "vs read()" << std::setw(14) << "peak RSS" << std::setw(14) << "final"
            << std::setw(20) << "(peak-start)/final" << "\n";
  const double read_s = r.loads[0].seconds.median;
  for (const LoadRow& l : r.loads) {
    std::cout << std::left << std::setw(14) << l.kind << std::right << std::setprecision(3) << std::setw(10) << l.seconds.median
              << std::setprecision(2) << std::setw(8) << l.seconds.spread() << std::setw(11) << l.seconds.median / read_s
              << "x" << std::setw(14) << mib(l.peak) << std::setw(14) << mib(l.final_bytes) << std::setw(19)
              << static_cast<double>(l.peak - l.rss_before) / static_cast<double>(l.final_bytes) << "x\n";
  }
}

sm::Report report(const Config& cfg, const std::string& path, const Graphs& g, const Results& r) {
  sm::Json results;
  results["config"] = {{"graph", path},
                       {"text", cfg.text},
                       {"threads", cfg.threads},
                       {"repetitions", cfg.repetitions},
                       {"load_repetitions", cfg.load_repetitions},
                       {"iterations", cfg.iterations},
                       {"vertices", g.n},
                       {"edges", g.variants[0].edges()},
                       {"directed", g.variants[0].directed()},
                       {"file_bytes", g.file_bytes}};
  results["pagerank"] = sm::Json::array();
  for (std::size_t k = 0; k < r.versions.size(); ++k) {
    results["pagerank"].push_back({{"version", r.versions[k].name},
                                   {"scores", r.versions[k].scores},
                                   {"per_iteration", sm::timing_json(r.pagerank[k])},
                                   {"vs_gap_f32", r.pagerank[k].median / r.pagerank[0].median}});
  }
  results["graphs"] = sm::Json::array();
  results["graphs"].push_back({{"version", "gap baseline"}, {"bytes", g.gap.bytes()}});
  for (std::size_t k = 0; k < variant_count; ++k) {
    const sg::CsrGraph& graph = g.variants[k];
    results["graphs"].push_back({{"version", sg::to_string(variants[k])},
                                 {"bits_begin_edge", bits_of(graph)},
                                 {"bytes", graph.memory_report().total_bytes},
                                 {"vs_gap", static_cast<double>(graph.memory_report().total_bytes) /
                                                static_cast<double>(g.gap.bytes())},
                                 {"degree_centrality", sm::timing_json(r.degree[k + 1])},
                                 {"degree_speed_vs_vector", r.degree[0].median / r.degree[k + 1].median}});
  }
  results["degree_vector"] = sm::timing_json(r.degree[0]);
  results["loads"] = sm::Json::array();
  for (const LoadRow& l : r.loads) {
    results["loads"].push_back({{"kind", l.kind},
                                {"seconds", sm::timing_json(l.seconds)},
                                {"vs_read", l.seconds.median / r.loads[0].seconds.median},
                                {"peak_rss_bytes", l.peak},
                                {"rss_before_bytes", l.rss_before},
                                {"final_bytes", l.final_bytes}});
  }
  sm::Report report("smartarrays.bench.graph/2");
  report.fields["benchmark"] = "bench_graph";
  report.fields["results"] = results;
  return report;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int code = parse(argc, argv, cfg); code >= 0) return code;
  if (!cfg.load_child.empty()) return load_child(cfg);
  sa::runtime::ThreadPool pool(sa::runtime::PoolOptions{.threads = cfg.threads});
  const std::string path = graph_file(cfg, pool);
  std::cerr << "bench_graph: " << path << ", " << cfg.threads << " threads, " << cfg.repetitions << " repetitions of "
            << cfg.iterations << " PageRank iterations\n";
  Results r;
  r.loads = measure_loads(cfg, path);
  const Graphs graphs = load_graphs(path, pool);
  r.versions = pagerank_versions();
  std::string wrong = check_ranks(cfg, graphs, r.versions, pool);
  if (wrong.empty()) {
    for (std::vector<double>& s : measure_pagerank(cfg, graphs, r.versions, pool)) r.pagerank.push_back(sm::summarize(std::move(s)));
    DegreeSamples degrees = measure_degrees(cfg, graphs, pool);
    wrong = degrees.wrong;
    for (std::vector<double>& s : degrees.seconds) r.degree.push_back(sm::summarize(std::move(s)));
  }
  if (!wrong.empty()) {
    std::cerr << "bench_graph: " << wrong << "\n";
    return 1;
  }
  print_tables(cfg, path, graphs, r);
  const std::string out = sm::result_path(cfg.out_dir, "bench_graph");
  sm::write_report(report(cfg, path, graphs, r), out);
  std::cout << "\nresults: " << out << "\n";
  return 0;
}
