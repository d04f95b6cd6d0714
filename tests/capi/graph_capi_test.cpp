// Tests of the graph entry points of the C ABI: loading every format, generating, edge arrays,
// saving, the memory report, degree centrality and PageRank equal to the C++ library's, the
// layout options, the struct layouts a C compiler sees, and every error path with its status and
// message.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "capi/capi_c_checks.h"
#include "smartarrays.h"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/graph/source.hpp"
#include "support/capi_expect.hpp"
#include "support/fake_topology.hpp"
#include "support/graph_fixtures.hpp"

namespace {

namespace graph = smartarrays::graph;
namespace algo = smartarrays::algo;
using smartarrays::test::expect_failure;
using smartarrays::test::expect_last_error;
using smartarrays::test::graph_data;

// An owned sa_graph for tests.
struct Graph {
  sa_graph* g = nullptr;
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  ~Graph() { sa_graph_free(g); }
};

sa_graph_options defaults() {
  sa_graph_options o;
  sa_graph_options_init(&o);
  return o;
}

std::vector<uint64_t> degrees_of(const sa_graph* g) {
  std::vector<uint64_t> degrees(sa_graph_vertices(g));
  EXPECT_EQ(sa_graph_degree_centrality(g, degrees.data(), degrees.size()), SA_OK) << sa_last_error();
  return degrees;
}

std::vector<double> ranks_of(const sa_graph* g, const sa_pagerank_options* o, sa_pagerank_result* result = nullptr) {
  std::vector<double> ranks(sa_graph_vertices(g));
  EXPECT_EQ(sa_graph_pagerank(g, o, ranks.data(), ranks.size(), result), SA_OK) << sa_last_error();
  return ranks;
}

std::vector<sa_graph_array_memory> memory_of(const sa_graph* g, uint64_t* total = nullptr) {
  std::vector<sa_graph_array_memory> lines(5);
  uint32_t count = 0;
  uint64_t bytes = 0;
  EXPECT_EQ(sa_graph_memory(g, lines.data(), 5, &count, &bytes), SA_OK) << sa_last_error();
  EXPECT_EQ(count, 4u);
  lines.resize(count);
  if (total != nullptr) *total = bytes;
  return lines;
}

// The C++ library's results on the same graph, for comparison.
struct Expected {
  std::vector<uint64_t> degrees;
  std::vector<double> ranks;
  unsigned iterations = 0;
};

Expected library_results(const graph::CsrGraph& g, const algo::PageRankOptions& options) {
  const smartarrays::SmartArray degrees = algo::degree_centrality(g.begin(), g.rbegin(), smartarrays::ArrayOptions{});
  const algo::PageRankResult run = algo::pagerank(g.rbegin(), g.redge(), g.begin(), options);
  Expected e{smartarrays::test::values_of(degrees), {}, run.iterations};
  for (uint64_t v = 0; v < g.vertices(); ++v) e.ranks.push_back(algo::rank_at(run.ranks, v));
  return e;
}

TEST(GraphCapi, HeaderIsValidCWithTheSameGraphStructLayouts) {
  char error[512] = "";
  EXPECT_EQ(capi_c_graph_round_trip(graph_data("tiny.el").c_str(), error, sizeof error), 0) << error;
  size_t layout[8];
  capi_c_graph_layout(layout);
  EXPECT_EQ(layout[0], sizeof(sa_graph_options));
  EXPECT_EQ(layout[1], offsetof(sa_graph_options, bits));
  EXPECT_EQ(layout[2], sizeof(sa_graph_array_memory));
  EXPECT_EQ(layout[3], offsetof(sa_graph_array_memory, replicas));
  EXPECT_EQ(layout[4], sizeof(sa_pagerank_options));
  EXPECT_EQ(layout[5], offsetof(sa_pagerank_options, dangling));
  EXPECT_EQ(layout[6], sizeof(sa_pagerank_result));
  EXPECT_EQ(layout[7], offsetof(sa_pagerank_result, difference));
}

TEST(GraphCapi, FloatScoresComeBackAsDoublesNearTheDoubleRanks) {
  Graph g;
  ASSERT_EQ(sa_graph_load(graph_data("tiny.el").c_str(), nullptr, nullptr, &g.g), SA_OK) << sa_last_error();
  sa_pagerank_options o;
  sa_pagerank_options_init(&o);
  EXPECT_EQ(o.scores, SA_SCORES_F64);
  const std::vector<double> doubles = ranks_of(g.g, &o, nullptr);
  o.scores = SA_SCORES_F32;
  const std::vector<double> floats = ranks_of(g.g, &o, nullptr);
  ASSERT_EQ(floats.size(), doubles.size());
  for (std::size_t v = 0; v < doubles.size(); ++v) {
    EXPECT_NEAR(floats[v], doubles[v], 1e-6 * doubles[v]) << v;
    EXPECT_EQ(floats[v], static_cast<double>(static_cast<float>(floats[v]))) << "a float widened, vertex " << v;
  }
}

TEST(GraphCapi, EveryFormatGivesTheLibrarysResults) {
  const smartarrays::test::ScratchDir dir;
  const graph::CsrGraph reference = graph::GraphSource::open(graph_data("tiny.el")).build();
  graph::save_graph(reference, dir.file("tiny.sg"), graph::GraphFormat::gap_sg);
  graph::save_graph(reference, dir.file("tiny.graph"), graph::GraphFormat::edge_list);
  algo::PageRankOptions cpp;
  cpp.dangling = algo::DanglingRule::uniform;
  cpp.tolerance = 1e-10;
  const Expected expected = library_results(reference, cpp);
  sa_pagerank_options o;
  sa_pagerank_options_init(&o);
  o.dangling = SA_DANGLING_UNIFORM;
  o.tolerance = 1e-10;
  const std::vector<std::pair<std::string, const char*>> inputs{
      {graph_data("tiny.el"), nullptr}, {graph_data("tiny.mtx"), nullptr}, {dir.file("tiny.sg"), nullptr},
      {dir.file("tiny.graph"), "el"}, {graph_data("tiny.el"), "edgelist"}};
  for (const auto& [path, format] : inputs) {
    Graph g;
    ASSERT_EQ(sa_graph_load(path.c_str(), format, nullptr, &g.g), SA_OK) << sa_last_error();
    EXPECT_EQ(sa_graph_vertices(g.g), 6u);
    EXPECT_EQ(sa_graph_edges(g.g), 7u);
    EXPECT_EQ(sa_graph_directed(g.g), 1);
    EXPECT_EQ(degrees_of(g.g), expected.degrees) << path;
    sa_pagerank_result result{};
    const std::vector<double> ranks = ranks_of(g.g, &o, &result);
    EXPECT_EQ(result.iterations, expected.iterations);
    EXPECT_EQ(result.converged, 1);
    EXPECT_LT(result.difference, 1e-10);
    for (std::size_t v = 0; v < ranks.size(); ++v) EXPECT_NEAR(ranks[v], expected.ranks[v], 1e-15) << path << " " << v;
  }
  Graph undirected;
  ASSERT_EQ(sa_graph_load(graph_data("triangle_symmetric.mtx").c_str(), "mtx", nullptr, &undirected.g), SA_OK);
  EXPECT_EQ(sa_graph_directed(undirected.g), 0);
}

TEST(GraphCapi, PageRankDefaultsAndRules) {
  Graph g;
  ASSERT_EQ(sa_graph_generate_rmat(9, 8, 3, nullptr, &g.g), SA_OK) << sa_last_error();
  const graph::CsrGraph same = graph::GraphSource::rmat({.scale = 9, .edge_factor = 8, .seed = 3}).build();
  const Expected expected = library_results(same, {});
  sa_pagerank_result result{};
  const auto before = std::chrono::steady_clock::now();
  const std::vector<double> ranks = ranks_of(g.g, nullptr, &result);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - before).count();
  EXPECT_EQ(result.iterations, expected.iterations);
  EXPECT_GT(result.seconds, 0.0) << "the iterations took time";
  EXPECT_LE(result.seconds, wall) << "the iterations are part of the call";
  for (std::size_t v = 0; v < ranks.size(); ++v) ASSERT_NEAR(ranks[v], expected.ranks[v], 1e-15) << v;
  double sum = 0;
  for (double r : ranks) sum += r;
  EXPECT_LT(sum, 1.0) << "the sinks' rank leaves the system";
  sa_pagerank_options capped;
  sa_pagerank_options_init(&capped);
  capped.max_iterations = 2;
  capped.tolerance = 0;
  ranks_of(g.g, &capped, &result);
  EXPECT_EQ(result.iterations, 2u);
  EXPECT_EQ(result.converged, 0);
  EXPECT_EQ(ranks_of(g.g, &capped).size(), 512u) << "result may be NULL";
}

