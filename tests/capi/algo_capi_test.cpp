// Tests of the C ABI's aggregation entry point (sa_array_aggregate): the sum of a plain loop for several
// widths and placements, a partitioned pair on fake nodes, and its error paths.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "smartarrays.h"
#include "support/capi_expect.hpp"
#include "support/fake_topology.hpp"

namespace {

using smartarrays::test::expect_failure;
using Array = smartarrays::test::Owned<sa_array, sa_array_free>;

TEST(AggregateCapi, EqualsAPlainLoopForWidthsAndPlacements) {
  const smartarrays::test::ScopedFakeTopology fake("nodes=2");
  for (std::uint32_t bits : {1u, 13u, 32u, 64u}) {
    for (sa_placement placement : {SA_OS_DEFAULT, SA_REPLICATED, SA_PARTITIONED}) {
      const std::uint64_t n = 64 * 300 + 7;
      const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
      std::vector<std::uint64_t> v1(n), v2(n);
      std::uint64_t expected = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        v1[i] = (i * 0x9E3779B97F4A7C15ull) & mask;
        v2[i] = (i * 0xC2B2AE3D27D4EB4Full + 5) & mask;
        expected += v1[i] + v2[i];
      }
      sa_options o;
      sa_options_init(&o);
      o.placement = placement;
      o.bits = bits;
      Array a1, a2;
      ASSERT_EQ(sa_array_from_u64(v1.data(), n, &o, &a1.p), SA_OK) << sa_last_error();
      ASSERT_EQ(sa_array_from_u64(v2.data(), n, &o, &a2.p), SA_OK) << sa_last_error();
      std::uint64_t sum = 0;
      ASSERT_EQ(sa_array_aggregate(a1.p, a2.p, &sum), SA_OK) << sa_last_error();
      EXPECT_EQ(sum, expected) << bits << " bits, placement " << placement;
    }
  }
}

TEST(AggregateCapi, ErrorPaths) {
  const std::uint64_t values[] = {1, 2, 3};
  Array a, b;
  ASSERT_EQ(sa_array_from_u64(values, 3, nullptr, &a.p), SA_OK);
  ASSERT_EQ(sa_array_from_u64(values, 2, nullptr, &b.p), SA_OK);
  std::uint64_t sum = 7;
  expect_failure(sa_array_aggregate(a.p, b.p, &sum), SA_EINVAL, "sa_array_aggregate", "differ in length");
  EXPECT_EQ(sum, 7u);
  expect_failure(sa_array_aggregate(nullptr, b.p, &sum), SA_EINVAL, "sa_array_aggregate", "a1 is NULL");
  expect_failure(sa_array_aggregate(a.p, nullptr, &sum), SA_EINVAL, "sa_array_aggregate", "a2 is NULL");
  expect_failure(sa_array_aggregate(a.p, a.p, nullptr), SA_EINVAL, "sa_array_aggregate", "sum is NULL");
  ASSERT_EQ(sa_array_aggregate(a.p, a.p, &sum), SA_OK);
  EXPECT_EQ(sum, 12u);
}

}  // namespace
