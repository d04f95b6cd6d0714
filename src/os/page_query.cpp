// Owns the pages-per-node report of a region: move_pages(2) in query mode, which reports where
// each page really is, whatever policy asked for.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include "os/syscalls.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_region.hpp"

namespace smartarrays::os {
namespace {

// Pages asked per system call: bounds the pointer and status arrays for huge regions.
constexpr std::size_t kBatchPages = 4096;

}  // namespace

std::vector<std::uint64_t> MemoryRegion::pages_per_node() const { return pages_per_node(0, mapped_); }

std::vector<std::uint64_t> MemoryRegion::pages_per_node(std::size_t begin, std::size_t end) const {
  if (begin > end || end > mapped_) {
    throw_error(ErrorCode::out_of_range, "byte range [" + std::to_string(begin) + ", " + std::to_string(end) +
                                             ") is outside the region's " + std::to_string(mapped_) +
                                             " mapped bytes");
  }
  const std::size_t page = page_size();
  const std::size_t first = begin / page;
  const std::size_t last = (end + page - 1) / page;
  std::vector<std::uint64_t> counts(1, 0);
  std::vector<void*> pages(std::min(kBatchPages, last - first));
  std::vector<int> status(pages.size());
  char* const base = static_cast<char*>(data_);
  for (std::size_t batch = first; batch < last; batch += kBatchPages) {
    const std::size_t n = std::min(kBatchPages, last - batch);
    for (std::size_t i = 0; i < n; ++i) pages[i] = base + (batch + i) * page;
    if (sys::move_pages_query(n, pages.data(), status.data()) != 0) {
      throw_error(ErrorCode::os_error, std::string("move_pages query failed: ") + std::strerror(errno));
    }
    for (std::size_t i = 0; i < n; ++i) {
      const int node = status[i];
      if (node < 0) {
        throw_error(ErrorCode::os_error, "move_pages reports page " + std::to_string(batch + i) +
                                             " of the region as " + std::strerror(-node) + " (" +
                                             std::to_string(node) + ")");
      }
      if (counts.size() <= static_cast<std::size_t>(node)) counts.resize(static_cast<std::size_t>(node) + 1, 0);
      ++counts[static_cast<std::size_t>(node)];
    }
  }
  return counts;
}

}  // namespace smartarrays::os
