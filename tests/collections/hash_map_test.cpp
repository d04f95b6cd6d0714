// Tests HashMap and HashSet against std::unordered_map / std::unordered_set: adversarial keys (0 and
// 2^64-1, all equal, all distinct, empty, one key), every key width class (fused and split slots),
// duplicate keys in a map build (the last row wins), the batch probes with a missing value and a
// found mask, every placement on a fake two-node topology, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/collections/hash_map.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/mix64.hpp"
#include "support/array_values.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays::collections {
namespace {

using test::array_of;

constexpr std::uint64_t max_u64 = ~std::uint64_t{0};
constexpr std::uint64_t missing = 0xdeadbeefcafe;

// Probe keys: every key, its neighbours, 0, 2^64-1 and a few random ones.
std::vector<std::uint64_t> probes_for(const std::vector<std::uint64_t>& keys) {
  std::vector<std::uint64_t> probe = {0, 1, max_u64, max_u64 - 1};
  for (std::uint64_t k : keys) {
    probe.push_back(k);
    probe.push_back(k + 1);
    probe.push_back(k - 1);
  }
  for (std::uint64_t i = 0; i < 100; ++i) probe.push_back(util::mix64(i));
  return probe;
}

// The map and the set of keys (values[i] for keys[i]) against the standard containers, single and batch.
void expect_like_std(const std::vector<std::uint64_t>& keys, const std::vector<std::uint64_t>& values,
                     const ArrayOptions& options = {}) {
  std::unordered_map<std::uint64_t, std::uint64_t> reference;
  for (std::size_t i = 0; i < keys.size(); ++i) reference[keys[i]] = values[i];  // the last row wins
  const SmartArray k = array_of(keys), v = array_of(values);
  const HashMap map = HashMap::build(k, v, options);
  const HashSet set = HashSet::build(k, options);
  EXPECT_EQ(map.size(), reference.size());
  EXPECT_EQ(set.size(), reference.size());
  EXPECT_GT(map.memory_bytes(), 0u);
  EXPECT_GT(set.memory_bytes(), 0u);
  const std::vector<std::uint64_t> probe = probes_for(keys);
  std::vector<std::uint64_t> got(probe.size());
  std::vector<std::uint8_t> found(probe.size()), contained(probe.size());
  map.get(probe, got, missing, found);
  set.contains(probe, contained);
  std::uint64_t hits = 0;
  for (std::size_t i = 0; i < probe.size(); ++i) {
    const auto it = reference.find(probe[i]);
    const bool in = it != reference.end();
    hits += in ? 1 : 0;
    EXPECT_EQ(got[i], in ? it->second : missing) << probe[i];
    EXPECT_EQ(found[i], in ? 1 : 0) << probe[i];
    EXPECT_EQ(contained[i], in ? 1 : 0) << probe[i];
    EXPECT_EQ(set.contains(probe[i]), in) << probe[i];
    EXPECT_EQ(map.get(probe[i], missing), in ? it->second : missing) << probe[i];
    EXPECT_EQ(map.find(probe[i]).has_value(), in) << probe[i];
  }
  EXPECT_EQ(set.count_contained(array_of(probe)), hits);
  std::vector<std::uint64_t> without_mask(probe.size());
  map.get(probe, without_mask, missing);
  EXPECT_EQ(without_mask, got);
}

std::vector<std::uint64_t> random_values(std::size_t n, std::uint64_t mask, std::uint64_t seed) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = util::mix64(seed + i) & mask;
  return v;
}

TEST(HashMap, AdversarialKeys) {
  expect_like_std({0, max_u64}, {5, 6});                    // the extremes: 64-bit keys, split slots
  expect_like_std({max_u64}, {max_u64});                    // one key, the widest value
  expect_like_std({5, 9}, {max_u64, 0});                    // small keys, a value with no room for + 1
  expect_like_std({5, 9}, {max_u64 - 1, 0});                // value + 1 = 2^64 - 1 still fits 64 bits, not beside the key
  expect_like_std({0}, {0});                                // one key, all zero
  expect_like_std({}, {});                                  // empty
  expect_like_std(std::vector<std::uint64_t>(5000, 42), random_values(5000, 0xffff, 1));  // all equal
  std::vector<std::uint64_t> distinct(20000);
  for (std::size_t i = 0; i < distinct.size(); ++i) distinct[i] = i * 7 + 3;  // all distinct, many partitions
  expect_like_std(distinct, random_values(distinct.size(), max_u64, 2));
}

