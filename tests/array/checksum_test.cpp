// Tests the per-replica CRC32C of an array and the replica comparison.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "codec/crc32c.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/error.hpp"
#include "support/array_values.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays {
namespace {

using test::with_bits;

std::vector<std::uint64_t> ramp(std::uint64_t n) {
  std::vector<std::uint64_t> values(n);
  for (std::uint64_t i = 0; i < n; ++i) values[i] = (i * 7919) % 1000;
  return values;
}

TEST(Checksum, IsTheCrc32cOfThePackedWords) {
  EXPECT_EQ(codec::crc32c("123456789", 9), 0xE3069283u);
  const SmartArray a = SmartArray::from_values(ramp(1000), with_bits(10));
  EXPECT_EQ(a.crc32c(0), codec::crc32c(a.replica(0), a.words_per_replica() * sizeof(std::uint64_t)));
  EXPECT_TRUE(a.replicas_equal());
}

TEST(Checksum, FollowsTheValuesNotTheirHistory) {
  SmartArray a = SmartArray::from_values(ramp(1000), with_bits(10));
  const SmartArray b = SmartArray::from_values(ramp(1000), with_bits(10));
  const std::uint32_t before = a.crc32c(0);
  EXPECT_EQ(before, b.crc32c(0));
  a.init(500, 999);
  EXPECT_NE(a.crc32c(0), before);
  a.init(500, ramp(1000)[500]);
  EXPECT_EQ(a.crc32c(0), before);
}

TEST(Checksum, EveryReplicaMatchesAndADifferingOneIsFound) {
  const test::ScopedFakeTopology fake("nodes=3");
  SmartArray a = SmartArray::from_values(ramp(5000), with_bits(13, Placement::replicated));
  ASSERT_EQ(a.replicas(), 3u);
  for (std::size_t r = 1; r < a.replicas(); ++r) EXPECT_EQ(a.crc32c(r), a.crc32c(0)) << r;
  EXPECT_TRUE(a.replicas_equal());
  // Writes go to every replica; only a write behind the array's back makes one differ.
  auto* stray = const_cast<std::uint64_t*>(a.replica(2));
  stray[3] ^= 1;
  EXPECT_FALSE(a.replicas_equal());
  EXPECT_NE(a.crc32c(2), a.crc32c(0));
  stray[3] ^= 1;
  EXPECT_TRUE(a.replicas_equal());
}

TEST(Checksum, BadReplicaIsOutOfRangeAndEmptyArraysWork) {
  const SmartArray a = SmartArray::from_values(ramp(10), with_bits(10));
  try {
    (void)a.crc32c(1);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_range);
  }
  const SmartArray empty = SmartArray::allocate(0, with_bits(7));
  EXPECT_EQ(empty.crc32c(0), 0u);
  EXPECT_TRUE(empty.replicas_equal());
}

}  // namespace
}  // namespace smartarrays
