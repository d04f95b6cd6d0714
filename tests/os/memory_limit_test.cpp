// Tests of os::memory_limit(): a positive limit no larger than physical memory unless the setting
// names it, with its source, read once.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "smartarrays/os/memory_limit.hpp"

namespace smartarrays::os {
namespace {

TEST(MemoryLimit, IsPositiveAndNamesItsSource) {
  const MemoryLimit& limit = memory_limit();
  EXPECT_GT(limit.bytes, 0u);
  const std::uint64_t physical = static_cast<std::uint64_t>(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE);
  const char* setting = std::getenv("SMARTARRAYS_MEMORY_LIMIT_MB");
  if (setting == nullptr || *setting == '\0') {
    EXPECT_LE(limit.bytes, physical);
    EXPECT_NE(limit.source, "SMARTARRAYS_MEMORY_LIMIT_MB");
  } else {
    EXPECT_EQ(limit.bytes, std::stoull(setting) << 20);
    EXPECT_EQ(limit.source, "SMARTARRAYS_MEMORY_LIMIT_MB");
  }
  EXPECT_FALSE(limit.source.empty());
  EXPECT_EQ(&memory_limit(), &limit) << "read once";
}

}  // namespace
}  // namespace smartarrays::os
