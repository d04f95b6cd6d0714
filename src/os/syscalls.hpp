// Owns the raw NUMA system calls of the os layer: glibc has no wrappers for them and libnuma is
// deliberately not a dependency (static guest binaries, one less package to install).
#pragma once

#include <linux/mempolicy.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <climits>
#include <cstddef>
#include <vector>

namespace smartarrays::os::sys {

/// A kernel node mask (array of unsigned long bits), grown to hold the highest node added.
class NodeMask {
 public:
  /// Sets the bit of kernel node `node` (>= 0).
  void add(int node) {
    const std::size_t word = static_cast<std::size_t>(node) / kBits;
    if (words_.size() <= word) words_.resize(word + 1, 0);
    words_[word] |= 1UL << (static_cast<std::size_t>(node) % kBits);
  }
  /// The mask words as the kernel reads them.
  const unsigned long* data() const noexcept { return words_.data(); }
  /// The maxnode argument: the kernel ignores the last bit it is told about, hence the + 1.
  unsigned long max_node() const noexcept { return words_.size() * kBits + 1; }

 private:
  static constexpr std::size_t kBits = sizeof(unsigned long) * CHAR_BIT;
  std::vector<unsigned long> words_;
};

/// mbind(2): sets the memory policy of [addr, addr+len); returns 0 or -1 with errno.
inline long mbind(void* addr, std::size_t len, int mode, const NodeMask& mask, unsigned flags) noexcept {
  return ::syscall(SYS_mbind, addr, len, mode, mask.data(), mask.max_node(), flags);
}

/// move_pages(2) in query mode (nodes = NULL): status[i] = node of pages[i] or -errno; returns 0 or -1.
inline long move_pages_query(unsigned long count, void** pages, int* status) noexcept {
  return ::syscall(SYS_move_pages, 0, count, pages, nullptr, status, 0);
}

/// get_mempolicy(2) with MPOL_F_NODE | MPOL_F_ADDR: the kernel node holding the page at addr.
inline long node_of_address(const void* addr, int* node) noexcept {
  return ::syscall(SYS_get_mempolicy, node, nullptr, 0UL, addr, MPOL_F_NODE | MPOL_F_ADDR);
}

}  // namespace smartarrays::os::sys
