// Owns allocating memory regions: mmap (hugetlb pages when asked), THP advice, the NUMA policy
// applied before first touch, and pre-faulting, with every error path unmapping what it mapped; and borrowing views of memory
// another owner mapped.
#include "smartarrays/os/memory_region.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include "os/syscalls.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/huge_pages.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/util/byte_size.hpp"

namespace smartarrays::os {
namespace {

using util::format_bytes;

// The x86-64 transparent huge page; THP only backs ranges aligned to it.
constexpr std::size_t kHugePageSize = std::size_t{2} << 20;
constexpr std::size_t kGigaPageSize = std::size_t{1} << 30;  // MAP_HUGE_SHIFT encodes log2 of the size
constexpr int kNoAdvice = -1;

// How a mode maps a region of some size: the start's alignment (also the stripe unit), the size's
// rounding, the THP advice, and the extra mmap flags of hugetlb pages.
struct PageShape {
  std::size_t align;
  std::size_t round;
  int advice;
  int map_flags;
};

PageShape page_shape(HugePages mode, std::size_t bytes) {
  const std::size_t page = MemoryRegion::page_size();
  switch (mode) {
    case HugePages::off:
      return {page, page, MADV_NOHUGEPAGE, 0};
    case HugePages::on:
      return {kHugePageSize, kHugePageSize, MADV_HUGEPAGE, 0};
    case HugePages::automatic:
      // Like numpy: large regions start on a huge page and ask for THP; the tail past the last
      // whole huge page stays in base pages rather than rounding the size up.
      if (bytes >= auto_huge_page_threshold) return {kHugePageSize, page, MADV_HUGEPAGE, 0};
      return {page, page, kNoAdvice, 0};
    case HugePages::pages_2m:
      return {kHugePageSize, kHugePageSize, kNoAdvice, MAP_HUGETLB | (21 << MAP_HUGE_SHIFT)};
    case HugePages::pages_1g:
      return {kGigaPageSize, kGigaPageSize, kNoAdvice, MAP_HUGETLB | (30 << MAP_HUGE_SHIFT)};
  }
  throw_error(ErrorCode::invalid_argument, "huge_pages mode " + std::to_string(static_cast<int>(mode)) +
                                               " is not a mode (expected 0..4: off, on, auto, 2M, 1G)");
}

// The error of a hugetlb mapping the kernel refused, naming the pool and how to fill it.
[[noreturn]] void fail_hugetlb(int err, std::size_t bytes, std::size_t page_bytes, const std::string& step) {
  const std::string pool_dir = "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page_bytes >> 10) + "kB";
  for (const HugetlbPool& pool : read_hugetlb_pools()) {
    if (pool.page_bytes != page_bytes) continue;
    throw_error(ErrorCode::out_of_memory,
                "cannot " + step + " " + format_bytes(bytes) + " in " + format_bytes(page_bytes) +
                    " hugetlb pages: the pool has " + std::to_string(pool.free_pages) + " free of " +
                    std::to_string(pool.total_pages) + " pages and needs " + std::to_string(bytes / page_bytes) +
                    " (raise " + pool_dir + "/nr_hugepages) (" + std::strerror(err) + ")");
  }
  throw_error(ErrorCode::unsupported, "cannot " + step + " " + format_bytes(bytes) + " in " + format_bytes(page_bytes) +
                                          " hugetlb pages: this kernel has no such pool (" + pool_dir +
                                          " is missing) (" + std::strerror(err) + ")");
}

[[noreturn]] void fail_errno(int err, const std::string& what) {
  throw_error(err == ENOMEM ? ErrorCode::out_of_memory : ErrorCode::os_error, what + ": " + std::strerror(err));
}

// Unmaps on scope exit unless released.
class Mapping {
 public:
  Mapping(void* base, std::size_t bytes) noexcept : base_(base), bytes_(bytes) {}
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (base_ != nullptr) ::munmap(base_, bytes_);
  }
  char* base() const noexcept { return static_cast<char*>(base_); }
  void* release() noexcept { return std::exchange(base_, nullptr); }

