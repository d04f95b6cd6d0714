// Tests that the collections' loops over a partitioned input follow its stripes (the runtime's
// LoopOptions::layout): building a hash table runs each task on the node of its rows' stripe, and
// probing runs each stripe of the probe column on its node, local batches before stolen ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "smartarrays/collections/hash_table.hpp"
#include "support/fake_topology.hpp"
#include "support/loop_trace_expect.hpp"

namespace smartarrays::collections {
namespace {

using runtime::LoopTrace;
using runtime::PoolOptions;
using runtime::ThreadPool;
using test::expect_local_first;
using test::node_at;

SmartArray partitioned_keys(std::uint64_t rows, std::uint64_t distinct) {
  std::vector<std::uint64_t> keys(rows);
  for (std::uint64_t i = 0; i < rows; ++i) keys[i] = (i * 2654435761u) % distinct;
  ArrayOptions options;
  options.placement = Placement::partitioned;
  return SmartArray::from_values(keys, options);
}

class CollectionsPartitionAware : public ::testing::TestWithParam<int> {};

TEST_P(CollectionsPartitionAware, HashTableTasksAndProbesRunOnTheirRowsNodes) {
  const int nodes = GetParam();
  test::ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
  ThreadPool pool(PoolOptions{.threads = static_cast<std::size_t>(nodes)});
  const std::uint64_t rows = 200'000;
  const SmartArray keys = partitioned_keys(rows, 5000);
  const auto stripes = keys.partitions();
  ASSERT_EQ(stripes.size(), static_cast<std::size_t>(nodes));

  LoopTrace trace;
  pool.trace(&trace);
  const HashTable table = HashTable::build(keys, {}, true, pool);
  pool.trace(nullptr);
  // Task t of the build covers rows from (chunks * t / tasks) * 64: it runs where that row is.
  const std::uint64_t tasks = pool.size();
  const auto task_node = [&](std::uint64_t t) {
    const std::uint64_t first = std::min(rows, (rows + 63) / 64 * t / tasks * 64);
    return node_at(stripes, first);
  };
  std::size_t task_loops = 0;
  for (const LoopTrace::Traced& loop : trace.loops) {
    const bool over_tasks = !loop.parts.empty() && loop.parts.back().end == tasks;
    const bool over_rows = !loop.parts.empty() && loop.parts.back().end == rows;
    if (over_tasks && expect_local_first(loop, task_node) == loop.parts.size()) ++task_loops;
    if (over_rows) {
      EXPECT_EQ(expect_local_first(loop, [&](std::uint64_t i) { return node_at(stripes, i); }), loop.parts.size());
    }
  }
  EXPECT_GE(task_loops, 2u);  // the count pass and the scatter pass

  trace.loops.clear();
  pool.trace(&trace);
  const std::uint64_t matches = table.count_matches(keys, pool);
  pool.trace(nullptr);
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < rows; i += 1) expected += table.find(keys.get(i)).count;
  EXPECT_EQ(matches, expected);
  ASSERT_EQ(trace.loops.size(), 1u);
  EXPECT_EQ(expect_local_first(trace.loops[0], [&](std::uint64_t i) { return node_at(stripes, i); }),
            static_cast<std::size_t>(nodes));
}

INSTANTIATE_TEST_SUITE_P(FakeNodes, CollectionsPartitionAware, ::testing::Values(2, 4),
                         [](const ::testing::TestParamInfo<int>& param) { return std::to_string(param.param) + "nodes"; });

}  // namespace
}  // namespace smartarrays::collections
