// Owns the edges the parallel text readers parse: one block per line-aligned file range, each held
// in 32-bit ids while they fit (8 bytes an edge, not an EdgeList's 16) and widened only when an id
// does not; and the CSR build straight from the blocks (defined in build.cpp, its pipeline: a counting pass, a
// placement pass into the staged neighbour ids, each block freed once placed when the build owns them).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph::detail {

/// One directed edge src -> dst whose ids fit in 32 bits.
struct NarrowEdge {
  std::uint32_t src = 0;  ///< source vertex id
  std::uint32_t dst = 0;  ///< destination vertex id
};

/// The edges of one file range, in file order: narrow until an id needs more than 32 bits, then all wide.
class EdgeBlock {
 public:
  /// Reserves room for `edges` narrow edges (a range's line count bounds its edges).
  void reserve(std::uint64_t edges) { narrow_.reserve(edges); }
  /// Appends src -> dst, widening the block when either id needs more than 32 bits.
  void add(std::uint64_t src, std::uint64_t dst) {
    if (!wide_.empty() || ((src | dst) >> 32) != 0) return add_wide(src, dst);
    narrow_.push_back({static_cast<std::uint32_t>(src), static_cast<std::uint32_t>(dst)});
  }
  /// The edges held.
  std::uint64_t size() const noexcept { return wide_.empty() ? narrow_.size() : wide_.size(); }
  /// f(std::span<const E>) of the block's edges (E = NarrowEdge or Edge); f returns the same type for both.
  template <typename F>
  decltype(auto) visit(F&& f) const {
    if (wide_.empty()) return f(std::span<const NarrowEdge>(narrow_));
    return f(std::span<const Edge>(wide_));
  }
  /// Frees the block's storage.
  void release() noexcept;

 private:
  void add_wide(std::uint64_t src, std::uint64_t dst);

  std::vector<NarrowEdge> narrow_;
  std::vector<Edge> wide_;  // all the block's edges once one id needed it
};

/// The edges of a text file as the parallel readers parse them: blocks in file order, over
/// `vertices` vertices (every id below it).
struct EdgeBlocks {
  std::uint64_t vertices = 0;      ///< vertex count n
  std::vector<EdgeBlock> blocks;   ///< the file ranges' edges, in file order
  bool directed = true;            ///< false: each edge stands for both directions
  /// The edges of all blocks.
  std::uint64_t edges() const noexcept;
};

/// build_csr of the blocks' edges in file order (the same graph build_csr(EdgeList) gives). With
/// consume, each block is freed once placed into the forward CSR.
CsrGraph build_csr(EdgeBlocks& edges, const BuildOptions& options, runtime::ThreadPool& pool, bool consume);

}  // namespace smartarrays::graph::detail
