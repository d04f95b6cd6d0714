// Tests the smart collections against plain references: the study's datasets, the group-by (every
// aggregate), the hash table and join, the sorted index, and the classic implementations, on small
// and adversarial data, every distribution, several key widths and placements on fake topologies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "smartarrays/collections/classic.hpp"
#include "smartarrays/collections/datasets.hpp"
#include "smartarrays/collections/group_by.hpp"
#include "smartarrays/collections/hash_join.hpp"
#include "smartarrays/collections/hash_table.hpp"
#include "smartarrays/collections/sorted_index.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/mix64.hpp"
#include "support/array_values.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays::collections {
namespace {

using test::array_of;
using test::values_of;
using test::with_bits;

constexpr std::uint64_t max_u64 = ~std::uint64_t{0};

classic::Groups reference_groups(const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& values,
                                 Aggregate aggregate) {
  std::map<std::uint64_t, std::vector<std::uint64_t>> groups;
  for (std::size_t i = 0; i < keys.size(); ++i) groups[keys[i]].push_back(values[i]);
  classic::Groups out;
  for (auto& [key, v] : groups) {
    std::sort(v.begin(), v.end());
    std::uint64_t sum = 0;
    for (std::uint64_t x : v) sum += x;
    const std::uint64_t results[] = {v.size(), sum, v.front(), v.back(), v[(v.size() - 1) / 2]};
    out.emplace_back(key, results[static_cast<int>(aggregate)]);
  }
  return out;
}

classic::Groups as_groups(const GroupResult& r) {
  const std::vector<std::uint64_t> k = values_of(r.keys), v = values_of(r.values);
  classic::Groups out;
  for (std::size_t i = 0; i < k.size(); ++i) out.emplace_back(k[i], v[i]);
  return out;
}

std::uint64_t reference_join_count(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  std::map<std::uint64_t, std::uint64_t> counts;
  for (std::uint64_t k : a) ++counts[k];
  std::uint64_t total = 0;
  for (std::uint64_t k : b) total += counts.count(k) ? counts[k] : 0;
  return total;
}

// Every aggregate of the smart group-by and the classic W1/W2 against the reference.
void expect_group_by_matches(const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& values,
                             const ArrayOptions& options = {}) {
  const SmartArray k = array_of(keys, options), v = array_of(values, options);
  const GroupBy group_by(k, v);
  for (Aggregate a : {Aggregate::count, Aggregate::sum, Aggregate::min, Aggregate::max, Aggregate::median}) {
    EXPECT_EQ(as_groups(group_by.run(a)), reference_groups(keys, values, a)) << to_string(a);
  }
  EXPECT_EQ(classic::median_by_key(keys, values), reference_groups(keys, values, Aggregate::median));
  EXPECT_EQ(classic::count_by_key(keys), reference_groups(keys, values, Aggregate::count));
}

// Smart and classic joins and both indexes against the reference, both argument orders.
void expect_joins_match(const std::vector<std::uint64_t>& build, const std::vector<std::uint64_t>& probe,
                        const ArrayOptions& options = {}) {
  const SmartArray b = array_of(build, options), p = array_of(probe, options);
  const std::uint64_t expected = reference_join_count(build, probe);
  EXPECT_EQ(hash_join_count(b, p, options), expected);
  EXPECT_EQ(hash_join_count(p, b, options), expected);
  EXPECT_EQ(classic::hash_join_count(build, probe), expected);
  EXPECT_EQ(SortedIndex::build(b, options).count_matches(p), expected);
  EXPECT_EQ(classic::index_join_count(classic::TreeIndex(build), probe), expected);
  // Every matching pair once, in (left row, right row) order, whichever side the table is built on.
  for (const bool swapped : {false, true}) {
    const JoinPairs pairs = swapped ? hash_join_pairs(p, b, options) : hash_join_pairs(b, p, options);
    const std::vector<std::uint64_t>& l_keys = swapped ? probe : build;
    const std::vector<std::uint64_t>& r_keys = swapped ? build : probe;
    const std::vector<std::uint64_t> left = values_of(pairs.left_rows), right = values_of(pairs.right_rows);
    ASSERT_EQ(left.size(), expected);
    ASSERT_EQ(right.size(), expected);
    for (std::size_t i = 0; i < left.size(); ++i) {
      ASSERT_EQ(l_keys[left[i]], r_keys[right[i]]);
      if (i > 0) {
        ASSERT_TRUE(std::pair(left[i - 1], right[i - 1]) < std::pair(left[i], right[i])) << "pair " << i;
      }
    }
  }
}

std::vector<std::uint64_t> random_keys(std::size_t n, std::uint64_t range, std::uint64_t seed) {
  std::vector<std::uint64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i) keys[i] = util::mix64(seed + i) % range;
  return keys;
}