TEST(HashMap, EveryKeyWidthClass) {
  // Keys of 1..64 bits: the slot is key + presence bit up to 63 bits, split from 64.
  for (unsigned bits = 1; bits <= 64; ++bits) {
    const std::uint64_t mask = bits == 64 ? max_u64 : (std::uint64_t{1} << bits) - 1;
    std::vector<std::uint64_t> keys = random_values(3000, mask, bits);
    keys.push_back(mask);  // the widest key of the class
    const std::vector<std::uint64_t> values = random_values(keys.size(), mask >> (bits / 2), 100 + bits);
    SCOPED_TRACE(bits);
    expect_like_std(keys, values);
    const HashSet set = HashSet::build(array_of(keys));
    EXPECT_EQ(set.slot_bits(), bits == 64 ? 1u : bits + 1) << bits;
    const HashMap map = HashMap::build(array_of(keys), array_of(values));
    const std::uint64_t largest = *std::max_element(values.begin(), values.end());
    // value + 1 beside the key when both fit 64 bits, else the value in its own array.
    const bool in_slot = bits + codec::min_bits(largest + 1) <= 64;
    EXPECT_EQ(map.values_in_slots(), in_slot) << bits;
    EXPECT_EQ(map.value_bits(), in_slot ? codec::min_bits(largest + 1) : codec::min_bits(largest)) << bits;
  }
}

TEST(HashMap, DuplicateKeysTakeTheLastRowsValue) {
  const HashMap map = HashMap::build(array_of({7, 9, 7, 0, 7, 0}), array_of({1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(map.size(), 3u);
  EXPECT_EQ(map.get(7, missing), 5u);
  EXPECT_EQ(map.get(9, missing), 2u);
  EXPECT_EQ(map.get(0, missing), 6u);
  // Across the partitioned build too: many rows, each key written four times in row order.
  std::vector<std::uint64_t> keys, values;
  for (std::uint64_t round = 0; round < 4; ++round) {
    for (std::uint64_t k = 0; k < 30000; ++k) {
      keys.push_back(util::mix64(k));
      values.push_back(round * 100000 + k);
    }
  }
  const HashMap big = HashMap::build(array_of(keys), array_of(values));
  for (std::uint64_t k = 0; k < 30000; k += 97) EXPECT_EQ(big.get(util::mix64(k), missing), 300000 + k);
}

TEST(HashMap, PlacementsOnFakeTopologies) {
  const test::ScopedFakeTopology topology("nodes=2");
  const std::vector<std::uint64_t> keys = random_values(9000, 0xfffff, 7), values = random_values(9000, 0xfff, 8);
  for (Placement p : {Placement::os_default, Placement::single_node, Placement::interleaved, Placement::replicated,
                      Placement::partitioned}) {
    ArrayOptions options;
    options.placement = p;
    SCOPED_TRACE(to_string(p));
    expect_like_std(keys, values, options);
    const HashMap map = HashMap::build(array_of(keys), array_of(values), options);
    const HashMap plain = HashMap::build(array_of(keys), array_of(values));
    // Replicated: every array once per node.
    EXPECT_GE(map.memory_bytes(), (p == Placement::replicated ? 2 : 1) * plain.memory_bytes() - 4096 * 8);
  }
  // A primary-write mode is the caller's arrays' business: the map's own arrays hold their values
  // in every replica, which the probes read on their own nodes.
  ArrayOptions primary;
  primary.placement = Placement::replicated;
  primary.write_mode = WriteMode::primary;
  expect_like_std(keys, values, primary);
}

TEST(HashMap, ErrorsAreClear) {
  const SmartArray keys = array_of({1, 2, 3}), values = array_of({1, 2});
  try {
    HashMap::build(keys, values);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "hash map: keys and values differ in length (3 and 2)");
  }
  ArrayOptions bits;
  bits.bits = 9;
  EXPECT_THROW(HashMap::build(keys, keys, bits), Error);
  EXPECT_THROW(HashSet::build(keys, bits), Error);
  const HashMap map = HashMap::build(keys, keys);
  const std::vector<std::uint64_t> probe = {1, 2};
  std::vector<std::uint64_t> out(1);
  std::vector<std::uint8_t> found(3);
  EXPECT_THROW(map.get(probe, out, 0), Error);
  out.resize(2);
  try {
    map.get(probe, out, 0, found);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "hash map: found has 3 places for 2 probe keys");
  }
  std::vector<std::uint8_t> contained(5);
  EXPECT_THROW(HashSet::build(keys).contains(probe, contained), Error);
}

}  // namespace
}  // namespace smartarrays::collections
