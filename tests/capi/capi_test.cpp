// Owns the tests of the C ABI (include/smartarrays.h): every entry point, every error path with its
// status and message, NULL arguments, the thread-locality of sa_last_error(), the zero-copy words,
// topology and pinning, and (through capi_c_checks.c) that the header is valid C with the same layout.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "capi/capi_c_checks.h"
#include "capi/guard.hpp"
#include "smartarrays.h"
#include "smartarrays/os/huge_pages.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/os/topology.hpp"
#include "support/capi_expect.hpp"
#include "support/reference_layout.hpp"

namespace {

using smartarrays::test::expect_failure;
using smartarrays::test::expect_last_error;
using smartarrays::test::reference_value;

// An owned sa_array for tests.
struct Array {
  sa_array* a = nullptr;
  Array() = default;
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  ~Array() { sa_array_free(a); }
};

sa_options options_with_bits(uint32_t bits) {
  sa_options o;
  sa_options_init(&o);
  o.bits = bits;
  return o;
}

// Restores the real topology when a test that faked one ends.
struct RealTopologyAfter {
  ~RealTopologyAfter() { sa_topology_set_fake(""); }
};

TEST(CApi, HeaderIsValidCWithTheSameOptionsLayout) {
  char error[512] = "";
  EXPECT_EQ(capi_c_round_trip(error, sizeof error), 0) << error;
  EXPECT_EQ(capi_c_options_size(), sizeof(sa_options));
  EXPECT_EQ(capi_c_options_nodes_offset(), offsetof(sa_options, nodes));
  EXPECT_EQ(capi_c_options_node_count_offset(), offsetof(sa_options, node_count));
}

TEST(CApi, VersionAndStatusCodes) {
  // "MAJOR.MINOR.PATCH": three dot-separated, non-empty runs of digits.
  const std::string version = sa_version();
  int dots = 0;
  bool digit_before = false;
  bool well_formed = true;
  for (char c : version) {
    if (c == '.') {
      well_formed = well_formed && digit_before;
      ++dots;
      digit_before = false;
    } else {
      well_formed = well_formed && c >= '0' && c <= '9';
      digit_before = true;
    }
  }
  EXPECT_TRUE(well_formed && digit_before && dots == 2) << version;
  EXPECT_EQ(SA_OK, 0);
  EXPECT_EQ(SA_EINVAL, static_cast<int>(smartarrays::ErrorCode::invalid_argument));
  EXPECT_EQ(SA_ERANGE, static_cast<int>(smartarrays::ErrorCode::out_of_range));
  EXPECT_EQ(SA_ENOMEM, static_cast<int>(smartarrays::ErrorCode::out_of_memory));
  EXPECT_EQ(SA_EOS, static_cast<int>(smartarrays::ErrorCode::os_error));
  EXPECT_EQ(SA_EUNSUPPORTED, static_cast<int>(smartarrays::ErrorCode::unsupported));
  EXPECT_EQ(SA_ECANCELLED, static_cast<int>(smartarrays::ErrorCode::cancelled));
  EXPECT_EQ(SA_EINTERNAL, static_cast<int>(smartarrays::ErrorCode::internal));
  EXPECT_EQ(sa_min_bits(0), 1u);
  EXPECT_EQ(sa_min_bits(70000), 17u);
  EXPECT_EQ(sa_min_bits(~std::uint64_t{0}), 64u);
}

TEST(CApi, OptionsInitSetsEveryDefault) {
  sa_options o;
  o.placement = SA_REPLICATED;
  o.node = 3;
  o.bits = 9;
  o.huge_pages = 1;
  o.nodes = reinterpret_cast<const int32_t*>(&o);
  o.node_count = 2;
  sa_options_init(&o);
  EXPECT_EQ(o.placement, SA_OS_DEFAULT);
  EXPECT_EQ(o.node, 0);
  EXPECT_EQ(o.bits, 0u);
  EXPECT_EQ(o.huge_pages, SA_HUGE_PAGES_AUTO);
  EXPECT_EQ(o.nodes, nullptr);
  EXPECT_EQ(o.node_count, 0u);
  sa_options_init(nullptr);
}

TEST(CApi, ArrayEntryPointsRoundTrip) {
  std::vector<uint64_t> values(1000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = (i * 7919) % 5000;
  Array array;
  const sa_options o = options_with_bits(13);
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), &o, &array.a), SA_OK) << sa_last_error();
  sa_array* a = array.a;
  EXPECT_EQ(sa_array_length(a), 1000u);
  EXPECT_EQ(sa_array_bits(a), 13u);
  EXPECT_EQ(sa_array_placement(a), SA_OS_DEFAULT);
  EXPECT_EQ(sa_array_replicas(a), 1u);
  EXPECT_EQ(sa_array_local_replica(a), 0u);
  const std::uint64_t page = smartarrays::os::MemoryRegion::page_size();
  EXPECT_EQ(sa_array_memory_bytes(a), ((1000 + 63) / 64 * 13 * 8 + 8 + page - 1) / page * page);

  uint64_t v = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(sa_array_get(a, i, &v), SA_OK);
    ASSERT_EQ(v, values[i]);
  }
  std::vector<uint64_t> out(1000);
  ASSERT_EQ(sa_array_decode(a, 0, 1000, out.data()), SA_OK);
  EXPECT_EQ(out, values);
  ASSERT_EQ(sa_array_decode(a, 937, 50, out.data()), SA_OK) << "decode from an unaligned start";
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + 50, values.begin() + 937));
  EXPECT_EQ(sa_array_decode(a, 1000, 0, nullptr), SA_OK) << "an empty range needs no buffer";

  uint64_t chunk[64];
  ASSERT_EQ(sa_array_unpack_chunk(a, 15, chunk), SA_OK);
  EXPECT_TRUE(std::equal(chunk, chunk + 40, values.begin() + 960));
  EXPECT_EQ(chunk[40], 0u) << "past the end of a partial chunk";

  uint64_t total = 0;
  for (uint64_t x : values) total += x;
  ASSERT_EQ(sa_array_sum(a, &v), SA_OK);
  EXPECT_EQ(v, total);
  ASSERT_EQ(sa_array_sum_range(a, 100, 300, &v), SA_OK);
  uint64_t part = 0;
  for (std::size_t i = 100; i < 400; ++i) part += values[i];
  EXPECT_EQ(v, part);

  ASSERT_EQ(sa_array_set(a, 999, 8191), SA_OK);
  ASSERT_EQ(sa_array_get(a, 999, &v), SA_OK);
  EXPECT_EQ(v, 8191u);
  ASSERT_EQ(sa_array_get(a, 998, &v), SA_OK);
  EXPECT_EQ(v, values[998]) << "set keeps the neighbour";
}

