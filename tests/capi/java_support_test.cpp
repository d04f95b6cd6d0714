// Tests of the Java-binding support entry points of the C ABI: the default pool's worker plan.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "smartarrays.h"

namespace {

std::vector<int32_t> worker_nodes() {
  uint32_t count = 0;
  EXPECT_EQ(sa_runtime_worker_nodes(nullptr, 0, &count), SA_OK) << sa_last_error();
  std::vector<int32_t> nodes(count, -1);
  EXPECT_EQ(sa_runtime_worker_nodes(nodes.data(), count, &count), SA_OK) << sa_last_error();
  EXPECT_EQ(count, nodes.size());
  return nodes;
}

TEST(JavaSupportCapi, WorkerNodesAreOnePerDefaultPoolWorker) {
  const std::vector<int32_t> nodes = worker_nodes();
  EXPECT_EQ(nodes.size(), sa_runtime_threads());
  for (int32_t node : nodes) {
    EXPECT_GE(node, 0);
    EXPECT_LT(node, static_cast<int32_t>(sa_topology_nodes()));
  }
}

TEST(JavaSupportCapi, WorkerNodesFollowAFakeTopology) {
  // Two workers even on a one-CPU machine (fake nodes then share the CPU).
  const char* threads = std::getenv("SMARTARRAYS_THREADS");
  const std::string saved = threads != nullptr ? threads : "";
  setenv("SMARTARRAYS_THREADS", "2", 1);
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  const std::vector<int32_t> nodes = worker_nodes();
  ASSERT_GE(nodes.size(), 2u);
  // Sparse pinning spreads the first workers over the nodes.
  EXPECT_EQ(nodes[0], 0);
  EXPECT_EQ(nodes[1], 1);
  uint32_t count = 0;
  int32_t first = -1;
  EXPECT_EQ(sa_runtime_worker_nodes(&first, 1, &count), SA_OK) << sa_last_error();
  EXPECT_EQ(first, 0);
  EXPECT_EQ(count, nodes.size()) << "count is the pool size even when max is smaller";
  ASSERT_EQ(sa_topology_set_fake(""), SA_OK);
  if (threads != nullptr) {
    setenv("SMARTARRAYS_THREADS", saved.c_str(), 1);
  } else {
    unsetenv("SMARTARRAYS_THREADS");
  }
}

TEST(JavaSupportCapi, BadArgumentsAreInvalid) {
  uint32_t count = 0;
  EXPECT_EQ(sa_runtime_worker_nodes(nullptr, 0, nullptr), SA_EINVAL);
  EXPECT_NE(std::string(sa_last_error()).find("count is NULL"), std::string::npos) << sa_last_error();
  EXPECT_EQ(sa_runtime_worker_nodes(nullptr, 4, &count), SA_EINVAL);
  EXPECT_NE(std::string(sa_last_error()).find("nodes"), std::string::npos) << sa_last_error();
}

}  // namespace