 private:
  void* base_;
  std::size_t bytes_;
};

// Maps bytes starting at a multiple of the shape's alignment (hugetlb mappings are aligned by the kernel).
Mapping map_aligned(std::size_t bytes, const PageShape& shape) {
  const std::size_t alignment = shape.align;
  const bool hugetlb = shape.map_flags != 0;
  const std::size_t slack = alignment > MemoryRegion::page_size() && !hugetlb ? alignment : 0;
  if (bytes > SIZE_MAX - slack) {
    throw_error(ErrorCode::out_of_memory, "cannot map " + format_bytes(bytes) + ": the size overflows");
  }
  void* raw = ::mmap(nullptr, bytes + slack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | shape.map_flags, -1, 0);
  if (raw == MAP_FAILED && hugetlb) fail_hugetlb(errno, bytes, alignment, "map");
  if (raw == MAP_FAILED) fail_errno(errno, "cannot map " + format_bytes(bytes));
  const auto start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + alignment - 1) / alignment * alignment;
  const std::size_t head = aligned - start;
  if (head > 0) ::munmap(raw, head);
  if (slack - head > 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), slack - head);
  return Mapping(reinterpret_cast<void*>(aligned), bytes);
}

// The logical nodes the policy places pages on, validated before anything is mapped.
std::vector<int> policy_nodes(const RegionOptions& options, const Topology& topo) {
  if (options.policy == MemoryPolicy::os_default) return {};
  if (options.policy == MemoryPolicy::bind && options.nodes.empty()) {
    throw_error(ErrorCode::invalid_argument, "the bind policy needs a node (RegionOptions::nodes is empty)");
  }
  std::vector<int> nodes = options.nodes.empty() ? topo.memory_nodes() : options.nodes;
  for (int node : nodes) topo.check_memory_node(node);
  if (options.policy == MemoryPolicy::bind) nodes.resize(1);
  return nodes;
}

// Partition stripes split the region's units (pages or huge pages, the last one possibly partial)
// as evenly as possible.
std::vector<MemoryRegion::Stripe> plan_stripes(const RegionOptions& options, const std::vector<int>& nodes,
                                               std::size_t mapped, std::size_t unit) {
  if (options.policy != MemoryPolicy::partition) return {{-1, 0, mapped}};
  const std::size_t units = (mapped + unit - 1) / unit;
  const std::size_t count = nodes.size();
  std::vector<MemoryRegion::Stripe> stripes;
  for (std::size_t k = 0; k < count; ++k) {
    stripes.push_back({nodes[k], std::min(mapped, units * k / count * unit), std::min(mapped, units * (k + 1) / count * unit)});
  }
  return stripes;
}

void bind_range(char* base, std::size_t bytes, int mode, const std::vector<int>& nodes, const Topology& topo) {
  sys::NodeMask mask;
  std::string kernel_nodes;
  for (int node : nodes) {
    const int os_node = topo.node(static_cast<std::size_t>(node)).os_node;
    mask.add(os_node);
    if (!kernel_nodes.empty()) kernel_nodes += ',';
    kernel_nodes += std::to_string(os_node);
  }
  // No pages exist yet, so MPOL_MF_STRICT costs nothing and catches a policy the kernel bent.
  if (sys::mbind(base, bytes, mode, mask, MPOL_MF_STRICT) != 0) {
    fail_errno(errno, std::string("mbind(") + (mode == MPOL_BIND ? "MPOL_BIND" : "MPOL_INTERLEAVE") +
                          ", kernel nodes " + kernel_nodes + ") of " + format_bytes(bytes) + " refused");
  }
}

void populate(char* base, std::size_t bytes, const PageShape& shape) {
  if (::madvise(base, bytes, MADV_POPULATE_WRITE) == 0) return;
  if (errno != EINVAL && shape.map_flags != 0) fail_hugetlb(errno, bytes, shape.align, "pre-fault");
  if (errno != EINVAL) fail_errno(errno, "cannot pre-fault " + format_bytes(bytes));
  // Kernels before 5.14 lack MADV_POPULATE_WRITE; writing the zero a fresh page already holds
  // faults it in under the range's policy.
  const std::size_t page = MemoryRegion::page_size();
  volatile char* bytes_view = base;
  for (std::size_t offset = 0; offset < bytes; offset += page) bytes_view[offset] = 0;
}

void unmap(void* data, std::size_t mapped) noexcept {
  if (data != nullptr) ::munmap(data, mapped);
}

}  // namespace

