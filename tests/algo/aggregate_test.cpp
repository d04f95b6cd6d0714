// Tests of the aggregation workload: its data generator follows §5.1, and the parallel sum equals a
// plain serial loop for every bit width, every placement, several pools and a fake 2-node machine.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays::algo {
namespace {

using runtime::PinPolicy;
using runtime::PoolOptions;
using runtime::ThreadPool;
using test::ScopedFakeTopology;

std::uint64_t plain_sum(const SmartArray& a1, const SmartArray& a2) {
  std::uint64_t sum = 0;
  for (std::uint64_t i = 0; i < a1.length(); ++i) sum += a1.get(i) + a2.get(i);
  return sum;
}

ArrayOptions options_for(Placement placement, unsigned bits) {
  ArrayOptions options;
  options.placement = placement;
  options.bits = bits;
  return options;
}

void expect_aggregate_matches_plain_loop(ThreadPool& pool, std::uint64_t length) {
  for (Placement placement : {Placement::os_default, Placement::single_node, Placement::interleaved,
                              Placement::replicated, Placement::partitioned}) {
    for (unsigned bits = 1; bits <= 64; ++bits) {
      SCOPED_TRACE(::testing::Message() << to_string(placement) << ", " << bits << " bits, length " << length);
      const SmartArray a1 = make_aggregation_array(length, options_for(placement, bits), 1, pool);
      const SmartArray a2 = make_aggregation_array(length, options_for(placement, bits), 2, pool);
      ASSERT_EQ(a1.bits(), bits);
      const std::uint64_t expected = plain_sum(a1, a2);
      ASSERT_EQ(aggregate(a1, a2, pool), expected);
      ASSERT_EQ(aggregate(a1, a2, pool, 64), expected);
    }
  }
}

TEST(AggregationData, FollowsThePapersFormula) {
  for (unsigned bits : {1u, 10u, 33u, 64u}) {
    const std::uint64_t mask = codec::value_mask(bits);
    std::vector<int> offsets(3, 0);
    for (std::uint64_t i = 0; i < 3000; ++i) {
      const std::uint64_t v = aggregation_value(i, bits, 7);
      ASSERT_TRUE(codec::fits(v, bits));
      // v = (i + r) & mask for one r in {0, 1, 2}
      int matched = -1;
      for (int r = 0; r < 3; ++r) {
        if (((i + static_cast<std::uint64_t>(r)) & mask) == v && matched < 0) matched = r;
      }
      ASSERT_GE(matched, 0) << "index " << i;
      if (bits >= 12) ++offsets[static_cast<std::size_t>(matched)];
    }
    // The offset really is random: each of 0, 1, 2 shows up often.
    if (bits >= 12) {
      for (int count : offsets) EXPECT_GT(count, 800);
    }
  }
  EXPECT_NE(aggregation_value(5, 64, 1) + aggregation_value(6, 64, 1) + aggregation_value(7, 64, 1),
            aggregation_value(5, 64, 2) + aggregation_value(6, 64, 2) + aggregation_value(7, 64, 2) + 9);
}

TEST(AggregationData, ArrayHoldsTheGeneratedValues) {
  ThreadPool pool(PoolOptions{.threads = 2});
  const SmartArray a = make_aggregation_array(10'000, options_for(Placement::os_default, 13), 5, pool);
  for (std::uint64_t i = 0; i < a.length(); ++i) ASSERT_EQ(a.get(i), aggregation_value(i, 13, 5)) << i;
}

TEST(Aggregate, EqualsAPlainLoopForEveryBitWidthAndPlacement) {
  ThreadPool pool(PoolOptions{.threads = 2});
  expect_aggregate_matches_plain_loop(pool, 64 * 37 + 13);
}

TEST(Aggregate, EqualsAPlainLoopOnTwoFakeNodes) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2, .pinning = PinPolicy::sparse});
  expect_aggregate_matches_plain_loop(pool, 64 * 37 + 13);
}

TEST(Aggregate, EqualsAPlainLoopOverManyBatchesAndPools) {
  ScopedFakeTopology fake("nodes=2");
  for (std::size_t threads : {1u, 3u}) {
    for (PinPolicy policy : {PinPolicy::none, PinPolicy::dense}) {
      ThreadPool pool(PoolOptions{.threads = threads, .pinning = policy});
      for (unsigned bits : {1u, 10u, 31u, 32u, 33u, 50u, 63u, 64u}) {
        for (Placement placement : {Placement::replicated, Placement::interleaved}) {
          const SmartArray a1 = make_aggregation_array(300'001, options_for(placement, bits), 3, pool);
          const SmartArray a2 = make_aggregation_array(300'001, options_for(placement, bits), 4, pool);
          ASSERT_EQ(aggregate(a1, a2, pool, 1024), plain_sum(a1, a2)) << bits << " bits";
        }
      }
    }
  }
}

TEST(Aggregate, ArraysOfDifferentWidthsAndEmptyArrays) {
  ThreadPool pool(PoolOptions{.threads = 2});
  const SmartArray narrow = make_aggregation_array(5000, options_for(Placement::os_default, 7), 1, pool);
  const SmartArray wide = make_aggregation_array(5000, options_for(Placement::os_default, 61), 2, pool);
  EXPECT_EQ(aggregate(narrow, wide, pool), plain_sum(narrow, wide));
  const SmartArray empty1 = make_aggregation_array(0, options_for(Placement::os_default, 5), 1, pool);
  const SmartArray empty2 = make_aggregation_array(0, options_for(Placement::replicated, 5), 1, pool);
  EXPECT_EQ(aggregate(empty1, empty2, pool), 0u);
}

TEST(Aggregate, RejectsArraysOfDifferentLengths) {
  ThreadPool pool(PoolOptions{.threads = 1});
  const SmartArray a = make_aggregation_array(100, options_for(Placement::os_default, 8), 1, pool);
  const SmartArray b = make_aggregation_array(101, options_for(Placement::os_default, 8), 1, pool);
  try {
    aggregate(a, b, pool);
    FAIL() << "different lengths must be rejected";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("101"), std::string::npos) << e.what();
  }
}

TEST(Aggregate, RunsOnTheDefaultPool) {
  const SmartArray a1 = make_aggregation_array(70'000, options_for(Placement::replicated, 20), 1);
  const SmartArray a2 = make_aggregation_array(70'000, options_for(Placement::replicated, 20), 2);
  EXPECT_EQ(aggregate(a1, a2), plain_sum(a1, a2));
}

}  // namespace
}  // namespace smartarrays::algo