TEST(CApi, WordsAreTheReplicaItselfInTheNormativeLayout) {
  std::vector<uint64_t> values(300);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = (i * 104729) % (1u << 27);
  values[299] = (1u << 27) - 1;
  Array array;
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), nullptr, &array.a), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_array_bits(array.a), 27u);
  const uint64_t* words = nullptr;
  uint64_t nwords = 0;
  ASSERT_EQ(sa_array_words(array.a, 0, &words, &nwords), SA_OK);
  EXPECT_EQ(nwords, 5u * 27u);
  for (std::size_t i = 0; i < values.size(); ++i) ASSERT_EQ(reference_value(words, 27, i), values[i]) << i;
  // Zero copy: the same memory on every call, and a set shows through it.
  const uint64_t* again = nullptr;
  ASSERT_EQ(sa_array_words(array.a, 0, &again, &nwords), SA_OK);
  EXPECT_EQ(again, words);
  ASSERT_EQ(sa_array_set(array.a, 123, 42), SA_OK);
  EXPECT_EQ(reference_value(words, 27, 123), 42u);
}

TEST(CApi, FromU32MatchesFromU64) {
  std::vector<uint32_t> narrow(2000);
  for (std::size_t i = 0; i < narrow.size(); ++i) narrow[i] = static_cast<uint32_t>(i * 2654435761u);
  const std::vector<uint64_t> wide(narrow.begin(), narrow.end());
  Array a32;
  Array a64;
  ASSERT_EQ(sa_array_from_u32(narrow.data(), narrow.size(), nullptr, &a32.a), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_array_from_u64(wide.data(), wide.size(), nullptr, &a64.a), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_array_bits(a32.a), sa_array_bits(a64.a));
  const uint64_t* w32 = nullptr;
  const uint64_t* w64 = nullptr;
  uint64_t n32 = 0;
  uint64_t n64 = 0;
  ASSERT_EQ(sa_array_words(a32.a, 0, &w32, &n32), SA_OK);
  ASSERT_EQ(sa_array_words(a64.a, 0, &w64, &n64), SA_OK);
  ASSERT_EQ(n32, n64);
  EXPECT_TRUE(std::equal(w32, w32 + n32, w64));
  Array empty;
  ASSERT_EQ(sa_array_from_u32(nullptr, 0, nullptr, &empty.a), SA_OK) << "an empty array from no values";
  EXPECT_EQ(sa_array_length(empty.a), 0u);
}

