// Owns the tests of the C ABI's placed buffers (sa_buffer_*): allocation on every one-copy placement
// of a fake topology, zero fill and writes, the page and huge-page reports, and every error path.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "smartarrays.h"
#include "support/capi_expect.hpp"

namespace {

using smartarrays::test::expect_failure;
using Buffer = smartarrays::test::Owned<sa_buffer, sa_buffer_free>;

// Restores the real topology when a test that faked one ends.
struct RealTopologyAfter {
  ~RealTopologyAfter() { sa_topology_set_fake(""); }
};

TEST(BufferCapi, EveryOneCopyPlacementIsZeroedWritableAndOnItsPages) {
  RealTopologyAfter restore;
  ASSERT_EQ(sa_topology_set_fake("nodes=2"), SA_OK) << sa_last_error();
  const uint64_t bytes = 5 * 4096 + 17;
  for (sa_placement placement : {SA_OS_DEFAULT, SA_SINGLE_NODE, SA_INTERLEAVED, SA_PARTITIONED}) {
    sa_options o;
    sa_options_init(&o);
    o.placement = placement;
    o.node = 1;
    Buffer b;
    ASSERT_EQ(sa_buffer_alloc(bytes, &o, &b.p), SA_OK) << sa_last_error();
    EXPECT_EQ(sa_buffer_bytes(b.p), bytes);
    auto* data = static_cast<unsigned char*>(sa_buffer_data(b.p));
    ASSERT_NE(data, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(data) % 4096, 0u);
    for (uint64_t i = 0; i < bytes; ++i) ASSERT_EQ(data[i], 0) << "placement " << placement << " byte " << i;
    std::memset(data, 0xab, bytes);
    EXPECT_EQ(data[bytes - 1], 0xab);
    uint64_t counts[4] = {9, 9, 9, 9};
    ASSERT_EQ(sa_buffer_pages_per_node(b.p, counts, 4), SA_OK) << sa_last_error();
    EXPECT_EQ(counts[0], 6u) << "every page on kernel node 0, the only one";
    EXPECT_EQ(counts[1] + counts[2] + counts[3], 0u);
    uint64_t huge = 1;
    ASSERT_EQ(sa_buffer_huge_page_bytes(b.p, &huge), SA_OK);
    EXPECT_EQ(huge, 0u) << "a 24 KiB buffer gets no huge page";
  }
}

TEST(BufferCapi, NullOptionsAreTheDefaults) {
  Buffer b;
  ASSERT_EQ(sa_buffer_alloc(uint64_t{8} << 20, nullptr, &b.p), SA_OK) << sa_last_error();
  EXPECT_EQ(sa_buffer_bytes(b.p), uint64_t{8} << 20);
  uint64_t huge = 0;
  ASSERT_EQ(sa_buffer_huge_page_bytes(b.p, &huge), SA_OK);
  EXPECT_LE(huge, uint64_t{8} << 20);
}

TEST(BufferCapi, ErrorsNameTheArgument) {
  Buffer b;
  expect_failure(sa_buffer_alloc(0, nullptr, &b.p), SA_EINVAL, "sa_buffer_alloc", "at least 1 byte");
  EXPECT_EQ(b.p, nullptr);
  expect_failure(sa_buffer_alloc(64, nullptr, nullptr), SA_EINVAL, "sa_buffer_alloc", "out");
  sa_options replicated;
  sa_options_init(&replicated);
  replicated.placement = SA_REPLICATED;
  expect_failure(sa_buffer_alloc(64, &replicated, &b.p), SA_EINVAL, "sa_buffer_alloc", "replicated");
  sa_options bad;
  sa_options_init(&bad);
  std::memcpy(&bad.placement, "\x07\0\0\0", 4);
  expect_failure(sa_buffer_alloc(64, &bad, &b.p), SA_EINVAL, "sa_buffer_alloc", "placement");
  expect_failure(sa_buffer_alloc(~uint64_t{0}, nullptr, &b.p), SA_ENOMEM, "sa_buffer_alloc", "");
  EXPECT_EQ(b.p, nullptr);

  EXPECT_EQ(sa_buffer_data(nullptr), nullptr);
  EXPECT_EQ(sa_buffer_bytes(nullptr), 0u);
  uint64_t value = 0;
  expect_failure(sa_buffer_huge_page_bytes(nullptr, &value), SA_EINVAL, "sa_buffer_huge_page_bytes", "buffer");
  ASSERT_EQ(sa_buffer_alloc(3 * 4096, nullptr, &b.p), SA_OK) << sa_last_error();
  expect_failure(sa_buffer_huge_page_bytes(b.p, nullptr), SA_EINVAL, "sa_buffer_huge_page_bytes", "bytes");
  expect_failure(sa_buffer_pages_per_node(b.p, nullptr, 1), SA_EINVAL, "sa_buffer_pages_per_node", "counts");
  expect_failure(sa_buffer_pages_per_node(b.p, &value, 0), SA_ERANGE, "sa_buffer_pages_per_node", "kernel node 0");
  EXPECT_EQ(sa_buffer_pages_per_node(b.p, nullptr, 0), SA_ERANGE) << "max_nodes 0 holds no page";
  sa_buffer_free(nullptr);
}

}  // namespace
