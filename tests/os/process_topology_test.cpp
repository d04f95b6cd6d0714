// Tests the process-wide topology: SMARTARRAYS_TOPOLOGY read once, set_fake_topology(), and
// references that stay valid after a replacement.
#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "support/fake_topology.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {
namespace {

// The environment is read by the first topology() call of a process, so each case runs in a
// fresh child process (the "threadsafe" style re-executes the test binary).
TEST(ProcessTopologyDeathTest, ReadsTheEnvironmentSpecOnce) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SMARTARRAYS_TOPOLOGY", "nodes=3", 1);
        const Topology& first = topology();
        ::setenv("SMARTARRAYS_TOPOLOGY", "nodes=5", 1);
        const bool ok = first.is_fake() && first.spec() == "nodes=3" && first.node_count() == 3 &&
                        &topology() == &first;
        std::_Exit(ok ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ProcessTopologyDeathTest, BadEnvironmentSpecIsAnErrorNamingTheVariable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SMARTARRAYS_TOPOLOGY", "nodes=zero", 1);
        try {
          topology();
        } catch (const Error& e) {
          const std::string message = e.what();
          std::_Exit(e.code() == ErrorCode::invalid_argument &&
                             message.rfind("environment variable SMARTARRAYS_TOPOLOGY='nodes=zero': topology spec 'nodes=zero'", 0) == 0
                         ? 0
                         : 2);
        }
        std::_Exit(1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ProcessTopologyDeathTest, EmptyEnvironmentSpecMeansTheRealMachine) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SMARTARRAYS_TOPOLOGY", "", 1);
        std::_Exit(topology().is_fake() ? 1 : 0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(ProcessTopology, SetFakeTopologyReplacesItAndEmptySpecRestoresTheMachine) {
  const Topology real = Topology::from_system();
  {
    smartarrays::test::ScopedFakeTopology fake("nodes=4");
    EXPECT_TRUE(topology().is_fake());
    EXPECT_EQ(topology().node_count(), 4u);
    EXPECT_EQ(topology().all_cpus(), real.all_cpus());
  }
  EXPECT_FALSE(topology().is_fake());
  EXPECT_EQ(topology().node_count(), real.node_count());
}

TEST(ProcessTopology, OldReferencesStayValidAfterReplacement) {
  smartarrays::test::ScopedFakeTopology fake("nodes=2");
  const Topology& two = topology();
  set_fake_topology("nodes=3");
  const Topology& three = topology();
  set_fake_topology("");
  EXPECT_EQ(two.node_count(), 2u);
  EXPECT_EQ(two.spec(), "nodes=2");
  EXPECT_EQ(three.node_count(), 3u);
  EXPECT_NE(&two, &three);
}

TEST(ProcessTopology, BadSpecLeavesTheCurrentTopologyInPlace) {
  smartarrays::test::ScopedFakeTopology fake("nodes=2");
  EXPECT_THROW(set_fake_topology("nodes=0"), Error);
  EXPECT_EQ(topology().spec(), "nodes=2");
}

TEST(ProcessTopology, ConcurrentFirstUseSeesOneTopology) {
  std::vector<const Topology*> seen(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < seen.size(); ++i) threads.emplace_back([&seen, i] { seen[i] = &topology(); });
  for (auto& thread : threads) thread.join();
  for (const Topology* t : seen) EXPECT_EQ(t, seen.front());
}

}  // namespace
}  // namespace smartarrays::os
