// Owns the vertex-range parts of a graph's reverse CSR (pull direction) with their out-offsets: what
// one worker of a distributed PageRank holds. A part is cut from a graph in memory, or read from a GAP .sg file
// touching only its own byte ranges, so a file larger than one worker is never loaded whole.
#pragma once

#include <cstdint>
#include <string>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/formats.hpp"  // SgHeader, read_sg_header: the header a distributed run reads first
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph {

/// Vertices [first, first + count) of a graph of `vertices` vertices, for pulling; count is
/// rbegin.length() - 1 (and begin.length() - 1).
struct PullPart {
  std::uint64_t vertices = 0;  ///< n of the whole graph (in-neighbour ids are below it)
  std::uint64_t first = 0;     ///< the part's first vertex
  SmartArray rbegin;           ///< count + 1 offsets into redge, from 0
  SmartArray redge;            ///< the in-neighbour ids (whole-graph ids) of the part's vertices, in order
  /// count + 1 out-offsets of the part's vertices, from 0 (the graph's begin over the range, less
  /// begin[first]): out-degree k is begin[k+1] - begin[k], derived as the whole graph derives it.
  SmartArray begin;
  /// The number of vertices of the part.
  std::uint64_t count() const noexcept { return rbegin.length() > 0 ? rbegin.length() - 1 : 0; }
};

/// The part [first, first + count) of graph, its arrays in the graph's widths, built on pool.
/// Throws Error(invalid_argument) when the range is not within 0..n.
SMARTARRAYS_API PullPart pull_part(const CsrGraph& graph, std::uint64_t first, std::uint64_t count,
                                   runtime::ThreadPool& pool = runtime::default_pool());

/// The part [first, first + count) of the .sg file at path, reading only its in-offsets, its
/// in-neighbour ids and its out-offsets (the out-edges of an undirected file), each checked: offsets
/// never decreasing and within m, ids below n. Ids and offsets take the fewest bits that hold them.
/// Throws Error(invalid_argument) "PATH: byte offset N: ..." for a malformed header (in
/// read_sg_header's words) or range, Error(os_error) when the file cannot be read, Error(cancelled)
/// on an interrupt.
SMARTARRAYS_API PullPart read_sg_pull_part(const std::string& path, std::uint64_t first, std::uint64_t count);

}  // namespace smartarrays::graph
