// Owns the tests' reading of a pages-per-node count (os::MemoryRegion::pages_per_node,
// SmartArray::pages_per_node): its total over all nodes.
#pragma once

#include <cstdint>
#include <numeric>
#include <vector>

namespace smartarrays::test {

/// The pages of counts over all nodes.
inline std::uint64_t total(const std::vector<std::uint64_t>& counts) {
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

}  // namespace smartarrays::test
