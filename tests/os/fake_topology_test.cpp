// Tests the fake topology spec over synthetic "real" machines, so the expectations are exact.
#include <gtest/gtest.h>

#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

Node make_node(int id, int os_node, std::vector<int> cpus, std::uint64_t memory) {
  Node node;
  node.id = id;
  node.os_node = os_node;
  node.cpus = std::move(cpus);
  node.memory_total = memory;
  node.memory_free = memory / 2;
  return node;
}

// One node, four CPUs, 8 GiB.
Topology one_node_machine() { return Topology::from_nodes({make_node(0, 0, {0, 1, 2, 3}, 8 * GiB)}); }

// Kernel nodes 0 (CPUs 0-1, 4 GiB), 1 (CPUs 2-3, memoryless) and 2 (no CPUs, 2 GiB).
Topology uneven_machine() {
  return Topology::from_nodes({make_node(0, 0, {0, 1}, 4 * GiB), make_node(1, 1, {2, 3}, 0),
                               make_node(2, 2, {}, 2 * GiB)});
}

TEST(FakeTopology, NodesSplitsCpusIntoContiguousGroups) {
  const Topology t = Topology::from_spec("nodes=2", one_node_machine());
  EXPECT_TRUE(t.is_fake());
  EXPECT_EQ(t.spec(), "nodes=2");
  ASSERT_EQ(t.node_count(), 2u);
  EXPECT_EQ(t.node(0).cpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(t.node(1).cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(t.node(0).os_node, 0);
  EXPECT_EQ(t.node(1).os_node, 0);
  EXPECT_EQ(t.node(0).memory_total, 4 * GiB);
  EXPECT_EQ(t.node(1).memory_free, 2 * GiB);
  EXPECT_EQ(t.node_of_cpu(3), 1);
}

TEST(FakeTopology, UnevenSplitKeepsEveryCpuOnce) {
  const Topology t = Topology::from_spec("nodes=3", one_node_machine());
  ASSERT_EQ(t.node_count(), 3u);
  EXPECT_EQ(t.node(0).cpus, (std::vector<int>{0}));
  EXPECT_EQ(t.node(1).cpus, (std::vector<int>{1}));
  EXPECT_EQ(t.node(2).cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(t.all_cpus(), (std::vector<int>{0, 1, 2, 3}));
}

TEST(FakeTopology, MoreNodesThanCpusShareCpusRoundRobin) {
  const Topology t = Topology::from_spec("nodes=6", one_node_machine());
  ASSERT_EQ(t.node_count(), 6u);
  for (std::size_t k = 0; k < 6; ++k) EXPECT_EQ(t.node(k).cpus, (std::vector<int>{static_cast<int>(k % 4)})) << k;
  EXPECT_EQ(t.node_of_cpu(1), 1) << "a shared CPU belongs first to the lowest node";
  EXPECT_EQ(t.node(5).memory_total, 8 * GiB / 6);
}

TEST(FakeTopology, ExplicitCpuListsWithACpulessNode) {
  const Topology t = Topology::from_spec("cpus=0-1;;3,2", one_node_machine());
  ASSERT_EQ(t.node_count(), 3u);
  EXPECT_EQ(t.node(0).cpus, (std::vector<int>{0, 1}));
  EXPECT_TRUE(t.node(1).cpus.empty());
  EXPECT_EQ(t.node(2).cpus, (std::vector<int>{2, 3}));
  EXPECT_EQ(t.cpu_nodes(), (std::vector<int>{0, 2}));
  EXPECT_EQ(t.memory_nodes(), (std::vector<int>{0, 1, 2})) << "a CPU-less fake node still has memory";
  EXPECT_EQ(t.spec(), "cpus=0-1;;3,2");
}

TEST(FakeTopology, ExplicitListsMayShareCpus) {
  const Topology t = Topology::from_spec("cpus=0;0;1", one_node_machine());
  EXPECT_EQ(t.node(1).cpus, (std::vector<int>{0}));
  EXPECT_EQ(t.node_of_cpu(0), 0);
}

TEST(FakeTopology, NodesMapToRealMemoryNodesRoundRobinAndShareTheirMemory) {
  const Topology t = Topology::from_spec("nodes=5", uneven_machine());
  ASSERT_EQ(t.node_count(), 5u);
  // Real memory nodes are kernel nodes 0 and 2; the memoryless node 1 backs nothing.
  const int expected_os[] = {0, 2, 0, 2, 0};
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(t.node(k).os_node, expected_os[k]) << k;
  EXPECT_EQ(t.node(0).memory_total, 4 * GiB / 3);
  EXPECT_EQ(t.node(1).memory_total, 2 * GiB / 2);
  EXPECT_EQ(t.node(3).memory_free, 1 * GiB / 2);
  // Only the real usable CPUs 0-3 exist; node k of 5 gets CPU k % 4.
  EXPECT_EQ(t.node(4).cpus, (std::vector<int>{0}));
}

TEST(FakeTopology, DistancesAreTenLocalTwentyRemote) {
  const Topology t = Topology::from_spec("nodes=4", one_node_machine());
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) EXPECT_EQ(t.distance(i, j), i == j ? 10u : 20u);
  }
}

TEST(FakeTopology, SurroundingWhitespaceIsIgnored) {
  const Topology t = Topology::from_spec("  nodes=2\n", one_node_machine());
  EXPECT_EQ(t.node_count(), 2u);
  EXPECT_EQ(t.spec(), "nodes=2");
}

TEST(FakeTopology, MalformedSpecsAreErrorsNamingTheBadPart) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "expected 'nodes=N'"},
      {"nodes", "expected 'nodes=N'"},
      {"node=2", "expected 'nodes=N'"},
      {"NODES=2", "expected 'nodes=N'"},
      {"nodes=", "node count ''"},
      {"nodes=0", "node count '0'"},
      {"nodes=-1", "node count '-1'"},
      {"nodes=257", "node count '257'"},
      {"nodes=2x", "node count '2x'"},
      {"nodes= 2", "node count ' 2'"},
      {"nodes=2;cpus=0", "node count '2;cpus=0'"},
      {"cpus=", "no node has a CPU"},
      {"cpus=;", "no node has a CPU"},
      {"cpus=0-", "node 0: "},
      {"cpus=0;3-1", "node 1: range '3-1'"},
      {"cpus=0;a", "node 1: 'a'"},
      {"cpus=0,,1", "node 0: empty item"},
      {"cpus=0;9", "node 1: cpu 9 is not usable (usable cpus: 0-3)"},
      {"cpus=-1", "node 0: "},
  };
  for (const auto& [spec, named] : cases) {
    try {
      Topology::from_spec(spec, one_node_machine());
      ADD_FAILURE() << "accepted '" << spec << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << spec;
      const std::string message = e.what();
      EXPECT_NE(message.find(named), std::string::npos) << spec << ": " << message;
      EXPECT_EQ(message.rfind("topology spec '", 0), 0u) << message;
    }
  }
}

TEST(FakeTopology, CpuOutsideTheRealAffinityIsNotUsable) {
  const Topology real = uneven_machine();
  EXPECT_NO_THROW(Topology::from_spec("cpus=3", real));
  EXPECT_THROW(Topology::from_spec("cpus=4", real), Error);
}

}  // namespace
}  // namespace smartarrays::os
