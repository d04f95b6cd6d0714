// Owns how an array is asked for: the NUMA placements of docs/topology-and-placement.md and the options that
// SmartArray::allocate / from_values take.
#pragma once

#include <string_view>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/os/huge_pages.hpp"

namespace smartarrays {

/// How an array's pages ask for huge pages (os::HugePages: off, on, auto, 2M, 1G).
using HugePages = os::HugePages;

/// Where an array's pages live (docs/topology-and-placement.md); the numeric values are the C ABI's sa_placement.
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

/// How SmartArray::init (set) reaches the replicas of a replicated array (Shoal's writable replicas).
enum class WriteMode : int {
  write_through = 0,  ///< every set writes every replica (the default)
  primary = 1,        ///< set writes replica 0 and marks its chunk group dirty; build::sync copies dirty groups out
};

/// The canonical name of a write mode: "write_through", "primary".
SMARTARRAYS_API const char* to_string(WriteMode mode) noexcept;

/// The write mode spelled name; throws Error(invalid_argument) listing the valid names.
SMARTARRAYS_API WriteMode parse_write_mode(std::string_view name);

/// How a program will read an array (Shoal's access hints, the paper's "software characteristics").
enum class AccessPattern : int {
  sequential = 0,  ///< scans in index order (streams, prefetchers help)
  random = 1,      ///< reads at unpredictable indices (latency bound when beyond the caches)
  indexed = 2,     ///< read through the loop index of a parallel loop (each worker its own ranges)
};

/// The canonical name of a pattern: "sequential", "random", "indexed".
SMARTARRAYS_API const char* to_string(AccessPattern pattern) noexcept;

/// The pattern spelled name; throws Error(invalid_argument) listing the valid names.
SMARTARRAYS_API AccessPattern parse_access_pattern(std::string_view name);

/// What the program promises about its accesses; the adaptive choice (adapt::resolve) reads them,
/// SmartArray itself does not.
struct AccessHints {
  bool read_only = false;                             ///< never written after it is built (replication allowed)
  AccessPattern pattern = AccessPattern::sequential;  ///< how it is read
  double passes = 1;                                  ///< expected reads per element over the array's life (> 0)
  unsigned threads = 0;                               ///< threads that read it; 0 = the default pool's
};

/// How to allocate a SmartArray.
struct ArrayOptions {
  Placement placement = Placement::os_default;  ///< where the pages go
  int node = 0;                                 ///< the logical node of Placement::single_node (ignored otherwise)
  /// Logical node set of interleaved / replicated / partitioned (empty = every node with memory);
  /// must be empty for os_default and single_node so that a misplaced set is never silently ignored.
  std::vector<int> nodes;
  unsigned bits = 0;  ///< bits per value, 1..64; 0 = the fewest that hold the data (from_values only)
  /// Huge pages: auto (THP for arrays of 4 MiB and up), on, off, or hugetlb 2M / 1G pages.
  HugePages huge_pages = HugePages::automatic;
  /// placement "auto": the adaptive layer (adapt::resolve / adapt::make_array) picks placement, node
  /// and huge pages (it refuses a node set or huge pages other than automatic with it); SmartArray
  /// refuses options with it set.
  bool auto_placement = false;
  /// bits "auto": the adaptive layer picks the width (the fewest bits or the uncompressed 64);
  /// SmartArray refuses options with it set.
  bool auto_bits = false;
  AccessHints hints;  ///< the program's access hints (read by the adaptive layer only)
  /// How set reaches the replicas (write_through, or primary with build::sync; docs/topology-and-placement.md#writable-replicas).
  WriteMode write_mode = WriteMode::write_through;
};

}  // namespace smartarrays
