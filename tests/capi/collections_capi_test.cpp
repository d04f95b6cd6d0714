// Tests the collections' C ABI: group-by, hash join, sa_index, sa_hash_map and sa_hash_set give the C++ results, and every
// argument error has its status and message.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "smartarrays.h"
#include "smartarrays/collections/group_by.hpp"
#include "smartarrays/collections/hash_map.hpp"
#include "support/capi_expect.hpp"

namespace {

using smartarrays::test::expect_failure;

sa_array* make(const std::vector<uint64_t>& values) {
  sa_array* a = nullptr;
  EXPECT_EQ(sa_array_from_u64(values.data(), values.size(), nullptr, &a), SA_OK);
  return a;
}

std::vector<uint64_t> decode(const sa_array* a) {
  std::vector<uint64_t> out(sa_array_length(a));
  if (!out.empty()) {
    EXPECT_EQ(sa_array_decode(a, 0, out.size(), out.data()), SA_OK);
  }
  return out;
}

TEST(CollectionsCApi, GroupByEqualsCpp) {
  const std::vector<uint64_t> keys = {3, 1, 3, 0, ~uint64_t{0}, 3}, values = {9, 4, 1, 7, 2, 5};
  sa_array* k = make(keys);
  sa_array* v = make(values);
  const smartarrays::SmartArray ck = smartarrays::SmartArray::from_values(keys, {});
  const smartarrays::SmartArray cv = smartarrays::SmartArray::from_values(values, {});
  for (sa_aggregate a : {SA_AGG_COUNT, SA_AGG_SUM, SA_AGG_MIN, SA_AGG_MAX, SA_AGG_MEDIAN}) {
    sa_array* out_keys = nullptr;
    sa_array* out_values = nullptr;
    ASSERT_EQ(sa_group_by(k, v, a, nullptr, &out_keys, &out_values), SA_OK) << sa_last_error();
    const smartarrays::collections::GroupResult expected =
        smartarrays::collections::GroupBy(ck, cv).run(static_cast<smartarrays::collections::Aggregate>(a));
    EXPECT_EQ(decode(out_keys), (std::vector<uint64_t>{0, 1, 3, ~uint64_t{0}}));
    std::vector<uint64_t> want(expected.values.length());
    expected.values.decode(0, want.size(), want.data());
    EXPECT_EQ(decode(out_values), want);
    sa_array_free(out_keys);
    sa_array_free(out_values);
  }
  sa_array* short_values = make({1});
  sa_array* out_keys = nullptr;
  sa_array* out_values = nullptr;
  expect_failure(sa_group_by(k, short_values, SA_AGG_COUNT, nullptr, &out_keys, &out_values), SA_EINVAL, "sa_group_by",
                 "keys and values differ in length (6 and 1)");
  expect_failure(sa_group_by(nullptr, v, SA_AGG_COUNT, nullptr, &out_keys, &out_values), SA_EINVAL, "sa_group_by", "keys is NULL");
  expect_failure(sa_group_by(k, v, static_cast<sa_aggregate>(9), nullptr, &out_keys, &out_values), SA_EINVAL, "sa_group_by",
                 "invalid aggregate");
  expect_failure(sa_group_by(k, v, SA_AGG_SUM, nullptr, nullptr, &out_values), SA_EINVAL, "sa_group_by", "out_keys is NULL");
  sa_options bits;
  sa_options_init(&bits);
  bits.bits = 7;
  expect_failure(sa_group_by(k, v, SA_AGG_SUM, &bits, &out_keys, &out_values), SA_EINVAL, "sa_group_by", "bits must be 0");
  sa_array_free(short_values);
  sa_array_free(k);
  sa_array_free(v);
}

TEST(CollectionsCApi, JoinsAndIndex) {
  sa_array* build = make({5, 7, 5, 0});
  sa_array* probe = make({5, 1, 7, 0, 5});
  uint64_t count = 0;
  ASSERT_EQ(sa_hash_join_count(build, probe, nullptr, &count), SA_OK);
  EXPECT_EQ(count, 6u);
  sa_array* lefts = nullptr;
  sa_array* rights = nullptr;
  ASSERT_EQ(sa_hash_join_pairs(build, probe, nullptr, &lefts, &rights), SA_OK);
  EXPECT_EQ(decode(lefts), (std::vector<uint64_t>{0, 0, 1, 2, 2, 3}));
  EXPECT_EQ(decode(rights), (std::vector<uint64_t>{0, 4, 2, 0, 4, 3}));
  sa_array_free(lefts);
  sa_array_free(rights);
  sa_array* ones = make(std::vector<uint64_t>(1000000, 1));
  expect_failure(sa_hash_join_pairs(ones, ones, nullptr, &lefts, &rights), SA_ENOMEM, "sa_hash_join_pairs",
                 "hash join: 1000000000000 pairs need at least 29.1 TiB (32 bytes a pair)");
  sa_array_free(ones);

  sa_index* index = nullptr;
  ASSERT_EQ(sa_index_build(build, nullptr, &index), SA_OK);
  EXPECT_EQ(sa_index_size(index), 4u);
  EXPECT_GT(sa_index_memory_bytes(index), 0u);
  const uint64_t keys[3] = {5, 6, 0};
  uint64_t counts[3], first[3];
  ASSERT_EQ(sa_index_lookup(index, keys, 3, counts, first), SA_OK);
  EXPECT_EQ(counts[0], 2u);
  EXPECT_EQ(counts[1], 0u);
  EXPECT_EQ(first[2], 0u);
  uint64_t row = 9;
  ASSERT_EQ(sa_index_row(index, first[0], &row), SA_OK);
  EXPECT_EQ(row, 0u);
  ASSERT_EQ(sa_index_count_matches(index, probe, &count), SA_OK);
  EXPECT_EQ(count, 6u);
  expect_failure(sa_index_lookup(index, nullptr, 3, counts, first), SA_EINVAL, "sa_index_lookup", "probe (with n > 0) is NULL");
  expect_failure(sa_index_row(index, 4, &row), SA_ERANGE, "sa_index_row", "index 4 out of range for length 4");
  expect_failure(sa_index_build(nullptr, nullptr, &index), SA_EINVAL, "sa_index_build", "keys is NULL");
  expect_failure(sa_hash_join_count(build, nullptr, nullptr, &count), SA_EINVAL, "sa_hash_join_count", "right is NULL");
  EXPECT_EQ(sa_index_size(nullptr), 0u);
  sa_index_free(index);
  sa_index_free(nullptr);
  sa_array_free(build);
  sa_array_free(probe);
}

TEST(CollectionsCApi, HashMapAndSetEqualCpp) {
  const std::vector<uint64_t> keys = {0, ~uint64_t{0}, 7, 7, 42, 0}, values = {10, 11, 1, 2, ~uint64_t{0}, 12};
  const std::vector<uint64_t> probe = {0, 1, 7, 42, ~uint64_t{0}, ~uint64_t{0} - 1, 43};
  sa_array* k = make(keys);
  sa_array* v = make(values);
  const smartarrays::SmartArray ck = smartarrays::SmartArray::from_values(keys, {});
  const smartarrays::SmartArray cv = smartarrays::SmartArray::from_values(values, {});
  const auto map_cpp = smartarrays::collections::HashMap::build(ck, cv);
  const auto set_cpp = smartarrays::collections::HashSet::build(ck);
  std::vector<uint64_t> want(probe.size());
  std::vector<uint8_t> want_found(probe.size()), want_in(probe.size());
  map_cpp.get(probe, want, 99, want_found);
  set_cpp.contains(probe, want_in);

  sa_hash_map* map = nullptr;
  ASSERT_EQ(sa_hash_map_build(k, v, nullptr, &map), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_hash_map_size(map), 4u);
  EXPECT_EQ(sa_hash_map_memory_bytes(map), map_cpp.memory_bytes());
  std::vector<uint64_t> got(probe.size());
  std::vector<uint8_t> found(probe.size());
  ASSERT_EQ(sa_hash_map_get(map, probe.data(), probe.size(), 99, got.data(), found.data()), SA_OK);
  EXPECT_EQ(got, want);
  EXPECT_EQ(found, want_found);
  EXPECT_EQ(got, (std::vector<uint64_t>{12, 99, 2, ~uint64_t{0}, 11, 99, 99}));  // the last row wins
  ASSERT_EQ(sa_hash_map_get(map, probe.data(), probe.size(), 5, got.data(), nullptr), SA_OK);
  EXPECT_EQ(got[1], 5u);
  EXPECT_EQ(sa_hash_map_get(map, nullptr, 0, 0, nullptr, nullptr), SA_OK);
  expect_failure(sa_hash_map_get(map, probe.data(), 1, 0, nullptr, nullptr), SA_EINVAL, "sa_hash_map_get",
                 "out (with n > 0) is NULL");
  expect_failure(sa_hash_map_get(nullptr, probe.data(), 1, 0, got.data(), nullptr), SA_EINVAL, "sa_hash_map_get",
                 "map is NULL");
  sa_hash_map_free(map);
  sa_hash_map_free(nullptr);
  EXPECT_EQ(sa_hash_map_size(nullptr), 0u);

  sa_hash_set* set = nullptr;
  ASSERT_EQ(sa_hash_set_build(k, nullptr, &set), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_hash_set_size(set), 4u);
  EXPECT_EQ(sa_hash_set_memory_bytes(set), set_cpp.memory_bytes());
  std::vector<uint8_t> in(probe.size());
  ASSERT_EQ(sa_hash_set_contains(set, probe.data(), probe.size(), in.data()), SA_OK);
  EXPECT_EQ(in, want_in);
  sa_array* p = make(probe);
  uint64_t count = 0;
  ASSERT_EQ(sa_hash_set_count_contained(set, p, &count), SA_OK);
  EXPECT_EQ(count, 4u);
  expect_failure(sa_hash_set_count_contained(set, nullptr, &count), SA_EINVAL, "sa_hash_set_count_contained", "probe is NULL");
  sa_hash_set_free(set);

  sa_array* short_values = make({1});
  expect_failure(sa_hash_map_build(k, short_values, nullptr, &map), SA_EINVAL, "sa_hash_map_build",
                 "hash map: keys and values differ in length (6 and 1)");
  sa_options bits;
  sa_options_init(&bits);
  bits.bits = 7;
  expect_failure(sa_hash_set_build(k, &bits, &set), SA_EINVAL, "sa_hash_set_build", "options.bits must be 0");
  expect_failure(sa_hash_set_build(k, nullptr, nullptr), SA_EINVAL, "sa_hash_set_build", "out is NULL");
  for (sa_array* a : {k, v, p, short_values}) sa_array_free(a);
}

}  // namespace
