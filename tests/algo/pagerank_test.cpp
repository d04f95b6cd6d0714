// Tests of PageRank against a plain serial Jacobi reference written here from the raw edge list
// (not from the CSR arrays), to 1e-9, for the U, V and V+E layouts, every placement on a fake
// two-node topology, both dangling rules, the stopping rule, and bad arguments; and against
// networkx on its bundled small graphs where networkx can be installed.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "support/fake_topology.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::algo {
namespace {

using graph::BuildOptions;
using graph::CsrGraph;
using graph::EdgeList;
using graph::GraphLayout;
using graph::Variant;
using runtime::PoolOptions;
using runtime::ThreadPool;

struct Reference {
  std::vector<double> ranks;
  unsigned iterations = 0;
};

// Textbook Jacobi PageRank over an edge list (undirected lists count both directions, a
// self-loop once), one edge at a time, with the same stopping rule.
Reference reference_pagerank(const EdgeList& list, double damping, double tolerance, unsigned max_iterations,
                             DanglingRule rule) {
  const std::size_t n = list.vertices;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> arcs;
  for (const graph::Edge& e : list.edges) {
    arcs.emplace_back(e.src, e.dst);
    if (!list.directed && e.src != e.dst) arcs.emplace_back(e.dst, e.src);
  }
  std::vector<double> out_degree(n, 0);
  for (auto [s, d] : arcs) out_degree[s] += 1;
  Reference ref;
  ref.ranks.assign(n, 1.0 / static_cast<double>(n));
  for (unsigned it = 1; it <= max_iterations; ++it) {
    double dangling = 0;
    for (std::size_t v = 0; v < n; ++v) {
      if (out_degree[v] == 0) dangling += ref.ranks[v];
    }
    const double spread = rule == DanglingRule::uniform ? dangling / static_cast<double>(n) : 0.0;
    std::vector<double> next(n, (1 - damping) / static_cast<double>(n) + damping * spread);
    for (auto [s, d] : arcs) next[d] += damping * ref.ranks[s] / out_degree[s];
    double diff = 0;
    for (std::size_t v = 0; v < n; ++v) diff += std::fabs(next[v] - ref.ranks[v]);
    ref.ranks = std::move(next);
    ref.iterations = it;
    if (diff < tolerance) break;
  }
  return ref;
}

void expect_ranks_near(const PageRankResult& result, const std::vector<double>& expected, double tolerance) {
  ASSERT_EQ(result.ranks.length(), expected.size());
  for (std::size_t v = 0; v < expected.size(); ++v) {
    ASSERT_NEAR(rank_at(result.ranks, v), expected[v], tolerance) << "vertex " << v;
  }
}

PageRankResult run(const CsrGraph& g, const PageRankOptions& options, ThreadPool& pool) {
  return pagerank(g.rbegin(), g.redge(), g.begin(), options, pool);
}

EdgeList test_graph() {
  graph::RmatOptions r;
  r.scale = 11;
  r.edge_factor = 8;
  r.seed = 4;
  return graph::generate_rmat(r);
}

TEST(PageRank, MatchesTheSerialReferenceForEveryVariantAndDanglingRule) {
  ThreadPool pool(PoolOptions{.threads = 2});
  const EdgeList list = test_graph();
  for (Variant variant : {Variant::U, Variant::V, Variant::VE}) {
    BuildOptions build;
    build.layout = GraphLayout::for_variant(variant);
    const CsrGraph g = graph::build_csr(list, build, pool);
    for (DanglingRule rule : {DanglingRule::none, DanglingRule::uniform}) {
      SCOPED_TRACE(::testing::Message() << to_string(variant) << ", dangling " << to_string(rule));
      PageRankOptions options;
      options.dangling = rule;
      const PageRankResult result = run(g, options, pool);
      const Reference ref = reference_pagerank(list, 0.85, 1e-3, 100, rule);
      EXPECT_EQ(result.iterations, ref.iterations);
      EXPECT_TRUE(result.converged);
      EXPECT_LT(result.difference, 1e-3);
      EXPECT_EQ(result.iteration_seconds.size(), result.iterations);
      expect_ranks_near(result, ref.ranks, 1e-9);
      // Deeper convergence still agrees.
      options.tolerance = 1e-12;
      options.max_iterations = 500;
      expect_ranks_near(run(g, options, pool), reference_pagerank(list, 0.85, 1e-12, 500, rule).ranks, 1e-9);
    }
  }
}

TEST(PageRank, FloatScoresAgreeWithDoublesToFloatPrecisionInEveryLayout) {
  ThreadPool pool(PoolOptions{.threads = 2});
  const EdgeList list = test_graph();
  const Reference ref = reference_pagerank(list, 0.85, 1e-3, 100, DanglingRule::uniform);
  for (Variant variant : {Variant::U, Variant::V, Variant::VE}) {
    for (bool undirected : {false, true}) {
      SCOPED_TRACE(::testing::Message() << to_string(variant) << (undirected ? ", undirected" : ", directed"));
      BuildOptions build;
      build.layout = GraphLayout::for_variant(variant);
      EdgeList input = list;
      input.directed = !undirected;
      const CsrGraph g = graph::build_csr(input, build, pool);
      PageRankOptions options;
      options.dangling = DanglingRule::uniform;
      const PageRankResult doubles = run(g, options, pool);
      options.scores = ScorePrecision::f32;
      const PageRankResult floats = run(g, options, pool);
      // The precision is the arrays' width: what the memory report and the bindings see.
      EXPECT_EQ(floats.ranks.bits(), 32u);
      EXPECT_EQ(floats.contributions.bits(), 32u);
      EXPECT_EQ(doubles.ranks.bits(), 64u);
      EXPECT_LT(floats.ranks.memory_bytes(), doubles.ranks.memory_bytes());
      EXPECT_TRUE(floats.converged);
      for (std::uint64_t v = 0; v < g.vertices(); ++v) {
        const double expected = rank_at(doubles.ranks, v);
        ASSERT_NEAR(rank_at(floats.ranks, v), expected, 1e-4 * expected + 1e-9) << "vertex " << v;
      }
      if (!undirected) expect_ranks_near(doubles, ref.ranks, 1e-9);
    }
  }
}

TEST(PageRank, ScorePrecisionNames) {
  EXPECT_STREQ(to_string(ScorePrecision::f64), "f64");
  EXPECT_STREQ(to_string(ScorePrecision::f32), "f32");
  EXPECT_EQ(parse_score_precision("f32"), ScorePrecision::f32);
  EXPECT_EQ(parse_score_precision("float64"), ScorePrecision::f64);
  EXPECT_EQ(score_bits(ScorePrecision::f32), 32u);
  try {
    parse_score_precision("f16");
    FAIL() << "parsed f16";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("'f16'"), std::string::npos) << e.what();
  }
  PageRankOptions options;
  options.scores = static_cast<ScorePrecision>(7);
  try {
    validate(options);
    FAIL() << "validated precision 7";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("score precision must be f64 or f32, got 7"), std::string::npos) << e.what();
  }
}

