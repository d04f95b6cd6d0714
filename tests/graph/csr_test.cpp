// Tests of CSR construction and CsrGraph: the arrays of a hand-checked graph, the CSR invariants
// on random graphs, duplicate and self-loop handling, undirected input, thread-count independence,
// the U / V / V+E widths, the memory report and the paper's formula, bad input, and the bounds
// check of arrays that came from outside (offsets and ids a traversal would follow out of them).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "support/array_values.hpp"
#include "support/fake_topology.hpp"
#include "support/graph_fixtures.hpp"

namespace smartarrays::graph {
namespace {

using runtime::PoolOptions;
using runtime::ThreadPool;
using test::array_of;
using test::decode;
using test::DecodedGraph;
using test::values_of;

EdgeList tiny_edges() {
  return {6, {{0, 1}, {0, 2}, {1, 2}, {2, 0}, {3, 2}, {4, 4}, {0, 1}}, true};
}

// The CSR of edges computed the obvious way: sorted (src, dst) pairs.
DecodedGraph reference_csr(const EdgeList& list, bool dedup, bool drop_self_loops) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> fwd, rev;
  for (const Edge& e : list.edges) {
    if (drop_self_loops && e.src == e.dst) continue;
    fwd.emplace_back(e.src, e.dst);
    if (!list.directed && e.src != e.dst) fwd.emplace_back(e.dst, e.src);
  }
  std::sort(fwd.begin(), fwd.end());
  if (dedup) fwd.erase(std::unique(fwd.begin(), fwd.end()), fwd.end());
  for (auto [s, d] : fwd) rev.emplace_back(d, s);
  std::sort(rev.begin(), rev.end());
  DecodedGraph g;
  g.directed = list.directed;
  auto fill = [&](const auto& pairs, std::vector<std::uint64_t>& begin, std::vector<std::uint64_t>& ids) {
    begin.assign(list.vertices + 1, 0);
    for (auto [s, d] : pairs) {
      ++begin[s + 1];
      ids.push_back(d);
    }
    for (std::uint64_t v = 0; v < list.vertices; ++v) begin[v + 1] += begin[v];
  };
  fill(fwd, g.begin, g.edge);
  fill(rev, g.rbegin, g.redge);
  for (std::uint64_t v = 0; v < list.vertices; ++v) g.out_degree.push_back(g.begin[v + 1] - g.begin[v]);
  return g;
}

TEST(BuildCsr, TinyGraphHasTheHandCheckedArrays) {
  const CsrGraph g = build_csr(tiny_edges());
  EXPECT_EQ(g.vertices(), 6u);
  EXPECT_EQ(g.edges(), 7u);
  EXPECT_TRUE(g.directed());
  EXPECT_EQ(decode(g), test::tiny_graph());
  EXPECT_EQ(g.out_neighbours(0), (std::vector<std::uint64_t>{1, 1, 2}));
  EXPECT_EQ(g.in_neighbours(2), (std::vector<std::uint64_t>{0, 1, 3}));
  EXPECT_TRUE(g.out_neighbours(5).empty());
  EXPECT_THROW(g.out_neighbours(6), Error);
  // Degrees are derived from the offsets: 0 -> 1 (twice), 0 -> 2 give vertex 0 out-degree 3.
  EXPECT_EQ(g.out_degree(0), 3u);
  EXPECT_EQ(g.in_degree(2), 3u);
  EXPECT_EQ(g.out_degree(5), 0u);
  EXPECT_EQ(g.in_degree(5), 0u);
  EXPECT_THROW(g.out_degree(6), Error);
  EXPECT_THROW(g.in_degree(~std::uint64_t{0}), Error);
  g.validate();
}

TEST(BuildCsr, AListGivenUpIsFreedAndBuildsTheSameGraph) {
  for (const bool directed : {true, false}) {
    SCOPED_TRACE(directed ? "directed" : "undirected");
    EdgeList kept = tiny_edges();
    kept.directed = directed;
    EdgeList given = kept;
    const CsrGraph from_copy = build_csr(kept);
    const CsrGraph from_moved = build_csr(std::move(given));
    EXPECT_EQ(decode(from_moved), decode(from_copy));
    // NOLINTNEXTLINE(bugprone-use-after-move): the given-up list's state is specified
    EXPECT_EQ(given.edges.capacity(), 0u) << "the edges are freed once placed";
    EXPECT_EQ(given.vertices, 6u);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(kept.edges.size(), 7u) << "a list passed by reference is left as it was";
    from_moved.validate();
  }
}

TEST(BuildCsr, DedupAndSelfLoopFlags) {
  for (bool dedup : {false, true}) {
    for (bool drop : {false, true}) {
      SCOPED_TRACE(::testing::Message() << "dedup " << dedup << " drop self-loops " << drop);
      BuildOptions options;
      options.dedup = dedup;
      options.drop_self_loops = drop;
      const CsrGraph g = build_csr(tiny_edges(), options);
      EXPECT_EQ(decode(g), reference_csr(tiny_edges(), dedup, drop));
      EXPECT_EQ(g.edges(), 7u - (dedup ? 1 : 0) - (drop ? 1 : 0));
      g.validate();
    }
  }
}

TEST(BuildCsr, FromCsrPartsSortsFiltersAndTransposes) {
  CsrParts parts{{0, 3, 4, 5, 6, 7, 7}, {2, 1, 1, 2, 0, 2, 4}};
  const CsrGraph kept = build_csr(parts, true);
  EXPECT_EQ(decode(kept), test::tiny_graph());
  BuildOptions options;
  options.dedup = true;
  options.drop_self_loops = true;
  EXPECT_EQ(decode(build_csr(parts, true, options)), reference_csr(tiny_edges(), true, true));
}

TEST(BuildCsr, UndirectedListStoresBothDirections) {
  const EdgeList list{4, {{0, 1}, {1, 2}, {2, 0}, {2, 3}, {3, 3}}, false};
  const CsrGraph g = build_csr(list);
  EXPECT_FALSE(g.directed());
  EXPECT_EQ(g.edges(), 9u);  // four edges both ways, the self-loop once
  EXPECT_EQ(values_of(g.edge()), values_of(g.redge()));
  EXPECT_EQ(values_of(g.begin()), values_of(g.rbegin()));
  EXPECT_EQ(decode(g), reference_csr(list, false, false));
  g.validate();
  // One CSR serves both directions: the reverse arrays are the forward ones, not copies.
  EXPECT_TRUE(g.shares_reverse());
  EXPECT_EQ(&g.rbegin(), &g.begin());
  EXPECT_EQ(&g.redge(), &g.edge());
  const MemoryReport report = g.memory_report();
  ASSERT_EQ(report.arrays.size(), graph_array_count);
  EXPECT_EQ(report.arrays[2].name, "rbegin");
  EXPECT_EQ(report.arrays[2].shared_with, "begin");
  EXPECT_EQ(report.arrays[2].bytes, 0u);
  EXPECT_EQ(report.arrays[3].shared_with, "edge");
  EXPECT_EQ(report.arrays[3].bytes, 0u);
  // No out_degree array: the one CSR is all the graph's memory, as in GAP.
  EXPECT_EQ(report.total_bytes, g.begin().memory_bytes() + g.edge().memory_bytes());
  // Converting back names every undirected edge once and rebuilds the same graph.
  const EdgeList back = to_edge_list(g);
  EXPECT_FALSE(back.directed);
  EXPECT_EQ(back.edges.size(), 5u);
  EXPECT_EQ(decode(build_csr(back)), decode(g));
}

TEST(BuildCsr, UndirectedCsrPartsShareOneCsrAndDirectedOnesDoNot) {
  CsrParts symmetric{{0, 1, 3, 4}, {1, 0, 2, 1}};
  const CsrGraph undirected = build_csr(symmetric, false);
  EXPECT_TRUE(undirected.shares_reverse());
  undirected.validate();
  const CsrGraph directed = build_csr(symmetric, true);
  EXPECT_FALSE(directed.shares_reverse());
  EXPECT_NE(&directed.rbegin(), &directed.begin());
  EXPECT_EQ(directed.memory_report().arrays[2].shared_with, "");
}

TEST(CsrGraph, ValidateRefusesASharedCsrThatIsNotSymmetric) {
  // 0 -> 1 without 1 -> 0: one CSR cannot serve as its own reverse.
  const CsrGraph g(SmartArray::from_values(std::vector<std::uint64_t>{0, 1, 1}, {}),
                   SmartArray::from_values(std::vector<std::uint64_t>{1}, {}));
  EXPECT_FALSE(g.directed());
  try {
    g.validate();
    FAIL() << "validate accepted an asymmetric shared CSR";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("not symmetric"), std::string::npos) << e.what();
  }
}