TEST(GraphCapi, VariantsPlacementsAndBits) {
  sa_graph_options o = defaults();
  Graph ve;
  ASSERT_EQ(sa_graph_generate_uniform(1000, 4, 2, &o, &ve.g), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_graph_vertices(ve.g), 1000u);
  EXPECT_EQ(sa_graph_edges(ve.g), 4000u);
  uint64_t ve_total = 0, u_total = 0;
  const std::vector<sa_graph_array_memory> ve_lines = memory_of(ve.g, &ve_total);
  EXPECT_EQ(ve_lines[1].bits, 10u) << "V+E: ids in the bits of n - 1";
  o.variant = SA_GRAPH_U;
  o.placement = "interleaved,redge=os_default";
  o.bits = "edge=24";
  Graph u;
  ASSERT_EQ(sa_graph_generate_uniform(1000, 4, 2, &o, &u.g), SA_OK) << sa_last_error();
  const std::vector<sa_graph_array_memory> lines = memory_of(u.g, &u_total);
  const char* names[] = {"begin", "edge", "rbegin", "redge"};
  const uint32_t bits[] = {64, 24, 64, 32};
  ASSERT_EQ(lines.size(), 4u) << "no out_degree line: out-degrees are derived from begin";
  uint64_t sum = 0;
  for (int i = 0; i < 4; ++i) {
    EXPECT_STREQ(lines[i].name, names[i]);
    EXPECT_EQ(lines[i].bits, bits[i]) << names[i];
    EXPECT_EQ(lines[i].placement, i == 3 ? SA_OS_DEFAULT : SA_INTERLEAVED) << names[i];
    EXPECT_EQ(lines[i].replicas, 1u);
    EXPECT_EQ(lines[i].length, i % 2 == 0 ? 1001u : 4000u) << names[i];
    sum += lines[i].bytes;
  }
  EXPECT_EQ(u_total, sum);
  EXPECT_LT(ve_total, u_total);
  EXPECT_EQ(degrees_of(u.g), degrees_of(ve.g)) << "the same graph in other widths";
  // Out-degrees, derived from 64-bit (U) and 12-bit (V+E) offsets, are the same and sum to m.
  std::vector<uint64_t> u_out(1000), ve_out(1000);
  ASSERT_EQ(sa_graph_out_degrees(u.g, u_out.data(), u_out.size()), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_graph_out_degrees(ve.g, ve_out.data(), ve_out.size()), SA_OK) << sa_last_error();
  EXPECT_EQ(u_out, ve_out);
  EXPECT_EQ(std::accumulate(u_out.begin(), u_out.end(), uint64_t{0}), 4000u);
  EXPECT_EQ(sa_graph_out_degrees(u.g, nullptr, 1000), SA_EINVAL);
  EXPECT_EQ(sa_graph_out_degrees(nullptr, u_out.data(), 1000), SA_EINVAL);
  uint32_t count = 0;
  uint64_t total = 0;
  ASSERT_EQ(sa_graph_memory(u.g, nullptr, 0, &count, &total), SA_OK) << "asking for the count only";
  EXPECT_EQ(count, 4u);
  sa_graph_array_memory first{};
  ASSERT_EQ(sa_graph_memory(u.g, &first, 1, &count, &total), SA_OK);
  EXPECT_STREQ(first.name, "begin");
}