TEST(Datasets, EveryDistributionIsDeterministicAndInRange) {
  for (Distribution d : {Distribution::moving_cluster, Distribution::sequential, Distribution::heavy_hitter, Distribution::zipf}) {
    const RecordsSpec spec{5000, 37, d, 9};
    const Records a = make_records(spec, {}), b = make_records(spec, {});
    const std::vector<std::uint64_t> keys = values_of(a.keys), values = values_of(a.values);
    EXPECT_EQ(keys, values_of(b.keys)) << to_string(d);
    EXPECT_EQ(values, values_of(b.values));
    EXPECT_EQ(a.keys.bits(), 6u);
    EXPECT_EQ(a.values.bits(), 20u);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      ASSERT_LT(keys[i], 37u);
      ASSERT_EQ(keys[i], record_key(spec, i));
      ASSERT_LT(values[i], record_value_limit);
    }
    EXPECT_EQ(parse_distribution(to_string(d)), d);
  }
}

TEST(Datasets, DistributionsHaveTheirShapes) {
  const std::uint64_t n = 20000, g = 100;
  std::vector<std::uint64_t> hits(g, 0);
  for (std::uint64_t i = 0; i < n; ++i) ++hits[record_key({n, g, Distribution::heavy_hitter, 1}, i)];
  EXPECT_NEAR(static_cast<double>(hits[0]) / n, 0.5, 0.02);
  std::fill(hits.begin(), hits.end(), 0);
  for (std::uint64_t i = 0; i < n; ++i) ++hits[record_key({n, g, Distribution::zipf, 1}, i)];
  EXPECT_GT(hits[0], 2 * hits[g / 2]);
  for (std::uint64_t i = 1; i < n; ++i) {
    ASSERT_GE(record_key({n, g, Distribution::sequential, 1}, i), record_key({n, g, Distribution::sequential, 1}, i - 1));
  }
  EXPECT_EQ(record_key({n, g, Distribution::sequential, 1}, n - 1), g - 1);
  EXPECT_LT(record_key({n, g, Distribution::moving_cluster, 1}, 0), 100u);
}

TEST(Datasets, BadSpecsAreRefused) {
  EXPECT_THROW(make_records({10, 0, Distribution::zipf, 1}, {}), Error);
  EXPECT_THROW(make_records({10, 11, Distribution::zipf, 1}, {}), Error);
  EXPECT_THROW(make_records({10, 2, Distribution::zipf, 1}, with_bits(8)), Error);
  EXPECT_THROW(make_join_tables({10, 0, 1}, {}), Error);
  EXPECT_THROW(make_join_tables({std::uint64_t{1} << 62, 16, 1}, {}), Error);
  EXPECT_THROW(parse_distribution("uniform"), Error);
  EXPECT_EQ(make_records({0, 1, Distribution::zipf, 1}, {}).keys.length(), 0u);
}

