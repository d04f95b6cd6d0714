// Tests memory regions: every policy allocates pre-faulted zeroed pages where it promised, a
// reserved region holds no page until a range of it is faulted in, bad requests are errors that
// leak nothing, and regions move like unique owners.
#include <gtest/gtest.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <thread>

#include "support/fake_topology.hpp"
#include "os/syscalls.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/os/topology.hpp"
#include "support/page_counts.hpp"

namespace smartarrays::os {
namespace {

using test::total;

constexpr std::size_t MiB = std::size_t{1} << 20;

std::uint64_t pages_of(const MemoryRegion& region) { return region.mapped_bytes() / MemoryRegion::page_size(); }

// mincore() is independent of move_pages: it says whether each page is resident.
bool every_page_resident(const MemoryRegion& region) {
  std::vector<unsigned char> resident(pages_of(region));
  if (::mincore(region.data(), region.mapped_bytes(), resident.data()) != 0) return false;
  return std::all_of(resident.begin(), resident.end(), [](unsigned char r) { return (r & 1) != 0; });
}

// Resident pages of bytes [begin, end) of region (page-aligned bounds), by mincore().
std::size_t resident_pages(const MemoryRegion& region, std::size_t begin, std::size_t end) {
  std::vector<unsigned char> resident((end - begin) / MemoryRegion::page_size());
  if (::mincore(static_cast<char*>(region.data()) + begin, end - begin, resident.data()) != 0) return ~std::size_t{0};
  return static_cast<std::size_t>(std::count_if(resident.begin(), resident.end(), [](unsigned char r) { return (r & 1) != 0; }));
}

bool all_zero(const MemoryRegion& region) {
  const auto* bytes = static_cast<const unsigned char*>(region.data());
  return std::all_of(bytes, bytes + region.mapped_bytes(), [](unsigned char b) { return b == 0; });
}

// Virtual memory of the process, from the kernel: a leaked mapping would grow it.
std::uint64_t vm_size_kib() {
  std::ifstream status("/proc/self/status");
  std::string key;
  while (status >> key) {
    if (key == "VmSize:") {
      std::uint64_t kib = 0;
      status >> kib;
      return kib;
    }
    status.ignore(1 << 16, '\n');
  }
  return 0;
}

RegionOptions options(MemoryPolicy policy, std::vector<int> nodes = {}, bool huge = false) {
  RegionOptions o;
  o.policy = policy;
  o.nodes = std::move(nodes);
  o.huge_pages = huge ? HugePages::on : HugePages::off;
  return o;
}

void expect_error(std::size_t bytes, const RegionOptions& o, ErrorCode code, const std::string& message) {
  try {
    MemoryRegion::allocate(bytes, o);
    ADD_FAILURE() << "allocation accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

struct PolicyCase {
  MemoryPolicy policy;
  std::vector<int> nodes;
  bool huge;
};

std::string describe(const PolicyCase& c) {
  static const char* const kNames[] = {"os_default", "bind", "interleave", "partition"};
  std::string name = kNames[static_cast<int>(c.policy)];
  for (int node : c.nodes) name += "_node" + std::to_string(node);
  return name + (c.huge ? "_huge" : "_base");
}

void PrintTo(const PolicyCase& c, std::ostream* out) { *out << describe(c); }

std::string policy_case_name(const ::testing::TestParamInfo<PolicyCase>& info) { return describe(info.param); }

class EveryPolicy : public ::testing::TestWithParam<PolicyCase> {};

TEST_P(EveryPolicy, AllocatesPrefaultedZeroedPagesAndAccountsForThemAll) {
  const PolicyCase& c = GetParam();
  const std::size_t bytes = 5 * MiB + 123;
  const MemoryRegion region = MemoryRegion::allocate(bytes, options(c.policy, c.nodes, c.huge));
  ASSERT_NE(region.data(), nullptr);
  EXPECT_EQ(region.size(), bytes);
  const std::size_t unit = c.huge ? 2 * MiB : MemoryRegion::page_size();
  EXPECT_EQ(region.mapped_bytes(), (bytes + unit - 1) / unit * unit);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(region.data()) % unit, 0u);
  EXPECT_EQ(region.options().policy, c.policy);
  EXPECT_TRUE(every_page_resident(region));
  EXPECT_TRUE(all_zero(region));
  const std::vector<std::uint64_t> counts = region.pages_per_node();
  ASSERT_FALSE(counts.empty());
  EXPECT_EQ(total(counts), pages_of(region));

  const Topology& t = topology();
  if (t.memory_nodes().size() == 1) {
    // One memory node: wherever the policy points, that is where every page is.
    const std::size_t os_node = static_cast<std::size_t>(t.node(static_cast<std::size_t>(t.memory_nodes()[0])).os_node);
    ASSERT_GT(counts.size(), os_node);
    EXPECT_EQ(counts[os_node], pages_of(region));
  }
  if (c.policy == MemoryPolicy::bind) {
    const std::size_t os_node = static_cast<std::size_t>(t.node(static_cast<std::size_t>(c.nodes[0])).os_node);
    ASSERT_GT(counts.size(), os_node);
    EXPECT_EQ(counts[os_node], pages_of(region));
  }
}

INSTANTIATE_TEST_SUITE_P(
    Policies, EveryPolicy,
    ::testing::Values(PolicyCase{MemoryPolicy::os_default, {}, false}, PolicyCase{MemoryPolicy::os_default, {}, true},
                      PolicyCase{MemoryPolicy::bind, {0}, false}, PolicyCase{MemoryPolicy::bind, {0}, true},
                      PolicyCase{MemoryPolicy::interleave, {}, false}, PolicyCase{MemoryPolicy::interleave, {0}, true},
                      PolicyCase{MemoryPolicy::partition, {}, false}, PolicyCase{MemoryPolicy::partition, {0}, true}),
    policy_case_name);

TEST(MemoryRegion, AReservedRegionHoldsNoPageUntilARangeIsFaultedIn) {
  const std::size_t page = MemoryRegion::page_size();
  for (const RegionOptions& o : {options(MemoryPolicy::os_default), options(MemoryPolicy::bind, {0}),
                                 options(MemoryPolicy::interleave), options(MemoryPolicy::partition)}) {
    MemoryRegion region = MemoryRegion::reserve(64 * MiB, o);
    EXPECT_EQ(region.mapped_bytes(), 64 * MiB);
    EXPECT_EQ(resident_pages(region, 0, 64 * MiB), 0u);
    region.prefault(3 * MiB + 5, 5 * MiB - 7);  // widened to whole pages
    EXPECT_EQ(resident_pages(region, 0, 3 * MiB), 0u);
    EXPECT_EQ(resident_pages(region, 3 * MiB, 5 * MiB), 2 * MiB / page);
    EXPECT_EQ(resident_pages(region, 5 * MiB, 64 * MiB), 0u);
    EXPECT_EQ(total(region.pages_per_node(3 * MiB, 5 * MiB)), 2 * MiB / page);  // placed by the policy
    region.prefault(0, 0);
    EXPECT_EQ(resident_pages(region, 0, 3 * MiB), 0u);
  }
  MemoryRegion region = MemoryRegion::reserve(MiB, options(MemoryPolicy::os_default));
  EXPECT_THROW(region.prefault(0, MiB + 1), Error);
  EXPECT_THROW(region.prefault(2, 1), Error);
  MemoryRegion borrowed = MemoryRegion::borrow(region.data(), MiB, std::make_shared<int>(0));
  EXPECT_THROW(borrowed.prefault(0, page), Error);
}

TEST(MemoryRegion, GetMempolicyAgreesWithPagesPerNode) {
  const MemoryRegion region = MemoryRegion::allocate(MiB, options(MemoryPolicy::bind, {0}));
  const int expected = topology().node(0).os_node;
  for (std::size_t offset = 0; offset < region.mapped_bytes(); offset += 64 * MemoryRegion::page_size()) {
    int node = -1;
    ASSERT_EQ(sys::node_of_address(static_cast<char*>(region.data()) + offset, &node), 0);
    EXPECT_EQ(node, expected) << "offset " << offset;
  }
}

TEST(MemoryRegion, OneByteMapsOnePage) {
  const MemoryRegion region = MemoryRegion::allocate(1, {});
  EXPECT_EQ(region.mapped_bytes(), MemoryRegion::page_size());
  EXPECT_EQ(total(region.pages_per_node()), 1u);
  ASSERT_EQ(region.stripes().size(), 1u);
  EXPECT_EQ(region.stripes()[0].node, -1);
  EXPECT_EQ(region.stripes()[0].end, region.mapped_bytes());
}

TEST(MemoryRegion, WritesStayInTheRegion) {
  MemoryRegion region = MemoryRegion::allocate(3 * MiB, options(MemoryPolicy::interleave));
  auto* words = static_cast<std::uint64_t*>(region.data());
  const std::size_t n = region.size() / sizeof(std::uint64_t);
  for (std::size_t i = 0; i < n; ++i) words[i] = i * 0x9E3779B97F4A7C15ULL;
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(words[i], i * 0x9E3779B97F4A7C15ULL);
}

TEST(MemoryRegion, FakeNodesBindToTheirRealNode) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  const Topology& t = topology();
  for (int node = 0; node < 4; ++node) {
    const MemoryRegion region = MemoryRegion::allocate(MiB, options(MemoryPolicy::bind, {node}));
    const std::vector<std::uint64_t> counts = region.pages_per_node();
    const std::size_t os_node = static_cast<std::size_t>(t.node(static_cast<std::size_t>(node)).os_node);
    ASSERT_GT(counts.size(), os_node);
    EXPECT_EQ(counts[os_node], pages_of(region)) << "fake node " << node;
  }
}

TEST(MemoryRegion, PartitionStripesAreContiguousAlignedAndOnTheirNodes) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  const Topology& t = topology();
  for (bool huge : {false, true}) {
    const std::vector<int> nodes{3, 1, 0, 2};
    const MemoryRegion region = MemoryRegion::allocate(9 * MiB, options(MemoryPolicy::partition, nodes, huge));
    const std::size_t unit = huge ? 2 * MiB : MemoryRegion::page_size();
    const auto& stripes = region.stripes();
    ASSERT_EQ(stripes.size(), nodes.size());
    std::size_t expected_begin = 0;
    std::size_t smallest = SIZE_MAX, largest = 0;
    for (std::size_t k = 0; k < stripes.size(); ++k) {
      EXPECT_EQ(stripes[k].node, nodes[k]);
      EXPECT_EQ(stripes[k].begin, expected_begin);
      EXPECT_EQ(stripes[k].begin % unit, 0u);
      EXPECT_GT(stripes[k].end, stripes[k].begin);
      expected_begin = stripes[k].end;
      smallest = std::min(smallest, stripes[k].end - stripes[k].begin);
      largest = std::max(largest, stripes[k].end - stripes[k].begin);
      const std::vector<std::uint64_t> counts = region.pages_per_node(stripes[k].begin, stripes[k].end);
      const std::size_t os_node = static_cast<std::size_t>(t.node(static_cast<std::size_t>(nodes[k])).os_node);
      ASSERT_GT(counts.size(), os_node);
      EXPECT_EQ(counts[os_node], (stripes[k].end - stripes[k].begin) / MemoryRegion::page_size());
    }
    EXPECT_EQ(expected_begin, region.mapped_bytes());
    EXPECT_LE(largest - smallest, unit) << "stripes differ by at most one unit";
  }
}

TEST(MemoryRegion, PartitionOverMoreNodesThanUnitsLeavesEmptyStripes) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  const MemoryRegion region = MemoryRegion::allocate(1, options(MemoryPolicy::partition));
  ASSERT_EQ(region.stripes().size(), 4u);
  std::size_t covered = 0;
  for (const auto& stripe : region.stripes()) covered += stripe.end - stripe.begin;
  EXPECT_EQ(covered, region.mapped_bytes());
  EXPECT_EQ(total(region.pages_per_node()), 1u);
}

