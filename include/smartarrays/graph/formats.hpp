// Owns the graph file formats: readers and writers for whitespace edge lists (SNAP style),
// Matrix Market coordinate files and the GAP benchmark suite's binary .sg files, format detection
// from a file name, and load_graph, which reads any of them into a CsrGraph. Malformed input is an
// Error naming the file and the line (text) or byte offset (binary), never a partial graph.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "smartarrays/export.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph {

/// The supported graph file formats.
enum class GraphFormat : int {
  edge_list = 0,      ///< "src dst" per line, '#' or '%' comments, ids from 0 (SNAP, GAP .el)
  matrix_market = 1,  ///< %%MatrixMarket matrix coordinate, ids from 1, entry (i, j) = edge i -> j
  gap_sg = 2,         ///< GAP's serialized CSR: flag, m, n, offsets[n+1] (int64), ids (int32), twice if directed
  compact = 3,        ///< a store file (docs/compact-format.md, extension .sa) holding the graph as stored smart arrays
};

/// "el", "mtx", "sg" or "compact".
SMARTARRAYS_API const char* to_string(GraphFormat format) noexcept;
/// The format spelled "el" (also "edgelist", "snap", "txt"), "mtx" (also "mm"), "sg" or "compact" (also "sa",
/// "store"), any case; throws Error(invalid_argument).
SMARTARRAYS_API GraphFormat parse_graph_format(std::string_view name);
/// The format a file name's extension names: .el, .txt, .edges, .tsv (edge list), .mtx, .sg, .sa (compact); throws
/// Error(invalid_argument) for an unknown extension.
SMARTARRAYS_API GraphFormat format_of_path(std::string_view path);

/// How readers report progress.
struct ReadOptions {
  /// Called with (bytes read, file size) about every progress_step bytes and once at the end (then
  /// done == total); total is 0 while it is unknown (a pipe before its end). May be empty.
  std::function<void(std::uint64_t done, std::uint64_t total)> progress;
  std::uint64_t progress_step = std::uint64_t{64} << 20;  ///< bytes between progress calls
};

/// Reads a SNAP-style edge list: two non-negative ids per line separated by spaces or tabs;
/// blank lines and lines starting with '#' or '%' are skipped. The vertex count is the largest id
/// plus one, or a "# Nodes: N" header's N if larger (within declared_vertex_limit). Directed,
/// unless a "# Undirected graph" comment says each line is one undirected edge. Throws Error naming
/// file and line, for a line longer than max_line_bytes too.
SMARTARRAYS_API EdgeList read_edge_list(const std::string& path, const ReadOptions& options = {});

/// Reads a Matrix Market coordinate file (pattern, integer, real or complex; general, symmetric,
/// skew-symmetric or hermitian; values are checked and ignored). Needs a square matrix whose size
/// is within declared_vertex_limit and an entry count the file can hold; a non-general symmetry
/// gives an undirected list. Throws Error naming file and line.
SMARTARRAYS_API EdgeList read_matrix_market(const std::string& path, const ReadOptions& options = {});

/// A GAP .sg file's header: its flag and counts.
struct SgHeader {
  bool directed = true;        ///< the file's flag
  std::uint64_t edges = 0;     ///< m, stored edges
  std::uint64_t vertices = 0;  ///< n
};

/// Reads and checks the header of the .sg file at path, as every .sg reader does: Error(invalid_argument)
/// "PATH: byte offset N: ..." for a bad flag or count, or a size other than the one n and m imply;
/// Error(os_error) when the file cannot be opened or read.
SMARTARRAYS_API SgHeader read_sg_header(const std::string& path);

/// A GAP .sg file's contents: the forward CSR and, for directed graphs, the reverse one.
struct SgContents {
  bool directed = true;  ///< the file's directed flag
  std::uint64_t vertices = 0;  ///< n
  CsrParts out;          ///< out-edges as stored
  CsrParts in;           ///< in-edges as stored (empty offsets for undirected files)
};

/// Reads a GAP .sg file, checking its size against n and m, every offset and id, that the stored
/// in-edges of a directed file are the transpose of its out-edges and that an undirected file's
/// edges are symmetric. Throws Error naming the byte offset.
SMARTARRAYS_API SgContents read_gap_sg(const std::string& path, const ReadOptions& options = {},
                                       runtime::ThreadPool& pool = runtime::default_pool());

/// Reads path in format and builds the graph with options on pool: GraphSource::open(path).build(), the
/// one path every surface takes (source.hpp).
SMARTARRAYS_API CsrGraph load_graph(const std::string& path, GraphFormat format, const BuildOptions& options = {},
                                    const ReadOptions& read_options = {},
                                    runtime::ThreadPool& pool = runtime::default_pool());

/// Writes the graph as an edge list with a "# Directed graph" or "# Undirected graph" line and a
/// "# Nodes: N Edges: LINES" header: every forward edge of a directed graph, each edge of an
/// undirected one once (source <= destination). Throws Error(invalid_argument) when the graph has
/// more isolated vertices past its largest id than the reader accepts from the file (limits.hpp).
SMARTARRAYS_API void write_edge_list(const CsrGraph& graph, const std::string& path);
/// Writes a Matrix Market coordinate pattern file: general for directed graphs, symmetric (lower
/// triangle) for undirected ones. Throws Error(invalid_argument) like write_edge_list.
SMARTARRAYS_API void write_matrix_market(const CsrGraph& graph, const std::string& path);
/// Writes a GAP .sg file; throws Error(invalid_argument) if a vertex id does not fit GAP's int32.
SMARTARRAYS_API void write_gap_sg(const CsrGraph& graph, const std::string& path);
/// Writes graph to path in format; compact writes a new store holding the graph as "graph"
/// (store::Store::write; needs the store layer, which libsmartarrays.so always has).
SMARTARRAYS_API void save_graph(const CsrGraph& graph, const std::string& path, GraphFormat format);

}  // namespace smartarrays::graph
