// Tests of the machine facts reader: sysfs selection lines and the facts of this machine.
#include <gtest/gtest.h>

#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::os {
namespace {

TEST(MachineFacts, SelectedModeIsTheBracketedChoice) {
  EXPECT_EQ(selected_mode("always [madvise] never"), "madvise");
  EXPECT_EQ(selected_mode("[always] madvise never"), "always");
  EXPECT_EQ(selected_mode("always defer defer+madvise madvise [never]"), "never");
  EXPECT_EQ(selected_mode("unknown"), "unknown");
  EXPECT_EQ(selected_mode("0"), "0");
}

TEST(MachineFacts, ReadsThisMachinesFacts) {
  const MachineFacts info = read_machine_facts();
  EXPECT_GE(info.online_cpus, 1);
  EXPECT_FALSE(info.cpu_model.empty());
  EXPECT_FALSE(info.kernel.empty());
  // The THP mode is one word (the selection, not the whole line), or unknown without THP support.
  EXPECT_EQ(info.thp_enabled.find(' '), std::string::npos) << info.thp_enabled;
  EXPECT_EQ(info.thp_enabled.find('['), std::string::npos) << info.thp_enabled;
  for (double load : info.load_average) EXPECT_GE(load, 0.0);
  EXPECT_EQ(info.nodes, topology().node_count());
  EXPECT_EQ(info.usable_cpus, topology().all_cpus().size());
  EXPECT_GT(info.memory_total_bytes, 0u);
  EXPECT_LE(info.memory_free_bytes, info.memory_total_bytes);
}

}  // namespace
}  // namespace smartarrays::os