TEST(GraphCapi, ReplicatedArraysOnAFakeTwoNodeTopology) {
  const smartarrays::test::ScopedFakeTopology two("nodes=2");
  sa_graph_options o = defaults();
  o.arrays.placement = SA_REPLICATED;
  Graph g;
  ASSERT_EQ(sa_graph_generate_rmat(8, 4, 1, &o, &g.g), SA_OK) << sa_last_error();
  for (const sa_graph_array_memory& line : memory_of(g.g)) EXPECT_EQ(line.replicas, 2u) << line.name;
  Graph plain;
  ASSERT_EQ(sa_graph_generate_rmat(8, 4, 1, nullptr, &plain.g), SA_OK);
  // A placement for every array leaves PageRank's ranks interleaved (they cannot be replicated).
  const std::vector<double> ranks = ranks_of(g.g, nullptr), expected = ranks_of(plain.g, nullptr);
  for (std::size_t v = 0; v < ranks.size(); ++v) ASSERT_NEAR(ranks[v], expected[v], 1e-15);
  o.placement = "ranks=replicated";
  Graph named;
  ASSERT_EQ(sa_graph_generate_rmat(8, 4, 1, &o, &named.g), SA_OK);
  std::vector<double> out(sa_graph_vertices(named.g));
  expect_failure(sa_graph_pagerank(named.g, nullptr, out.data(), out.size(), nullptr), SA_EINVAL, "sa_graph_pagerank",
                 "cannot be replicated");
}