std::size_t MemoryRegion::page_size() noexcept {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

MemoryRegion MemoryRegion::allocate(std::size_t bytes, const RegionOptions& options) {
  MemoryRegion region = reserve(bytes, options);
  region.prefault(0, region.mapped_);
  return region;
}

void MemoryRegion::prefault(std::size_t begin, std::size_t end) {
  if (owner_ != nullptr || begin > end || end > mapped_) {
    throw_error(ErrorCode::out_of_range, "cannot pre-fault bytes [" + std::to_string(begin) + ", " + std::to_string(end) +
                                             ") of a " + (owner_ != nullptr ? "borrowed " : "") + "region of " +
                                             std::to_string(mapped_) + " mapped bytes");
  }
  if (begin == end) return;
  const PageShape shape = page_shape(options_.huge_pages, size_);
  // hugetlb pages fault in whole; a base-page or THP range is widened to base pages.
  const std::size_t unit = shape.map_flags != 0 ? shape.align : page_size();
  const std::size_t first = begin / unit * unit;
  const std::size_t last = std::min(mapped_, (end + unit - 1) / unit * unit);
  populate(static_cast<char*>(data_) + first, last - first, shape);
}

MemoryRegion MemoryRegion::reserve(std::size_t bytes, const RegionOptions& options) {
  if (bytes == 0) throw_error(ErrorCode::invalid_argument, "a memory region needs at least 1 byte, got 0");
  const PageShape shape = page_shape(options.huge_pages, bytes);
  if (bytes > SIZE_MAX - (shape.round - 1)) {
    throw_error(ErrorCode::out_of_memory, "cannot map " + std::to_string(bytes) + " bytes: the size overflows");
  }
  const std::size_t mapped = (bytes + shape.round - 1) / shape.round * shape.round;
  const Topology& topo = topology();
  const std::vector<int> nodes = policy_nodes(options, topo);
  std::vector<Stripe> stripes = plan_stripes(options, nodes, mapped, shape.align);

  Mapping mapping = map_aligned(mapped, shape);
  // THP advice is a preference: a kernel built without THP refuses it, and base pages still work.
  if (shape.advice != kNoAdvice) ::madvise(mapping.base(), mapped, shape.advice);
  switch (options.policy) {
    case MemoryPolicy::os_default:
      break;
    case MemoryPolicy::bind:
      bind_range(mapping.base(), mapped, MPOL_BIND, nodes, topo);
      break;
    case MemoryPolicy::interleave:
      bind_range(mapping.base(), mapped, MPOL_INTERLEAVE, nodes, topo);
      break;
    case MemoryPolicy::partition:
      for (const Stripe& stripe : stripes) {
        if (stripe.end > stripe.begin) {
          bind_range(mapping.base() + stripe.begin, stripe.end - stripe.begin, MPOL_BIND, {stripe.node}, topo);
        }
      }
      break;
  }

  MemoryRegion region;
  region.size_ = bytes;
  region.mapped_ = mapped;
  region.options_ = options;
  region.stripes_ = std::move(stripes);
  region.data_ = mapping.release();
  return region;
}

std::uint64_t MemoryRegion::huge_page_bytes() const { return os::huge_page_bytes(data_, mapped_); }

MemoryRegion MemoryRegion::borrow(const void* data, std::size_t bytes, std::shared_ptr<const void> owner) {
  if (bytes == 0) throw_error(ErrorCode::invalid_argument, "a borrowed memory region needs at least 1 byte, got 0");
  if (data == nullptr || owner == nullptr) {
    throw_error(ErrorCode::invalid_argument, "a borrowed memory region needs memory and an owner keeping it mapped");
  }
  MemoryRegion region;
  // Never written through: writable() is false, and SmartArray refuses writes to such regions.
  region.data_ = const_cast<void*>(data);
  region.size_ = bytes;
  region.mapped_ = bytes;
  region.stripes_ = {{-1, 0, bytes}};
  region.owner_ = std::move(owner);
  return region;
}

MemoryRegion::MemoryRegion(MemoryRegion&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)),
      mapped_(std::exchange(other.mapped_, 0)),
      options_(std::exchange(other.options_, {})),
      stripes_(std::exchange(other.stripes_, {})),
      owner_(std::move(other.owner_)) {}

MemoryRegion& MemoryRegion::operator=(MemoryRegion&& other) noexcept {
  if (this != &other) {
    if (owner_ == nullptr) unmap(data_, mapped_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
    options_ = std::exchange(other.options_, {});
    stripes_ = std::exchange(other.stripes_, {});
    owner_ = std::move(other.owner_);
  }
  return *this;
}

MemoryRegion::~MemoryRegion() {
  if (owner_ == nullptr) unmap(data_, mapped_);
}

}  // namespace smartarrays::os
