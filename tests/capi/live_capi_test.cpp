// Tests of the C ABI's live arrays (sa_live_*): taking an array over, snapshots that keep their
// version through relayouts and are read-only, relayout to every placement and to other widths, and
// every error path (NULLs, read-only arrays, values too wide, bad options).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "smartarrays.h"
#include "support/capi_expect.hpp"
#include "support/fake_topology.hpp"

namespace {

using smartarrays::test::expect_failure;
using Array = smartarrays::test::Owned<sa_array, sa_array_free>;
using Live = smartarrays::test::Owned<sa_live, sa_live_free>;

std::vector<std::uint64_t> values(std::uint64_t n) {
  std::vector<std::uint64_t> v(n);
  for (std::uint64_t i = 0; i < n; ++i) v[i] = (i * 7919) % 3001;  // 12 bits
  return v;
}

void expect_values(const sa_array* a, const std::vector<std::uint64_t>& expected) {
  ASSERT_EQ(sa_array_length(a), expected.size());
  std::vector<std::uint64_t> got(expected.size());
  ASSERT_EQ(sa_array_decode(a, 0, got.size(), got.data()), SA_OK) << sa_last_error();
  EXPECT_EQ(got, expected);
}

TEST(LiveCapi, RelayoutKeepsValuesAndPinnedSnapshotsKeepTheirVersion) {
  const smartarrays::test::ScopedFakeTopology fake("nodes=2");
  const std::vector<std::uint64_t> expected = values(10'000);
  sa_array* array = nullptr;
  ASSERT_EQ(sa_array_from_u64(expected.data(), expected.size(), nullptr, &array), SA_OK);
  Live live;
  ASSERT_EQ(sa_live_create(&array, &live.p), SA_OK) << sa_last_error();
  EXPECT_EQ(array, nullptr);  // taken over
  EXPECT_EQ(sa_live_length(live.p), expected.size());
  EXPECT_EQ(sa_live_version(live.p), 0u);

  Array first;
  ASSERT_EQ(sa_live_pin(live.p, &first.p), SA_OK);
  EXPECT_EQ(sa_array_bits(first.p), 12u);
  const sa_placement placements[] = {SA_OS_DEFAULT, SA_SINGLE_NODE, SA_INTERLEAVED, SA_REPLICATED, SA_PARTITIONED};
  std::uint64_t version = 0;
  for (sa_placement placement : placements) {
    for (std::uint32_t bits : {0u, 13u, 64u}) {
      sa_options o;
      sa_options_init(&o);
      o.placement = placement;
      o.node = placement == SA_SINGLE_NODE ? 1 : 0;
      o.bits = bits;
      std::uint64_t got = 0;
      ASSERT_EQ(sa_live_relayout(live.p, &o, &got), SA_OK) << sa_last_error();
      EXPECT_EQ(got, ++version);
      Array now;
      ASSERT_EQ(sa_live_pin(live.p, &now.p), SA_OK);
      EXPECT_EQ(sa_array_placement(now.p), placement);
      EXPECT_EQ(sa_array_bits(now.p), bits == 0 ? 12u : bits);
      EXPECT_EQ(sa_array_replicas(now.p), placement == SA_REPLICATED ? 2u : 1u);
      expect_values(now.p, expected);
      expect_failure(sa_array_set(now.p, 0, 1), SA_EINVAL, "sa_array_set", "read-only");
      EXPECT_EQ(sa_array_sync(now.p), SA_OK) << "a write-through array has nothing to sync";
    }
  }
  EXPECT_EQ(sa_live_version(live.p), version);
  // The first snapshot is still version 0: 12 bits, os_default, every value.
  EXPECT_EQ(sa_array_bits(first.p), 12u);
  expect_values(first.p, expected);
  // A snapshot outlives its live array.
  sa_live_free(live.p);
  live.p = nullptr;
  expect_values(first.p, expected);
}

TEST(LiveCapi, AnArrayWithUnsyncedWritesStaysTheCallersUntilSynced) {
  const smartarrays::test::ScopedFakeTopology fake("nodes=2");
  sa_options o;
  sa_options_init(&o);
  o.placement = SA_REPLICATED;
  o.write_mode = SA_WRITE_PRIMARY;
  o.bits = 8;
  Array array;
  ASSERT_EQ(sa_array_alloc(1000, &o, &array.p), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_array_set(array.p, 5, 99), SA_OK);
  Live live;
  expect_failure(sa_live_create(&array.p, &live.p), SA_EINVAL, "sa_live_create", "unsynced writes");
  ASSERT_NE(array.p, nullptr);
  EXPECT_EQ(sa_array_length(array.p), 1000u);  // still whole
  ASSERT_EQ(sa_array_sync(array.p), SA_OK);
  ASSERT_EQ(sa_live_create(&array.p, &live.p), SA_OK) << sa_last_error();
  Array now;
  ASSERT_EQ(sa_live_pin(live.p, &now.p), SA_OK);
  std::uint64_t v = 0;
  ASSERT_EQ(sa_array_get(now.p, 5, &v), SA_OK);
  EXPECT_EQ(v, 99u);
}

TEST(LiveCapi, ErrorsLeaveEverythingAsItWas) {
  const std::vector<std::uint64_t> expected = values(1000);
  Array array;
  ASSERT_EQ(sa_array_from_u64(expected.data(), expected.size(), nullptr, &array.p), SA_OK);
  Live live;
  expect_failure(sa_live_create(nullptr, &live.p), SA_EINVAL, "sa_live_create", "a is NULL");
  sa_array* none = nullptr;
  expect_failure(sa_live_create(&none, &live.p), SA_EINVAL, "sa_live_create", "*a is NULL");
  expect_failure(sa_live_create(&array.p, nullptr), SA_EINVAL, "sa_live_create", "out is NULL");
  ASSERT_NE(array.p, nullptr);  // still the caller's
  ASSERT_EQ(sa_live_create(&array.p, &live.p), SA_OK);

  Array snapshot;
  ASSERT_EQ(sa_live_pin(live.p, &snapshot.p), SA_OK);
  Live again;
  expect_failure(sa_live_create(&snapshot.p, &again.p), SA_EINVAL, "sa_live_create", "read-only");
  EXPECT_NE(snapshot.p, nullptr);

  sa_options o;
  sa_options_init(&o);
  o.bits = 11;  // 3000 needs 12
  expect_failure(sa_live_relayout(live.p, &o, nullptr), SA_EINVAL, "sa_live_relayout", "needs 12 bits");
  o.bits = 12;
  const std::int32_t not_a_placement = 9;
  std::memcpy(&o.placement, &not_a_placement, sizeof not_a_placement);
  expect_failure(sa_live_relayout(live.p, &o, nullptr), SA_EINVAL, "sa_live_relayout", "placement");
  o.placement = SA_SINGLE_NODE;
  o.node = 4096;
  expect_failure(sa_live_relayout(live.p, &o, nullptr), SA_EINVAL, "sa_live_relayout", "4096");
  EXPECT_EQ(sa_live_version(live.p), 0u);
  expect_failure(sa_live_relayout(nullptr, &o, nullptr), SA_EINVAL, "sa_live_relayout", "l is NULL");
  expect_failure(sa_live_pin(nullptr, &snapshot.p), SA_EINVAL, "sa_live_pin", "l is NULL");
  expect_failure(sa_live_pin(live.p, nullptr), SA_EINVAL, "sa_live_pin", "snapshot is NULL");
  EXPECT_EQ(sa_live_version(nullptr), 0u);
  EXPECT_EQ(sa_live_length(nullptr), 0u);
  sa_live_free(nullptr);
  Array now;
  ASSERT_EQ(sa_live_pin(live.p, &now.p), SA_OK);
  expect_values(now.p, expected);
}

}  // namespace
