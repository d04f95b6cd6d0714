// Owns the C ABI's answer to "where are the pages": a kernel's per-node page counts copied into the
// caller's array, shared by arrays and placed buffers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "capi/guard.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::capi {

/// counts[k] = pages[k] for k < max_nodes (0 past pages' end); throws Error(invalid_argument) for
/// NULL counts with max_nodes > 0 and Error(out_of_range) when a page sits on a node >= max_nodes.
inline void copy_page_counts(const std::vector<std::uint64_t>& pages, std::uint64_t* counts, std::uint32_t max_nodes) {
  if (max_nodes > 0) require(counts, "counts (with max_nodes > 0)");
  for (std::size_t node = max_nodes; node < pages.size(); ++node) {
    if (pages[node] != 0) {
      throw_error(ErrorCode::out_of_range, std::to_string(pages[node]) + " pages on kernel node " + std::to_string(node) +
                                               " but counts holds only " + std::to_string(max_nodes) + " nodes");
    }
  }
  for (std::size_t node = 0; node < max_nodes; ++node) counts[node] = node < pages.size() ? pages[node] : 0;
}

}  // namespace smartarrays::capi
