// Tests of worker placement: the sparse/dense plans, and that running workers obey the policy on
// fake 2- and 4-node topologies and on the real one (node, CPU and affinity seen from inside).
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays::runtime {
namespace {

using test::ScopedFakeTopology;

std::vector<int> thread_affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof(set), &set), 0);
  std::vector<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

// What one worker saw from inside its loop body.
struct Observation {
  WorkerContext context;
  int current_node = -1;
  int cpu = -1;
  std::vector<int> affinity;
};

// Runs one batch on every worker: each blocks in its batch until all have arrived, so no worker
// can take two of the size() batches.
std::vector<Observation> observe_every_worker(ThreadPool& pool) {
  std::vector<Observation> seen(pool.size());
  std::atomic<std::size_t> arrived{0};
  pool.parallel_for(
      0, pool.size(),
      [&](std::uint64_t, std::uint64_t, const WorkerContext& ctx) {
        Observation& o = seen[ctx.worker];
        o.context = ctx;
        o.current_node = os::current_node();
        o.cpu = os::current_cpu();
        o.affinity = thread_affinity();
        arrived.fetch_add(1);
        arrived.notify_all();
        for (std::size_t n = arrived.load(); n < pool.size(); n = arrived.load()) arrived.wait(n);
      },
      LoopOptions{.batch = 1, .alignment = 1});
  return seen;
}

void expect_pinned_to_planned_nodes(ThreadPool& pool) {
  const os::Topology& topology = os::topology();
  const std::vector<Observation> seen = observe_every_worker(pool);
  for (std::size_t w = 0; w < pool.size(); ++w) {
    const Observation& o = seen[w];
    SCOPED_TRACE(::testing::Message() << "worker " << w);
    EXPECT_EQ(o.context.worker, w);
    EXPECT_EQ(o.context.workers, pool.size());
    EXPECT_EQ(o.context.node, pool.worker_node(w));
    EXPECT_EQ(o.current_node, o.context.node);
    const std::vector<int>& cpus = topology.node(static_cast<std::size_t>(o.context.node)).cpus;
    EXPECT_EQ(o.affinity, cpus);
    EXPECT_TRUE(std::find(cpus.begin(), cpus.end(), o.cpu) != cpus.end()) << "cpu " << o.cpu;
  }
}

TEST(PlanWorkerNodes, SparseSpreadsOverNodesFirst) {
  ScopedFakeTopology fake("cpus=0-1;0-1");
  EXPECT_EQ(plan_worker_nodes(os::topology(), 4, PinPolicy::sparse), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(plan_worker_nodes(os::topology(), 5, PinPolicy::sparse), (std::vector<int>{0, 1, 0, 1, 0}));
}

TEST(PlanWorkerNodes, DenseFillsANodeFirst) {
  ScopedFakeTopology fake("cpus=0-1;0-1");
  EXPECT_EQ(plan_worker_nodes(os::topology(), 2, PinPolicy::dense), (std::vector<int>{0, 0}));
  EXPECT_EQ(plan_worker_nodes(os::topology(), 5, PinPolicy::dense), (std::vector<int>{0, 0, 1, 1, 0}));
}

TEST(PlanWorkerNodes, UnevenNodesAndNodesWithoutCpus) {
  ScopedFakeTopology fake("cpus=0-1;;1");  // node 1 has memory but no CPU
  EXPECT_EQ(plan_worker_nodes(os::topology(), 4, PinPolicy::sparse), (std::vector<int>{0, 2, 0, 0}));
  EXPECT_EQ(plan_worker_nodes(os::topology(), 4, PinPolicy::dense), (std::vector<int>{0, 0, 2, 0}));
}

TEST(Pinning, WorkersRunOnTheirNodesCpusOnTwoFakeNodes) {
  ScopedFakeTopology fake("nodes=2");
  for (PinPolicy policy : {PinPolicy::sparse, PinPolicy::dense}) {
    for (std::size_t threads : {2u, 3u}) {
      SCOPED_TRACE(::testing::Message() << to_string(policy) << " " << threads << " threads");
      ThreadPool pool(PoolOptions{.threads = threads, .pinning = policy});
      expect_pinned_to_planned_nodes(pool);
    }
  }
}

TEST(Pinning, WorkersRunOnTheirNodesCpusOnFourFakeNodes) {
  ScopedFakeTopology fake("nodes=4");
  ThreadPool pool(PoolOptions{.threads = 4, .pinning = PinPolicy::sparse});
  EXPECT_EQ(pool.workers_per_node(), (std::vector<std::size_t>{1, 1, 1, 1}));
  expect_pinned_to_planned_nodes(pool);
}

TEST(Pinning, DenseAndSparseDifferWhereNodesHaveSeveralCpus) {
  ScopedFakeTopology fake("cpus=0-1;0-1");
  ThreadPool dense(PoolOptions{.threads = 2, .pinning = PinPolicy::dense});
  EXPECT_EQ(dense.workers_per_node(), (std::vector<std::size_t>{2, 0}));
  expect_pinned_to_planned_nodes(dense);
  ThreadPool sparse(PoolOptions{.threads = 2, .pinning = PinPolicy::sparse});
  EXPECT_EQ(sparse.workers_per_node(), (std::vector<std::size_t>{1, 1}));
  expect_pinned_to_planned_nodes(sparse);
}

TEST(Pinning, WorkersObeyThePolicyOnTheRealTopology) {
  for (PinPolicy policy : {PinPolicy::sparse, PinPolicy::dense}) {
    ThreadPool pool(PoolOptions{.threads = 2, .pinning = policy});
    expect_pinned_to_planned_nodes(pool);
  }
}

TEST(Pinning, NoneLeavesWorkersFreeToRunOnEveryUsableCpu) {
  ScopedFakeTopology fake("nodes=2");
  // Workers inherit their creator's affinity; `none` must widen it back to every usable CPU.
  os::pin_current_thread_to_node(1);
  ThreadPool pool(PoolOptions{.threads = 2, .pinning = PinPolicy::none});
  os::unpin_current_thread();
  for (const Observation& o : observe_every_worker(pool)) {
    EXPECT_EQ(o.affinity, os::topology().all_cpus());
    EXPECT_GE(o.context.node, 0);
    EXPECT_LT(o.context.node, 2);
  }
}

}  // namespace
}  // namespace smartarrays::runtime
