// Owns the tests of placed buffers (smartarrays/array/buffer.hpp): every one-copy placement on fake
// 2- and 4-node topologies (size, alignment, zero fill, writes, pages and stripes), huge pages by
// default, and every refused option.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

#include "smartarrays/array/buffer.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/topology.hpp"
#include "support/fake_topology.hpp"

namespace smartarrays {
namespace {

using test::ScopedFakeTopology;

// The code of the Error f throws, after checking that its message names needle.
template <typename F>
ErrorCode error_of(F&& f, const std::string& needle) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    return e.code();
  }
  ADD_FAILURE() << "expected an error naming " << needle;
  return ErrorCode::internal;
}

class BufferOnFakeTopology : public ::testing::TestWithParam<std::tuple<int, Placement>> {};

TEST_P(BufferOnFakeTopology, IsZeroedWritableAndPlaced) {
  const auto [nodes, placement] = GetParam();
  const ScopedFakeTopology fake("nodes=" + std::to_string(nodes));
  ArrayOptions options;
  options.placement = placement;
  options.node = nodes - 1;
  // Several pages per node, and an odd size: the last page is partly used.
  const std::size_t page = os::MemoryRegion::page_size();
  const std::size_t bytes = 8 * page * static_cast<std::size_t>(nodes) + 123;
  const os::MemoryRegion buffer = allocate_buffer(bytes, options);
  ASSERT_NE(buffer.data(), nullptr);
  EXPECT_EQ(buffer.size(), bytes);
  EXPECT_GE(buffer.mapped_bytes(), bytes);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer.data()) % page, 0u);
  EXPECT_TRUE(buffer.writable());
  auto* data = static_cast<unsigned char*>(buffer.data());
  for (std::size_t i = 0; i < bytes; ++i) ASSERT_EQ(data[i], 0) << "byte " << i << " is not zero";
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<unsigned char>(i * 7 + 1);
  for (std::size_t i = 0; i < bytes; i += 4093) ASSERT_EQ(data[i], static_cast<unsigned char>(i * 7 + 1));

  // Every page is mapped once, on kernel node 0 (the only one this machine has).
  const std::vector<std::uint64_t> pages = buffer.pages_per_node();
  ASSERT_FALSE(pages.empty());
  EXPECT_EQ(std::accumulate(pages.begin(), pages.end(), std::uint64_t{0}), buffer.mapped_bytes() / page);
  EXPECT_EQ(pages[0], buffer.mapped_bytes() / page);

  const std::vector<os::MemoryRegion::Stripe>& stripes = buffer.stripes();
  if (placement == Placement::partitioned) {
    ASSERT_EQ(stripes.size(), static_cast<std::size_t>(nodes));
    for (std::size_t k = 0; k < stripes.size(); ++k) {
      EXPECT_EQ(stripes[k].node, static_cast<int>(k));
      EXPECT_EQ(stripes[k].begin % page, 0u);
      if (k > 0) {
        EXPECT_EQ(stripes[k].begin, stripes[k - 1].end);
      }
    }
    EXPECT_EQ(stripes.back().end, buffer.mapped_bytes());
  }
  const os::MemoryPolicy expected = placement == Placement::os_default    ? os::MemoryPolicy::os_default
                                    : placement == Placement::single_node ? os::MemoryPolicy::bind
                                    : placement == Placement::interleaved ? os::MemoryPolicy::interleave
                                                                          : os::MemoryPolicy::partition;
  EXPECT_EQ(buffer.options().policy, expected);
  if (placement == Placement::single_node) {
    EXPECT_EQ(buffer.options().nodes, std::vector<int>{nodes - 1});
  }
  if (placement == Placement::interleaved || placement == Placement::partitioned) {
    std::vector<int> all(static_cast<std::size_t>(nodes));
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(buffer.options().nodes, all);
  }
}

INSTANTIATE_TEST_SUITE_P(TwoAndFourNodes, BufferOnFakeTopology,
                         ::testing::Combine(::testing::Values(2, 4),
                                            ::testing::Values(Placement::os_default, Placement::single_node,
                                                              Placement::interleaved, Placement::partitioned)),
                         [](const ::testing::TestParamInfo<std::tuple<int, Placement>>& param) {
                           return std::to_string(std::get<0>(param.param)) + "nodes_" +
                                  to_string(std::get<1>(param.param));
                         });

TEST(Buffer, DefaultOptionsGiveLargeBuffersHugePages) {
  const os::MemoryRegion buffer = allocate_buffer(std::size_t{8} << 20, ArrayOptions{});
  EXPECT_EQ(buffer.options().huge_pages, HugePages::automatic);
  if (os::read_machine_facts().thp_enabled != "never") {
    EXPECT_GT(buffer.huge_page_bytes(), 0u);
  }
  ArrayOptions off;
  off.huge_pages = HugePages::off;
  EXPECT_EQ(allocate_buffer(std::size_t{8} << 20, off).huge_page_bytes(), 0u);
}

TEST(Buffer, BitsDoNotApply) {
  ArrayOptions options;
  options.bits = 0;
  options.auto_bits = true;
  EXPECT_EQ(allocate_buffer(100, options).size(), 100u);
}

TEST(Buffer, RefusesWhatItCannotHonour) {
  EXPECT_EQ(error_of([] { allocate_buffer(0, ArrayOptions{}); }, "at least 1 byte"), ErrorCode::invalid_argument);
  ArrayOptions replicated;
  replicated.placement = Placement::replicated;
  EXPECT_EQ(error_of([&] { allocate_buffer(4096, replicated); }, "replicated"), ErrorCode::invalid_argument);
  ArrayOptions automatic;
  automatic.auto_placement = true;
  EXPECT_EQ(error_of([&] { allocate_buffer(4096, automatic); }, "auto"), ErrorCode::invalid_argument);
  ArrayOptions misplaced_set;
  misplaced_set.nodes = {0};
  EXPECT_EQ(error_of([&] { allocate_buffer(4096, misplaced_set); }, "options.nodes"), ErrorCode::invalid_argument);
  const ScopedFakeTopology fake("nodes=2");
  ArrayOptions far_node;
  far_node.placement = Placement::single_node;
  far_node.node = 5;
  EXPECT_THROW(allocate_buffer(4096, far_node), Error);
  ArrayOptions twice;
  twice.placement = Placement::interleaved;
  twice.nodes = {1, 1};
  EXPECT_EQ(error_of([&] { allocate_buffer(4096, twice); }, "listed twice"), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace smartarrays
