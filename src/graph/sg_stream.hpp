// Owns the streaming path of GAP .sg files: a one-pass load straight into a layout, and for sources
// built several times a parallel scan that checks a file in one pass over
// file ranges (offsets, ids, sorted lists, and the symmetry or transpose of the edges by a keyed
// multiset hash) holding only the offsets, and the encoding of a scanned file straight into a
// graph's smart arrays, block by block and in parallel, with no 64-bit copy of the ids. A file the
// scan does not pass goes to the general reader (read_gap_sg), which names the problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph::detail {

/// What a scan learned of a valid .sg file whose every neighbour list is ascending.
struct SgScan {
  std::string path;            ///< the file
  std::uint64_t file_bytes = 0;  ///< its size when scanned
  bool directed = true;        ///< its flag
  std::uint64_t vertices = 0;  ///< n
  std::uint64_t edges = 0;     ///< m
  std::vector<std::uint64_t> out_offsets;  ///< the n + 1 out-offsets
  std::vector<std::uint64_t> in_offsets;   ///< the n + 1 in-offsets (directed files only)
  std::uint64_t largest_out_id = 0;  ///< the largest out-neighbour id (0 without edges)
  std::uint64_t largest_in_id = 0;   ///< the largest in-neighbour id (directed files only)
  bool duplicates = false;  ///< some list repeats an id
  bool self_loops = false;  ///< some vertex lists itself
};

/// Scans path in parallel on pool: the scan of a valid file with ascending lists, else none (the
/// file is malformed, or valid but needs sorting: the general reader handles both). Throws
/// Error(os_error) when the file cannot be read, Error(cancelled) on an interrupt.
std::optional<SgScan> scan_sg(const std::string& path, const ReadOptions& options, runtime::ThreadPool& pool);

/// True when building the scanned file with options needs no change to its lists (no duplicate
/// or self-loop that options would drop).
bool streams_as_is(const SgScan& scan, const BuildOptions& options);

/// The graph of a scanned file in options' layout, its ids read from the file again straight into
/// the arrays (undirected: one shared CSR). Throws Error(invalid_argument) when the file changed
/// since the scan, Error(out_of_memory) when the arrays do not fit the memory limit.
CsrGraph encode_sg(const SgScan& scan, const BuildOptions& options, runtime::ThreadPool& pool);

/// load_graph of a .sg file in one pass: header and offsets first (which give the id widths of a
/// valid file), then every id checked, hashed and written straight into its final array, in
/// parallel. None when the file is not valid with ascending lists, or options drop edges or
/// replicate an id array (the two-pass path then reads it, or names the problem). Throws
/// Error(os_error) when the file cannot be read, Error(out_of_memory) beyond the memory limit.
std::optional<CsrGraph> load_sg(const std::string& path, const BuildOptions& options, const ReadOptions& read,
                                runtime::ThreadPool& pool);

}  // namespace smartarrays::graph::detail
