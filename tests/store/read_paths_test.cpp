// Tests that every array read path works on mapped (and received) arrays exactly as on arrays in
// memory: typed views and visit(), chunk unpacking, range decodes, sums, the iterator from any
// start, aggregation, and degree centrality and PageRank on a mapped graph of every variant.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/algo/degree_centrality.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/store/store.hpp"
#include "store_support.hpp"

namespace smartarrays {
namespace {

using store::Mode;
using store::Store;

TEST(MappedReadPaths, ViewsUnpackDecodeSumIteratorAndAggregation) {
  test::ScratchFile file("read-paths");
  ArrayOptions seventeen;
  seventeen.bits = 17;
  ArrayOptions five;
  five.bits = 5;
  const SmartArray a = algo::make_aggregation_array(10'007, seventeen, 3);
  const SmartArray b = algo::make_aggregation_array(10'007, five, 4);
  Store::write(file.path(), {{"a", a}, {"b", b}});
  const Store store = Store::open(file.path(), Mode::map);
  const SmartArray& ma = store.array("a");
  const SmartArray& mb = store.array("b");
  ASSERT_TRUE(ma.read_only());
  const BitsView<17> view = ma.view<17>();
  const BitsView<17> original = a.view<17>();
  for (std::uint64_t i = 0; i < a.length(); i += 97) EXPECT_EQ(view[i], original[i]) << i;
  EXPECT_EQ(view.at(a.length() - 1), original.at(a.length() - 1));  // the last value reads the padding word
  EXPECT_THROW(static_cast<void>(ma.view<16>()), Error);
  const std::uint64_t visited = ma.visit([](auto v) {
    std::uint64_t s = 0;
    for (std::uint64_t i = 0; i < v.length(); ++i) s += v[i];
    return s;
  });
  EXPECT_EQ(visited, a.sum());
  std::uint64_t mapped_chunk[64], memory_chunk[64];
  const std::uint64_t last = (a.length() - 1) / 64;
  ma.unpack(last, mapped_chunk);
  a.unpack(last, memory_chunk);
  EXPECT_EQ(std::vector<std::uint64_t>(mapped_chunk, mapped_chunk + 64), std::vector<std::uint64_t>(memory_chunk, memory_chunk + 64));
  std::vector<std::uint64_t> mapped_range(1000), memory_range(1000);
  ma.decode(4321, 1000, mapped_range.data());
  a.decode(4321, 1000, memory_range.data());
  EXPECT_EQ(mapped_range, memory_range);
  EXPECT_THROW(ma.decode(a.length() - 5, 10, mapped_range.data()), Error);
  EXPECT_EQ(ma.sum(), a.sum());
  EXPECT_EQ(mb.sum(), b.sum());
  std::uint64_t i = 4000;
  for (auto it = ma.iterate(4000); it != ma.end(); ++it, ++i) ASSERT_EQ(*it, a.get(i)) << i;
  EXPECT_EQ(algo::aggregate(ma, mb), algo::aggregate(a, b));
  EXPECT_EQ(algo::aggregate(ma, b), algo::aggregate(a, mb));
}

TEST(MappedReadPaths, AnalyticsOnMappedGraphsOfEveryVariant) {
  test::ScratchFile file("read-paths-graphs");
  const graph::EdgeList edges = graph::generate_rmat({.scale = 10, .edge_factor = 8});
  std::vector<graph::CsrGraph> graphs;
  for (graph::Variant v : {graph::Variant::U, graph::Variant::V, graph::Variant::VE}) {
    graphs.push_back(graph::build_csr(edges, {.layout = graph::GraphLayout::for_variant(v)}));
  }
  Store::write(file.path(), {{"U", graphs[0]}, {"V", graphs[1]}, {"VE", graphs[2]}});
  const Store store = Store::open(file.path(), Mode::map);
  const char* names[] = {"U", "V", "VE"};
  for (std::size_t k = 0; k < graphs.size(); ++k) {
    SCOPED_TRACE(names[k]);
    const graph::CsrGraph& mapped = store.graph(names[k]);
    const graph::CsrGraph& memory = graphs[k];
    EXPECT_EQ(mapped.variant(), memory.variant());
    const SmartArray dm = algo::degree_centrality(mapped.begin(), mapped.rbegin(), ArrayOptions{});
    const SmartArray dc = algo::degree_centrality(memory.begin(), memory.rbegin(), ArrayOptions{});
    EXPECT_EQ(dm.sum(), dc.sum());
    const algo::PageRankResult pm = algo::pagerank(mapped.rbegin(), mapped.redge(), mapped.begin());
    const algo::PageRankResult pc = algo::pagerank(memory.rbegin(), memory.redge(), memory.begin());
    EXPECT_EQ(pm.iterations, pc.iterations);
    for (std::uint64_t v = 0; v < memory.vertices(); ++v) ASSERT_EQ(pm.ranks.get(v), pc.ranks.get(v)) << v;
    EXPECT_EQ(mapped.degree_stats().max_in_degree, memory.degree_stats().max_in_degree);
    EXPECT_EQ(mapped.out_neighbours(7), memory.out_neighbours(7));
    EXPECT_EQ(mapped.in_neighbours(7), memory.in_neighbours(7));
  }
}

}  // namespace
}  // namespace smartarrays
