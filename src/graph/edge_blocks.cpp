// Owns the storage of the parallel text readers' edge blocks (see edge_blocks.hpp): widening a block
// to 64-bit ids, freeing it, counting the edges of all blocks. Their CSR build is build.cpp's.
#include "graph/edge_blocks.hpp"

#include <algorithm>

#include "graph/csr_parts.hpp"

namespace smartarrays::graph::detail {

void EdgeBlock::add_wide(std::uint64_t src, std::uint64_t dst) {
  if (wide_.empty()) {
    wide_.reserve(std::max(narrow_.capacity(), narrow_.size() + 1));
    for (const NarrowEdge& e : narrow_) wide_.push_back({e.src, e.dst});
    detail::release(narrow_);
  }
  wide_.push_back({src, dst});
}

void EdgeBlock::release() noexcept {
  detail::release(narrow_);
  detail::release(wide_);
}

std::uint64_t EdgeBlocks::edges() const noexcept {
  std::uint64_t total = 0;
  for (const EdgeBlock& block : blocks) total += block.size();
  return total;
}

}  // namespace smartarrays::graph::detail