TEST(PageRank, DanglingRulesDifferInTheRankTheyKeep) {
  ThreadPool pool(PoolOptions{.threads = 2});
  // 0 -> 1 -> 2 and 3 -> 2: vertex 2 is dangling.
  const EdgeList list{4, {{0, 1}, {1, 2}, {3, 2}}, true};
  const CsrGraph g = graph::build_csr(list, {}, pool);
  PageRankOptions options;
  options.tolerance = 1e-14;
  options.max_iterations = 1000;
  auto total = [](const PageRankResult& r) {
    double s = 0;
    for (std::uint64_t v = 0; v < r.ranks.length(); ++v) s += rank_at(r.ranks, v);
    return s;
  };
  const PageRankResult lossy = run(g, options, pool);
  options.dangling = DanglingRule::uniform;
  const PageRankResult kept = run(g, options, pool);
  EXPECT_NEAR(total(kept), 1.0, 1e-12);
  EXPECT_LT(total(lossy), 0.9);
  // By hand, no redistribution: r0 = r3 = 0.15/4, r1 = 0.15/4 + 0.85 r0, r2 = 0.15/4 + 0.85 (r1 + r3).
  const double t = 0.15 / 4;
  EXPECT_NEAR(rank_at(lossy.ranks, 0), t, 1e-12);
  EXPECT_NEAR(rank_at(lossy.ranks, 1), t + 0.85 * t, 1e-12);
  EXPECT_NEAR(rank_at(lossy.ranks, 2), t + 0.85 * (t + 0.85 * t + t), 1e-12);
}

TEST(PageRank, EveryPlacementOnAFakeTwoNodeTopology) {
  test::ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  // Directed, and undirected (one CSR: out-degrees derived from the offsets the pull reads too).
  for (bool undirected : {false, true}) {
    EdgeList list = test_graph();
    list.directed = !undirected;
    const Reference ref = reference_pagerank(list, 0.85, 1e-3, 100, DanglingRule::none);
    const Reference ref_uniform = reference_pagerank(list, 0.85, 1e-3, 100, DanglingRule::uniform);
    for (Variant variant : {Variant::U, Variant::V, Variant::VE}) {
      for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated,
                          Placement::partitioned}) {
        SCOPED_TRACE(::testing::Message() << to_string(variant) << ", " << to_string(p)
                                          << (undirected ? ", undirected" : ", directed"));
        ArrayOptions placement;
        placement.placement = p;
        placement.node = p == Placement::single_node ? 1 : 0;
        BuildOptions build;
        build.layout = GraphLayout::for_variant(variant, placement);
        const CsrGraph g = graph::build_csr(list, build, pool);
        PageRankOptions options;
        options.contributions = placement;
        if (p != Placement::replicated) options.ranks = placement;
        const PageRankResult result = run(g, options, pool);
        EXPECT_EQ(result.iterations, ref.iterations);
        expect_ranks_near(result, ref.ranks, 1e-9);
        EXPECT_EQ(result.contributions.replicas(), p == Placement::replicated ? 2u : 1u);
        EXPECT_EQ(result.contributions.memory_bytes(), result.contributions.replicas() * result.ranks.memory_bytes());
        options.dangling = DanglingRule::uniform;
        expect_ranks_near(run(g, options, pool), ref_uniform.ranks, 1e-9);
      }
    }
  }
}

