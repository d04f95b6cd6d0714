// Owns the huge-page names, the hugetlb pools read from sysfs, and the kernel's count of the huge-page
// backed bytes of a range (PAGEMAP_SCAN, or /proc/self/smaps on older kernels).
#include "smartarrays/os/huge_pages.hpp"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/util/names.hpp"

namespace smartarrays::os {
namespace {

constexpr util::NameTable<HugePages, 5> huge_page_names{"huge_pages mode",
                                                        {{{HugePages::off, "off"},
                                                          {HugePages::on, "on"},
                                                          {HugePages::automatic, "auto"},
                                                          {HugePages::pages_2m, "2M"},
                                                          {HugePages::pages_1g, "1G"}}}};

// The PAGEMAP_SCAN ABI of linux/fs.h (Linux 6.7); spelled out because older kernel headers lack it.
struct PageRegion {
  std::uint64_t start, end, categories;
};
struct PmScanArg {
  std::uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
      category_anyof_mask, return_mask;
};
constexpr std::uint64_t kPageIsHuge = 1U << 6;
constexpr unsigned long kPagemapScan = _IOWR('f', 16, PmScanArg);

std::uint64_t read_number(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::uint64_t value = 0;
  return in >> value ? value : 0;
}

// Huge-page bytes by PAGEMAP_SCAN; false when the kernel does not offer the ioctl.
bool scan_pagemap(std::uintptr_t begin, std::uintptr_t end, std::uint64_t& out) {
  const int fd = ::open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  std::array<PageRegion, 64> regions{};
  std::uint64_t total = 0;
  bool supported = true;
  for (std::uintptr_t at = begin; at < end && supported;) {
    PmScanArg arg{};
    arg.size = sizeof arg;
    arg.start = at;
    arg.end = end;
    arg.vec = reinterpret_cast<std::uintptr_t>(regions.data());
    arg.vec_len = regions.size();
    arg.category_mask = kPageIsHuge;
    arg.return_mask = kPageIsHuge;
    const int filled = ::ioctl(fd, kPagemapScan, &arg);
    if (filled < 0) {
      supported = false;
      break;
    }
    for (int i = 0; i < filled; ++i) total += regions[static_cast<std::size_t>(i)].end - regions[static_cast<std::size_t>(i)].start;
    at = arg.walk_end > at ? static_cast<std::uintptr_t>(arg.walk_end) : end;
  }
  ::close(fd);
  out = total;
  return supported;
}

// Huge-page bytes from /proc/self/smaps: each overlapping mapping's AnonHugePages + Private_Hugetlb,
// capped at its overlap (exact when the range is one mapping, an upper bound when mappings merged).
std::uint64_t scan_smaps(std::uintptr_t begin, std::uintptr_t end) {
  std::ifstream in("/proc/self/smaps");
  if (!in) throw_error(ErrorCode::os_error, std::string("cannot read /proc/self/smaps: ") + std::strerror(errno));
  std::uint64_t total = 0, overlap = 0, huge = 0;
  const auto flush = [&] { total += std::min(huge, overlap); huge = 0; };
  for (std::string line; std::getline(in, line);) {
    std::uintptr_t lo = 0, hi = 0;
    char dash = 0;
    std::istringstream fields(line);
    if (line.find(':') == std::string::npos || line.find(':') > line.find(' ')) {
      if (fields >> std::hex >> lo >> dash >> hi && dash == '-') {
        flush();
        overlap = std::max(begin, lo) < std::min(end, hi) ? std::min(end, hi) - std::max(begin, lo) : 0;
      }
      continue;
    }
    std::string key;
    std::uint64_t kib = 0;
    if (fields >> key >> kib && (key == "AnonHugePages:" || key == "Private_Hugetlb:")) huge += kib * 1024;
  }
  flush();
  return total;
}

}  // namespace

const char* to_string(HugePages mode) noexcept { return huge_page_names.c_name(mode); }

HugePages parse_huge_pages(std::string_view name) { return huge_page_names.parse(name); }

std::vector<HugetlbPool> read_hugetlb_pools() {
  std::vector<HugetlbPool> pools;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/sys/kernel/mm/hugepages", error)) {
    const std::string name = entry.path().filename().string();
    std::uint64_t kib = 0;
    if (std::sscanf(name.c_str(), "hugepages-%lukB", &kib) != 1) continue;
    pools.push_back({kib * 1024, read_number(entry.path() / "nr_hugepages"), read_number(entry.path() / "free_hugepages")});
  }
  std::sort(pools.begin(), pools.end(),
            [](const HugetlbPool& a, const HugetlbPool& b) { return a.page_bytes < b.page_bytes; });
  return pools;
}

std::uint64_t huge_page_bytes(const void* data, std::size_t bytes) {
  if (data == nullptr || bytes == 0) return 0;
  const auto begin = reinterpret_cast<std::uintptr_t>(data);
  const std::uintptr_t end = begin + bytes;
  std::uint64_t total = 0;
  if (scan_pagemap(begin, end, total)) return total;
  return scan_smaps(begin, end);
}

}  // namespace smartarrays::os
