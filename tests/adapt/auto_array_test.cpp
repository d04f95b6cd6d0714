// Tests placement "auto" and bits "auto": arrays equal explicit ones value for value, the chosen
// options are readable from the array, SmartArray refuses unresolved auto options, and the quick
// calibration produces a profile that validates and is found in the cache.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "adapt/profiles.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/adapt/adaptive_array.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/machine_profile.hpp"
#include "support/run_cli.hpp"

namespace smartarrays::adapt {
namespace {

std::vector<std::uint64_t> values(std::size_t n, unsigned bits) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = (i * 2654435761u) & ((1ull << bits) - 1);
  return v;
}

TEST(AutoArray, EqualsTheExplicitArrayValueForValue) {
  set_machine_profile(test::machine(1, 2, 10, 10, 4e9));
  const std::vector<std::uint64_t> data = values(100000, 20);
  ArrayOptions options;
  options.auto_placement = true;
  options.auto_bits = true;
  options.hints = AccessHints{true, AccessPattern::sequential, 4, 0};
  const AdaptiveArray a = make_array(data, options);
  ASSERT_TRUE(a.decision.has_value());
  EXPECT_FALSE(a.array.options().auto_placement);
  EXPECT_EQ(a.array.bits(), a.decision->arrays[0].choice.bits);
  EXPECT_EQ(a.array.placement(), a.decision->arrays[0].choice.placement);
  ArrayOptions explicit_options;
  explicit_options.placement = a.array.placement();
  explicit_options.bits = a.array.bits();
  const SmartArray b = SmartArray::from_values(data, explicit_options);
  ASSERT_EQ(a.array.length(), b.length());
  for (std::uint64_t i = 0; i < b.length(); ++i) ASSERT_EQ(a.array.get(i), b.get(i)) << i;
  for (std::uint64_t i = 0; i < b.length(); ++i) ASSERT_EQ(a.array.get(i), data[i]) << i;
  set_machine_profile(std::nullopt);
}

TEST(AutoArray, AutoBitsOnlyKeepsThePlacementAndAutoPlacementOnlyKeepsTheBits) {
  set_machine_profile(test::machine(2, 4, 40, 10, 4e9));
  ArrayOptions bits_only;
  bits_only.placement = Placement::interleaved;
  bits_only.auto_bits = true;
  const ResolvedOptions r = resolve(bits_only, 1u << 20, 1000);
  EXPECT_EQ(r.options.placement, Placement::interleaved);
  EXPECT_TRUE(r.options.bits == 10 || r.options.bits == 64) << r.options.bits;
  ArrayOptions placement_only;
  placement_only.auto_placement = true;
  placement_only.bits = 16;
  placement_only.hints.read_only = true;
  placement_only.hints.passes = 100;
  const ResolvedOptions p = resolve(placement_only, 64u << 20, 1000);
  EXPECT_EQ(p.options.bits, 16u);
  EXPECT_EQ(p.options.placement, Placement::replicated);
  placement_only.bits = 8;
  EXPECT_THROW(resolve(placement_only, 100, 1000), Error);  // 1000 needs 10 bits
  ArrayOptions none;
  EXPECT_FALSE(resolve(none, 100, 5).decision.has_value());
  set_machine_profile(std::nullopt);
}

TEST(AutoArray, SmartArrayRefusesUnresolvedAutoOptions) {
  ArrayOptions options;
  options.auto_placement = true;
  options.bits = 8;
  EXPECT_THROW(SmartArray::allocate(10, options), Error);
  options.auto_placement = false;
  options.auto_bits = true;
  const std::vector<std::uint64_t> data{1, 2, 3};
  try {
    SmartArray::from_values(data, options);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("adapt::make_array"), std::string::npos) << e.what();
  }
}

TEST(AutoArray, BadHintsAreRejected) {
  ArrayOptions options;
  options.auto_placement = true;
  options.hints.passes = 0;
  const std::vector<std::uint64_t> data{1, 2, 3};
  EXPECT_THROW(make_array(data, options), Error);
}

TEST(AutoArray, WithoutACachedProfileTheEstimateDecides) {
  const std::string dir = ::testing::TempDir() + "/smartarrays-test-adapt-empty-cache";
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  EXPECT_EQ(cache_directory(), dir + "/smartarrays");
  EXPECT_FALSE(load_cached_profile().has_value());
  const MachineProfile e = estimated_profile();
  EXPECT_EQ(e.calibration, "estimated");
  EXPECT_NO_THROW(validate(e));
  ::unsetenv("XDG_CACHE_HOME");
}

TEST(Calibration, QuickRunWritesAProfileThatValidatesIntoTheCache) {
  const std::string dir = ::testing::TempDir() + "/smartarrays-test-adapt-cache";
  std::filesystem::remove_all(dir);
  const test::CliRun run = test::run_cli("calibrate --quick --quiet", dir + ".err", "XDG_CACHE_HOME=" + dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  const std::optional<MachineProfile> cached = load_cached_profile();
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cached->calibration, "quick");
  EXPECT_EQ(cached->machine_key, machine_key());
  EXPECT_NO_THROW(validate(*cached));
  // The cache random loads see is calibrated: somewhere from 64 KiB to four times the last-level cache.
  EXPECT_GE(cached->random_cache_bytes, 64u << 10);
  EXPECT_LE(cached->random_cache_bytes, 4 * cached->llc_bytes);
  EXPECT_NE(run.out.find("profile: " + cached_profile_path()), std::string::npos) << run.out;
  const test::CliRun topology = test::run_cli("topology", dir + ".err", "XDG_CACHE_HOME=" + dir);
  EXPECT_NE(topology.out.find("machine profile: " + cached_profile_path()), std::string::npos) << topology.out;
  ::unsetenv("XDG_CACHE_HOME");
  std::filesystem::remove_all(dir);
}

