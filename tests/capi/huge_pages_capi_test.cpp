// Tests the huge-page modes through the C ABI: sa_options.huge_pages, sa_array_huge_pages,
// sa_array_huge_page_bytes and their errors.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "smartarrays.h"
#include "smartarrays/os/huge_pages.hpp"
#include "support/capi_expect.hpp"

namespace {

using smartarrays::test::expect_failure;

struct Array {
  sa_array* a = nullptr;
  Array() = default;
  Array(const Array&) = delete;
  Array& operator=(const Array&) = delete;
  ~Array() { sa_array_free(a); }
};

sa_options options(int32_t huge_pages) {
  sa_options o;
  sa_options_init(&o);
  o.bits = 64;
  o.huge_pages = huge_pages;
  return o;
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
    const sa_options o = options(mode);
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
  sa_options o = options(5);
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
  const sa_options o = options(SA_HUGE_PAGES_2M);
  const sa_status status = sa_array_alloc(10, &o, &array.a);
  EXPECT_TRUE(status == SA_ENOMEM || status == SA_EUNSUPPORTED) << sa_last_error();
  expect_failure(status, status, "sa_array_alloc", "hugetlb pages");
  EXPECT_EQ(array.a, nullptr);
}

}  // namespace