TEST(MemoryRegion, PagesPerNodeOfASubrangeWidensToWholePages) {
  const MemoryRegion region = MemoryRegion::allocate(MiB, {});
  const std::size_t page = MemoryRegion::page_size();
  EXPECT_EQ(total(region.pages_per_node(1, page + 1)), 2u);
  EXPECT_EQ(total(region.pages_per_node(page, page)), 0u);
  try {
    region.pages_per_node(0, region.mapped_bytes() + 1);
    ADD_FAILURE() << "range past the end accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::out_of_range);
  }
  EXPECT_THROW(region.pages_per_node(2, 1), Error);
}

TEST(MemoryRegion, BadNodesAreInvalidArguments) {
  const std::size_t n = topology().node_count();
  const std::string missing = "node " + std::to_string(n) + " does not exist";
  expect_error(MiB, options(MemoryPolicy::bind, {static_cast<int>(n)}), ErrorCode::invalid_argument, missing);
  expect_error(MiB, options(MemoryPolicy::bind, {-1}), ErrorCode::invalid_argument, "node -1 does not exist");
  expect_error(MiB, options(MemoryPolicy::bind, {}), ErrorCode::invalid_argument, "needs a node");
  expect_error(MiB, options(MemoryPolicy::interleave, {0, static_cast<int>(n)}), ErrorCode::invalid_argument,
               missing);
  expect_error(MiB, options(MemoryPolicy::partition, {static_cast<int>(n), 0}), ErrorCode::invalid_argument,
               missing);
}

