// Owns the huge-page vocabulary of memory regions: the modes a region may ask for (transparent huge
// pages by advice, or pages from the kernel's hugetlb pools), their names, the pools as the kernel
// reports them, and how many bytes of a range the kernel really backs with huge pages.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "smartarrays/export.hpp"

namespace smartarrays::os {

/// How a region asks for huge pages; the numeric values are the C ABI's sa_huge_pages.
enum class HugePages : int {
  off = 0,        ///< MADV_NOHUGEPAGE: base pages only
  on = 1,         ///< MADV_HUGEPAGE, mapping aligned and rounded to the 2 MiB transparent huge page
  automatic = 2,  ///< "auto": MADV_HUGEPAGE for regions of auto_huge_page_threshold and up (as numpy does), else the kernel's default
  pages_2m = 3,   ///< "2M": MAP_HUGETLB 2 MiB pages from the kernel's hugetlb pool
  pages_1g = 4,   ///< "1G": MAP_HUGETLB 1 GiB pages from the kernel's hugetlb pool
};

/// Regions at least this large get transparent huge pages under HugePages::automatic (numpy's 4 MiB).
inline constexpr std::size_t auto_huge_page_threshold = std::size_t{4} << 20;

/// The canonical name of a mode: "off", "on", "auto", "2M", "1G".
SMARTARRAYS_API const char* to_string(HugePages mode) noexcept;

/// The mode spelled name (any case); throws Error(invalid_argument) listing the valid names.
SMARTARRAYS_API HugePages parse_huge_pages(std::string_view name);

/// One hugetlb pool of the kernel (/sys/kernel/mm/hugepages/hugepages-<size>kB).
struct HugetlbPool {
  std::uint64_t page_bytes = 0;   ///< the pool's page size
  std::uint64_t total_pages = 0;  ///< nr_hugepages: pages the pool holds
  std::uint64_t free_pages = 0;   ///< free_hugepages: pages not yet given out
};

/// The kernel's hugetlb pools, smallest page first; empty when the kernel has none (never throws).
SMARTARRAYS_API std::vector<HugetlbPool> read_hugetlb_pools();

/// Bytes of [data, data + bytes) that the kernel maps with huge pages (transparent or hugetlb), read
/// with the PAGEMAP_SCAN ioctl of /proc/self/pagemap; on kernels without it (before 6.7) from the
/// AnonHugePages and Private_Hugetlb lines of /proc/self/smaps, each mapping's count capped at its
/// overlap with the range. Throws Error(os_error) when neither can be read.
SMARTARRAYS_API std::uint64_t huge_page_bytes(const void* data, std::size_t bytes);

}  // namespace smartarrays::os
