// Tests the CPU list syntax shared by sysfs and the fake topology spec.
#include <gtest/gtest.h>

#include "os/cpu_list.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::os {
namespace {

TEST(CpuList, ParsesSinglesAndRanges) {
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11\n"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_EQ(parse_cpu_list("7-7"), (std::vector<int>{7}));
}

TEST(CpuList, EmptyTextIsNoCpus) {
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_TRUE(parse_cpu_list("\n").empty());
}

TEST(CpuList, SortsAndDeduplicates) { EXPECT_EQ(parse_cpu_list("3,1-2,2"), (std::vector<int>{1, 2, 3})); }

TEST(CpuList, RejectsMalformedItemsNamingThem) {
  const std::pair<const char*, const char*> cases[] = {
      {"a", "'a'"},         {"1,,2", "empty item"}, {"1,", "empty item"},  {"3-1", "'3-1'"},
      {"0-", "'0-'"},       {"-1", "'-1' in cpu list '-1' is not a number or a range N-M"},
      {"1-2-3", "'1-2-3'"}, {"1 2", "'1 2'"},
      {"99999999", "'99999999'"},
  };
  for (const auto& [text, named] : cases) {
    try {
      parse_cpu_list(text);
      ADD_FAILURE() << "accepted '" << text << "'";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << text;
      EXPECT_NE(std::string(e.what()).find(named), std::string::npos) << text << ": " << e.what();
    }
  }
}

TEST(CpuList, ANodeListIsNamedAsOne) {
  try {
    parse_cpu_list("0,-3", "node list");
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "'-3' in node list '0,-3' is not a number or a range N-M of numbers from 0 to 65535");
  }
}

TEST(CpuList, FormatsWithRanges) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(format_cpu_list({4}), "4");
  EXPECT_EQ(format_cpu_list({}), "");
}

TEST(CpuList, FormatThenParseRoundTrips) {
  const std::vector<int> cpus{0, 2, 3, 4, 9, 63, 64, 65};
  EXPECT_EQ(parse_cpu_list(format_cpu_list(cpus)), cpus);
}

}  // namespace
}  // namespace smartarrays::os