TEST(CApi, FromValuesNameTheFirstValueTooWideOfALargeArray) {
  // Encoded in parallel batches, the error still names the first value too wide, as a serial scan would.
  std::vector<uint64_t> wide(300'000, 7);
  wide[260'000] = 90'000;
  wide[1234] = 70'000;
  const std::vector<uint32_t> narrow(wide.begin(), wide.end());
  const sa_options o = options_with_bits(16);
  Array array;
  expect_failure(sa_array_from_u64(wide.data(), wide.size(), &o, &array.a), SA_EINVAL, "sa_array_from_u64",
                 "value 70000 at index 1234 needs 17 bits, array has 16");
  expect_failure(sa_array_from_u32(narrow.data(), narrow.size(), &o, &array.a), SA_EINVAL, "sa_array_from_u32",
                 "value 70000 at index 1234 needs 17 bits, array has 16");
  EXPECT_EQ(array.a, nullptr);
}

TEST(CApi, AllocZeroFillsAndPagesPerNodeCountEveryPage) {
  Array array;
  const sa_options o = options_with_bits(64);
  ASSERT_EQ(sa_array_alloc(100000, &o, &array.a), SA_OK) << sa_last_error();
  uint64_t v = 1;
  ASSERT_EQ(sa_array_sum(array.a, &v), SA_OK);
  EXPECT_EQ(v, 0u);
  std::vector<uint64_t> counts(64, 99);
  ASSERT_EQ(sa_array_pages_per_node(array.a, 0, counts.data(), 64), SA_OK) << sa_last_error();
  uint64_t pages = 0;
  for (uint64_t c : counts) pages += c;
  EXPECT_EQ(pages, sa_array_memory_bytes(array.a) / smartarrays::os::MemoryRegion::page_size());
  if (!smartarrays::os::topology().is_fake() && smartarrays::os::topology().node_count() == 1) {
    EXPECT_EQ(counts[0], pages) << "a one-node machine holds every page on node 0";
  }
}

TEST(CApi, NullArgumentsAreInvalidWithAMessage) {
  Array array;
  const sa_options o = options_with_bits(8);
  ASSERT_EQ(sa_array_alloc(10, &o, &array.a), SA_OK);
  sa_array* a = array.a;
  uint64_t v = 0;
  const uint64_t* words = nullptr;
  uint64_t nwords = 0;
  sa_array* made = nullptr;
  expect_failure(sa_array_from_u64(nullptr, 3, nullptr, &made), SA_EINVAL, "sa_array_from_u64", "values (with n > 0) is NULL");
  expect_failure(sa_array_from_u64(&v, 1, nullptr, nullptr), SA_EINVAL, "sa_array_from_u64", "out is NULL");
  expect_failure(sa_array_from_u32(nullptr, 3, nullptr, &made), SA_EINVAL, "sa_array_from_u32", "values (with n > 0) is NULL");
  expect_failure(sa_array_alloc(3, &o, nullptr), SA_EINVAL, "sa_array_alloc", "out is NULL");
  EXPECT_EQ(made, nullptr) << "no array on failure";
  expect_failure(sa_array_get(nullptr, 0, &v), SA_EINVAL, "sa_array_get", "a is NULL");
  expect_failure(sa_array_get(a, 0, nullptr), SA_EINVAL, "sa_array_get", "out is NULL");
  expect_failure(sa_array_set(nullptr, 0, 1), SA_EINVAL, "sa_array_set", "a is NULL");
  expect_failure(sa_array_decode(nullptr, 0, 1, &v), SA_EINVAL, "sa_array_decode", "a is NULL");
  expect_failure(sa_array_decode(a, 0, 1, nullptr), SA_EINVAL, "sa_array_decode", "out (with n > 0) is NULL");
  expect_failure(sa_array_unpack_chunk(a, 0, nullptr), SA_EINVAL, "sa_array_unpack_chunk", "out is NULL");
  expect_failure(sa_array_unpack_chunk(nullptr, 0, &v), SA_EINVAL, "sa_array_unpack_chunk", "a is NULL");
  expect_failure(sa_array_sum(nullptr, &v), SA_EINVAL, "sa_array_sum", "a is NULL");
  expect_failure(sa_array_sum(a, nullptr), SA_EINVAL, "sa_array_sum", "out is NULL");
  expect_failure(sa_array_sum_range(a, 0, 1, nullptr), SA_EINVAL, "sa_array_sum_range", "out is NULL");
  expect_failure(sa_array_sum_range(nullptr, 0, 1, &v), SA_EINVAL, "sa_array_sum_range", "a is NULL");
  expect_failure(sa_array_words(nullptr, 0, &words, &nwords), SA_EINVAL, "sa_array_words", "a is NULL");
  expect_failure(sa_array_words(a, 0, nullptr, &nwords), SA_EINVAL, "sa_array_words", "words is NULL");
  expect_failure(sa_array_words(a, 0, &words, nullptr), SA_EINVAL, "sa_array_words", "nwords is NULL");
  expect_failure(sa_array_pages_per_node(nullptr, 0, &v, 1), SA_EINVAL, "sa_array_pages_per_node", "a is NULL");
  expect_failure(sa_array_pages_per_node(a, 0, nullptr, 1), SA_EINVAL, "sa_array_pages_per_node",
                 "counts (with max_nodes > 0) is NULL");
  uint32_t count = 0;
  uint64_t total = 0;
  expect_failure(sa_topology_node_cpus(0, nullptr, 4, &count), SA_EINVAL, "sa_topology_node_cpus", "cpus (with max > 0) is NULL");
  expect_failure(sa_topology_node_cpus(0, nullptr, 0, nullptr), SA_EINVAL, "sa_topology_node_cpus", "count is NULL");
  expect_failure(sa_topology_node_memory(0, nullptr, &total), SA_EINVAL, "sa_topology_node_memory", "total_bytes is NULL");
  expect_failure(sa_topology_node_memory(0, &total, nullptr), SA_EINVAL, "sa_topology_node_memory", "free_bytes is NULL");
  expect_failure(sa_topology_set_fake(nullptr), SA_EINVAL, "sa_topology_set_fake", "spec is NULL");
  EXPECT_EQ(v, 0u) << "outputs are untouched on failure";
  EXPECT_EQ(words, nullptr);

  // Value-returning accessors answer 0 and say why.
  EXPECT_EQ(sa_array_length(nullptr), 0u);
  expect_last_error("sa_array_length", "a is NULL");
  EXPECT_EQ(sa_array_bits(nullptr), 0u);
  expect_last_error("sa_array_bits", "a is NULL");
  EXPECT_EQ(sa_array_placement(nullptr), SA_OS_DEFAULT);
  expect_last_error("sa_array_placement", "a is NULL");
  EXPECT_EQ(sa_array_replicas(nullptr), 0u);
  expect_last_error("sa_array_replicas", "a is NULL");
  EXPECT_EQ(sa_array_memory_bytes(nullptr), 0u);
  expect_last_error("sa_array_memory_bytes", "a is NULL");
  EXPECT_EQ(sa_array_local_replica(nullptr), 0u);
  expect_last_error("sa_array_local_replica", "a is NULL");
}

TEST(CApi, BadOptionsAreInvalid) {
  Array array;
  sa_options o = options_with_bits(65);
  const uint64_t values[] = {1, 2, 70000};
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc", "bits 65 out of range 1..64");
  o.bits = 0;
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc", "bits 0");
  expect_failure(sa_array_alloc(10, nullptr, &array.a), SA_EINVAL, "sa_array_alloc", "bits 0");
  o.bits = 16;
  expect_failure(sa_array_from_u64(values, 3, &o, &array.a), SA_EINVAL, "sa_array_from_u64",
                 "value 70000 at index 2 needs 17 bits, array has 16");
  const int32_t not_a_placement = 9;  // C may store any int in the enum; C++ may not, hence memcpy
  std::memcpy(&o.placement, &not_a_placement, sizeof not_a_placement);
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc",
                 "options->placement 9 is not an sa_placement (0..5)");
  o.placement = SA_SINGLE_NODE;
  o.node = 4096;
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc", "node 4096");
  o.placement = SA_INTERLEAVED;
  o.node_count = 2;
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc",
                 "options->nodes (with node_count > 0) is NULL");
  const int32_t twice[] = {0, 0};
  o.nodes = twice;
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc", "node 0 listed twice");
  o.placement = SA_OS_DEFAULT;
  o.node_count = 1;
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc", "options.nodes applies only");
  EXPECT_EQ(array.a, nullptr);
}