TEST(PageRank, StopsAtTheIterationCap) {
  ThreadPool pool(PoolOptions{.threads = 2});
  const EdgeList list = test_graph();
  const CsrGraph g = graph::build_csr(list, {}, pool);
  PageRankOptions options;
  options.tolerance = 0;
  options.max_iterations = 3;
  const PageRankResult result = run(g, options, pool);
  EXPECT_EQ(result.iterations, 3u);
  EXPECT_FALSE(result.converged);
  expect_ranks_near(result, reference_pagerank(list, 0.85, 0, 3, DanglingRule::none).ranks, 1e-12);
}

TEST(PageRank, TopRankedVerticesComeFromTheRankBits) {
  ThreadPool pool(PoolOptions{.threads = 2});
  const EdgeList list = test_graph();
  const PageRankResult result = run(graph::build_csr(list, {}, pool), {}, pool);
  const auto top = top_k(result.ranks, 5);
  ASSERT_EQ(top.size(), 5u);
  std::vector<std::uint64_t> order(result.ranks.length());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint64_t a, std::uint64_t b) { return rank_at(result.ranks, a) > rank_at(result.ranks, b); });
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(top[k].first, order[k]);
}

TEST(PageRank, BadArguments) {
  ThreadPool pool(PoolOptions{.threads = 1});
  const CsrGraph g = graph::build_csr(EdgeList{3, {{0, 1}}, true}, {}, pool);
  const CsrGraph other = graph::build_csr(EdgeList{4, {{0, 1}, {1, 2}}, true}, {}, pool);
  EXPECT_THROW(pagerank(g.rbegin(), g.redge(), other.begin(), {}, pool), Error);
  EXPECT_THROW(pagerank(g.rbegin(), other.redge(), g.begin(), {}, pool), Error);
  // The out-degrees come from begin: n + 1 offsets whose span is every edge.
  const SmartArray no_offsets = SmartArray::from_values(std::vector<std::uint64_t>{}, {});
  test::expect_error([&] { pagerank(g.rbegin(), g.redge(), no_offsets, {}, pool); }, {"pagerank: begin holds no offsets"});
  const SmartArray no_out_edges = SmartArray::from_values(std::vector<std::uint64_t>{0, 0, 0, 0}, {});
  test::expect_error([&] { pagerank(g.rbegin(), g.redge(), no_out_edges, {}, pool); },
                     {"begin spans 0 out-edges but redge holds 1 in-edges"});
  PageRankOptions options;
  options.damping = 1.5;
  EXPECT_THROW(pagerank(g.rbegin(), g.redge(), g.begin(), options, pool), Error);
  options = {};
  options.tolerance = -1;
  EXPECT_THROW(pagerank(g.rbegin(), g.redge(), g.begin(), options, pool), Error);
  options = {};
  options.ranks.placement = Placement::replicated;
  EXPECT_THROW(pagerank(g.rbegin(), g.redge(), g.begin(), options, pool), Error);
  options = {};
  options.max_iterations = 0;
  EXPECT_THROW(pagerank(g.rbegin(), g.redge(), g.begin(), options, pool), Error);
  EXPECT_EQ(parse_dangling_rule("uniform"), DanglingRule::uniform);
  EXPECT_EQ(parse_dangling_rule(to_string(DanglingRule::none)), DanglingRule::none);
  EXPECT_THROW(parse_dangling_rule("networkx"), Error);
}

// The arrays PageRank allocates are named when they cannot be mapped: with the graph's arrays in
// place, "cannot map 762.9 MiB" alone did not say which. An empty hugetlb pool refuses them here.
TEST(PageRank, AnArrayThatCannotBeMappedIsNamed) {
  if (!test::hugetlb_2m_pool_is_empty()) GTEST_SKIP() << "the 2 MiB hugetlb pool is missing or has pages: nothing fails";
  ThreadPool pool(PoolOptions{.threads = 1});
  const CsrGraph g = graph::build_csr(EdgeList{3, {{0, 1}}, true}, {}, pool);
  PageRankOptions options;
  options.contributions.huge_pages = HugePages::pages_2m;
  EXPECT_EQ(test::expect_error([&] { run(g, options, pool); }, {"pagerank array contributions of 3 values: cannot map 2 MiB"}),
            ErrorCode::out_of_memory);
  options = {};
  options.ranks.huge_pages = HugePages::pages_2m;
  EXPECT_EQ(test::expect_error([&] { run(g, options, pool); }, {"pagerank array ranks of 3 values: cannot map 2 MiB"}),
            ErrorCode::out_of_memory);
}

