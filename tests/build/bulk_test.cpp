// Tests of the bulk operations (copy_from, fill, parallel crc32c and replicas_equal) and of
// primary-write arrays with sync: every bit width, both directions of re-encoding, chunk and group
// boundaries, the partial last chunk, every placement on a fake two-node topology, every error, and
// readers of a non-primary replica during writes and syncs (run under TSan by make test-tsan).
#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "smartarrays/build/bulk.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "support/fake_topology.hpp"
#include "support/sample_values.hpp"

namespace smartarrays::build {
namespace {

using runtime::PoolOptions;
using runtime::ThreadPool;
using test::sample_values;
using test::ScopedFakeTopology;

constexpr Placement all_placements[] = {Placement::os_default, Placement::single_node, Placement::interleaved,
                                        Placement::replicated, Placement::partitioned};

ArrayOptions options_of(unsigned bits, Placement placement = Placement::os_default,
                        WriteMode write_mode = WriteMode::write_through) {
  ArrayOptions options;
  options.bits = bits;
  options.placement = placement;
  options.write_mode = write_mode;
  return options;
}

// Every replica of a holds values, word for word as from_values would encode them.
void expect_holds(const SmartArray& a, const std::vector<std::uint64_t>& values) {
  ASSERT_EQ(a.length(), values.size());
  const SmartArray reference = SmartArray::from_values(values, options_of(a.bits()));
  for (std::size_t r = 0; r < a.replicas(); ++r) {
    for (std::uint64_t w = 0; w < a.words_per_replica(); ++w) {
      ASSERT_EQ(a.replica(r)[w], reference.replica(0)[w]) << "replica " << r << " word " << w;
    }
  }
}

ErrorCode error_code_of(const std::function<void()>& f, std::string* message = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (message != nullptr) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::internal;
}

// Lengths around chunk boundaries, with a partial last chunk, and several batches.
constexpr std::uint64_t lengths[] = {0, 1, 63, 64, 65, 64 * 300 + 17};

TEST(CopyFrom, SameWidthCopiesEveryWidthAndPlacement) {
  const ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 3});
  for (unsigned bits = 1; bits <= 64; ++bits) {
    for (std::uint64_t n : lengths) {
      SCOPED_TRACE(::testing::Message() << bits << " bits, n " << n);
      const std::vector<std::uint64_t> values = sample_values(n, bits, bits);
      const SmartArray src = SmartArray::from_values(values, options_of(bits, Placement::interleaved));
      const Placement placement = all_placements[(bits + n) % 5];
      SmartArray dst = SmartArray::allocate(n, options_of(bits, placement));
      copy_from(dst, src, pool);
      expect_holds(dst, values);
    }
  }
}