TEST(GraphCapi, EdgeArraysAndTheirFlags) {
  const uint64_t src[] = {0, 0, 1, 2, 3, 4, 0}, dst[] = {1, 2, 2, 0, 2, 4, 1};
  Graph g;
  ASSERT_EQ(sa_graph_from_edges(src, dst, 7, 6, nullptr, &g.g), SA_OK) << sa_last_error();
  EXPECT_EQ(degrees_of(g.g), (std::vector<uint64_t>{4, 3, 4, 1, 2, 0}));
  sa_graph_options o = defaults();
  o.dedup = 1;
  o.drop_self_loops = 1;
  Graph cleaned;
  ASSERT_EQ(sa_graph_from_edges(src, dst, 7, 0, &o, &cleaned.g), SA_OK);
  EXPECT_EQ(sa_graph_vertices(cleaned.g), 5u) << "the largest id + 1";
  EXPECT_EQ(sa_graph_edges(cleaned.g), 5u);
  o = defaults();
  o.undirected = 1;
  Graph undirected;
  ASSERT_EQ(sa_graph_from_edges(src, dst, 2, 0, &o, &undirected.g), SA_OK);
  EXPECT_EQ(sa_graph_edges(undirected.g), 4u);
  EXPECT_EQ(sa_graph_directed(undirected.g), 0);
  Graph rmat;
  ASSERT_EQ(sa_graph_generate_rmat(6, 2, 1, &o, &rmat.g), SA_OK);
  EXPECT_EQ(sa_graph_directed(rmat.g), 0);
  Graph empty;
  ASSERT_EQ(sa_graph_from_edges(nullptr, nullptr, 0, 0, nullptr, &empty.g), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_graph_vertices(empty.g), 0u);
  EXPECT_EQ(sa_graph_degree_centrality(empty.g, nullptr, 0), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_graph_pagerank(empty.g, nullptr, nullptr, 0, nullptr), SA_OK) << sa_last_error();
}

TEST(GraphCapi, SaveRoundTripsEveryFormat) {
  const smartarrays::test::ScratchDir dir;
  Graph g;
  ASSERT_EQ(sa_graph_load(graph_data("tiny.el").c_str(), nullptr, nullptr, &g.g), SA_OK);
  const std::vector<uint64_t> expected = degrees_of(g.g);
  const std::vector<std::pair<std::string, const char*>> outputs{
      {dir.file("g.sg"), nullptr}, {dir.file("g.mtx"), nullptr}, {dir.file("g.el"), nullptr}, {dir.file("g.bin"), "sg"}};
  for (const auto& [path, format] : outputs) {
    ASSERT_EQ(sa_graph_save(g.g, path.c_str(), format), SA_OK) << sa_last_error();
    Graph back;
    ASSERT_EQ(sa_graph_load(path.c_str(), format, nullptr, &back.g), SA_OK) << sa_last_error();
    EXPECT_EQ(sa_graph_edges(back.g), 7u) << path;
    EXPECT_EQ(degrees_of(back.g), expected) << path;
  }
}

