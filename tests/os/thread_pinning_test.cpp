// Tests pinning threads to (fake) nodes and CPUs, and current_node() of pinned and unpinned threads.
#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <thread>

#include "os/affinity.hpp"
#include "support/fake_topology.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {
namespace {

// Runs body on a fresh thread, so pinning never leaks into the test runner's main thread.
template <typename Body>
void on_thread(Body body) {
  std::thread thread(body);
  thread.join();
}

int first_cpu() { return Topology::from_system().all_cpus().front(); }

// "cpus=C;;C" over the first usable CPU C: nodes 0 and 2 share it, node 1 has no CPU.
std::string shared_and_cpuless_spec() {
  const std::string cpu = std::to_string(first_cpu());
  return "cpus=" + cpu + ";;" + cpu;
}

bool contains(const std::vector<int>& cpus, int cpu) { return std::find(cpus.begin(), cpus.end(), cpu) != cpus.end(); }

void expect_pins_to_every_node(const char* spec) {
  smartarrays::test::ScopedFakeTopology fake(spec);
  const Topology& t = topology();
  for (std::size_t k = 0; k < t.node_count(); ++k) {
    const int node = static_cast<int>(k);
    on_thread([&t, node] {
      pin_current_thread_to_node(node);
      const std::vector<int>& cpus = t.node(static_cast<std::size_t>(node)).cpus;
      EXPECT_EQ(thread_affinity(), cpus) << "node " << node;
      EXPECT_TRUE(contains(cpus, ::sched_getcpu())) << "node " << node;
      EXPECT_TRUE(contains(cpus, current_cpu())) << "node " << node;
      EXPECT_EQ(current_node(), node);
      EXPECT_EQ(current_node(), node) << "cached answer";
    });
  }
}

TEST(ThreadPinning, PinsToEachNodeOfATwoNodeFake) { expect_pins_to_every_node("nodes=2"); }

TEST(ThreadPinning, PinsToEachNodeOfAFourNodeFake) { expect_pins_to_every_node("nodes=4"); }

TEST(ThreadPinning, PinsToEachNodeOfTheMachine) {
  const Topology& t = topology();
  for (int node : t.cpu_nodes()) {
    on_thread([node] {
      pin_current_thread_to_node(node);
      EXPECT_EQ(current_node(), node);
    });
  }
}

TEST(ThreadPinning, PinnedNodesRunConcurrently) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  std::vector<int> reported(4, -1);
  std::vector<std::thread> threads;
  for (int node = 0; node < 4; ++node) {
    threads.emplace_back([&reported, node] {
      pin_current_thread_to_node(node);
      reported[static_cast<std::size_t>(node)] = current_node();
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(reported, (std::vector<int>{0, 1, 2, 3}));
}

TEST(ThreadPinning, PinToCpuReportsItsFirstNode) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  const Topology& t = topology();
  for (int cpu : t.all_cpus()) {
    on_thread([&t, cpu] {
      pin_current_thread_to_cpu(cpu);
      EXPECT_EQ(::sched_getcpu(), cpu);
      EXPECT_EQ(thread_affinity(), std::vector<int>{cpu});
      EXPECT_EQ(current_node(), t.node_of_cpu(cpu));
    });
  }
}

TEST(ThreadPinning, UnpinRestoresEveryUsableCpu) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  on_thread([] {
    pin_current_thread_to_node(3);
    unpin_current_thread();
    EXPECT_EQ(thread_affinity(), topology().all_cpus());
  });
}

TEST(ThreadPinning, UnpinForgetsTheNode) {
  // Both nodes own only the first CPU, so the unpinned thread runs there and reports node 0.
  const std::string cpu = std::to_string(first_cpu());
  smartarrays::test::ScopedFakeTopology fake("cpus=" + cpu + ";" + cpu);
  on_thread([] {
    pin_current_thread_to_node(1);
    ASSERT_EQ(current_node(), 1);
    unpin_current_thread();
    EXPECT_EQ(current_node(), 0);
  });
}

TEST(ThreadPinning, UnpinnedThreadReportsTheNodeOfItsCpu) {
  smartarrays::test::ScopedFakeTopology fake("nodes=2");
  const Topology& t = topology();
  for (int cpu : t.all_cpus()) {
    on_thread([&t, cpu] {
      set_thread_affinity({cpu});
      EXPECT_EQ(current_node(), t.node_of_cpu(cpu));
    });
  }
}

TEST(ThreadPinning, ReplacingTheTopologyForgetsPins) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  on_thread([] {
    pin_current_thread_to_node(3);
    ASSERT_EQ(current_node(), 3);
    set_fake_topology("nodes=1");
    EXPECT_EQ(current_node(), 0);
  });
}

void expect_invalid(void (*pin)(int), int arg, const std::string& message) {
  on_thread([pin, arg, &message] {
    try {
      pin(arg);
      ADD_FAILURE() << "accepted " << arg;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
    }
  });
}

TEST(ThreadPinning, BadArgumentsAreErrorsNamingThem) {
  smartarrays::test::ScopedFakeTopology fake(shared_and_cpuless_spec());
  expect_invalid(pin_current_thread_to_node, 5, "node 5 does not exist (topology has 3 nodes)");
  expect_invalid(pin_current_thread_to_node, -1, "node -1 does not exist (topology has 3 nodes)");
  expect_invalid(pin_current_thread_to_node, 1, "node 1 has no usable CPUs");
  expect_invalid(pin_current_thread_to_cpu, 1 << 20, "cpu 1048576 is not usable (usable cpus: " + std::to_string(first_cpu()) + ")");
  expect_invalid(pin_current_thread_to_cpu, -2, "cpu -2 is not usable");
}

TEST(ThreadPinning, FailedPinLeavesTheThreadAsItWas) {
  smartarrays::test::ScopedFakeTopology fake(shared_and_cpuless_spec());
  on_thread([] {
    pin_current_thread_to_node(2);
    const std::vector<int> before = thread_affinity();
    EXPECT_THROW(pin_current_thread_to_node(1), Error);
    EXPECT_EQ(thread_affinity(), before);
    EXPECT_EQ(current_node(), 2);
  });
}

}  // namespace
}  // namespace smartarrays::os
