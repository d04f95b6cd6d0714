// Tests of LiveArray: relayout to every placement (on fake 2- and 4-node topologies) and every
// width keeps every value; a refused relayout leaves the current version alone; a pinned version
// outlives the relayout that replaced it and is freed with its last pin; and two reader threads
// verify every value they read while another thread re-lays the array out again and again (TSan).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "smartarrays/build/bulk.hpp"
#include "smartarrays/build/live_array.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays::build {
namespace {

using runtime::PoolOptions;
using runtime::ThreadPool;
using test::ScopedFakeTopology;

// Value i of an array whose values need exactly bits bits (the top bit set at some index).
std::uint64_t value_at(std::uint64_t i, unsigned bits) {
  const std::uint64_t mask = codec::value_mask(bits);
  if (i == 3) return mask;
  return (i * 0x9E3779B97F4A7C15ull >> 5) & mask;
}

SmartArray make(std::uint64_t length, unsigned bits) {
  std::vector<std::uint64_t> values(length);
  for (std::uint64_t i = 0; i < length; ++i) values[i] = value_at(i, bits);
  ArrayOptions options;
  options.bits = bits;
  return SmartArray::from_values(values, options);
}

void expect_values(const SmartArray& array, unsigned value_bits) {
  std::vector<std::uint64_t> decoded(array.length());
  array.decode(0, array.length(), decoded.data());
  for (std::uint64_t i = 0; i < array.length(); ++i) ASSERT_EQ(decoded[i], value_at(i, value_bits)) << "index " << i;
}

ArrayOptions layout(Placement placement, unsigned bits) {
  ArrayOptions options;
  options.placement = placement;
  options.bits = bits;
  if (placement == Placement::single_node) options.node = 1;
  return options;
}

class LiveArrayOnFakeNodes : public ::testing::TestWithParam<int> {};

TEST_P(LiveArrayOnFakeNodes, RelayoutToEveryPlacementAndWidthKeepsEveryValue) {
  const int nodes = GetParam();
  ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
  ThreadPool pool(PoolOptions{.threads = static_cast<std::size_t>(nodes)});
  const std::uint64_t length = 64 * 70 + 13;  // a partial last chunk
  for (unsigned bits = 1; bits <= 64; ++bits) {
    SCOPED_TRACE(::testing::Message() << bits << "-bit values");
    LiveArray live(make(length, bits));
    std::uint64_t version = 0;
    for (Placement placement : {Placement::os_default, Placement::single_node, Placement::interleaved,
                                Placement::replicated, Placement::partitioned}) {
      // The fewest bits (0), one more than needed, and uncompressed.
      for (unsigned to : {0u, bits < 64 ? bits + 1 : 64u, 64u}) {
        SCOPED_TRACE(::testing::Message() << to_string(placement) << " at " << to);
        EXPECT_EQ(live.relayout(layout(placement, to), pool), ++version);
        EXPECT_EQ(live.version(), version);
        const LiveArray::Snapshot now = live.pin();
        EXPECT_EQ(now->placement(), placement);
        EXPECT_EQ(now->bits(), to == 0 ? bits : to);
        EXPECT_EQ(now->replicas(), placement == Placement::replicated ? static_cast<std::size_t>(nodes) : 1u);
        EXPECT_TRUE(now->replicas_equal());
        expect_values(*now, bits);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(FakeNodes, LiveArrayOnFakeNodes, ::testing::Values(2, 4),
                         [](const ::testing::TestParamInfo<int>& param) { return std::to_string(param.param) + "nodes"; });

TEST(LiveArray, AnArrayWithUnsyncedWritesIsRefusedUntilSynced) {
  ScopedFakeTopology fake("nodes=2");
  ArrayOptions options;
  options.bits = 20;
  options.placement = Placement::replicated;
  options.write_mode = WriteMode::primary;
  auto array = std::make_shared<SmartArray>(SmartArray::allocate(1000, options));
  array->init(5, 99);
  try {
    LiveArray refused{LiveArray::Snapshot(array)};
    FAIL() << "expected an Error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("unsynced writes"), std::string::npos) << e.what();
  }
  sync(*array);
  LiveArray live{LiveArray::Snapshot(array)};
  EXPECT_EQ(live.pin()->get(5), 99u);
}

TEST(LiveArray, ARefusedRelayoutLeavesTheCurrentVersion) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  LiveArray live(make(1000, 20));
  const LiveArray::Snapshot before = live.pin();
  const auto expect_refused = [&](const ArrayOptions& options, ErrorCode code, const std::string& words) {
    try {
      live.relayout(options, pool);
      FAIL() << "expected an Error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), code) << e.what();
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
    EXPECT_EQ(live.version(), 0u);
    EXPECT_EQ(live.pin(), before);
  };
  expect_refused(layout(Placement::os_default, 19), ErrorCode::invalid_argument, "needs 20 bits");
  expect_refused(layout(Placement::os_default, 65), ErrorCode::invalid_argument, "65");
  ArrayOptions missing_node = layout(Placement::single_node, 20);
  missing_node.node = 7;
  expect_refused(missing_node, ErrorCode::invalid_argument, "7");
  ArrayOptions automatic = layout(Placement::os_default, 20);
  automatic.auto_placement = true;
  expect_refused(automatic, ErrorCode::invalid_argument, "auto");
  expect_values(*live.pin(), 20);
}

TEST(LiveArray, APinnedVersionOutlivesTheRelayoutAndIsFreedWithItsLastPin) {
  ThreadPool pool(PoolOptions{.threads = 2});
  LiveArray live(make(5000, 12));
  LiveArray::Snapshot old = live.pin();
  const std::weak_ptr<const SmartArray> watch = old;
  live.relayout(layout(Placement::interleaved, 64), pool);
  ASSERT_FALSE(watch.expired());  // a reader still holds version 0: its memory stays
  EXPECT_EQ(old->bits(), 12u);
  expect_values(*old, 12);
  EXPECT_EQ(live.pin()->bits(), 64u);
  old.reset();
  EXPECT_TRUE(watch.expired());  // the last reader left: version 0 is freed
  // Unpinned versions are freed by the relayout that replaces them.
  const std::weak_ptr<const SmartArray> current = live.pin();
  live.relayout(layout(Placement::os_default, 0), pool);
  EXPECT_TRUE(current.expired());
  EXPECT_EQ(live.pin()->bits(), 12u);
}

TEST(LiveArray, AnEmptyArrayRelaysOut) {
  ThreadPool pool(PoolOptions{.threads = 2});
  LiveArray live(SmartArray::allocate(0, layout(Placement::os_default, 5)));
  EXPECT_EQ(live.relayout(layout(Placement::interleaved, 0), pool), 1u);
  EXPECT_EQ(live.length(), 0u);
  EXPECT_EQ(live.pin()->bits(), 1u);  // no value: the fewest bits of the largest (none = 0) is 1
}

// Two readers pin, read and check every value while the main thread re-lays the array out over
// placements and widths; every value read must be right in whichever version was pinned.
TEST(LiveArray, ReadersSeeEveryValueRightDuringRelayouts) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  const unsigned bits = 11;
  const std::uint64_t length = 64 * 400 + 9;
  LiveArray live(make(length, bits));
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> wrong{0};
  std::atomic<std::uint64_t> passes{0};
  auto reader = [&] {
    std::vector<std::uint64_t> buffer(length);
    while (!done.load(std::memory_order_acquire)) {
      const LiveArray::Snapshot snapshot = live.pin();
      snapshot->decode(0, length, buffer.data());
      for (std::uint64_t i = 0; i < length; i += 1) wrong += buffer[i] != value_at(i, bits) ? 1 : 0;
      for (std::uint64_t i = 0; i < length; i += 61) wrong += snapshot->get(i) != value_at(i, bits) ? 1 : 0;
      passes.fetch_add(1, std::memory_order_relaxed);
    }
  };
  std::thread first(reader);
  std::thread second(reader);
  const Placement placements[] = {Placement::partitioned, Placement::replicated, Placement::interleaved,
                                  Placement::single_node, Placement::os_default};
  const unsigned widths[] = {0, 64, 32, 17};
  for (int round = 0; round < 20; ++round) {
    live.relayout(layout(placements[round % 5], widths[round % 4]), pool);
  }
  done.store(true, std::memory_order_release);
  first.join();
  second.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(passes.load(), 0u);
  EXPECT_EQ(live.version(), 20u);
}

}  // namespace
}  // namespace smartarrays::build
