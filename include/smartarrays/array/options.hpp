// Owns how an array is asked for: the NUMA placements of DESIGN.md §4 and the options that
// SmartArray::allocate / from_values take.
#pragma once

#include <string_view>
#include <vector>

#include "smartarrays/export.hpp"

namespace smartarrays {

/// Where an array's pages live (DESIGN.md §4); the numeric values are the C ABI's sa_placement.
enum class Placement : int {
  os_default = 0,   ///< plain mmap, pages land where first touched (pre-faulted by the allocating thread)
  single_node = 1,  ///< every page bound to ArrayOptions::node
  interleaved = 2,  ///< pages round-robin over the node set
  replicated = 3,   ///< one full copy per node of the set, each bound to its node; reads go local
  partitioned = 4,  ///< one copy cut into contiguous stripes, stripe k bound to the k-th node of the set
};

/// The canonical name of a placement: "os_default", "single_node", "interleaved", "replicated", "partitioned".
SMARTARRAYS_API const char* to_string(Placement placement) noexcept;

/// The placement spelled name (a canonical name); throws Error(invalid_argument) listing the valid names.
SMARTARRAYS_API Placement parse_placement(std::string_view name);

/// How to allocate a SmartArray.
struct ArrayOptions {
  Placement placement = Placement::os_default;  ///< where the pages go
  int node = 0;                                 ///< the logical node of Placement::single_node (ignored otherwise)
  /// Logical node set of interleaved / replicated / partitioned (empty = every node with memory);
  /// must be empty for os_default and single_node so that a misplaced set is never silently ignored.
  std::vector<int> nodes;
  unsigned bits = 0;        ///< bits per value, 1..64; 0 = the fewest that hold the data (from_values only)
  bool huge_pages = false;  ///< ask for transparent huge pages (MADV_HUGEPAGE)
};

}  // namespace smartarrays