TEST(Datasets, JoinTablesAreAPermutationAndForeignKeys) {
  const JoinTables t = make_join_tables({1000, 16, 3}, {});
  std::vector<std::uint64_t> build = values_of(t.build);
  const std::vector<std::uint64_t> probe = values_of(t.probe);
  ASSERT_EQ(probe.size(), 16000u);
  EXPECT_EQ(build[5], build_key({1000, 16, 3}, 5));
  std::sort(build.begin(), build.end());
  for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_EQ(build[i], i + 1);
  for (std::uint64_t k : probe) ASSERT_TRUE(k >= 1 && k <= 1000);
  EXPECT_EQ(hash_join_count(t.build, t.probe), 16000u);
}

TEST(Datasets, NpyFilesHoldTheValues) {
  const std::vector<std::uint64_t> values = {0, 5, max_u64, 7};
  const std::string path = ::testing::TempDir() + "/collections.npy";
  write_npy(array_of(values), path);
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 128u + 32u);
  EXPECT_EQ(bytes.substr(1, 5), "NUMPY");
  EXPECT_NE(bytes.find("'descr': '<u8'"), std::string::npos);
  EXPECT_NE(bytes.find("'shape': (4,)"), std::string::npos);
  std::uint64_t third = 0;
  std::copy_n(bytes.data() + 128 + 16, 8, reinterpret_cast<char*>(&third));
  EXPECT_EQ(third, max_u64);
  std::remove(path.c_str());
  EXPECT_THROW(write_npy(array_of(values), "/nonexistent-dir/x.npy"), Error);
}

TEST(GroupBy, EveryDistributionMatchesTheReference) {
  for (Distribution d : {Distribution::moving_cluster, Distribution::sequential, Distribution::heavy_hitter, Distribution::zipf}) {
    const Records r = make_records({3000, 50, d, 4}, {});
    expect_group_by_matches(values_of(r.keys), values_of(r.values));
  }
}

TEST(GroupBy, AdversarialKeys) {
  expect_group_by_matches({7, 7, 7, 7, 7}, {5, 1, 4, 2, 3});                    // one group, all keys equal
  expect_group_by_matches({0, max_u64, 0, max_u64, 1}, {1, 2, 3, max_u64, 0});  // extremes: the sorting path
  expect_group_by_matches({}, {});
  std::vector<std::uint64_t> distinct(1000), values(1000);
  for (std::uint64_t i = 0; i < 1000; ++i) distinct[i] = 999 - i, values[i] = util::mix64(i);
  expect_group_by_matches(distinct, values);  // all distinct, 64-bit values
  for (std::uint64_t range : {std::uint64_t{2}, std::uint64_t{1} << 20, std::uint64_t{1} << 40, max_u64}) {
    expect_group_by_matches(random_keys(2000, range, range), random_keys(2000, 1000, 1));  // key width classes
  }
}

TEST(GroupBy, ErrorsAreClear) {
  const SmartArray a = array_of({1, 2, 3}), b = array_of({1, 2});
  try {
    GroupBy(a, b);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "group by: keys and values differ in length (3 and 2)");
  }
  EXPECT_THROW(GroupBy(a, a, runtime::default_pool(), with_bits(3)), Error);
  EXPECT_THROW(GroupBy(a, a).run(static_cast<Aggregate>(99)), Error);
  EXPECT_THROW(classic::median_by_key(std::vector<std::uint64_t>{1}, std::vector<std::uint64_t>{}), Error);
  EXPECT_EQ(parse_aggregate("MEDIAN"), Aggregate::median);
  EXPECT_THROW(parse_aggregate("mode"), Error);
}

TEST(HashJoin, MatchesTheReference) {
  expect_joins_match(random_keys(500, 300, 1), random_keys(4000, 400, 2));        // duplicates on both sides
  expect_joins_match({5, 5, 5}, {5, 5});                                           // all keys equal
  expect_joins_match({0, max_u64, 3}, {max_u64, 0, 0, 4, max_u64 - 1});           // extremes: split slots
  expect_joins_match({}, {1, 2});
  expect_joins_match({1, 2}, {});
  expect_joins_match(random_keys(9000, std::uint64_t{1} << 40, 5), random_keys(9000, std::uint64_t{1} << 40, 5));
}