TEST(CApi, RangeAndMemoryFailuresHaveTheirOwnCodes) {
  Array array;
  const sa_options o = options_with_bits(10);
  ASSERT_EQ(sa_array_alloc(100, &o, &array.a), SA_OK);
  uint64_t out[64];
  uint64_t v = 0;
  const uint64_t* words = nullptr;
  uint64_t nwords = 0;
  expect_failure(sa_array_get(array.a, 100, &v), SA_ERANGE, "sa_array_get", "index 100 out of range for length 100");
  expect_failure(sa_array_set(array.a, 100, 1), SA_ERANGE, "sa_array_set", "index 100 out of range for length 100");
  expect_failure(sa_array_set(array.a, 5, 1024), SA_EINVAL, "sa_array_set", "value 1024 at index 5 needs 11 bits, array has 10");
  expect_failure(sa_array_decode(array.a, 90, 11, out), SA_ERANGE, "sa_array_decode", "range of 11 values at index 90");
  expect_failure(sa_array_sum_range(array.a, 101, 0, &v), SA_ERANGE, "sa_array_sum_range", "at index 101");
  expect_failure(sa_array_unpack_chunk(array.a, 2, out), SA_ERANGE, "sa_array_unpack_chunk", "chunk 2 out of range");
  expect_failure(sa_array_words(array.a, 1, &words, &nwords), SA_ERANGE, "sa_array_words", "replica 1 out of range");
  expect_failure(sa_array_pages_per_node(array.a, 1, out, 64), SA_ERANGE, "sa_array_pages_per_node", "replica 1");
  expect_failure(sa_array_pages_per_node(array.a, 0, nullptr, 0), SA_ERANGE, "sa_array_pages_per_node",
                 "but counts holds only 0 nodes");

  Array huge;
  const sa_options wide = options_with_bits(64);
  expect_failure(sa_array_alloc(~std::uint64_t{0}, &wide, &huge.a), SA_ENOMEM, "sa_array_alloc", "needs more than 2^61 bytes");
  expect_failure(sa_array_alloc(std::uint64_t{1} << 57, &wide, &huge.a), SA_ENOMEM, "sa_array_alloc", "");
  EXPECT_EQ(huge.a, nullptr);
}