TEST(GraphCapi, BadOptionsAreErrorsNamingThem) {
  const std::string tiny = graph_data("tiny.el");
  sa_graph* made = reinterpret_cast<sa_graph*>(0x1);
  auto load = [&](const sa_graph_options& o) { return sa_graph_load(tiny.c_str(), nullptr, &o, &made); };
  sa_graph_options o = defaults();
  const int32_t bad_variant = 7;
  std::memcpy(&o.variant, &bad_variant, sizeof bad_variant);
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "options->variant 7 is outside 0..2");
  o = defaults();
  const int32_t bad_placement = 9;
  std::memcpy(&o.arrays.placement, &bad_placement, sizeof bad_placement);
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "options->arrays.placement 9 is not an sa_placement");
  o = defaults();
  o.arrays.node_count = 2;
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "options->arrays.nodes (with node_count > 0) is NULL");
  o = defaults();
  o.arrays.bits = 12;
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "options->arrays.bits is 12");
  o = defaults();
  o.placement = "begin=everywhere";
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "unknown placement 'everywhere'");
  o.placement = "nodes=interleaved";
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "unknown array 'nodes'");
  o = defaults();
  o.bits = "edge=65";
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "edge=65");
  o = defaults();
  o.variant = SA_GRAPH_U;
  o.bits = "edge=1";
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "graph array edge");
  o = defaults();
  o.undirected = 1;
  expect_failure(sa_graph_load(tiny.c_str(), "sg", &o, &made), SA_EINVAL, "sa_graph_load", "undirected");
  o = defaults();
  o.arrays.placement = SA_SINGLE_NODE;
  o.arrays.node = 4000;
  expect_failure(load(o), SA_EINVAL, "sa_graph_load", "4000");
  EXPECT_EQ(made, reinterpret_cast<sa_graph*>(0x1)) << "a failed call leaves *out alone";
}

