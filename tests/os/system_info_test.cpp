// Tests of the machine facts reader: sysfs selection lines and the facts of this machine.
#include <gtest/gtest.h>

#include "smartarrays/os/system_info.hpp"

namespace smartarrays::os {
namespace {

TEST(SystemInfo, SelectedModeIsTheBracketedChoice) {
  EXPECT_EQ(selected_mode("always [madvise] never"), "madvise");
  EXPECT_EQ(selected_mode("[always] madvise never"), "always");
  EXPECT_EQ(selected_mode("always defer defer+madvise madvise [never]"), "never");
  EXPECT_EQ(selected_mode("unknown"), "unknown");
  EXPECT_EQ(selected_mode("0"), "0");
}

TEST(SystemInfo, ReadsThisMachinesFacts) {
  const SystemInfo info = read_system_info();
  EXPECT_GE(info.online_cpus, 1);
  EXPECT_FALSE(info.cpu_model.empty());
  EXPECT_FALSE(info.kernel.empty());
  // The THP mode is one word (the selection, not the whole line), or unknown without THP support.
  EXPECT_EQ(info.thp_enabled.find(' '), std::string::npos) << info.thp_enabled;
  EXPECT_EQ(info.thp_enabled.find('['), std::string::npos) << info.thp_enabled;
  for (double load : info.load_average) EXPECT_GE(load, 0.0);
}

}  // namespace
}  // namespace smartarrays::os