TEST(CApi, LastErrorIsPerThread) {
  uint64_t v = 0;
  expect_failure(sa_array_get(nullptr, 0, &v), SA_EINVAL, "sa_array_get", "a is NULL");
  std::string other_before;
  std::string other_after;
  std::thread thread([&] {
    other_before = sa_last_error();
    sa_array* made = nullptr;
    const sa_options o = options_with_bits(70);
    sa_array_alloc(1, &o, &made);
    other_after = sa_last_error();
  });
  thread.join();
  EXPECT_EQ(other_before, "") << "a new thread has no error yet";
  EXPECT_EQ(other_after, "sa_array_alloc: bits 70 out of range 1..64");
  EXPECT_EQ(std::string(sa_last_error()), "sa_array_get: a is NULL") << "another thread's failure leaves ours";
  Array array;
  ASSERT_EQ(sa_array_alloc(1, nullptr, &array.a), SA_EINVAL);
  const std::string failed = sa_last_error();
  const sa_options o = options_with_bits(3);
  ASSERT_EQ(sa_array_alloc(1, &o, &array.a), SA_OK);
  EXPECT_EQ(sa_last_error(), failed) << "a success leaves the last failure's message";
}

TEST(CApi, TopologyQueriesAndPinning) {
  const RealTopologyAfter restore;
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_topology_is_fake(), 1);
  ASSERT_EQ(sa_topology_nodes(), 2u);
  const smartarrays::os::Topology& topology = smartarrays::os::topology();
  for (int32_t node = 0; node < 2; ++node) {
    uint32_t count = 0;
    ASSERT_EQ(sa_topology_node_cpus(node, nullptr, 0, &count), SA_OK) << "count only";
    const std::vector<int>& expected = topology.node(static_cast<std::size_t>(node)).cpus;
    EXPECT_EQ(count, expected.size());
    std::vector<int32_t> cpus(count + 1, -7);
    ASSERT_EQ(sa_topology_node_cpus(node, cpus.data(), static_cast<uint32_t>(cpus.size()), &count), SA_OK);
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), cpus.begin()));
    EXPECT_EQ(cpus[count], -7) << "nothing written past count";
    uint64_t total = 0;
    uint64_t free_bytes = 0;
    ASSERT_EQ(sa_topology_node_memory(node, &total, &free_bytes), SA_OK);
    EXPECT_EQ(total, topology.node(static_cast<std::size_t>(node)).memory_total);
    EXPECT_GT(total, 0u);
    EXPECT_LE(free_bytes, total);
  }
  EXPECT_EQ(sa_topology_distance(0, 0), 10u);
  EXPECT_EQ(sa_topology_distance(0, 1), 20u);
  EXPECT_EQ(sa_topology_distance(0, 2), 0u);
  expect_last_error("sa_topology_distance", "node 2");
  uint32_t count = 0;
  expect_failure(sa_topology_node_cpus(5, nullptr, 0, &count), SA_EINVAL, "sa_topology_node_cpus", "node 5");
  expect_failure(sa_topology_node_cpus(-1, nullptr, 0, &count), SA_EINVAL, "sa_topology_node_cpus", "node -1");
  expect_failure(sa_pin_thread_to_node(2), SA_EINVAL, "sa_pin_thread_to_node", "node 2");

  for (int32_t node = 0; node < 2; ++node) {
    std::thread thread([&] {
      EXPECT_EQ(sa_pin_thread_to_node(node), SA_OK) << sa_last_error();
      EXPECT_EQ(sa_current_node(), node);
    });
    thread.join();
  }

  expect_failure(sa_topology_set_fake("bogus"), SA_EINVAL, "sa_topology_set_fake", "bogus");
  EXPECT_EQ(sa_topology_is_fake(), 1) << "a bad spec keeps the active topology";
  ASSERT_EQ(sa_topology_set_fake(""), SA_OK);
  EXPECT_EQ(sa_topology_is_fake(), 0);
  EXPECT_EQ(sa_topology_nodes(), smartarrays::os::topology().node_count());
  EXPECT_GE(sa_current_node(), 0);
}

TEST(CApi, MachineFactsAreOneJsonObjectOfTheMachineSchema) {
  const RealTopologyAfter restore;
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  const char* text = nullptr;
  ASSERT_EQ(sa_machine_facts_json(&text), SA_OK) << sa_last_error();
  const nlohmann::json facts = nlohmann::json::parse(text);
  EXPECT_EQ(facts.at("format"), "smartarrays.machine/1");
  EXPECT_EQ(facts.at("nodes"), 2);
  EXPECT_EQ(facts.at("fake_topology"), true);
  EXPECT_EQ(facts.at("topology_spec"), "nodes=2");
  EXPECT_EQ(facts.at("library_version"), sa_version());
  EXPECT_EQ(facts.at("load_average").size(), 3u);
  for (const char* key : {"cpu_model", "online_cpus", "usable_cpus", "memory_total_bytes", "memory_free_bytes", "codec_isa",
                          "thp_enabled", "thp_defrag", "hugetlb_pools", "numa_balancing", "kernel"}) {
    EXPECT_TRUE(facts.contains(key)) << key;
  }
  expect_failure(sa_machine_facts_json(nullptr), SA_EINVAL, "sa_machine_facts_json", "json is NULL");
}

