// Tests of the parallel array builder: the same words as the serial constructor (from 64- and 32-bit
// values), every replica filled, each replica written only by its own node's workers, and the
// serial constructor's errors for values too wide.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "smartarrays/build/bulk.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "support/fake_topology.hpp"
#include "support/sample_values.hpp"

namespace smartarrays::build {
namespace {

using runtime::PinPolicy;
using runtime::PoolOptions;
using runtime::ThreadPool;
using test::sample_values;
using test::ScopedFakeTopology;

void expect_same_words(const SmartArray& built, const SmartArray& reference) {
  ASSERT_EQ(built.length(), reference.length());
  ASSERT_EQ(built.bits(), reference.bits());
  for (std::size_t r = 0; r < built.replicas(); ++r) {
    for (std::uint64_t w = 0; w < built.words_per_replica(); ++w) {
      ASSERT_EQ(built.replica(r)[w], reference.replica(0)[w]) << "replica " << r << " word " << w;
    }
  }
}

TEST(BuildArray, FromValuesGivesTheSerialConstructorsWords) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 3});
  for (Placement placement : {Placement::os_default, Placement::interleaved, Placement::replicated}) {
    for (unsigned bits : {1u, 7u, 32u, 45u, 64u}) {
      for (std::uint64_t n : {0ull, 1ull, 63ull, 64ull, 20'001ull}) {
        SCOPED_TRACE(::testing::Message() << to_string(placement) << " " << bits << " bits, n " << n);
        const std::vector<std::uint64_t> values = sample_values(n, bits);
        ArrayOptions options;
        options.placement = placement;
        options.bits = bits;
        const SmartArray reference = SmartArray::from_values(values, options);
        expect_same_words(build_array_from_values(values, options, pool), reference);
        // bits 0: the width is derived from the data, as the serial constructor does.
        options.bits = 0;
        const SmartArray derived = build_array_from_values(values, options, pool);
        EXPECT_EQ(derived.bits(), SmartArray::from_values(values, options).bits());
      }
    }
  }
}

TEST(BuildArray, FromU32ValuesGivesTheSerialConstructorsWords) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 3});
  for (Placement placement : {Placement::os_default, Placement::replicated}) {
    for (unsigned bits : {0u, 5u, 32u, 64u}) {
      for (std::uint64_t n : {0ull, 63ull, 20'001ull}) {
        SCOPED_TRACE(::testing::Message() << to_string(placement) << " " << bits << " bits, n " << n);
        const std::vector<std::uint64_t> wide = sample_values(n, bits == 0 || bits > 32 ? 32 : bits);
        const std::vector<std::uint32_t> narrow(wide.begin(), wide.end());
        ArrayOptions options;
        options.placement = placement;
        options.bits = bits;
        expect_same_words(build_array_from_values(std::span<const std::uint32_t>(narrow), options, pool),
                          SmartArray::from_values(std::span<const std::uint32_t>(narrow), options));
      }
    }
  }
}

TEST(BuildArray, EachReplicaIsWrittenByItsOwnNodesWorkers) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2, .pinning = PinPolicy::sparse});
  constexpr std::uint64_t n = 64 * 500 + 3;
  // Per node, how often each index was generated: once per replica, on that replica's node.
  std::vector<std::vector<std::atomic<std::uint32_t>>> made(2);
  for (auto& counts : made) counts = std::vector<std::atomic<std::uint32_t>>(n);
  ArrayOptions options;
  options.placement = Placement::replicated;
  options.bits = 17;
  const SmartArray array = build_array(
      n, options,
      [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        const auto node = static_cast<std::size_t>(os::current_node());
        for (std::uint64_t i = lo; i < hi; ++i) {
          made[node][i].fetch_add(1);
          out[i - lo] = i % 100'000;
        }
      },
      pool);
  ASSERT_EQ(array.replicas(), 2u);
  ASSERT_EQ(array.replica_node(0), 0);
  ASSERT_EQ(array.replica_node(1), 1);
  for (std::uint64_t i = 0; i < n; ++i) {
    ASSERT_EQ(made[0][i].load(), 1u) << i;
    ASSERT_EQ(made[1][i].load(), 1u) << i;
  }
  for (std::size_t r = 0; r < 2; ++r) {
    for (std::uint64_t i = 0; i < n; i += 997) EXPECT_EQ(array.view<17>(r).get(i), i % 100'000);
  }
}