TEST(CopyFrom, ReEncodesBetweenWidthsInBothDirections) {
  const ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  for (unsigned a = 1; a <= 64; ++a) {
    // A spread of partners for every width, 64 (decoded or packed in place) among them.
    for (unsigned b : {(a * 37) % 64 + 1, 64u, a == 1 ? 2u : a - 1}) {
      if (b == a) continue;
      for (const auto& [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
        SCOPED_TRACE(::testing::Message() << from << " -> " << to << " bits");
        const std::uint64_t n = 64 * 40 + (from * 7) % 64;
        const std::vector<std::uint64_t> values = sample_values(n, std::min(from, to), from * 100 + to);
        const SmartArray src = SmartArray::from_values(values, options_of(from, Placement::replicated));
        SmartArray dst = SmartArray::allocate(n, options_of(to, all_placements[(from + to) % 5]));
        copy_from(dst, src, pool);
        expect_holds(dst, values);
      }
    }
  }
}

TEST(CopyFrom, NamesTheSourcesFirstValueTooWide) {
  ThreadPool pool(PoolOptions{.threads = 2});
  std::vector<std::uint64_t> values(50'000, 3);
  values[40'000] = 1 << 12;
  values[777] = 1 << 10;
  const SmartArray src = SmartArray::from_values(values, options_of(20));
  SmartArray dst = SmartArray::allocate(values.size(), options_of(10));
  std::string message;
  EXPECT_EQ(error_code_of([&] { copy_from(dst, src, pool); }, &message), ErrorCode::invalid_argument);
  EXPECT_EQ(message, "copy_from: value 1024 at index 777 needs 11 bits, array has 10");
  // From 64 bits (packed straight from the source's words) too.
  const SmartArray wide = SmartArray::from_values(values, options_of(64));
  EXPECT_EQ(error_code_of([&] { copy_from(dst, wide, pool); }, &message), ErrorCode::invalid_argument);
  EXPECT_EQ(message, "copy_from: value 1024 at index 777 needs 11 bits, array has 10");
}

TEST(CopyFrom, RefusesOtherLengthsAndReadOnlyArraysAndCopiesItself) {
  const SmartArray src = SmartArray::from_values(sample_values(100, 9), options_of(9));
  SmartArray shorter = SmartArray::allocate(99, options_of(9));
  std::string message;
  EXPECT_EQ(error_code_of([&] { copy_from(shorter, src); }, &message), ErrorCode::invalid_argument);
  EXPECT_EQ(message, "copy_from: lengths differ (destination 99, source 100)");
  SmartArray view = SmartArray::over_region(
      100, 9, os::MemoryRegion::borrow(src.replica(0), (src.words_per_replica() + 1) * 8, std::make_shared<int>(0)));
  EXPECT_EQ(error_code_of([&] { copy_from(view, src); }), ErrorCode::invalid_argument);
  EXPECT_EQ(error_code_of([&] { fill(view, 1); }), ErrorCode::invalid_argument);
  SmartArray self = SmartArray::from_values(sample_values(100, 9), options_of(9));
  copy_from(self, self);
  expect_holds(self, sample_values(100, 9));
}

TEST(CopyFrom, OntoItselfAPrimaryWriteArraysReplicasCatchUp) {
  const ScopedFakeTopology fake("nodes=2");
  SmartArray a = SmartArray::from_values(sample_values(1000, 9), options_of(9, Placement::replicated, WriteMode::primary));
  a.init(5, 300);
  EXPECT_TRUE(a.has_dirty_groups());
  copy_from(a, a);
  EXPECT_FALSE(a.has_dirty_groups());
  EXPECT_TRUE(replicas_equal(a));
  EXPECT_EQ(a.get(5), 300u);
}

TEST(Fill, SetsEveryValueOfEveryWidthAndPlacement) {
  const ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 3});
  for (unsigned bits = 1; bits <= 64; ++bits) {
    for (std::uint64_t n : lengths) {
      for (std::uint64_t value : {std::uint64_t{0}, codec::value_mask(bits), (std::uint64_t{0x5A5A5A5A5A5A5A5A} & codec::value_mask(bits))}) {
        SCOPED_TRACE(::testing::Message() << bits << " bits, n " << n << ", value " << value);
        SmartArray a = SmartArray::from_values(sample_values(n, bits), options_of(bits, all_placements[(bits + n) % 5]));
        fill(a, value, pool);
        expect_holds(a, std::vector<std::uint64_t>(n, value));
      }
    }
  }
}

TEST(Fill, ValueTooWideIsRefused) {
  SmartArray a = SmartArray::from_values(sample_values(1000, 7), options_of(7));
  const std::uint32_t before = a.crc32c(0);
  std::string message;
  EXPECT_EQ(error_code_of([&] { fill(a, 128); }, &message), ErrorCode::invalid_argument);
  EXPECT_EQ(message, "fill: value 128 needs 8 bits, array has 7");
  EXPECT_EQ(a.crc32c(0), before);
}

TEST(BulkChecksum, ParallelCrcIsTheSerialOneForEveryReplica) {
  const ScopedFakeTopology fake("nodes=3");
  ThreadPool pool(PoolOptions{.threads = 3});
  // 64-bit values over several 1 MiB pieces, and small arrays of one piece.
  for (const auto& [n, bits] : {std::pair{std::uint64_t{400'000}, 64u}, std::pair{std::uint64_t{300'001}, 29u},
                                std::pair{std::uint64_t{65}, 3u}, std::pair{std::uint64_t{0}, 5u}}) {
    SCOPED_TRACE(::testing::Message() << n << " values of " << bits << " bits");
    for (Placement placement : all_placements) {
      const SmartArray a = SmartArray::from_values(sample_values(n, bits), options_of(bits, placement));
      for (std::size_t r = 0; r < a.replicas(); ++r) EXPECT_EQ(crc32c(a, r, pool), a.crc32c(r)) << r;
      EXPECT_TRUE(replicas_equal(a, pool));
    }
  }
  const SmartArray a = SmartArray::from_values(sample_values(10, 4), options_of(4));
  EXPECT_EQ(error_code_of([&] { crc32c(a, 1, pool); }), ErrorCode::out_of_range);
}

TEST(BulkChecksum, ADifferingReplicaIsFound) {
  const ScopedFakeTopology fake("nodes=3");
  ThreadPool pool(PoolOptions{.threads = 2});
  SmartArray a = SmartArray::from_values(sample_values(200'000, 13), options_of(13, Placement::replicated));
  ASSERT_EQ(a.replicas(), 3u);
  EXPECT_TRUE(replicas_equal(a, pool));
  const std::uint64_t last = a.words_per_replica() - 1;
  a.mutable_replica(2)[last] ^= 1;
  EXPECT_FALSE(replicas_equal(a, pool));
  EXPECT_NE(crc32c(a, 2, pool), crc32c(a, 0, pool));
  a.mutable_replica(2)[last] ^= 1;
  EXPECT_TRUE(replicas_equal(a, pool));
}

TEST(PrimaryWrites, SetWritesReplicaZeroAndSyncCopiesOnlyDirtyGroups) {
  const ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  for (unsigned bits = 1; bits <= 64; ++bits) {
    SCOPED_TRACE(::testing::Message() << bits << " bits");
    const std::uint64_t n = 64 * 2000 + 33;
    std::vector<std::uint64_t> values = sample_values(n, bits, bits);
    SmartArray a = SmartArray::from_values(values, options_of(bits, Placement::replicated, WriteMode::primary));
    ASSERT_TRUE(a.tracks_writes());
    const std::uint64_t group = a.dirty_group_values();
    ASSERT_EQ(group % codec::chunk_values, 0u);
    // Values at both sides of a group boundary, and the last one (in the partial last chunk).
    for (std::uint64_t i : {group - 1, group, n - 1}) {
      values[i] = codec::value_mask(bits) - values[i];
      a.init(i, values[i]);
    }
    EXPECT_TRUE(a.has_dirty_groups());
    EXPECT_FALSE(replicas_equal(a, pool));
    // A word of a clean group changed behind the array's back stays: sync copies dirty groups only.
    const std::uint64_t clean_word = 2 * group / codec::chunk_values * bits;  // group 2: never the last
    a.mutable_replica(1)[clean_word] ^= 1;
    sync(a, pool);
    EXPECT_FALSE(a.has_dirty_groups());
    EXPECT_NE(a.replica(1)[clean_word], a.replica(0)[clean_word]);
    a.mutable_replica(1)[clean_word] ^= 1;
    expect_holds(a, values);
    sync(a, pool);  // nothing dirty: nothing to do
    expect_holds(a, values);
  }
}

TEST(PrimaryWrites, ReplicaZeroAloneChangesUntilSync) {
  const ScopedFakeTopology fake("nodes=2");
  SmartArray a = SmartArray::allocate(1000, options_of(16, Placement::replicated, WriteMode::primary));
  a.init(500, 7);
  EXPECT_EQ(a.view<16>(0).get(500), 7u);
  EXPECT_EQ(a.view<16>(1).get(500), 0u);
  EXPECT_FALSE(replicas_equal(a));
  sync(a);
  EXPECT_EQ(a.view<16>(1).get(500), 7u);
  EXPECT_TRUE(replicas_equal(a));
  // Bulk writes write every replica and leave nothing to sync.
  a.init(3, 9);
  fill(a, 4);
  EXPECT_FALSE(a.has_dirty_groups());
  expect_holds(a, std::vector<std::uint64_t>(1000, 4));
  a.init(3, 9);
  copy_from(a, SmartArray::from_values(std::vector<std::uint64_t>(1000, 2), options_of(2)));
  EXPECT_FALSE(a.has_dirty_groups());
  expect_holds(a, std::vector<std::uint64_t>(1000, 2));
  // A source with writes not synced yet is read from replica 0, which alone holds them.
  a.init(5, 3);
  SmartArray copy = SmartArray::allocate(1000, options_of(16, Placement::replicated));
  copy_from(copy, a);
  EXPECT_EQ(copy.view<16>(1).get(5), 3u);
}

TEST(PrimaryWrites, ArraysWithOneReplicaWriteThrough) {
  const ScopedFakeTopology fake("nodes=2");
  for (Placement placement : {Placement::os_default, Placement::interleaved, Placement::partitioned}) {
    SmartArray a = SmartArray::allocate(100, options_of(8, placement, WriteMode::primary));
    EXPECT_EQ(a.write_mode(), WriteMode::primary);
    EXPECT_FALSE(a.tracks_writes());
    a.init(7, 200);
    sync(a);
    EXPECT_EQ(a.get(7), 200u);
  }
  EXPECT_EQ(parse_write_mode("primary"), WriteMode::primary);
  EXPECT_STREQ(to_string(WriteMode::write_through), "write_through");
  EXPECT_EQ(error_code_of([] { parse_write_mode("lazy"); }), ErrorCode::invalid_argument);
}

// A reader of replica 1 runs while a writer sets values in replica 0 and syncs, round after round
// (round r writes r into every value). For widths that divide 64 every value read is a whole round
// number: at least the last round synced before the read, at most the round being synced after it.
void run_reader_during_syncs(unsigned bits) {
  ThreadPool pool(PoolOptions{.threads = 2});
  constexpr std::uint64_t n = 64 * 64;
  constexpr std::uint64_t rounds = 40;
  SmartArray a = SmartArray::allocate(n, options_of(bits, Placement::replicated, WriteMode::primary));
  std::atomic<std::uint64_t> synced{0};
  std::atomic<bool> done{false};
  std::atomic<std::uint64_t> bad{0};
  std::thread reader([&] {
    os::pin_current_thread_to_node(1);
    while (!done.load(std::memory_order_acquire)) {
      for (std::uint64_t i = 0; i < n; i += 7) {
        const std::uint64_t floor = synced.load(std::memory_order_acquire);
        const std::uint64_t v = a.get(i);
        const std::uint64_t ceiling = synced.load(std::memory_order_acquire) + 1;
        if (64 % bits == 0 && (v < floor || v > ceiling)) bad.fetch_add(1);
      }
    }
  });
  for (std::uint64_t r = 1; r <= rounds; ++r) {
    for (std::uint64_t i = 0; i < n; ++i) a.init_unchecked(i, r);
    sync(a, pool);
    synced.store(r, std::memory_order_release);
  }
  done.store(true, std::memory_order_release);
  reader.join();
  EXPECT_EQ(bad.load(), 0u);
  EXPECT_TRUE(replicas_equal(a, pool));
  for (std::uint64_t i = 0; i < n; i += 97) EXPECT_EQ(a.get(i), rounds);
}

TEST(PrimaryWrites, ReadersOfOtherReplicasSeeWholeValuesDuringSync) {
  const ScopedFakeTopology fake("nodes=2");
  if (os::topology().node(1).cpus.empty()) GTEST_SKIP() << "node 1 of the fake topology has no CPU";
  // 13 bits: values may straddle words, so only the absence of data races is checked (TSan).
  for (unsigned bits : {8u, 16u, 32u, 64u, 13u}) {
    SCOPED_TRACE(::testing::Message() << bits << " bits");
    run_reader_during_syncs(bits);
  }
}

}  // namespace
}  // namespace smartarrays::build