// 10^12 pairs of one key: counted, then refused before any pair is made (they were gathered until
// memory ran out).
TEST(HashJoin, PairsBeyondTheMemoryLimitAreRefusedBeforeAnyIsMade) {
  const SmartArray ones = array_of(std::vector<std::uint64_t>(1000000, 1));
  EXPECT_EQ(hash_join_count(ones, ones), 1000000000000u);
  try {
    hash_join_pairs(ones, ones);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_memory);
    EXPECT_EQ(std::string(e.what()).rfind("hash join: 1000000000000 pairs need at least 29.1 TiB (32 bytes a pair); the memory limit is ", 0), 0u)
        << e.what();
  }
}

TEST(HashTable, FindsRowsAndReportsMemory) {
  const std::vector<std::uint64_t> keys = {10, 20, 10, 30, 10};
  const HashTable table = HashTable::build(array_of(keys));
  const Match m = table.find(10);
  ASSERT_EQ(m.count, 3u);
  std::vector<std::uint64_t> rows;
  for (std::uint64_t r = m.begin; r < m.begin + m.count; ++r) rows.push_back(table.rows().get(r));
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (std::vector<std::uint64_t>{0, 2, 4}));
  EXPECT_EQ(table.find(25).count, 0u);
  EXPECT_EQ(table.find(max_u64).count, 0u);
  EXPECT_EQ(table.distinct(), 3u);
  EXPECT_EQ(table.slot_bits(), 5u + 2u);  // key 30 in 5 bits, count 3 in 2
  EXPECT_GT(table.memory_bytes(), 0u);
  EXPECT_THROW(HashTable::build(array_of(keys), with_bits(8)), Error);
}

TEST(SortedIndex, LooksUpLikeASortedVector) {
  std::vector<std::uint64_t> keys = random_keys(20000, 5000, 3);
  keys.push_back(max_u64);
  keys.push_back(0);
  const SortedIndex index = SortedIndex::build(array_of(keys));
  std::vector<std::uint64_t> sorted = keys;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(values_of(index.keys()), sorted);
  for (std::uint64_t probe : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2500}, std::uint64_t{4999}, std::uint64_t{5000}, max_u64}) {
    const auto expected = std::equal_range(sorted.begin(), sorted.end(), probe);
    EXPECT_EQ(index.lower_bound(probe), static_cast<std::uint64_t>(expected.first - sorted.begin())) << probe;
    EXPECT_EQ(index.find(probe).count, static_cast<std::uint64_t>(expected.second - expected.first)) << probe;
  }
  const Match m = index.find(keys[17]);
  EXPECT_EQ(keys[index.rows().get(m.begin)], keys[17]);
  EXPECT_EQ(SortedIndex::build(array_of({})).find(3).count, 0u);
  EXPECT_THROW(SortedIndex::build(array_of(keys), with_bits(64)), Error);
}

TEST(Collections, PlacementsOnFakeTopologies) {
  const test::ScopedFakeTopology topology("nodes=2");
  const Records r = make_records({4000, 64, Distribution::zipf, 2}, {});
  const std::vector<std::uint64_t> keys = values_of(r.keys), values = values_of(r.values);
  for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated,
                      Placement::partitioned}) {
    ArrayOptions options;
    options.placement = p;
    const Records placed = make_records({4000, 64, Distribution::zipf, 2}, options);
    EXPECT_EQ(placed.keys.replicas(), p == Placement::replicated ? 2u : 1u);
    EXPECT_EQ(values_of(placed.keys), keys);
    expect_group_by_matches(keys, values, options);
    expect_joins_match(random_keys(3000, 2000, 1), keys, options);
  }
}

}  // namespace
}  // namespace smartarrays::collections