TEST(Calibration, ADamagedCachedProfileIsAnErrorThatSaysHowToReplaceIt) {
  const std::string dir = ::testing::TempDir() + "/smartarrays-test-adapt-damaged-cache";
  std::filesystem::remove_all(dir);
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  std::filesystem::create_directories(cache_directory());
  std::ofstream(cached_profile_path()) << "{\"format\": \"smartarrays.machine/1\",";  // cut off, as by a full disk
  try {
    load_cached_profile();
    FAIL();
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("the cached machine profile is damaged: " + cached_profile_path()), std::string::npos) << what;
    EXPECT_NE(what.find("run 'smartarrays calibrate'"), std::string::npos) << what;
  }
  const test::CliRun topology = test::run_cli("topology", dir + ".err", "XDG_CACHE_HOME=" + dir);
  EXPECT_EQ(topology.exit_code, 0) << topology.err;
  EXPECT_NE(topology.out.find("machine profile: the cached machine profile is damaged"), std::string::npos) << topology.out;
  // calibrate replaces it.
  const test::CliRun calibrate = test::run_cli("calibrate --quick --quiet", dir + ".err", "XDG_CACHE_HOME=" + dir);
  ASSERT_EQ(calibrate.exit_code, 0) << calibrate.err;
  EXPECT_TRUE(load_cached_profile().has_value());
  ::unsetenv("XDG_CACHE_HOME");
  std::filesystem::remove_all(dir);
}

// A cached profile written to break the reader: before, a deep value crashed the process (printing
// it recursed), a number out of range escaped as nlohmann's own exception with the whole number,
// and an invalid UTF-8 byte reached the message raw. Each is now the damaged-profile error.
TEST(Calibration, AHostileCachedProfileIsTheDamagedProfileErrorWithItsTextQuotedAndCut) {
  const std::string dir = ::testing::TempDir() + "/smartarrays-test-adapt-hostile-cache";
  std::filesystem::remove_all(dir);
  ::setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  std::filesystem::create_directories(cache_directory());
  const std::string damaged = "the cached machine profile is damaged: " + cached_profile_path() + ": ";
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"{\"format\": " + deep + "}", "arrays and objects nested deeper than 64 levels"},
      {std::string(200000, '['), "arrays and objects nested deeper than 64 levels"},
      {"{\"format\": 1e999}", "not JSON: number overflow parsing '1e999'"},
      {"{\"format\": 1" + std::string(100000, '0') + "}", "not JSON: number overflow parsing '1" + std::string(79, '0') + "...'"},
      {"{\"format\": \"\xff\"}",
       "not JSON: parse error at line 1, column 13: syntax error while parsing value - invalid string: ill-formed "
       "UTF-8 byte; last read: '\"\\xff'"},
  };
  for (const auto& [text, why] : cases) {
    std::ofstream(cached_profile_path(), std::ios::trunc) << text;
    try {
      load_cached_profile();
      ADD_FAILURE() << why;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_EQ(e.message(), damaged + why + "; run 'smartarrays calibrate' to measure this machine again and replace it");
    }
  }
  ::unsetenv("XDG_CACHE_HOME");
  std::filesystem::remove_all(dir);
}

// Placement auto chooses the nodes and huge pages: given with it, they were dropped without a word
// (nodes=[7], a node that does not exist, made an os_default array). Now they are refused by name.
TEST(AutoArray, NodesOrHugePagesGivenWithAutoPlacementAreRefusedNamingTheOption) {
  set_machine_profile(test::machine(2, 4, 40, 10, 4e9));
  const std::vector<std::uint64_t> data = values(1000, 10);
  ArrayOptions options;
  options.auto_placement = true;
  options.nodes = {7};
  try {
    make_array(data, options);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "options.nodes (7) applies only to an explicit placement: placement 'auto' chooses the nodes");
  }
  options.nodes.clear();
  for (const HugePages mode : {HugePages::off, HugePages::on, HugePages::pages_2m, HugePages::pages_1g}) {
    options.huge_pages = mode;
    try {
      make_array(data, options);
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_EQ(std::string(e.what()), std::string("options.huge_pages '") + os::to_string(mode) +
                                           "' applies only to an explicit placement: placement 'auto' chooses huge "
                                           "pages (leave huge_pages 'auto')");
    }
  }
  // With an explicit placement and auto bits, both are the caller's and kept.
  ArrayOptions bits_only;
  bits_only.auto_bits = true;
  bits_only.placement = Placement::interleaved;
  bits_only.nodes = {1, 0};
  bits_only.huge_pages = HugePages::off;
  const ResolvedOptions r = resolve(bits_only, data.size(), 1000);
  EXPECT_EQ(r.options.nodes, (std::vector<int>{1, 0}));
  EXPECT_EQ(r.options.huge_pages, HugePages::off);
  set_machine_profile(std::nullopt);
}

TEST(ProfileFiles, AWriteIsRenamedIntoPlaceAndAFailedOneLeavesNothingBehind) {
  const std::string dir = ::testing::TempDir() + "/smartarrays-test-adapt-write";
  std::filesystem::remove_all(dir);
  const MachineProfile p = estimated_profile();
  write_machine_profile(p, dir + "/m.json");
  write_machine_profile(p, dir + "/m.json");  // over an existing file
  EXPECT_EQ(to_json(read_machine_profile(dir + "/m.json")), to_json(p));
  // A directory where the file should go: the rename fails, and the staged file is removed.
  std::filesystem::create_directories(dir + "/taken.json");
  EXPECT_THROW(write_machine_profile(p, dir + "/taken.json"), Error);
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"m.json", "taken.json"}));
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace smartarrays::adapt