TEST(CApi, ReplicatedArraysServeEachThreadItsNodesReplica) {
  const RealTopologyAfter restore;
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  const int32_t nodes[] = {1, 0};
  sa_options o = options_with_bits(6);
  o.placement = SA_REPLICATED;
  o.nodes = nodes;
  o.node_count = 2;
  std::vector<uint64_t> values(500);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i % 64;
  Array array;
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), &o, &array.a), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_array_placement(array.a), SA_REPLICATED);
  ASSERT_EQ(sa_array_replicas(array.a), 2u);
  const uint64_t* replica[2] = {nullptr, nullptr};
  uint64_t nwords = 0;
  for (uint32_t r = 0; r < 2; ++r) ASSERT_EQ(sa_array_words(array.a, r, &replica[r], &nwords), SA_OK);
  EXPECT_NE(replica[0], replica[1]);
  EXPECT_TRUE(std::equal(replica[0], replica[0] + nwords, replica[1]));
  // Replica 0 is on node 1 (the order of options.nodes), replica 1 on node 0.
  for (int32_t node = 0; node < 2; ++node) {
    std::thread thread([&] {
      ASSERT_EQ(sa_pin_thread_to_node(node), SA_OK);
      EXPECT_EQ(sa_array_local_replica(array.a), node == 1 ? 0u : 1u);
    });
    thread.join();
  }
  ASSERT_EQ(sa_array_set(array.a, 7, 63), SA_OK);
  EXPECT_EQ(reference_value(replica[0], 6, 7), 63u);
  EXPECT_EQ(reference_value(replica[1], 6, 7), 63u);
  Array single;
  sa_options one = options_with_bits(6);
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), &one, &single.a), SA_OK);
  EXPECT_EQ(sa_array_memory_bytes(array.a), 2 * sa_array_memory_bytes(single.a));
}

TEST(CApiGuard, EveryExceptionBecomesAStatusAndAMessage) {
  using smartarrays::capi::guarded;
  EXPECT_EQ(guarded("f", [] {}), SA_OK);
  EXPECT_EQ(guarded("f", [] { throw std::bad_alloc(); }), SA_ENOMEM);
  EXPECT_EQ(std::string(sa_last_error()).rfind("f: out of memory", 0), 0u) << sa_last_error();
  EXPECT_EQ(guarded("g", [] { throw std::runtime_error("boom"); }), SA_EINTERNAL);
  EXPECT_EQ(std::string(sa_last_error()), "g: internal error: boom");
  EXPECT_EQ(guarded("h", [] { throw 42; }), SA_EINTERNAL);
  EXPECT_EQ(std::string(sa_last_error()), "h: internal error: unknown exception");
  EXPECT_EQ(guarded("k", [] { smartarrays::throw_error(smartarrays::ErrorCode::cancelled, "stop"); }), SA_ECANCELLED);
  EXPECT_EQ(std::string(sa_last_error()), "k: stop");
  EXPECT_EQ(guarded("m", [] { throw smartarrays::Error(static_cast<smartarrays::ErrorCode>(99), "odd"); }),
            SA_EINTERNAL);
  // A message longer than the buffer is truncated, never overflowed.
  EXPECT_EQ(guarded("long", [] { throw std::runtime_error(std::string(5000, 'x')); }), SA_EINTERNAL);
  EXPECT_LT(std::string(sa_last_error()).size(), 5000u);
  EXPECT_EQ(std::string(sa_last_error()).rfind("long: internal error: xxx", 0), 0u);
}

// A message carrying raw bytes (a path with an escape sequence, a newline, invalid UTF-8, a NUL) is
// recorded with them escaped: before, C and Java callers got them raw, and the message ended at the NUL.
TEST(CApiGuard, RawBytesInAMessageAreEscapedAndACutKeepsWholeEscapes) {
  using smartarrays::capi::guarded;
  const std::string raw("cannot open x\x1b[31mred\n\xff\0tail.el", 31);
  EXPECT_EQ(guarded("p", [&] { smartarrays::throw_error(smartarrays::ErrorCode::os_error, raw); }), SA_EOS);
  EXPECT_EQ(std::string(sa_last_error()), "p: cannot open x\\x1b[31mred\\x0a\\xff\\x00tail.el");
  EXPECT_EQ(guarded("q", [] { throw std::runtime_error("bad \x07 byte"); }), SA_EINTERNAL);
  EXPECT_EQ(std::string(sa_last_error()), "q: internal error: bad \\x07 byte");
  EXPECT_EQ(guarded("r", [] { throw std::runtime_error(std::string(2000, '\x01')); }), SA_EINTERNAL);
  const std::string cut = sa_last_error();
  EXPECT_LE(cut.size(), 1023u);
  EXPECT_EQ((cut.size() - std::string("r: internal error: ").size()) % 4, 0u) << cut;
  EXPECT_EQ(cut.substr(cut.size() - 4), "\\x01");
}

