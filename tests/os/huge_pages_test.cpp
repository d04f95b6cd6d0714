// Tests the huge-page modes of memory regions: their names, the shape each gives a mapping, the
// kernel's count of huge-page backed bytes, the hugetlb pools, and the error of an empty pool.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/os/huge_pages.hpp"
#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/memory_region.hpp"

namespace smartarrays::os {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

MemoryRegion region(std::size_t bytes, HugePages mode) {
  RegionOptions o;
  o.huge_pages = mode;
  return MemoryRegion::allocate(bytes, o);
}

bool thp_available() { return read_machine_facts().thp_enabled != "never"; }

std::uintptr_t address(const MemoryRegion& r) { return reinterpret_cast<std::uintptr_t>(r.data()); }

TEST(HugePagesNames, RoundTripInAnyCase) {
  for (HugePages mode : {HugePages::off, HugePages::on, HugePages::automatic, HugePages::pages_2m, HugePages::pages_1g}) {
    EXPECT_EQ(parse_huge_pages(to_string(mode)), mode);
  }
  EXPECT_EQ(parse_huge_pages("2m"), HugePages::pages_2m);
  EXPECT_EQ(parse_huge_pages("AUTO"), HugePages::automatic);
  EXPECT_STREQ(to_string(HugePages::automatic), "auto");
  EXPECT_STREQ(to_string(static_cast<HugePages>(9)), "invalid");
}

TEST(HugePagesNames, UnknownNameListsTheModes) {
  try {
    parse_huge_pages("yes");
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_EQ(std::string(e.what()), "unknown huge_pages mode 'yes' (expected one of: off, on, auto, 2M, 1G)");
  }
}

TEST(HugePagesRegion, DefaultIsAuto) { EXPECT_EQ(RegionOptions{}.huge_pages, HugePages::automatic); }

TEST(HugePagesRegion, AutoLeavesSmallRegionsInBasePages) {
  const MemoryRegion r = region(auto_huge_page_threshold - 1, HugePages::automatic);
  EXPECT_EQ(r.mapped_bytes(), auto_huge_page_threshold);
  EXPECT_EQ(r.options().huge_pages, HugePages::automatic);
}

TEST(HugePagesRegion, AutoAlignsLargeRegionsWithoutRoundingTheirSize) {
  const std::size_t bytes = 5 * MiB + 123;
  const MemoryRegion r = region(bytes, HugePages::automatic);
  EXPECT_EQ(address(r) % (2 * MiB), 0u);
  EXPECT_EQ(r.mapped_bytes(), (bytes + MemoryRegion::page_size() - 1) / MemoryRegion::page_size() * MemoryRegion::page_size());
  const std::uint64_t huge = r.huge_page_bytes();
  EXPECT_EQ(huge % (2 * MiB), 0u);
  EXPECT_LE(huge, 4 * MiB);  // the tail past the last whole huge page stays in base pages
  if (!thp_available()) {
    EXPECT_EQ(huge, 0u);
  }
}

TEST(HugePagesRegion, OnIsBackedByTransparentHugePages) {
  const MemoryRegion r = region(8 * MiB, HugePages::on);
  EXPECT_EQ(address(r) % (2 * MiB), 0u);
  EXPECT_EQ(r.mapped_bytes(), 8 * MiB);
  const std::uint64_t huge = r.huge_page_bytes();
  EXPECT_EQ(huge % (2 * MiB), 0u);
  EXPECT_LE(huge, 8 * MiB);
  // madvise'd regions compact synchronously (defrag "madvise"), so the kernel gives huge pages.
  if (thp_available()) {
    EXPECT_GT(huge, 0u);
  }
}

TEST(HugePagesRegion, OffIsNeverBackedByHugePages) {
  const MemoryRegion r = region(8 * MiB, HugePages::off);
  EXPECT_EQ(r.huge_page_bytes(), 0u);
}

TEST(HugePagesRegion, NothingOutsideARangeIsCounted) {
  const MemoryRegion r = region(8 * MiB, HugePages::on);
  EXPECT_EQ(huge_page_bytes(nullptr, 0), 0u);
  EXPECT_EQ(huge_page_bytes(r.data(), 0), 0u);
  EXPECT_LE(huge_page_bytes(r.data(), MiB), MiB);
}

TEST(HugePagesRegion, BadModeIsAnInvalidArgument) {
  try {
    region(MiB, static_cast<HugePages>(9));
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("huge_pages mode 9"), std::string::npos) << e.what();
  }
}

TEST(HugetlbPools, AreSortedAndConsistent) {
  const std::vector<HugetlbPool> pools = read_hugetlb_pools();
  for (std::size_t i = 0; i < pools.size(); ++i) {
    EXPECT_GT(pools[i].page_bytes, 0u);
    EXPECT_LE(pools[i].free_pages, pools[i].total_pages);
    if (i > 0) {
      EXPECT_LT(pools[i - 1].page_bytes, pools[i].page_bytes);
    }
  }
  EXPECT_EQ(read_machine_facts().hugetlb_pools.size(), pools.size());
}

// The pool of page_bytes, or a pool of zero pages when the kernel has none.
HugetlbPool pool_of(std::uint64_t page_bytes) {
  for (const HugetlbPool& pool : read_hugetlb_pools()) {
    if (pool.page_bytes == page_bytes) return pool;
  }
  return {page_bytes, 0, 0};
}

class HugetlbMode : public ::testing::TestWithParam<HugePages> {};

// Either the pool has the pages (the region is all huge pages) or the error says how to fill it.
TEST_P(HugetlbMode, ServesFromThePoolOrSaysItIsShort) {
  const std::uint64_t page = GetParam() == HugePages::pages_2m ? 2 * MiB : 1024 * MiB;
  const HugetlbPool pool = pool_of(page);
  if (pool.free_pages >= 1) {
    const MemoryRegion r = region(100, GetParam());
    EXPECT_EQ(r.mapped_bytes(), page);
    EXPECT_EQ(address(r) % page, 0u);
    EXPECT_EQ(r.huge_page_bytes(), page);
    return;
  }
  try {
    region(100, GetParam());
    ADD_FAILURE() << "an empty pool served a page";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(e.code() == ErrorCode::out_of_memory || e.code() == ErrorCode::unsupported) << what;
    EXPECT_NE(what.find("hugetlb pages"), std::string::npos) << what;
    EXPECT_NE(what.find("/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page >> 10) + "kB"), std::string::npos)
        << what;
  }
}

std::string mode_name(const ::testing::TestParamInfo<HugePages>& param) {
  return param.param == HugePages::pages_2m ? "pages_2m" : "pages_1g";
}

INSTANTIATE_TEST_SUITE_P(Pools, HugetlbMode, ::testing::Values(HugePages::pages_2m, HugePages::pages_1g), mode_name);

}  // namespace
}  // namespace smartarrays::os