TEST(GraphCapi, BadInputsAreErrorsNamingThem) {
  const smartarrays::test::ScratchDir dir;
  sa_graph* made = reinterpret_cast<sa_graph*>(0x1);
  const std::string tiny = graph_data("tiny.el");
  expect_failure(sa_graph_load(nullptr, nullptr, nullptr, &made), SA_EINVAL, "sa_graph_load", "path is NULL");
  expect_failure(sa_graph_load(tiny.c_str(), nullptr, nullptr, nullptr), SA_EINVAL, "sa_graph_load", "out is NULL");
  expect_failure(sa_graph_load(tiny.c_str(), "xml", nullptr, &made), SA_EINVAL, "sa_graph_load", "unknown graph format 'xml'");
  expect_failure(sa_graph_load("graph.unknown", nullptr, nullptr, &made), SA_EINVAL, "sa_graph_load", "extension");
  expect_failure(sa_graph_load(dir.file("missing.el").c_str(), nullptr, nullptr, &made), SA_EOS, "sa_graph_load",
                 "cannot open");
  const std::string bad = dir.write("bad.el", "0 1\n1 two\n");
  expect_failure(sa_graph_load(bad.c_str(), nullptr, nullptr, &made), SA_EINVAL, "sa_graph_load",
                 "bad.el:2: bad destination vertex id 'two'");
  expect_failure(sa_graph_generate_rmat(0, 16, 1, nullptr, &made), SA_EINVAL, "sa_graph_generate_rmat", "R-MAT scale 0 is outside 1..40");
  expect_failure(sa_graph_generate_rmat(8, 16, 1, nullptr, nullptr), SA_EINVAL, "sa_graph_generate_rmat", "out is NULL");
  expect_failure(sa_graph_generate_uniform(0, 4, 1, nullptr, &made), SA_EINVAL, "sa_graph_generate_uniform", "at least one vertex");
  expect_failure(sa_graph_generate_rmat(8, 0, 1, nullptr, &made), SA_EINVAL, "sa_graph_generate_rmat",
                 "R-MAT edge factor must be >= 1, got 0");
  expect_failure(sa_graph_generate_uniform(10, -1, 1, nullptr, &made), SA_EINVAL, "sa_graph_generate_uniform",
                 "average degree -1 is not >= 0");
  expect_failure(sa_graph_generate_uniform(uint64_t{1} << 40, 2.5, 1, nullptr, &made), SA_ENOMEM,
                 "sa_graph_generate_uniform", "1099511627776 vertices and degree 2.5 has more than 2^40 edges");
  expect_failure(sa_graph_generate_uniform(uint64_t{1} << 36, 8, 1, nullptr, &made), SA_ENOMEM, "sa_graph_generate_uniform",
                 "uniform graph: a graph of 68719476736 vertices and 549755813888 edges needs at least ");
  expect_failure(sa_graph_generate_rmat(36, 8, 1, nullptr, &made), SA_ENOMEM, "sa_graph_generate_rmat",
                 "R-MAT graph: a graph of 68719476736 vertices and 549755813888 edges needs at least ");
  const uint64_t src[] = {0, 5}, dst[] = {1, 2};
  expect_failure(sa_graph_from_edges(nullptr, dst, 2, 0, nullptr, &made), SA_EINVAL, "sa_graph_from_edges",
                 "src (with m > 0) is NULL");
  expect_failure(sa_graph_from_edges(src, nullptr, 2, 0, nullptr, &made), SA_EINVAL, "sa_graph_from_edges",
                 "dst (with m > 0) is NULL");
  expect_failure(sa_graph_from_edges(src, dst, 2, 3, nullptr, &made), SA_EINVAL, "sa_graph_from_edges",
                 "edge 1 (5 -> 2) has a vertex id not below the vertex count 3");
  expect_failure(sa_graph_from_edges(src, dst, 2, 0, nullptr, nullptr), SA_EINVAL, "sa_graph_from_edges", "out is NULL");
  // Vertex counts near 2^64: an error naming the overflow, not a write through empty offsets.
  expect_failure(sa_graph_from_edges(src, dst, 2, UINT64_MAX, nullptr, &made), SA_ENOMEM, "sa_graph_from_edges",
                 "18446744073709551615 + 1 does not fit in 64 bits");
  expect_failure(sa_graph_from_edges(src, dst, 2, uint64_t{1} << 56, nullptr, &made), SA_ENOMEM, "sa_graph_from_edges",
                 "the memory limit is");
  const std::string nodes = dir.write("nodes.el", "# Nodes: 18446744073709551615\n0 1\n");
  expect_failure(sa_graph_load(nodes.c_str(), nullptr, nullptr, &made), SA_EINVAL, "sa_graph_load",
                 "nodes.el:1: 18446744073709551615 vertices declared");
  EXPECT_EQ(made, reinterpret_cast<sa_graph*>(0x1)) << "a failed call leaves *out alone";
}