TEST(CApiGuard, AGraphPathWithControlBytesIsEscapedInTheMessage) {
  sa_graph* g = nullptr;
  EXPECT_EQ(sa_graph_load("missing\x1b[2J\n.el", nullptr, nullptr, &g), SA_EOS);
  const std::string message = sa_last_error();
  EXPECT_NE(message.find("missing\\x1b[2J\\x0a.el"), std::string::npos) << message;
  for (const char c : message) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << message;
  EXPECT_EQ(g, nullptr);
}

TEST(CApiHugePages, CodesMatchTheCoreModes) {
  EXPECT_EQ(SA_HUGE_PAGES_OFF, static_cast<int>(smartarrays::os::HugePages::off));
  EXPECT_EQ(SA_HUGE_PAGES_ON, static_cast<int>(smartarrays::os::HugePages::on));
  EXPECT_EQ(SA_HUGE_PAGES_AUTO, static_cast<int>(smartarrays::os::HugePages::automatic));
  EXPECT_EQ(SA_HUGE_PAGES_2M, static_cast<int>(smartarrays::os::HugePages::pages_2m));
  EXPECT_EQ(SA_HUGE_PAGES_1G, static_cast<int>(smartarrays::os::HugePages::pages_1g));
}

TEST(CApiHugePages, ArraysReportTheirModeAndHugePageBytes) {
  for (int32_t mode : {SA_HUGE_PAGES_OFF, SA_HUGE_PAGES_ON, SA_HUGE_PAGES_AUTO}) {
    Array array;
    sa_options o = options_with_bits(64);
    o.huge_pages = mode;
    ASSERT_EQ(sa_array_alloc(std::uint64_t{1} << 20, &o, &array.a), SA_OK) << sa_last_error();
    EXPECT_EQ(sa_array_huge_pages(array.a), mode);
    uint64_t bytes = ~std::uint64_t{0};
    ASSERT_EQ(sa_array_huge_page_bytes(array.a, 0, &bytes), SA_OK) << sa_last_error();
    EXPECT_LE(bytes, sa_array_memory_bytes(array.a));
    if (mode == SA_HUGE_PAGES_OFF) {
      EXPECT_EQ(bytes, 0u);
    }
  }
}

TEST(CApiHugePages, BadModesAndArgumentsAreErrors) {
  Array array;
  sa_options o = options_with_bits(64);
  o.huge_pages = 5;
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc",
                 "options->huge_pages 5 is not an sa_huge_pages (0..4: off, on, auto, 2M, 1G)");
  o.huge_pages = -1;
  expect_failure(sa_array_alloc(10, &o, &array.a), SA_EINVAL, "sa_array_alloc", "huge_pages -1");
  o.huge_pages = SA_HUGE_PAGES_AUTO;
  ASSERT_EQ(sa_array_alloc(10, &o, &array.a), SA_OK) << sa_last_error();
  uint64_t bytes = 0;
  expect_failure(sa_array_huge_page_bytes(array.a, 1, &bytes), SA_ERANGE, "sa_array_huge_page_bytes", "replica 1");
  expect_failure(sa_array_huge_page_bytes(array.a, 0, nullptr), SA_EINVAL, "sa_array_huge_page_bytes", "bytes is NULL");
  expect_failure(sa_array_huge_page_bytes(nullptr, 0, &bytes), SA_EINVAL, "sa_array_huge_page_bytes", "is NULL");
}

TEST(CApiHugePages, AnEmptyHugetlbPoolIsOutOfMemoryOrUnsupported) {
  for (const smartarrays::os::HugetlbPool& pool : smartarrays::os::read_hugetlb_pools()) {
    if (pool.page_bytes == (std::uint64_t{2} << 20) && pool.free_pages > 0) GTEST_SKIP() << "the 2M pool has pages";
  }
  Array array;
  sa_options o = options_with_bits(64);
  o.huge_pages = SA_HUGE_PAGES_2M;
  const sa_status status = sa_array_alloc(10, &o, &array.a);
  EXPECT_TRUE(status == SA_ENOMEM || status == SA_EUNSUPPORTED) << sa_last_error();
  expect_failure(status, status, "sa_array_alloc", "hugetlb pages");
  EXPECT_EQ(array.a, nullptr);
}