// What check_bounds says of a graph: "" when it finds nothing.
std::string bounds_error(const CsrGraph& g, runtime::ThreadPool& pool = runtime::default_pool()) {
  try {
    g.check_bounds(pool);
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    return e.what();
  }
  return "";
}

CsrGraph directed(const std::vector<std::uint64_t>& begin, const std::vector<std::uint64_t>& edge,
                  const std::vector<std::uint64_t>& rbegin, const std::vector<std::uint64_t>& redge) {
  return CsrGraph({array_of(begin, 64), array_of(edge, 32), array_of(rbegin, 64), array_of(redge, 32)}, true);
}

TEST(CsrGraph, CheckBoundsFindsOffsetsAndIdsThatLeadOutOfTheArrays) {
  // 0 -> 1, 1 -> 2, 2 -> 0 and its transpose.
  EXPECT_EQ(bounds_error(directed({0, 1, 2, 3}, {1, 2, 0}, {0, 1, 2, 3}, {2, 0, 1})), "");
  EXPECT_EQ(bounds_error(directed({0, 1, 2, 3}, {4294967295u, 2147483648u, 3000000000u}, {0, 1, 2, 3}, {2, 0, 1})),
            "CSR bounds: neighbour id edge[0] = 4294967295 is not below the vertex count 3");
  EXPECT_EQ(bounds_error(directed({0, 1, 2, 3}, {1, 2, 0}, {0, 1, 2, 3}, {2, 0, 3})),
            "CSR bounds: neighbour id redge[2] = 3 is not below the vertex count 3");
  EXPECT_EQ(bounds_error(directed({0, 2, 1, 3}, {1, 2, 0}, {0, 1, 2, 3}, {2, 0, 1})), "CSR bounds: begin[2] = 1 is below begin[1] = 2");
  EXPECT_EQ(bounds_error(directed({0, 1, 2, 3}, {1, 2, 0}, {1, 1, 2, 3}, {2, 0, 1})), "CSR bounds: rbegin[0] is 1, not 0");
  EXPECT_EQ(bounds_error(directed({0, 9223372036854775809u, 3, 3}, {1, 2, 0}, {0, 1, 2, 3}, {2, 0, 1})),
            "CSR bounds: begin[1] = 9223372036854775809 is past the edge count 3");
  EXPECT_EQ(bounds_error(CsrGraph({array_of({0, 1, 2, 3}), array_of({1, 2, 0}, 64), array_of({0, 1, 2, 3}),
                                   array_of({2, 0, 18446744073709551615u}, 64)},
                                  true)),
            "CSR bounds: neighbour id redge[2] = 18446744073709551615 is not below the vertex count 3");
  // 2-bit ids of 4 vertices cannot leave the vertices; 2-bit ids of 3 can.
  EXPECT_EQ(bounds_error(CsrGraph({array_of({0, 1, 2, 3, 3}), array_of({3, 2, 0}, 2), array_of({0, 1, 1, 2, 3}),
                                   array_of({2, 1, 0}, 2)},
                                  true)),
            "");
  EXPECT_EQ(bounds_error(CsrGraph({array_of({0, 1, 2, 3}), array_of({1, 2, 0}, 2), array_of({0, 1, 2, 3}), array_of({2, 0, 3}, 2)},
                                  true)),
            "CSR bounds: neighbour id redge[2] = 3 is not below the vertex count 3");
  // Lists out of order or a reverse that is not the transpose change results, not where reads go: validate()'s.
  EXPECT_EQ(bounds_error(directed({0, 1, 2, 3}, {1, 2, 0}, {0, 1, 2, 3}, {1, 1, 1})), "");
  // A shared CSR is one CSR.
  EXPECT_EQ(bounds_error(CsrGraph(array_of({0, 1, 2}), array_of({1, 5}))),
            "CSR bounds: neighbour id edge[1] = 5 is not below the vertex count 2");
  // The first bad position is named, wherever the parallel blocks found them: a star of 2 vertices
  // whose 100,000 edges to vertex 1 hold 2 at position 70,000 and 7 at 90,000.
  std::vector<std::uint64_t> ids(100'000, 1);
  ids[70'000] = 2;
  ids[90'000] = 7;
  const CsrGraph star({array_of({0, 100'000, 100'000}), array_of(ids), array_of({0, 0, 100'000}),
                       array_of(std::vector<std::uint64_t>(100'000, 0))},
                      true);
  ThreadPool pool(PoolOptions{.threads = 3});
  EXPECT_EQ(bounds_error(star, pool), "CSR bounds: neighbour id edge[70000] = 2 is not below the vertex count 2");
  EXPECT_EQ(bounds_error(build_csr(generate_rmat({.scale = 12, .edge_factor = 8}))), "");
}

TEST(BuildCsr, RandomGraphsSatisfyTheInvariantsForEveryThreadCount) {
  UniformOptions u;
  u.vertices = 3000;
  u.average_degree = 7.5;
  u.seed = 5;
  EdgeList list = generate_uniform(u);
  list.edges.push_back({7, 7});
  list.edges.push_back(list.edges[10]);
  BuildOptions options;
  options.dedup = true;
  const DecodedGraph expected = reference_csr(list, true, false);
  for (std::size_t threads : {1u, 2u, 3u}) {
    SCOPED_TRACE(::testing::Message() << threads << " threads");
    ThreadPool pool(PoolOptions{.threads = threads});
    const CsrGraph g = build_csr(list, options, pool);
    g.validate();
    EXPECT_EQ(decode(g), expected);
  }
}

TEST(BuildCsr, EveryPlacementOnAFakeTwoNodeTopology) {
  test::ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  RmatOptions r;
  r.scale = 10;
  r.edge_factor = 8;
  const EdgeList list = generate_rmat(r, pool);
  const DecodedGraph expected = reference_csr(list, false, false);
  for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated,
                      Placement::partitioned}) {
    SCOPED_TRACE(to_string(p));
    ArrayOptions placement;
    placement.placement = p;
    placement.node = p == Placement::single_node ? 1 : 0;
    BuildOptions options;
    options.layout = GraphLayout::for_variant(Variant::VE, placement);
    const CsrGraph g = build_csr(list, options, pool);
    EXPECT_EQ(g.begin().placement(), p);
    EXPECT_EQ(g.redge().replicas(), p == Placement::replicated ? 2u : 1u);
    for (std::size_t r2 = 0; r2 < g.edge().replicas(); ++r2) {
      const std::uint64_t* words = g.edge().replica(r2);
      EXPECT_TRUE(std::equal(words, words + g.edge().words_per_replica(), g.edge().replica(0)));
    }
    EXPECT_EQ(decode(g), expected);
    g.validate();
  }
}

TEST(GraphLayout, VariantsPickThePapersWidths) {
  RmatOptions r;
  r.scale = 12;
  const EdgeList list = generate_rmat(r);
  BuildOptions u, v, ve;
  u.layout = GraphLayout::for_variant(Variant::U);
  v.layout = GraphLayout::for_variant(Variant::V);
  ve.layout = GraphLayout::for_variant(Variant::VE);
  const CsrGraph gu = build_csr(list, u), gv = build_csr(list, v), gve = build_csr(list, ve);
  EXPECT_EQ(decode(gu), decode(gv));
  EXPECT_EQ(decode(gu), decode(gve));
  EXPECT_EQ(gu.begin().bits(), 64u);
  EXPECT_EQ(gu.edge().bits(), 32u);
  EXPECT_EQ(gu.variant(), Variant::U);
  const unsigned offset_bits = codec::min_bits(gu.edges());
  EXPECT_EQ(gv.begin().bits(), offset_bits);
  EXPECT_EQ(gv.rbegin().bits(), offset_bits);
  EXPECT_EQ(gv.edge().bits(), 32u);
  EXPECT_EQ(gv.variant(), Variant::V);
  EXPECT_EQ(gve.edge().bits(), 12u);  // ids 0..4095
  EXPECT_EQ(gve.redge().bits(), 12u);
  EXPECT_EQ(gve.variant(), Variant::VE);
  // The memory report lists the four arrays and adds them up; compression shrinks it.
  // U's graph is exactly GAP's arrays: 64-bit offsets and 32-bit ids, both directions.
  const MemoryReport mu = gu.memory_report(), mve = gve.memory_report();
  ASSERT_EQ(mu.arrays.size(), graph_array_count);
  EXPECT_EQ(mu.arrays[0].name, "begin");
  EXPECT_EQ(mu.arrays[3].name, "redge");
  EXPECT_EQ(mu.total_bytes, gu.begin().memory_bytes() + gu.edge().memory_bytes() + gu.rbegin().memory_bytes() +
                                gu.redge().memory_bytes());
  std::uint64_t sum = 0;
  for (const ArrayMemory& a : mu.arrays) sum += a.bytes;
  EXPECT_EQ(sum, mu.total_bytes);
  EXPECT_EQ(mu.arrays[1].name, "edge");
  EXPECT_EQ(mu.arrays[1].bits, 32u);
  EXPECT_EQ(mu.arrays[1].bytes, gu.edge().memory_bytes());
  EXPECT_LT(mve.total_bytes, mu.total_bytes);

  // The paper's formula, by hand: 2*64*V + 2*32*E + 64*V for U (no degree array: 0 bits of it).
  const double n = static_cast<double>(gu.vertices()), m = static_cast<double>(gu.edges());
  EXPECT_DOUBLE_EQ(gu.paper_memory_bits(), 2 * 64 * n + 2 * 32 * m + 64 * n);
  EXPECT_DOUBLE_EQ(paper_memory_bits(gu.vertices(), gu.edges(), 64, 32, 64), 2 * 64 * n + 2 * 32 * m + 64 * n + 64 * n);
  EXPECT_DOUBLE_EQ(gu.paper_saving(), 0.0);
  const double ve_bits = 2.0 * offset_bits * n + 2 * 12 * m + 64 * n;
  EXPECT_DOUBLE_EQ(gve.paper_memory_bits(), ve_bits);
  EXPECT_DOUBLE_EQ(gve.paper_saving(), 1 - ve_bits / gu.paper_memory_bits());
  EXPECT_GT(gve.paper_saving(), gv.paper_saving());
}

TEST(CsrGraph, OutDegreesAreDerivedFromBeginAtEveryOffsetWidth) {
  RmatOptions r;
  r.scale = 12;
  r.edge_factor = 5;
  const EdgeList list = generate_rmat(r);
  const DecodedGraph expected = reference_csr(list, false, false);  // degrees counted from the edge list
  const unsigned narrowest = codec::min_bits(list.edges.size());
  for (unsigned bits = narrowest; bits <= 64; ++bits) {
    SCOPED_TRACE(bits);
    BuildOptions options;
    options.layout = GraphLayout::for_variant(Variant::VE);
    options.layout[GraphArray::begin].bits = bits;
    const CsrGraph g = build_csr(list, options);
    ASSERT_EQ(g.begin().bits(), bits);
    // n + 1 = 4097 offsets: the last chunk holds one value; the parallel blocks cross chunks.
    std::vector<std::uint64_t> degrees(g.vertices());
    g.out_degrees(degrees);
    ASSERT_EQ(degrees, expected.out_degree);
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{63}, std::uint64_t{64}, g.vertices() - 1}) {
      ASSERT_EQ(g.out_degree(v), expected.out_degree[v]) << v;
    }
  }
  const CsrGraph g = build_csr(list);
  std::vector<std::uint64_t> short_buffer(g.vertices() - 1);
  test::expect_error([&] { g.out_degrees(short_buffer); }, {"out_degrees: the buffer holds 4095 values for 4096 vertices"});
}

TEST(GraphLayout, NamesRoundTrip) {
  for (Variant v : {Variant::U, Variant::V, Variant::VE}) EXPECT_EQ(parse_variant(to_string(v)), v);
  EXPECT_EQ(parse_variant("VE"), Variant::VE);
  EXPECT_THROW(parse_variant("W"), Error);
  for (std::size_t i = 0; i < graph_array_count; ++i) {
    const auto a = static_cast<GraphArray>(i);
    EXPECT_EQ(parse_graph_array(to_string(a)), a);
  }
  EXPECT_THROW(parse_graph_array("edges"), Error);
  // The paper's out_degree property is derived now: naming it says so.
  test::expect_error([] { parse_graph_array("out_degree"); }, {"\"out_degree\" is no longer stored", "derived from begin"});
}

TEST(BuildCsr, BadInputIsAnErrorNamingIt) {
  EdgeList list{3, {{0, 1}, {1, 3}}, true};
  try {
    build_csr(list);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("edge 1 (1 -> 3)"), std::string::npos) << e.what();
  }
  // Forced widths too narrow for the data name the array.
  BuildOptions narrow;
  narrow.layout[GraphArray::edge].bits = 1;
  try {
    build_csr(EdgeList{3, {{0, 2}}, true}, narrow);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("graph array edge"), std::string::npos) << e.what();
  }
  CsrParts decreasing{{0, 2, 1, 2}, {0, 1}};
  EXPECT_THROW(build_csr(decreasing, true), Error);
  CsrParts out_of_range{{0, 1, 2}, {0, 2}};
  EXPECT_THROW(build_csr(out_of_range, true), Error);
  CsrParts no_offsets{{}, {}};
  EXPECT_THROW(build_csr(no_offsets, true), Error);
  // Too many vertices for memory: a library error, not std::length_error or std::bad_alloc.
  try {
    build_csr(EdgeList{std::uint64_t{1} << 62, {}, true});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_memory) << e.what();
  }
}

TEST(BuildCsr, EmptyGraphs) {
  const CsrGraph none = build_csr(EdgeList{0, {}, true});
  EXPECT_EQ(none.vertices(), 0u);
  EXPECT_EQ(none.edges(), 0u);
  none.validate();
  const CsrGraph isolated = build_csr(EdgeList{5, {}, true});
  EXPECT_EQ(values_of(isolated.begin()), std::vector<std::uint64_t>(6, 0));
  isolated.validate();
}

}  // namespace
}  // namespace smartarrays::graph