TEST(GraphCapi, BadCallsOnAGraphAreErrorsNamingThem) {
  const smartarrays::test::ScratchDir dir;
  Graph g;
  ASSERT_EQ(sa_graph_load(graph_data("tiny.el").c_str(), nullptr, nullptr, &g.g), SA_OK);
  EXPECT_EQ(sa_graph_vertices(nullptr), 0u);
  expect_last_error("sa_graph_vertices", "g is NULL");
  EXPECT_EQ(sa_graph_edges(nullptr), 0u);
  expect_last_error("sa_graph_edges", "g is NULL");
  EXPECT_EQ(sa_graph_directed(nullptr), -1);
  expect_last_error("sa_graph_directed", "g is NULL");

  expect_failure(sa_graph_save(nullptr, dir.file("g.el").c_str(), nullptr), SA_EINVAL, "sa_graph_save", "g is NULL");
  expect_failure(sa_graph_save(g.g, nullptr, nullptr), SA_EINVAL, "sa_graph_save", "path is NULL");
  expect_failure(sa_graph_save(g.g, dir.file("g.unknown").c_str(), nullptr), SA_EINVAL, "sa_graph_save", "extension");
  expect_failure(sa_graph_save(g.g, dir.file("g.el").c_str(), "xml"), SA_EINVAL, "sa_graph_save", "'xml'");
  expect_failure(sa_graph_save(g.g, "/nonexistent/dir/g.el", nullptr), SA_EOS, "sa_graph_save", "cannot create");

  uint32_t count = 0;
  uint64_t total = 0;
  sa_graph_array_memory line{};
  expect_failure(sa_graph_memory(nullptr, &line, 1, &count, &total), SA_EINVAL, "sa_graph_memory", "g is NULL");
  expect_failure(sa_graph_memory(g.g, nullptr, 1, &count, &total), SA_EINVAL, "sa_graph_memory", "arrays (with max > 0)");
  expect_failure(sa_graph_memory(g.g, &line, 1, nullptr, &total), SA_EINVAL, "sa_graph_memory", "count is NULL");
  expect_failure(sa_graph_memory(g.g, &line, 1, &count, nullptr), SA_EINVAL, "sa_graph_memory", "total_bytes is NULL");

  std::vector<uint64_t> degrees(6);
  expect_failure(sa_graph_degree_centrality(nullptr, degrees.data(), 6), SA_EINVAL, "sa_graph_degree_centrality",
                 "g is NULL");
  expect_failure(sa_graph_degree_centrality(g.g, degrees.data(), 7), SA_EINVAL, "sa_graph_degree_centrality",
                 "degrees holds 7 values but the graph has 6 vertices");
  expect_failure(sa_graph_degree_centrality(g.g, nullptr, 6), SA_EINVAL, "sa_graph_degree_centrality",
                 "degrees (with n > 0) is NULL");

  std::vector<double> ranks(6);
  sa_pagerank_options o;
  sa_pagerank_options_init(&o);
  expect_failure(sa_graph_pagerank(nullptr, &o, ranks.data(), 6, nullptr), SA_EINVAL, "sa_graph_pagerank", "g is NULL");
  expect_failure(sa_graph_pagerank(g.g, &o, ranks.data(), 5, nullptr), SA_EINVAL, "sa_graph_pagerank",
                 "ranks holds 5 values");
  expect_failure(sa_graph_pagerank(g.g, &o, nullptr, 6, nullptr), SA_EINVAL, "sa_graph_pagerank",
                 "ranks (with n > 0) is NULL");
  o.damping = 1.5;
  expect_failure(sa_graph_pagerank(g.g, &o, ranks.data(), 6, nullptr), SA_EINVAL, "sa_graph_pagerank", "damping");
  sa_pagerank_options_init(&o);
  o.tolerance = -1;
  expect_failure(sa_graph_pagerank(g.g, &o, ranks.data(), 6, nullptr), SA_EINVAL, "sa_graph_pagerank", "tolerance");
  sa_pagerank_options_init(&o);
  const int32_t bad_rule = 5;
  std::memcpy(&o.dangling, &bad_rule, sizeof bad_rule);
  expect_failure(sa_graph_pagerank(g.g, &o, ranks.data(), 6, nullptr), SA_EINVAL, "sa_graph_pagerank",
                 "o->dangling 5 is outside 0..1");
  sa_pagerank_options_init(&o);
  const int32_t bad_scores = 2;
  std::memcpy(&o.scores, &bad_scores, sizeof bad_scores);
  expect_failure(sa_graph_pagerank(g.g, &o, ranks.data(), 6, nullptr), SA_EINVAL, "sa_graph_pagerank",
                 "o->scores 2 is outside 0..1");
  EXPECT_EQ(ranks, std::vector<double>(6, 0.0)) << "failed calls write nothing";

  sa_graph_free(nullptr);
  sa_graph_options_init(nullptr);
  sa_pagerank_options_init(nullptr);
}

}  // namespace