// The one validation the command, the C ABI and the bindings share: each bad option is named, with
// its value written so that a subnormal tolerance is not shown as 0.
TEST(PageRank, ValidateNamesTheOptionAndAcceptsSubnormalTolerance) {
  auto message = [](PageRankOptions options) {
    try {
      validate(options);
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      return std::string(e.what());
    }
    return std::string();
  };
  PageRankOptions options;
  EXPECT_EQ(message(options), "");
  options.tolerance = 1e-320;
  EXPECT_EQ(message(options), "");
  options.tolerance = 0;
  options.damping = 1;
  EXPECT_EQ(message(options), "");
  options.damping = 2;
  EXPECT_EQ(message(options), "pagerank: damping must be a number in (0, 1], got 2");
  options.damping = 0;
  EXPECT_NE(message(options).find("damping"), std::string::npos);
  options.damping = std::nan("");
  EXPECT_NE(message(options).find("damping"), std::string::npos);
  options = {};
  options.tolerance = std::nan("");
  EXPECT_EQ(message(options), "pagerank: tolerance must be a finite number >= 0, got nan");
  options.tolerance = -1e-320;
  EXPECT_EQ(message(options), "pagerank: tolerance must be a finite number >= 0, got -1e-320");
  options.tolerance = HUGE_VAL;
  EXPECT_NE(message(options).find("tolerance"), std::string::npos);
  options = {};
  options.max_iterations = 0;
  EXPECT_EQ(message(options), "pagerank: max_iterations must be at least 1, got 0");
  options = {};
  options.dangling = static_cast<DanglingRule>(7);
  EXPECT_EQ(message(options), "pagerank: dangling rule must be none or uniform, got 7");
}

TEST(PageRank, EmptyGraph) {
  ThreadPool pool(PoolOptions{.threads = 1});
  const CsrGraph g = graph::build_csr(EdgeList{0, {}, true}, {}, pool);
  const PageRankResult r = run(g, {}, pool);
  EXPECT_EQ(r.ranks.length(), 0u);
  EXPECT_TRUE(r.converged);
}

// The repository root (tests/data is two levels below it).
std::string source_dir() { return std::string(SMARTARRAYS_TEST_DATA_DIR) + "/../.."; }

// Finds the project's Python environment with networkx (scripts/python-venv.sh installs what is
// missing); empty when it cannot be had.
std::string networkx_python() {
  const std::string command = source_dir() + "/scripts/python-venv.sh networkx scipy 2>/dev/null";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buffer[512];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  if (::pclose(pipe) != 0) return "";
  const std::size_t last = out.find_last_not_of('\n');
  const std::size_t start = out.find_last_of('\n', last);
  return out.substr(start == std::string::npos ? 0 : start + 1, last + 1 - (start == std::string::npos ? 0 : start + 1));
}

TEST(PageRank, MatchesNetworkxOnItsBundledGraphs) {
  const std::string python = networkx_python();
  if (python.empty()) GTEST_SKIP() << "networkx is not installable here (scripts/python-venv.sh networkx scipy failed)";
  const test::ScratchDir dir;
  const std::string path = dir.file("networkx.txt");
  const std::string command =
      python + " " + source_dir() + "/tests/algo/networkx_pagerank.py " + path;
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(path);
  ThreadPool pool(PoolOptions{.threads = 2});
  int graphs = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream header(line);
    std::string word, name, kind;
    std::uint64_t n = 0, m = 0;
    header >> word >> name >> n >> m >> kind;
    ASSERT_EQ(word, "graph") << line;
    EdgeList list{n, {}, kind == "directed"};
    for (std::uint64_t k = 0; k < m; ++k) {
      graph::Edge e;
      in >> e.src >> e.dst;
      list.edges.push_back(e);
    }
    std::vector<double> expected(n);
    for (double& r : expected) in >> r;
    in >> std::ws;
    SCOPED_TRACE(name);
    PageRankOptions options;
    options.dangling = DanglingRule::uniform;
    options.tolerance = 1e-14;
    options.max_iterations = 10000;
    const PageRankResult result = run(graph::build_csr(list, {}, pool), options, pool);
    expect_ranks_near(result, expected, 1e-9);
    ++graphs;
  }
  EXPECT_GE(graphs, 5);
}

}  // namespace
}  // namespace smartarrays::algo
