// Tests SA_AUTO and SA_BITS_AUTO through the C ABI: auto arrays equal explicit ones value for value,
// the chosen options and the decision are readable from the array, and bad hints are refused.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "smartarrays.h"
#include "support/capi_expect.hpp"

namespace {

using smartarrays::test::expect_failure;

struct Array {
  sa_array* a = nullptr;
  ~Array() { sa_array_free(a); }
};

TEST(CapiAuto, AutoArrayEqualsTheExplicitOneValueForValue) {
  std::vector<uint64_t> values(50000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = (i * 7919) % 5000;
  sa_options o;
  sa_options_init(&o);
  EXPECT_EQ(o.hints.passes, 1.0);
  EXPECT_EQ(o.hints.pattern, SA_SEQUENTIAL);
  o.placement = SA_AUTO;
  o.bits = SA_BITS_AUTO;
  o.hints.read_only = 1;
  o.hints.passes = 10;
  Array chosen;
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), &o, &chosen.a), SA_OK) << sa_last_error();
  const uint32_t bits = sa_array_bits(chosen.a);
  EXPECT_TRUE(bits == 13 || bits == 64) << bits;
  const char* json = nullptr;
  ASSERT_EQ(sa_array_decision_json(chosen.a, &json), SA_OK);
  EXPECT_NE(std::string(json).find("\"explanation\""), std::string::npos) << json;
  sa_options e;
  sa_options_init(&e);
  e.placement = sa_array_placement(chosen.a);
  e.bits = bits;
  e.huge_pages = sa_array_huge_pages(chosen.a);
  Array explicit_array;
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), &e, &explicit_array.a), SA_OK) << sa_last_error();
  for (uint64_t i = 0; i < values.size(); ++i) {
    uint64_t x = 0, y = 0;
    ASSERT_EQ(sa_array_get(chosen.a, i, &x), SA_OK);
    ASSERT_EQ(sa_array_get(explicit_array.a, i, &y), SA_OK);
    ASSERT_EQ(x, y);
    ASSERT_EQ(x, values[i]);
  }
  ASSERT_EQ(sa_array_decision_json(explicit_array.a, &json), SA_OK);
  EXPECT_STREQ(json, "null");
}

TEST(CapiAuto, ThirtyTwoBitValuesAndAutoPlacementWithFixedBits) {
  const std::vector<uint32_t> values{1, 2, 3, 4000000000u};
  sa_options o;
  sa_options_init(&o);
  o.placement = SA_AUTO;
  o.bits = 40;
  Array a;
  ASSERT_EQ(sa_array_from_u32(values.data(), values.size(), &o, &a.a), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_array_bits(a.a), 40u);
  EXPECT_NE(sa_array_placement(a.a), SA_AUTO);
}

TEST(CapiAuto, BadHintsAndAutoWithoutValuesAreRefused) {
  const uint64_t values[] = {1, 2, 3};
  sa_options o;
  sa_options_init(&o);
  o.placement = SA_AUTO;
  Array a;
  o.hints.passes = 0;
  expect_failure(sa_array_from_u64(values, 3, &o, &a.a), SA_EINVAL, "sa_array_from_u64",
                 "options->hints.passes must be a finite number > 0");
  o.hints.passes = 1;
  const int32_t not_a_pattern = 7;
  std::memcpy(&o.hints.pattern, &not_a_pattern, sizeof not_a_pattern);
  expect_failure(sa_array_from_u64(values, 3, &o, &a.a), SA_EINVAL, "sa_array_from_u64",
                 "options->hints.pattern 7 is not an sa_access_pattern (0..2)");
  o.hints.pattern = SA_RANDOM;
  o.bits = 8;
  expect_failure(sa_array_alloc(3, &o, &a.a), SA_EINVAL, "sa_array_alloc",
                 "options->placement SA_AUTO is chosen from an array's values: only sa_array_from_u64 and "
                 "sa_array_from_u32 take it");
  const char* json = nullptr;
  expect_failure(sa_array_decision_json(nullptr, &json), SA_EINVAL, "sa_array_decision_json", "a");
}

// Every entry point that makes arrays from something other than values refuses the auto options in
// the C ABI's terms (they once said "make the array with adapt::make_array", a C++ name).
TEST(CapiAuto, EntryPointsThatTakeNoValuesRefuseAutoNamingTheirField) {
  const uint64_t values[] = {1, 2, 2};
  Array keys;
  ASSERT_EQ(sa_array_from_u64(values, 3, nullptr, &keys.a), SA_OK) << sa_last_error();
  for (const bool auto_bits : {false, true}) {
    sa_options o;
    sa_options_init(&o);
    if (auto_bits) {
      o.bits = SA_BITS_AUTO;
    } else {
      o.placement = SA_AUTO;
    }
    const std::string field = auto_bits ? "bits SA_BITS_AUTO" : "placement SA_AUTO";
    const std::string why = " is chosen from an array's values: only sa_array_from_u64 and sa_array_from_u32 take it";
    sa_index* index = nullptr;
    expect_failure(sa_index_build(keys.a, &o, &index), SA_EINVAL, "sa_index_build", "o->" + field + why);
    sa_array* out_keys = nullptr;
    sa_array* out_values = nullptr;
    expect_failure(sa_group_by(keys.a, keys.a, SA_AGG_SUM, &o, &out_keys, &out_values), SA_EINVAL, "sa_group_by",
                   "o->" + field + why);
    uint64_t count = 0;
    expect_failure(sa_hash_join_count(keys.a, keys.a, &o, &count), SA_EINVAL, "sa_hash_join_count", "o->" + field + why);
    sa_buffer* buffer = nullptr;
    expect_failure(sa_buffer_alloc(4096, &o, &buffer), SA_EINVAL, "sa_buffer_alloc", "options->" + field + why);
    sa_graph_options g;
    sa_graph_options_init(&g);
    g.arrays = o;
    sa_graph* graph = nullptr;
    const std::string el = std::string(SMARTARRAYS_TEST_DATA_DIR) + "/graph/tiny.el";
    expect_failure(sa_graph_load(el.c_str(), nullptr, &g, &graph), SA_EINVAL, "sa_graph_load", "options->arrays." + field + why);
  }
}

// SA_AUTO chooses the nodes and huge pages: a node set or a huge-page mode given with it made an
// os_default array without a word (even node 7, which does not exist); now it is refused by name.
TEST(CapiAuto, ANodeSetOrAHugePageModeWithAutoPlacementIsRefused) {
  const uint64_t values[] = {1, 2, 3};
  const int32_t nodes[] = {7};
  sa_options o;
  sa_options_init(&o);
  o.placement = SA_AUTO;
  o.nodes = nodes;
  o.node_count = 1;
  Array a;
  expect_failure(sa_array_from_u64(values, 3, &o, &a.a), SA_EINVAL, "sa_array_from_u64",
                 "options.nodes (7) applies only to an explicit placement: placement 'auto' chooses the nodes");
  EXPECT_EQ(a.a, nullptr);
  o.node_count = 0;
  o.huge_pages = SA_HUGE_PAGES_2M;
  expect_failure(sa_array_from_u64(values, 3, &o, &a.a), SA_EINVAL, "sa_array_from_u64",
                 "options.huge_pages '2M' applies only to an explicit placement");
  o.huge_pages = SA_HUGE_PAGES_AUTO;
  ASSERT_EQ(sa_array_from_u64(values, 3, &o, &a.a), SA_OK) << sa_last_error();
}

}  // namespace
