// Tests of degree centrality: every vertex's out+in degree against counts from the raw edge list,
// degree sums equal to twice the edge count, every variant and placement on a fake two-node
// topology, output widths, refilling an existing array, top-k, and bad arguments.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/codec/bitpack.hpp"
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

std::vector<std::uint64_t> reference_degrees(const EdgeList& list) {
  std::vector<std::uint64_t> deg(list.vertices, 0);
  for (const graph::Edge& e : list.edges) {
    ++deg[e.src];
    ++deg[e.dst];
  }
  return deg;
}

TEST(DegreeCentrality, MatchesEdgeCountsForEveryVariantAndPlacement) {
  test::ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  graph::RmatOptions r;
  r.scale = 12;
  r.edge_factor = 6;
  const EdgeList list = graph::generate_rmat(r, pool);
  const std::vector<std::uint64_t> expected = reference_degrees(list);
  for (Variant variant : {Variant::U, Variant::V, Variant::VE}) {
    for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated,
                        Placement::partitioned}) {
      SCOPED_TRACE(::testing::Message() << to_string(variant) << ", " << to_string(p));
      ArrayOptions placement;
      placement.placement = p;
      placement.node = p == Placement::single_node ? 1 : 0;
      BuildOptions build;
      build.layout = GraphLayout::for_variant(variant, placement);
      const CsrGraph g = graph::build_csr(list, build, pool);
      const SmartArray deg = degree_centrality(g.begin(), g.rbegin(), placement, pool);
      EXPECT_EQ(deg.bits(), codec::min_bits(2 * g.edges()));
      EXPECT_EQ(deg.placement(), p);
      const std::vector<std::uint64_t> got = test::values_of(deg);
      EXPECT_EQ(got, expected);
      EXPECT_EQ(std::accumulate(got.begin(), got.end(), std::uint64_t{0}), 2 * g.edges());
    }
  }
}

TEST(DegreeCentrality, AnUndirectedGraphsSharedOffsetsCountEachEdgeBothWays) {
  ThreadPool pool(PoolOptions{.threads = 2});
  graph::UniformOptions u;
  u.vertices = 5000;
  u.average_degree = 5;
  EdgeList list = graph::generate_uniform(u, pool);
  list.directed = false;
  for (Variant variant : {Variant::U, Variant::V, Variant::VE}) {
    BuildOptions build;
    build.layout = GraphLayout::for_variant(variant);
    const CsrGraph g = graph::build_csr(list, build, pool);
    ASSERT_TRUE(g.shares_reverse());
    const SmartArray degrees = degree_centrality(g.begin(), g.rbegin(), {}, pool);
    for (std::uint64_t v = 0; v < g.vertices(); ++v) {
      ASSERT_EQ(degrees.get(v), g.out_neighbours(v).size() + g.in_neighbours(v).size()) << graph::to_string(variant) << " " << v;
    }
  }
}

TEST(DegreeCentrality, FillsAnExistingArrayAndChecksIt) {
  ThreadPool pool(PoolOptions{.threads = 2});
  const EdgeList list = graph::generate_uniform({.vertices = 777, .average_degree = 3, .seed = 4}, pool);
  const CsrGraph g = graph::build_csr(list, {}, pool);
  ArrayOptions wide;
  wide.bits = 64;
  SmartArray out = SmartArray::allocate(g.vertices(), wide);
  degree_centrality(g.begin(), g.rbegin(), out, pool);
  EXPECT_EQ(test::values_of(out), reference_degrees(list));
  // Too narrow for the degrees: the error names the value.
  ArrayOptions narrow;
  narrow.bits = 2;
  SmartArray small = SmartArray::allocate(g.vertices(), narrow);
  EXPECT_THROW(degree_centrality(g.begin(), g.rbegin(), small, pool), Error);
  SmartArray wrong = SmartArray::allocate(g.vertices() + 1, wide);
  EXPECT_THROW(degree_centrality(g.begin(), g.rbegin(), wrong, pool), Error);
}

// The degrees array is named when it cannot be mapped; an empty hugetlb pool refuses it here.
TEST(DegreeCentrality, ADegreesArrayThatCannotBeMappedIsNamed) {
  if (!test::hugetlb_2m_pool_is_empty()) GTEST_SKIP() << "the 2 MiB hugetlb pool is missing or has pages: nothing fails";
  ThreadPool pool(PoolOptions{.threads = 1});
  const CsrGraph g = graph::build_csr(EdgeList{3, {{0, 1}}, true}, {}, pool);
  ArrayOptions output;
  output.huge_pages = HugePages::pages_2m;
  EXPECT_EQ(test::expect_error([&] { degree_centrality(g.begin(), g.rbegin(), output, pool); },
                               {"degree_centrality array degrees of 3 values: cannot map 2 MiB"}),
            ErrorCode::out_of_memory);
}

TEST(DegreeCentrality, TopK) {
  ThreadPool pool(PoolOptions{.threads = 1});
  // Degrees: 0:3, 1:2, 2:3, 3:2, 4:0 -> ties broken by the smaller id.
  const CsrGraph g = graph::build_csr(EdgeList{5, {{0, 1}, {0, 2}, {2, 3}, {3, 0}, {1, 2}}, true}, {}, pool);
  const SmartArray deg = degree_centrality(g.begin(), g.rbegin(), ArrayOptions{}, pool);
  using P = std::pair<std::uint64_t, std::uint64_t>;
  EXPECT_EQ(top_k(deg, 3), (std::vector<P>{{0, 3}, {2, 3}, {1, 2}}));
  EXPECT_EQ(top_k(deg, 10).size(), 5u);
  EXPECT_TRUE(top_k(deg, 0).empty());
}

}  // namespace
}  // namespace smartarrays::algo
