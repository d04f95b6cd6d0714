// Tests that the algorithms' loops over partitioned inputs follow the inputs' stripes (one runtime
// mechanism, runtime::LoopOptions::layout): on fake 2- and 4-node topologies with one worker per node,
// every part of the traced loops lies in its node's stripe and every worker ran its own stripe's
// batches before stealing; the results stay exact.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "support/fake_topology.hpp"
#include "support/loop_trace_expect.hpp"

namespace smartarrays::algo {
namespace {

using runtime::LoopTrace;
using runtime::PoolOptions;
using runtime::ThreadPool;
using test::expect_local_first;
using test::node_at;

ArrayOptions partitioned(unsigned bits = 0) {
  ArrayOptions options;
  options.placement = Placement::partitioned;
  options.bits = bits;
  return options;
}

class PartitionAware : public ::testing::TestWithParam<int> {};

TEST_P(PartitionAware, AggregationRunsEachStripeOnItsNode) {
  const int nodes = GetParam();
  test::ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
  ThreadPool pool(PoolOptions{.threads = static_cast<std::size_t>(nodes)});
  for (unsigned bits : {1u, 7u, 32u, 64u}) {
    SCOPED_TRACE(::testing::Message() << bits << " bits");
    const std::uint64_t length = 64 * 5000 + 17;  // a partial last chunk
    const SmartArray a1 = make_aggregation_array(length, partitioned(bits), 1, pool);
    const SmartArray a2 = make_aggregation_array(length, partitioned(bits), 2, pool);
    ASSERT_EQ(a1.partitions().size(), static_cast<std::size_t>(nodes));
    LoopTrace trace;
    pool.trace(&trace);
    const std::uint64_t sum = aggregate(a1, a2, pool, 256);
    pool.trace(nullptr);
    std::uint64_t expected = 0;
    for (std::uint64_t i = 0; i < length; ++i) expected += a1.get(i) + a2.get(i);
    EXPECT_EQ(sum, expected);
    ASSERT_EQ(trace.loops.size(), 1u);
    const auto stripes = a1.partitions();
    EXPECT_EQ(expect_local_first(trace.loops[0], [&](std::uint64_t i) { return node_at(stripes, i); }),
              static_cast<std::size_t>(nodes));
  }
}

TEST_P(PartitionAware, DegreeCentralityRunsEachStripeOfBeginOnItsNode) {
  const int nodes = GetParam();
  test::ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
  ThreadPool pool(PoolOptions{.threads = static_cast<std::size_t>(nodes)});
  graph::RmatOptions rmat;
  rmat.scale = 14;
  rmat.edge_factor = 4;
  graph::BuildOptions build;
  build.layout = graph::GraphLayout::for_variant(graph::Variant::V, partitioned());
  const graph::CsrGraph g = graph::build_csr(graph::generate_rmat(rmat), build, pool);
  const auto stripes = g.begin().partitions();
  ASSERT_EQ(stripes.size(), static_cast<std::size_t>(nodes));
  // Into an unpartitioned output (packed in place) and a partitioned one (the parallel builder).
  for (Placement out : {Placement::os_default, Placement::partitioned}) {
    SCOPED_TRACE(to_string(out));
    ArrayOptions output;
    output.placement = out;
    LoopTrace trace;
    pool.trace(&trace);
    const SmartArray degrees = degree_centrality(g.begin(), g.rbegin(), output, pool);
    pool.trace(nullptr);
    for (std::uint64_t v = 0; v < g.vertices(); v += 97) {
      EXPECT_EQ(degrees.get(v), g.begin().get(v + 1) - g.begin().get(v) + g.rbegin().get(v + 1) - g.rbegin().get(v));
    }
    ASSERT_EQ(trace.loops.size(), 1u);
    EXPECT_EQ(expect_local_first(trace.loops[0], [&](std::uint64_t v) { return node_at(stripes, v); }),
              static_cast<std::size_t>(nodes));
  }
}

TEST_P(PartitionAware, PageRankRunsEachVertexWhereItsInEdgesAre) {
  const int nodes = GetParam();
  test::ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
  ThreadPool pool(PoolOptions{.threads = static_cast<std::size_t>(nodes)});
  graph::RmatOptions rmat;
  rmat.scale = 13;
  rmat.edge_factor = 8;
  graph::BuildOptions build;
  build.layout = graph::GraphLayout::for_variant(graph::Variant::U, partitioned());
  const graph::CsrGraph g = graph::build_csr(graph::generate_rmat(rmat), build, pool);
  const auto edge_stripes = g.redge().partitions();
  ASSERT_EQ(edge_stripes.size(), static_cast<std::size_t>(nodes));
  // Vertex v is read where its first in-edge lies; a cut between stripes falls on the chunk grid
  // (rounded down), so the vertices just below a cut run with the next stripe.
  std::vector<std::uint64_t> cuts;  // first vertex of each stripe after the first, rounded down to 64
  for (std::size_t k = 1; k < edge_stripes.size(); ++k) {
    std::uint64_t v = 0;
    while (v < g.vertices() && g.rbegin().get(v) < edge_stripes[k].begin) ++v;
    cuts.push_back(v / 64 * 64);
  }
  const auto vertex_node = [&](std::uint64_t v) {
    std::size_t k = 0;
    while (k < cuts.size() && v >= cuts[k]) ++k;
    return edge_stripes[k].node;
  };
  PageRankOptions options;
  options.max_iterations = 5;
  options.tolerance = 0;
  LoopTrace trace;
  pool.trace(&trace);
  const PageRankResult result = pagerank(g.rbegin(), g.redge(), g.begin(), options, pool);
  pool.trace(nullptr);
  EXPECT_EQ(result.iterations, 5u);
  // The rank fill and every iteration's pull and share follow the in-edges' layout.
  std::size_t following = 0;
  for (const LoopTrace::Traced& loop : trace.loops) {
    if (expect_local_first(loop, vertex_node) == loop.parts.size()) ++following;
  }
  EXPECT_GE(following, 2u * 5);
}

INSTANTIATE_TEST_SUITE_P(FakeNodes, PartitionAware, ::testing::Values(2, 4),
                         [](const ::testing::TestParamInfo<int>& param) { return std::to_string(param.param) + "nodes"; });

}  // namespace
}  // namespace smartarrays::algo
