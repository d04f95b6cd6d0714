// Owns mmap-backed memory regions with a NUMA policy applied before first touch, pre-faulted at
// allocation (or reserved, then faulted in by ranges as they fill), regions borrowed from memory
// another owner mapped (e.g. a file mapping shared by many arrays), and the pages-per-node query
// (move_pages in query mode).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/os/huge_pages.hpp"

namespace smartarrays::os {

/// Where the pages of a region go (docs/topology-and-placement.md).
enum class MemoryPolicy {
  os_default,   ///< no policy: first touch decides
  bind,         ///< every page on nodes[0] (MPOL_BIND)
  interleave,   ///< pages round-robin over nodes (MPOL_INTERLEAVE); empty nodes = all memory nodes
  partition,    ///< contiguous page-aligned stripes, stripe k bound to nodes[k]; empty = all memory nodes
};

/// How to allocate a region. Node ids are logical (see Topology); fake nodes map to their os_node.
struct RegionOptions {
  MemoryPolicy policy = MemoryPolicy::os_default;
  std::vector<int> nodes;   ///< logical nodes the policy uses
  HugePages huge_pages = HugePages::automatic;  ///< transparent huge pages by advice, or hugetlb pages (huge_pages.hpp)
};

/// A pre-faulted, zero-filled, page-aligned anonymous mapping, unmapped on destruction; or a
/// borrowed, read-only view of memory kept alive by a shared owner. Move-only.
class SMARTARRAYS_API MemoryRegion {
 public:
  MemoryRegion() = default;
  /// Maps bytes (> 0), applies the policy, pre-faults every page; throws Error, leaks nothing.
  static MemoryRegion allocate(std::size_t bytes, const RegionOptions& options);
  /// Maps bytes (> 0) and applies the policy as allocate() does, but faults no page in: each comes
  /// when first touched (placed by the policy) or by prefault(). For memory filled as data arrives
  /// (a received stream), so a size announced by a peer is address space until the bytes come.
  static MemoryRegion reserve(std::size_t bytes, const RegionOptions& options);
  /// Faults in bytes [begin, end) of an allocated or reserved region now, widened to whole pages
  /// (huge pages for a hugetlb region), as allocate() does for all of it. Throws
  /// Error(out_of_range) unless begin <= end <= mapped_bytes() and the region is its own (not
  /// borrowed), Error(out_of_memory) when the kernel refuses the pages.
  void prefault(std::size_t begin, std::size_t end);
  /// A read-only view of bytes (> 0) at data, which owner keeps mapped for as long as any view
  /// holds it; the view never unmaps data itself and applies no policy (pages stay where they are).
  static MemoryRegion borrow(const void* data, std::size_t bytes, std::shared_ptr<const void> owner);

  MemoryRegion(MemoryRegion&& other) noexcept;
  MemoryRegion& operator=(MemoryRegion&& other) noexcept;
  MemoryRegion(const MemoryRegion&) = delete;
  MemoryRegion& operator=(const MemoryRegion&) = delete;
  ~MemoryRegion();

  /// Start of the region (page aligned), nullptr when empty.
  void* data() const noexcept { return data_; }
  /// Bytes requested.
  std::size_t size() const noexcept { return size_; }
  /// Bytes mapped (size rounded up to the page or huge-page size).
  std::size_t mapped_bytes() const noexcept { return mapped_; }
  /// Bytes of the mapping the kernel backs with huge pages now (os::huge_page_bytes).
  std::uint64_t huge_page_bytes() const;
  /// False for a borrowed region: its pages must not be written.
  bool writable() const noexcept { return owner_ == nullptr; }
  /// The options the region was made with.
  const RegionOptions& options() const noexcept { return options_; }
  /// Pages of the region on each kernel node, index = os node id (move_pages query mode).
  std::vector<std::uint64_t> pages_per_node() const;
  /// Pages of bytes [begin, end) of the region (widened to whole pages) on each kernel node;
  /// throws Error(out_of_range) unless begin <= end <= mapped_bytes().
  std::vector<std::uint64_t> pages_per_node(std::size_t begin, std::size_t end) const;
  /// Logical node of stripe k for a partitioned region, and the stripe's byte range.
  struct Stripe { int node; std::size_t begin; std::size_t end; };
  /// The stripes of a partitioned region (one whole-region stripe otherwise, node -1); byte
  /// offsets from data(), aligned to the page (or huge page), the last one ending at mapped_bytes().
  const std::vector<Stripe>& stripes() const noexcept { return stripes_; }

  /// The base page size of the machine.
  static std::size_t page_size() noexcept;

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t mapped_ = 0;
  RegionOptions options_;
  std::vector<Stripe> stripes_;
  std::shared_ptr<const void> owner_;  // set for borrowed regions, which do not unmap data_
};

}  // namespace smartarrays::os