TEST(MemoryRegion, BadSizesAreErrors) {
  expect_error(0, {}, ErrorCode::invalid_argument, "got 0");
  expect_error(SIZE_MAX, {}, ErrorCode::out_of_memory, "overflows");
  expect_error(SIZE_MAX - MiB, options(MemoryPolicy::os_default, {}, true), ErrorCode::out_of_memory, "overflows");
}

TEST(MemoryRegion, HugeAllocationIsOutOfMemoryAndLeaksNothing) {
  const auto attempt = [] {
    for (const RegionOptions& o : {options(MemoryPolicy::os_default), options(MemoryPolicy::bind, {0}),
                                   options(MemoryPolicy::interleave, {}, true)}) {
      expect_error(std::size_t{1} << 50, o, ErrorCode::out_of_memory, "cannot map 1 PiB: ");
    }
  };
  attempt();  // the first round also sets up the topology and the exception machinery
  const std::uint64_t before = vm_size_kib();
  for (int round = 0; round < 8; ++round) attempt();
  EXPECT_EQ(vm_size_kib(), before);
}

TEST(MemoryRegion, MoveTransfersOwnership) {
  MemoryRegion a = MemoryRegion::allocate(MiB, options(MemoryPolicy::partition));
  void* const data = a.data();
  const std::size_t stripes = a.stripes().size();
  MemoryRegion b(std::move(a));
  EXPECT_EQ(b.data(), data);
  EXPECT_EQ(b.size(), MiB);
  EXPECT_EQ(b.options().policy, MemoryPolicy::partition);
  EXPECT_EQ(b.stripes().size(), stripes);
  EXPECT_EQ(a.data(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(a.mapped_bytes(), 0u);
  EXPECT_TRUE(a.stripes().empty());
  EXPECT_EQ(a.pages_per_node(), std::vector<std::uint64_t>{0});
}

TEST(MemoryRegion, MoveAssignmentUnmapsTheOldRegion) {
  MemoryRegion target = MemoryRegion::allocate(MiB, {});
  void* const old_data = target.data();
  MemoryRegion source = MemoryRegion::allocate(2 * MiB, {});
  void* const new_data = source.data();
  target = std::move(source);
  unsigned char resident = 0;
  EXPECT_EQ(::mincore(old_data, MemoryRegion::page_size(), &resident), -1) << "old mapping still present";
  EXPECT_EQ(errno, ENOMEM);
  EXPECT_EQ(target.data(), new_data);
  EXPECT_EQ(target.size(), 2 * MiB);
  EXPECT_EQ(source.data(), nullptr);  // NOLINT(bugprone-use-after-move)

  MemoryRegion& alias = target;
  target = std::move(alias);
  EXPECT_EQ(target.data(), new_data) << "self-move keeps the region";
}

TEST(MemoryRegion, DefaultConstructedIsEmpty) {
  const MemoryRegion region;
  EXPECT_EQ(region.data(), nullptr);
  EXPECT_EQ(region.size(), 0u);
  EXPECT_EQ(region.mapped_bytes(), 0u);
}

TEST(MemoryRegion, ConcurrentAllocationsFromPinnedThreads) {
  smartarrays::test::ScopedFakeTopology fake("nodes=4");
  std::vector<std::uint64_t> pages(4, 0);
  std::vector<std::thread> threads;
  for (int node = 0; node < 4; ++node) {
    threads.emplace_back([&pages, node] {
      pin_current_thread_to_node(node);
      const MemoryRegion region = MemoryRegion::allocate(MiB, options(MemoryPolicy::bind, {current_node()}));
      pages[static_cast<std::size_t>(node)] = total(region.pages_per_node());
    });
  }
  for (auto& thread : threads) thread.join();
  for (std::uint64_t p : pages) EXPECT_EQ(p, MiB / MemoryRegion::page_size());
}

}  // namespace
}  // namespace smartarrays::os
