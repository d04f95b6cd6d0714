// Owns placed buffers: plain memory placed like an array (Shoal's shl__malloc), for data the
// program reads and writes itself, such as PageRank scores a caller drives (docs/topology-and-placement.md#placed-buffers).
#pragma once

#include <cstddef>

#include "smartarrays/array/options.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/os/memory_region.hpp"

namespace smartarrays {

/// bytes (> 0) of page-aligned, zero-filled, pre-faulted memory placed as options say: placement
/// os_default, single_node, interleaved or partitioned (partitioned: contiguous page-aligned
/// stripes, one per node) with options' huge pages; bits and write mode do not apply. Throws
/// Error(invalid_argument) for 0 bytes, a replicated placement (a buffer has one copy) or auto
/// options, and the array's errors for bad nodes and failed allocations.
SMARTARRAYS_API os::MemoryRegion allocate_buffer(std::size_t bytes, const ArrayOptions& options);

}  // namespace smartarrays