TEST(CApiChecksum, ReplicasChecksumAndCompare) {
  const RealTopologyAfter restore;
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  std::vector<uint64_t> values(3000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i % 700;
  Array array;
  sa_options o = options_with_bits(10);
  o.placement = SA_REPLICATED;
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), &o, &array.a), SA_OK) << sa_last_error();
  uint32_t crc0 = 0, crc1 = 1;
  ASSERT_EQ(sa_array_crc32c(array.a, 0, &crc0), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_array_crc32c(array.a, 1, &crc1), SA_OK) << sa_last_error();
  EXPECT_EQ(crc0, crc1);
  int32_t equal = 0;
  ASSERT_EQ(sa_array_replicas_equal(array.a, &equal), SA_OK) << sa_last_error();
  EXPECT_EQ(equal, 1);
  ASSERT_EQ(sa_array_set(array.a, 7, 699), SA_OK);
  ASSERT_EQ(sa_array_crc32c(array.a, 1, &crc1), SA_OK);
  EXPECT_NE(crc0, crc1);
  expect_failure(sa_array_crc32c(array.a, 2, &crc0), SA_ERANGE, "sa_array_crc32c", "replica 2");
  expect_failure(sa_array_crc32c(array.a, 0, nullptr), SA_EINVAL, "sa_array_crc32c", "crc is NULL");
  expect_failure(sa_array_replicas_equal(array.a, nullptr), SA_EINVAL, "sa_array_replicas_equal", "equal is NULL");
  expect_failure(sa_array_replicas_equal(nullptr, &equal), SA_EINVAL, "sa_array_replicas_equal", "is NULL");
}

TEST(CApiBulk, CopyFromFillAndTheirErrors) {
  const RealTopologyAfter restore;
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  std::vector<uint64_t> values(5000);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = i % 1000;
  Array src, dst, shorter, narrow;
  sa_options o = options_with_bits(10);
  ASSERT_EQ(sa_array_from_u64(values.data(), values.size(), &o, &src.a), SA_OK) << sa_last_error();
  o = options_with_bits(17);
  o.placement = SA_REPLICATED;
  ASSERT_EQ(sa_array_alloc(values.size(), &o, &dst.a), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_array_copy_from(dst.a, src.a), SA_OK) << sa_last_error();
  std::vector<uint64_t> out(values.size());
  ASSERT_EQ(sa_array_decode(dst.a, 0, out.size(), out.data()), SA_OK);
  EXPECT_EQ(out, values);
  int32_t equal = 0;
  ASSERT_EQ(sa_array_replicas_equal(dst.a, &equal), SA_OK);
  EXPECT_EQ(equal, 1);
  ASSERT_EQ(sa_array_fill(dst.a, 131071), SA_OK) << sa_last_error();
  uint64_t v = 0;
  ASSERT_EQ(sa_array_get(dst.a, 4999, &v), SA_OK);
  EXPECT_EQ(v, 131071u);
  expect_failure(sa_array_fill(dst.a, 131072), SA_EINVAL, "sa_array_fill", "value 131072 needs 18 bits, array has 17");
  o = options_with_bits(10);
  ASSERT_EQ(sa_array_alloc(values.size() - 1, &o, &shorter.a), SA_OK);
  expect_failure(sa_array_copy_from(shorter.a, src.a), SA_EINVAL, "sa_array_copy_from", "lengths differ");
  o = options_with_bits(9);
  ASSERT_EQ(sa_array_alloc(values.size(), &o, &narrow.a), SA_OK);
  expect_failure(sa_array_copy_from(narrow.a, src.a), SA_EINVAL, "sa_array_copy_from", "value 512 at index 512 needs 10 bits");
  expect_failure(sa_array_copy_from(nullptr, src.a), SA_EINVAL, "sa_array_copy_from", "dst is NULL");
  expect_failure(sa_array_copy_from(dst.a, nullptr), SA_EINVAL, "sa_array_copy_from", "src is NULL");
  expect_failure(sa_array_fill(nullptr, 1), SA_EINVAL, "sa_array_fill", "a is NULL");
}

TEST(CApiBulk, PrimaryWritesReachOtherReplicasOnSync) {
  const RealTopologyAfter restore;
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  Array array, through;
  sa_options o = options_with_bits(12);
  o.placement = SA_REPLICATED;
  ASSERT_EQ(sa_array_alloc(1000, &o, &through.a), SA_OK);
  EXPECT_EQ(sa_array_write_mode(through.a), SA_WRITE_THROUGH);
  o.write_mode = SA_WRITE_PRIMARY;
  ASSERT_EQ(sa_array_alloc(1000, &o, &array.a), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_array_write_mode(array.a), SA_WRITE_PRIMARY);
  ASSERT_EQ(sa_array_set(array.a, 999, 4095), SA_OK);
  int32_t equal = 1;
  ASSERT_EQ(sa_array_replicas_equal(array.a, &equal), SA_OK);
  EXPECT_EQ(equal, 0);
  ASSERT_EQ(sa_array_sync(array.a), SA_OK) << sa_last_error();
  ASSERT_EQ(sa_array_replicas_equal(array.a, &equal), SA_OK);
  EXPECT_EQ(equal, 1);
  ASSERT_EQ(sa_array_sync(through.a), SA_OK);
  expect_failure(sa_array_sync(nullptr), SA_EINVAL, "sa_array_sync", "a is NULL");
  o.write_mode = 2;
  Array bad;
  expect_failure(sa_array_alloc(10, &o, &bad.a), SA_EINVAL, "sa_array_alloc", "write_mode 2 is not an sa_write_mode");
}

}  // namespace
