// Tests reading a topology from sysfs trees written by the test: machines this one is not
// (memoryless and CPU-less nodes, gaps in kernel node ids, no NUMA directories at all).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "os/sysfs_topology.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::os {
namespace {

namespace fs = std::filesystem;

class SysfsTree : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "smartarrays-sysfs-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    paths_.node_dir = (root_ / "node").string();
    paths_.meminfo = (root_ / "meminfo").string();
    fs::create_directories(paths_.node_dir);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const fs::path& relative, const std::string& text) {
    const fs::path path = fs::path(paths_.node_dir) / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  void add_node(int id, const std::string& cpulist, std::uint64_t kib, const std::string& distance) {
    const std::string dir = "node" + std::to_string(id);
    write(dir + "/cpulist", cpulist + "\n");
    write(dir + "/meminfo", "Node " + std::to_string(id) + " MemTotal:  " + std::to_string(kib) +
                                " kB\nNode " + std::to_string(id) + " MemFree:   " + std::to_string(kib / 2) +
                                " kB\nNode " + std::to_string(id) + " MemUsed:   1 kB\n");
    write(dir + "/distance", distance + "\n");
  }

  fs::path root_;
  SysfsPaths paths_;
};

TEST_F(SysfsTree, KeepsMemorylessAndCpulessNodesWithDenseIds) {
  add_node(0, "0-3", 1000, "10 20 30");
  add_node(1, "4-5", 0, "20 10 25");
  add_node(3, "", 2048, "30 25 10");
  write("possible", "0-3\n");
  write("power/control", "auto\n");
  write("nodefoo/cpulist", "0\n");

  const Topology t = read_sysfs_topology(paths_, {9, 4, 2, 1});
  ASSERT_EQ(t.node_count(), 3u);
  EXPECT_FALSE(t.is_fake());
  EXPECT_EQ(t.node(0).os_node, 0);
  EXPECT_EQ(t.node(1).os_node, 1);
  EXPECT_EQ(t.node(2).os_node, 3);
  EXPECT_EQ(t.node(0).cpus, (std::vector<int>{1, 2}));
  EXPECT_EQ(t.node(1).cpus, (std::vector<int>{4}));
  EXPECT_TRUE(t.node(2).cpus.empty());
  EXPECT_EQ(t.node(0).memory_total, 1000u * 1024);
  EXPECT_EQ(t.node(0).memory_free, 500u * 1024);
  EXPECT_EQ(t.node(1).memory_total, 0u);
  EXPECT_EQ(t.node(2).memory_total, 2048u * 1024);
  EXPECT_EQ(t.distance(0, 2), 30u);
  EXPECT_EQ(t.distance(2, 1), 25u);
  EXPECT_EQ(t.distance(1, 1), 10u);
  EXPECT_EQ(t.memory_nodes(), (std::vector<int>{0, 2}));
  EXPECT_EQ(t.cpu_nodes(), (std::vector<int>{0, 1}));
  EXPECT_EQ(t.all_cpus(), (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(t.node_of_cpu(4), 1);
  EXPECT_EQ(t.node_of_cpu(0), -1);
  EXPECT_EQ(t.node_of_cpu(9), -1);
  try {
    t.check_memory_node(1);
    ADD_FAILURE() << "memoryless node accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "node 1 has no memory");
  }
}

TEST_F(SysfsTree, DistanceRowOfWrongLengthFallsBackToLocalAndRemote) {
  add_node(0, "0", 100, "10");
  add_node(1, "1", 100, "");
  const Topology t = read_sysfs_topology(paths_, {0, 1});
  EXPECT_EQ(t.distance(0, 0), 10u);
  EXPECT_EQ(t.distance(0, 1), 20u);
  EXPECT_EQ(t.distance(1, 0), 20u);
  EXPECT_EQ(t.distance(1, 1), 10u);
}

TEST_F(SysfsTree, WithoutNodeDirectoriesOneNodeHoldsAllAllowedCpusAndProcMemory) {
  std::ofstream(paths_.meminfo) << "MemTotal:        2048 kB\nMemFree:         1024 kB\nMemAvailable: 1500 kB\n";
  const Topology t = read_sysfs_topology(paths_, {3, 0, 1});
  ASSERT_EQ(t.node_count(), 1u);
  EXPECT_EQ(t.node(0).os_node, 0);
  EXPECT_EQ(t.node(0).cpus, (std::vector<int>{0, 1, 3}));
  EXPECT_EQ(t.node(0).memory_total, 2048u * 1024);
  EXPECT_EQ(t.node(0).memory_free, 1024u * 1024);
  EXPECT_EQ(t.distance(0, 0), 10u);
}

TEST_F(SysfsTree, MissingNodeDirectoryIsTheNoNumaCase) {
  paths_.node_dir = (root_ / "absent").string();
  std::ofstream(paths_.meminfo) << "MemTotal: 4 kB\nMemFree: 4 kB\n";
  const Topology t = read_sysfs_topology(paths_, {0});
  ASSERT_EQ(t.node_count(), 1u);
  EXPECT_EQ(t.node(0).memory_total, 4096u);
}

TEST_F(SysfsTree, MalformedCpulistIsAnErrorNamingTheFile) {
  add_node(0, "0-x", 100, "10");
  try {
    read_sysfs_topology(paths_, {0});
    ADD_FAILURE() << "malformed cpulist accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
    EXPECT_NE(std::string(e.what()).find("node0/cpulist"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'0-x'"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace smartarrays::os
