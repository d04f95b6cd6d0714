// Owns the tests of SmartArray placement: every placement on fake 2- and 4-node topologies (replica
// count, per-thread replica selection, writes reaching every replica, partitions), memory accounting,
// and the pages-per-node report on this machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "array/replica_table.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/os/topology.hpp"
#include "support/fake_topology.hpp"
#include "support/page_counts.hpp"
#include "support/reference_layout.hpp"

namespace smartarrays {
namespace {

using test::reference_value;
using test::ScopedFakeTopology;
using test::total;

std::vector<std::uint64_t> ramp(std::uint64_t n, std::uint64_t modulus) {
  std::vector<std::uint64_t> values(n);
  for (std::uint64_t i = 0; i < n; ++i) values[i] = (i * 2654435761u) % modulus;
  return values;
}

// Runs f on a new thread pinned to logical node `node`, so the thread's os::current_node() is node.
template <typename F>
void on_node(int node, F&& f) {
  std::thread thread([&] {
    os::pin_current_thread_to_node(node);
    f();
  });
  thread.join();
}

// Every page of every replica is mapped, and (on this one-node machine, also under a fake
// topology whose nodes all map to kernel node 0) sits on kernel node 0.
void expect_all_pages_on_kernel_node_zero(const SmartArray& array) {
  const std::uint64_t page = os::MemoryRegion::page_size();
  const std::vector<std::vector<std::uint64_t>> pages = array.pages_per_node();
  ASSERT_EQ(pages.size(), array.replicas());
  std::uint64_t sum = 0;
  for (const std::vector<std::uint64_t>& counts : pages) {
    ASSERT_FALSE(counts.empty());
    EXPECT_EQ(counts[0], total(counts)) << "a page off kernel node 0";
    sum += total(counts);
  }
  EXPECT_EQ(sum, array.memory_bytes() / page) << "every mapped page is reported once";
}

class PlacementOnFakeTopology : public ::testing::TestWithParam<std::tuple<int, Placement>> {};

TEST_P(PlacementOnFakeTopology, RoundTripsReportsReplicasAndPages) {
  const auto [nodes, placement] = GetParam();
  const ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
  ASSERT_EQ(os::topology().node_count(), static_cast<std::size_t>(nodes));

  ArrayOptions options;
  options.placement = placement;
  options.bits = 13;
  options.node = nodes - 1;
  // Enough 13-bit values for several pages, so a partitioned array has a stripe per node.
  const std::vector<std::uint64_t> values = ramp(64 * 1024, 1 << 13);
  const SmartArray array = SmartArray::from_values(values, options);

  const std::size_t expected_replicas = placement == Placement::replicated ? static_cast<std::size_t>(nodes) : 1;
  ASSERT_EQ(array.replicas(), expected_replicas);
  EXPECT_EQ(array.placement(), placement);
  for (std::size_t r = 0; r < array.replicas(); ++r) {
    for (std::uint64_t i = 0; i < values.size(); i += 97) {
      ASSERT_EQ(reference_value(array.replica(r), 13, i), values[i]) << "replica " << r << " index " << i;
    }
  }
  for (std::uint64_t i = 0; i < values.size(); i += 101) ASSERT_EQ(array.get(i), values[i]);

  // The effective options name the node set actually used.
  if (placement == Placement::interleaved || placement == Placement::replicated ||
      placement == Placement::partitioned) {
    std::vector<int> all(static_cast<std::size_t>(nodes));
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(array.options().nodes, all);
  }
  switch (placement) {
    case Placement::single_node: EXPECT_EQ(array.replica_node(0), nodes - 1); break;
    case Placement::replicated:
      for (std::size_t r = 0; r < array.replicas(); ++r) EXPECT_EQ(array.replica_node(r), static_cast<int>(r));
      break;
    default: EXPECT_EQ(array.replica_node(0), -1); break;
  }

  // Partitions tile [0, length) in chunk-aligned ranges; a partitioned array has one per node, in node order.
  const std::vector<SmartArray::Partition> parts = array.partitions();
  ASSERT_FALSE(parts.empty());
  EXPECT_EQ(parts.front().begin, 0u);
  EXPECT_EQ(parts.back().end, array.length());
  for (std::size_t k = 0; k < parts.size(); ++k) {
    EXPECT_LT(parts[k].begin, parts[k].end);
    EXPECT_EQ(parts[k].begin % codec::chunk_values, 0u);
    if (k > 0) {
      EXPECT_EQ(parts[k].begin, parts[k - 1].end);
    }
  }
  if (placement == Placement::partitioned) {
    ASSERT_EQ(parts.size(), static_cast<std::size_t>(nodes));
    for (std::size_t k = 0; k < parts.size(); ++k) EXPECT_EQ(parts[k].node, static_cast<int>(k));
  } else {
    EXPECT_EQ(parts.size(), 1u);
  }

  EXPECT_EQ(array.memory_bytes(), SmartArray::memory_estimate(values.size(), options));
  expect_all_pages_on_kernel_node_zero(array);
}

INSTANTIATE_TEST_SUITE_P(
    TwoAndFourNodes, PlacementOnFakeTopology,
    ::testing::Combine(::testing::Values(2, 4),
                       ::testing::Values(Placement::os_default, Placement::single_node, Placement::interleaved,
                                         Placement::replicated, Placement::partitioned)),
    [](const ::testing::TestParamInfo<std::tuple<int, Placement>>& param) {
      return std::to_string(std::get<0>(param.param)) + "nodes_" + to_string(std::get<1>(param.param));
    });

TEST(Partitioned, EachPartitionStartsAtTheFirstChunkOfAPage) {
  const ScopedFakeTopology fake("nodes=4");
  ArrayOptions options;
  options.placement = Placement::partitioned;
  options.bits = 37;
  const SmartArray array = SmartArray::allocate(100000, options);
  const std::vector<SmartArray::Partition> parts = array.partitions();
  ASSERT_EQ(parts.size(), 4u);
  // Stripes are page aligned, and a chunk belongs to the stripe of its first word: so a partition's
  // first chunk starts at or after a page boundary that its previous chunk starts before.
  const std::uint64_t page = os::MemoryRegion::page_size();
  const std::uint64_t chunk_bytes = array.bits() * sizeof(std::uint64_t);
  for (std::size_t k = 1; k < parts.size(); ++k) {
    const std::uint64_t start = parts[k].begin / codec::chunk_values * chunk_bytes;
    EXPECT_GT(start / page * page, start - chunk_bytes) << "partition " << k;
  }
}

TEST(Replicated, EachPinnedThreadReadsItsOwnNodesReplica) {
  for (int nodes : {2, 4}) {
    SCOPED_TRACE(std::to_string(nodes) + " fake nodes");
    const ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
    ArrayOptions options;
    options.placement = Placement::replicated;
    options.bits = 9;
    const std::uint64_t n = 300;
    SmartArray array = SmartArray::allocate(n, options);
    ASSERT_EQ(array.replicas(), static_cast<std::size_t>(nodes));
    // Give each replica distinct contents behind the API's back (test-only), so a read tells which replica served it.
    for (std::size_t r = 0; r < array.replicas(); ++r) {
      std::uint64_t* words = const_cast<std::uint64_t*>(array.replica(r));
      for (std::uint64_t i = 0; i < n; ++i) codec::set<9>(words, i, r + 1);
    }
    for (int node = 0; node < nodes; ++node) {
      on_node(node, [&] {
        const std::size_t r = static_cast<std::size_t>(node);
        EXPECT_EQ(os::current_node(), node);
        EXPECT_EQ(array.local_replica_index(), r);
        EXPECT_EQ(array.local_replica(), array.replica(r));
        EXPECT_EQ(array.replica_index_for_node(node), r);
        EXPECT_EQ(array.get(5), r + 1);
        EXPECT_EQ(array.sum(), n * (r + 1));
        EXPECT_EQ(*array.iterate(7), r + 1);
        EXPECT_EQ(array.view<9>().get(8), r + 1);
        std::uint64_t chunk[64];
        array.unpack(0, chunk);
        EXPECT_EQ(chunk[63], r + 1);
      });
    }
    for (std::size_t r = 1; r < array.replicas(); ++r) EXPECT_NE(array.replica(r), array.replica(0));

    // A write through the API reaches every replica.
    array.init(42, 500);
    for (std::size_t r = 0; r < array.replicas(); ++r) EXPECT_EQ(reference_value(array.replica(r), 9, 42), 500u);
    for (int node = 0; node < nodes; ++node) {
      on_node(node, [&] { EXPECT_EQ(array.get(42), 500u); });
    }
  }
}

TEST(Replicated, NodesWithoutAReplicaUseTheNearestOne) {
  const ScopedFakeTopology fake("nodes=4");
  ArrayOptions options;
  options.placement = Placement::replicated;
  options.nodes = {3, 1};
  options.bits = 5;
  const SmartArray array = SmartArray::allocate(10, options);
  ASSERT_EQ(array.replicas(), 2u);
  EXPECT_EQ(array.replica_node(0), 3);
  EXPECT_EQ(array.replica_node(1), 1);
  EXPECT_EQ(array.replica_index_for_node(3), 0u);
  EXPECT_EQ(array.replica_index_for_node(1), 1u);
  // Fake distances are all 20 between nodes: a tie goes to the first replica.
  EXPECT_EQ(array.replica_index_for_node(0), 0u);
  EXPECT_EQ(array.replica_index_for_node(2), 0u);
  on_node(1, [&] { EXPECT_EQ(array.local_replica(), array.replica(1)); });
  on_node(2, [&] { EXPECT_EQ(array.local_replica(), array.replica(0)); });
  EXPECT_EQ(array.replica_index_for_node(-1), 0u) << "an unknown node falls back to replica 0";
  EXPECT_EQ(array.replica_index_for_node(99), 0u);
}

TEST(ReplicaTable, PicksTheNearestReplicaByDistance) {
  // A 4-node ring with distances 10 local, 15 to a neighbour, 25 across.
  std::vector<os::Node> nodes(4);
  for (int k = 0; k < 4; ++k) {
    nodes[static_cast<std::size_t>(k)].id = k;
    nodes[static_cast<std::size_t>(k)].memory_total = 1u << 30;
  }
  std::vector<std::uint32_t> distances(16);
  for (int a = 0; a < 4; ++a) {
    for (int b = 0; b < 4; ++b) {
      const int hops = std::min((a - b + 4) % 4, (b - a + 4) % 4);
      distances[static_cast<std::size_t>(a * 4 + b)] = hops == 0 ? 10 : hops == 1 ? 15 : 25;
    }
  }
  const os::Topology ring = os::Topology::from_nodes(nodes, distances);
  // Replicas on nodes 2 and 3: node 0 is next to 3 (15) but across from 2 (25); node 1 next to 2.
  EXPECT_EQ(detail::nearest_replica_table({2, 3}, ring), (std::vector<std::size_t>{1, 0, 0, 1}));
  EXPECT_EQ(detail::nearest_replica_table({0}, ring), (std::vector<std::size_t>{0, 0, 0, 0}));
}

TEST(Replicated, ConcurrentReadersOnDifferentNodesAgree) {
  const ScopedFakeTopology fake("nodes=2");
  ArrayOptions options;
  options.placement = Placement::replicated;
  const std::vector<std::uint64_t> values = ramp(10000, 1000);
  const SmartArray array = SmartArray::from_values(values, options);
  const std::uint64_t expected = std::accumulate(values.begin(), values.end(), std::uint64_t{0});
  struct Seen {
    std::uint64_t iterated = 0;
    std::uint64_t mismatches = 0;
    std::uint64_t summed = 0;
  };
  std::vector<Seen> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      os::pin_current_thread_to_node(t % 2);
      Seen& mine = seen[static_cast<std::size_t>(t)];
      for (std::uint64_t v : array) mine.iterated += v;
      for (std::uint64_t i = 0; i < array.length(); i += 3) mine.mismatches += array.get(i) != values[i];
      mine.summed = array.sum();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const Seen& s : seen) {
    EXPECT_EQ(s.iterated, expected);
    EXPECT_EQ(s.mismatches, 0u);
    EXPECT_EQ(s.summed, expected);
  }
}

TEST(Memory, ReplicatedMapsOneSingleCopyPerNode) {
  const ScopedFakeTopology fake("nodes=4");
  ArrayOptions single;
  single.bits = 21;
  single.placement = Placement::single_node;
  ArrayOptions replicated = single;
  replicated.placement = Placement::replicated;
  const std::uint64_t n = 123457;
  const SmartArray one = SmartArray::allocate(n, single);
  const SmartArray four = SmartArray::allocate(n, replicated);
  EXPECT_EQ(four.memory_bytes(), 4 * one.memory_bytes());
  EXPECT_EQ(SmartArray::memory_estimate(n, replicated), 4 * SmartArray::memory_estimate(n, single));
  replicated.nodes = {0, 2};
  EXPECT_EQ(SmartArray::allocate(n, replicated).memory_bytes(), 2 * one.memory_bytes());
  // Stream plus one padding word, rounded up to whole pages.
  const std::uint64_t page = os::MemoryRegion::page_size();
  EXPECT_EQ(one.memory_bytes(), ((codec::word_count(n, 21) + 1) * 8 + page - 1) / page * page);
}

TEST(Memory, PagesPerNodeOnThisMachineCountEveryMappedPage) {
  for (Placement placement : {Placement::os_default, Placement::single_node, Placement::interleaved,
                              Placement::replicated, Placement::partitioned}) {
    SCOPED_TRACE(to_string(placement));
    ArrayOptions options;
    options.placement = placement;
    options.bits = 64;
    const SmartArray array = SmartArray::allocate(100000, options);
    EXPECT_EQ(array.replicas(), placement == Placement::replicated ? os::topology().memory_nodes().size() : 1u);
    if (os::topology().memory_nodes().size() == 1 && !os::topology().is_fake()) {
      expect_all_pages_on_kernel_node_zero(array);
    }
    const std::uint64_t page = os::MemoryRegion::page_size();
    std::uint64_t pages = 0;
    for (const std::vector<std::uint64_t>& counts : array.pages_per_node()) pages += total(counts);
    EXPECT_EQ(pages, array.memory_bytes() / page);
  }
}

TEST(Memory, EveryTransparentHugePageModeRoundTrips) {
  for (HugePages mode : {HugePages::on, HugePages::off, HugePages::automatic}) {
    ArrayOptions options;
    options.bits = 20;
    options.huge_pages = mode;
    const std::vector<std::uint64_t> values = ramp(200000, 1 << 20);
    const SmartArray array = SmartArray::from_values(values, options);
    EXPECT_EQ(array.options().huge_pages, mode);
    for (std::uint64_t i = 0; i < values.size(); i += 997) ASSERT_EQ(array.get(i), values[i]);
    EXPECT_GE(array.memory_bytes(), SmartArray::memory_estimate(values.size(), options));
    EXPECT_LE(array.huge_page_bytes(0), array.memory_bytes());
    if (mode == HugePages::off) {
      EXPECT_EQ(array.huge_page_bytes(0), 0u);
    }
  }
}

TEST(Memory, DefaultOptionsGiveLargeArraysHugePages) {
  EXPECT_EQ(ArrayOptions{}.huge_pages, HugePages::automatic);
  ArrayOptions options;
  options.bits = 64;
  const SmartArray array = SmartArray::allocate(std::uint64_t{1} << 20, options);  // 8 MiB
  if (os::read_machine_facts().thp_enabled != "never") {
    EXPECT_GT(array.huge_page_bytes(0), 0u);
  }
  EXPECT_THROW(array.huge_page_bytes(1), smartarrays::Error);
}

}  // namespace
}  // namespace smartarrays