TEST(BuildArray, FillsReplicasOfNodesWithoutWorkers) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 1});  // only node 0 has a worker
  const std::vector<std::uint64_t> values = sample_values(5000, 12);
  ArrayOptions options;
  options.placement = Placement::replicated;
  options.bits = 12;
  expect_same_words(build_array_from_values(values, options, pool), SmartArray::from_values(values, options));
}

TEST(BuildArray, WorksFromInsideALoopBody) {
  ThreadPool pool(PoolOptions{.threads = 2});
  std::atomic<int> mismatches{0};
  pool.parallel_for(
      0, 4,
      [&](std::uint64_t lo, std::uint64_t) {
        const std::vector<std::uint64_t> values = sample_values(3000 + lo, 9);
        ArrayOptions options;
        options.bits = 9;
        const SmartArray built = build_array_from_values(values, options, pool);
        for (std::uint64_t i = 0; i < values.size(); ++i) mismatches += built.get(i) != values[i];
      },
      runtime::LoopOptions{.batch = 1, .alignment = 1});
  EXPECT_EQ(mismatches.load(), 0);
}

TEST(BuildArray, EveryReplicaIsWrittenAndReadFromInsideALoopBody) {
  ScopedFakeTopology fake("nodes=2");
  ThreadPool pool(PoolOptions{.threads = 2});
  std::atomic<int> wrong{0};
  pool.parallel_for(
      0, 2,
      [&](std::uint64_t lo, std::uint64_t) {
        ArrayOptions options;
        options.bits = 9;
        options.placement = Placement::replicated;
        SmartArray a = build_array_from_values(sample_values(3000 + lo, 9), options, pool);
        fill(a, 300 + lo, pool);
        for (std::size_t r = 0; r < a.replicas(); ++r) {
          wrong += a.replica(r)[0] != a.replica(0)[0];
          wrong += crc32c(a, r, pool) != a.crc32c(r);
        }
        wrong += !replicas_equal(a, pool);
      },
      runtime::LoopOptions{.batch = 1, .alignment = 1});
  EXPECT_EQ(wrong.load(), 0);
}

// The message of the Error f throws, or "" when it throws none.
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << e.what();
    return e.what();
  }
  return "";
}

TEST(BuildArray, NamesTheArraysFirstValueTooWideLikeTheSerialConstructor) {
  ThreadPool pool(PoolOptions{.threads = 2});
  // Many batches: the later too-wide value may be met first, the error still names index 7777.
  std::vector<std::uint64_t> wide(300'000, 3);
  wide[250'000] = 90'000;
  wide[7777] = 70'000;
  const std::vector<std::uint32_t> narrow(wide.begin(), wide.end());
  ArrayOptions options;
  options.bits = 16;
  const std::string expected = "value 70000 at index 7777 needs 17 bits, array has 16";
  EXPECT_EQ(error_of([&] { build_array_from_values(wide, options, pool); }), expected);
  EXPECT_EQ(error_of([&] { build_array_from_values(std::span<const std::uint32_t>(narrow), options, pool); }), expected);
  EXPECT_EQ(error_of([&] { SmartArray::from_values(wide, options); }), expected);
  options.bits = 65;
  EXPECT_EQ(error_of([&] { build_array_from_values(wide, options, pool); }),
            error_of([&] { SmartArray::from_values(wide, options); }));
}

}  // namespace
}  // namespace smartarrays::build
