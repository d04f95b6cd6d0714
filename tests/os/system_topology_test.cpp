// Tests the topology read from this machine against what the test reads from sysfs itself, and
// the invariants every topology keeps.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {
namespace {

namespace fs = std::filesystem;

std::vector<int> kernel_nodes() {
  std::vector<int> ids;
  const fs::path root = "/sys/devices/system/node";
  if (!fs::exists(root)) return ids;
  for (const auto& entry : fs::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    int id = -1;
    char rest = 0;
    if (std::sscanf(name.c_str(), "node%d%c", &id, &rest) == 1) ids.push_back(id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool process_may_run_on(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(::getpid(), sizeof set, &set), 0);
  return cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set);
}

// The kernel's own cpulist, expanded by the simplest possible reading of "a-b,c".
std::vector<int> sysfs_cpus(int node) {
  std::ifstream in("/sys/devices/system/node/node" + std::to_string(node) + "/cpulist");
  std::string item;
  std::vector<int> cpus;
  while (std::getline(in, item, ',')) {
    int first = -1, last = -1;
    const int n = std::sscanf(item.c_str(), "%d-%d", &first, &last);
    if (n <= 0) continue;
    for (int cpu = first; cpu <= (n == 2 ? last : first); ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

std::uint64_t sysfs_mem_total(int node) {
  std::ifstream in("/sys/devices/system/node/node" + std::to_string(node) + "/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    unsigned long long kib = 0;
    int id = -1;
    if (std::sscanf(line.c_str(), "Node %d MemTotal: %llu kB", &id, &kib) == 2) return kib * 1024;
  }
  return 0;
}

TEST(SystemTopology, MatchesSysfsIntersectedWithAffinity) {
  const Topology t = Topology::from_system();
  EXPECT_FALSE(t.is_fake());
  EXPECT_EQ(t.spec(), "");
  const std::vector<int> ids = kernel_nodes();
  if (ids.empty()) {
    ASSERT_EQ(t.node_count(), 1u);
    return;
  }
  ASSERT_EQ(t.node_count(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const Node& node = t.node(i);
    EXPECT_EQ(node.id, static_cast<int>(i));
    EXPECT_EQ(node.os_node, ids[i]);
    std::vector<int> expected;
    for (int cpu : sysfs_cpus(ids[i])) {
      if (process_may_run_on(cpu)) expected.push_back(cpu);
    }
    EXPECT_EQ(node.cpus, expected) << "node " << i;
    EXPECT_EQ(node.memory_total, sysfs_mem_total(ids[i])) << "node " << i;
  }
}

TEST(SystemTopology, KeepsInvariants) {
  const Topology t = Topology::from_system();
  ASSERT_GE(t.node_count(), 1u);
  EXPECT_FALSE(t.all_cpus().empty());
  EXPECT_FALSE(t.memory_nodes().empty());
  EXPECT_FALSE(t.cpu_nodes().empty());
  for (std::size_t i = 0; i < t.node_count(); ++i) {
    const Node& node = t.node(i);
    EXPECT_EQ(node.id, static_cast<int>(i));
    EXPECT_TRUE(std::is_sorted(node.cpus.begin(), node.cpus.end()));
    EXPECT_LE(node.memory_free, node.memory_total);
    EXPECT_EQ(t.distance(i, i), 10u);
    for (std::size_t j = 0; j < t.node_count(); ++j) {
      if (i != j) {
        EXPECT_GT(t.distance(i, j), 10u);
      }
    }
    for (int cpu : node.cpus) {
      EXPECT_TRUE(process_may_run_on(cpu)) << cpu;
      EXPECT_EQ(t.node_of_cpu(cpu), static_cast<int>(i)) << "real nodes never share a CPU";
    }
  }
  const std::vector<int> all = t.all_cpus();
  EXPECT_TRUE(std::is_sorted(all.begin(), all.end()));
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

TEST(SystemTopology, NodeOfCpuIsMinusOneOutsideTheTopology) {
  const Topology t = Topology::from_system();
  EXPECT_EQ(t.node_of_cpu(-1), -1);
  EXPECT_EQ(t.node_of_cpu(1 << 20), -1);
}

TEST(SystemTopology, DistanceOfMissingNodeIsAnError) {
  const Topology t = Topology::from_system();
  const std::size_t n = t.node_count();
  try {
    t.distance(0, n);
    ADD_FAILURE() << "distance to a missing node accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("node " + std::to_string(n) + " does not exist"), std::string::npos)
        << e.what();
  }
}

TEST(SystemTopology, CheckMemoryNodeNamesTheNode) {
  const Topology t = Topology::from_system();
  EXPECT_NO_THROW(t.check_memory_node(t.memory_nodes().front()));
  try {
    t.check_memory_node(-3);
    ADD_FAILURE() << "node -3 accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_EQ(std::string(e.what()), "node -3 does not exist (topology has " + std::to_string(t.node_count()) +
                                         (t.node_count() == 1 ? " node)" : " nodes)"));
  }
}

TEST(TopologyFromNodes, RejectsIdsOutOfOrderAndBadDistanceTables) {
  Node a;
  a.id = 1;
  EXPECT_THROW(Topology::from_nodes({a}), Error);
  EXPECT_THROW(Topology::from_nodes({}), Error);
  Node b;
  EXPECT_THROW(Topology::from_nodes({b}, {10, 20}), Error);
  const Topology t = Topology::from_nodes({b}, {12});
  EXPECT_EQ(t.distance(0, 0), 12u);
}

TEST(TopologyFromNodes, FirstNodeOwnsASharedCpu) {
  Node a, b;
  b.id = 1;
  a.cpus = {3, 1, 1};
  b.cpus = {1, 2};
  const Topology t = Topology::from_nodes({a, b});
  EXPECT_EQ(t.node(0).cpus, (std::vector<int>{1, 3}));
  EXPECT_EQ(t.node_of_cpu(1), 0);
  EXPECT_EQ(t.node_of_cpu(2), 1);
  EXPECT_EQ(t.all_cpus(), (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(t.distance(0, 1), 20u);
}

}  // namespace
}  // namespace smartarrays::os
