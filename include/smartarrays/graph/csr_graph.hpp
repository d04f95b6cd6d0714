// Owns CsrGraph: a directed graph in compressed sparse row form as a bundle of smart arrays (paper
// §5.2) — begin/edge (forward) and rbegin/redge (reverse) — each with its own placement and bit
// width, an undirected graph holding one CSR that serves as both; out-degrees derived from the
// offsets (begin[v+1] - begin[v], as GAP does) rather than stored; the U / V / V+E variants that
// choose those widths; the per-array memory report, the paper's memory formula and the degree statistics.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph {

/// The arrays of a CsrGraph, in report order.
enum class GraphArray : int {
  begin = 0,       ///< n+1 offsets into edge: vertex v's out-neighbours are edge[begin[v] .. begin[v+1])
  edge = 1,        ///< out-neighbour ids, ascending per vertex
  rbegin = 2,      ///< n+1 offsets into redge
  redge = 3,       ///< in-neighbour ids (sources of the edges into a vertex), ascending per vertex
};

/// Number of GraphArray values. (The paper's out_degree vertex property is not stored: an
/// out-degree is begin[v+1] - begin[v], read from the offsets every pass that needs it reads anyway.)
inline constexpr std::size_t graph_array_count = 4;

/// "begin", "edge", "rbegin" or "redge".
SMARTARRAYS_API const char* to_string(GraphArray array) noexcept;
/// The array spelled name; throws Error(invalid_argument) listing the valid names (and saying, for
/// "out_degree", that out-degrees are derived from begin and no longer an array).
SMARTARRAYS_API GraphArray parse_graph_array(std::string_view name);

/// The paper's compression cases (§5.2, Figure 12).
enum class Variant : int {
  U = 0,   ///< uncompressed: 64-bit offsets, 32-bit vertex ids
  V = 1,   ///< offsets in their minimum bits, 32-bit vertex ids
  VE = 2,  ///< offsets and vertex ids all in their minimum bits ("V+E")
};

/// "U", "V" or "V+E".
SMARTARRAYS_API const char* to_string(Variant variant) noexcept;
/// The variant spelled "U", "V" or "V+E" (also "VE"; any case); throws Error(invalid_argument) otherwise.
SMARTARRAYS_API Variant parse_variant(std::string_view name);

/// Placement and bit width of every array of a graph; bits 0 = the fewest bits that hold the data.
struct GraphLayout {
  std::array<ArrayOptions, graph_array_count> arrays{};  ///< indexed by GraphArray

  /// The options of one array.
  ArrayOptions& operator[](GraphArray a) noexcept { return arrays[static_cast<std::size_t>(a)]; }
  /// The options of one array.
  const ArrayOptions& operator[](GraphArray a) const noexcept { return arrays[static_cast<std::size_t>(a)]; }

  /// The bit widths of variant, every array with the given placement.
  SMARTARRAYS_API static GraphLayout for_variant(Variant variant, const ArrayOptions& placement = {});
  /// Sets the placement (placement, node, nodes, huge_pages) of every array, keeping the bits.
  SMARTARRAYS_API void set_placement(const ArrayOptions& placement);
};

/// One array's line of a memory report.
struct ArrayMemory {
  std::string name;          ///< array name ("begin", ..., or an algorithm's array)
  std::uint64_t length = 0;  ///< values
  unsigned bits = 0;         ///< bits per value
  Placement placement = Placement::os_default;  ///< where its pages are
  std::size_t replicas = 1;  ///< copies
  std::uint64_t bytes = 0;   ///< bytes mapped over all replicas (0 when shared_with names another array)
  std::string shared_with;   ///< the array whose memory this one is ("begin" for an undirected graph's rbegin), else ""
};

/// Memory of a set of arrays, per array and in total.
struct MemoryReport {
  std::vector<ArrayMemory> arrays;  ///< one line per array
  std::uint64_t total_bytes = 0;    ///< sum of arrays[i].bytes
  /// Appends one array's line and adds it to the total.
  SMARTARRAYS_API void add(std::string name, const SmartArray& array);
  /// Appends the line of an array that is another's memory (no bytes of its own).
  SMARTARRAYS_API void add_shared(std::string name, const SmartArray& array, std::string shared_with);
};

/// The degree figures of a graph (`graph info` prints them).
struct DegreeStats {
  std::uint64_t max_out_degree = 0;     ///< the largest out-degree
  std::uint64_t max_in_degree = 0;      ///< the largest in-degree
  /// Stored edges per vertex: the mean out-degree, which equals the mean in-degree (0 without vertices).
  double mean_degree = 0;
  std::uint64_t without_out_edges = 0;  ///< vertices of out-degree 0 (sinks)
  std::uint64_t without_in_edges = 0;   ///< vertices of in-degree 0 (sources)
};

/// The paper's memory formula (§5.2) in bits: 2·bits_begin·V + 2·bits_edge·E + bits_degree·V + 64·V,
/// counting begin and rbegin, edge and redge, the out-degree array (0 bits when derived from begin)
/// and the 64-bit rank array.
SMARTARRAYS_API double paper_memory_bits(std::uint64_t vertices, std::uint64_t edges, unsigned bits_begin,
                                         unsigned bits_edge, unsigned bits_degree) noexcept;

/// A directed graph as a bundle of smart arrays; move-only. Undirected graphs hold both directions
/// of every edge in one CSR: their in-neighbours are their out-neighbours, so rbegin() and redge()
/// are begin() and edge() themselves (shared, not copied) and remember that they were undirected.
class SMARTARRAYS_API CsrGraph {
 public:
  /// Takes over the arrays; checks only that their lengths agree (builders guarantee the rest;
  /// validate() checks every invariant). Throws Error(invalid_argument) naming a mismatch. An
  /// undirected graph made this way keeps its reverse arrays apart (shares_reverse() is false).
  CsrGraph(std::array<SmartArray, graph_array_count> arrays, bool directed);
  /// An undirected graph over one symmetric CSR: begin and edge serve as rbegin and redge too.
  /// Checks the lengths as the other constructor does.
  CsrGraph(SmartArray begin, SmartArray edge);

  /// Number of vertices n.
  std::uint64_t vertices() const noexcept { return vertices_; }
  /// Number of stored (directed) edges m; an undirected edge counts twice, a self-loop once.
  std::uint64_t edges() const noexcept { return edges_; }
  /// False when built from an undirected graph (each edge stored in both directions).
  bool directed() const noexcept { return directed_; }
  /// True when rbegin and redge are begin and edge (an undirected graph's one CSR).
  bool shares_reverse() const noexcept { return arrays_.size() < graph_array_count; }

  /// One of the arrays (rbegin and redge are begin and edge when shares_reverse()).
  const SmartArray& array(GraphArray a) const noexcept { return arrays_[slot(a)]; }
  /// The forward offsets.
  const SmartArray& begin() const noexcept { return array(GraphArray::begin); }
  /// The forward neighbour ids.
  const SmartArray& edge() const noexcept { return array(GraphArray::edge); }
  /// The reverse offsets.
  const SmartArray& rbegin() const noexcept { return array(GraphArray::rbegin); }
  /// The reverse neighbour ids.
  const SmartArray& redge() const noexcept { return array(GraphArray::redge); }
  /// The out-degree of v, begin[v+1] - begin[v] (checked v).
  std::uint64_t out_degree(std::uint64_t v) const;
  /// The in-degree of v, rbegin[v+1] - rbegin[v] (checked v).
  std::uint64_t in_degree(std::uint64_t v) const;
  /// Every vertex's out-degree into out, from begin decoded block by block in parallel on pool.
  /// Throws Error(invalid_argument) unless out holds vertices() values.
  void out_degrees(std::span<std::uint64_t> out, runtime::ThreadPool& pool = runtime::default_pool()) const;

  /// Out-neighbours of v, ascending (checked v).
  std::vector<std::uint64_t> out_neighbours(std::uint64_t v) const;
  /// In-neighbours of v, ascending (checked v).
  std::vector<std::uint64_t> in_neighbours(std::uint64_t v) const;

  /// The variant the arrays' widths correspond to: U if every width is U's, else V+E if the id
  /// arrays are narrower than 32 bits, else V.
  Variant variant() const noexcept;
  /// Bytes and widths of the four arrays; a shared rbegin or redge is a line of no bytes naming
  /// the array it is.
  MemoryReport memory_report() const;
  /// paper_memory_bits() with this graph's widths (bits_begin: the wider of begin and rbegin, bits_edge
  /// likewise) and no degree array (bits_degree 0: out-degrees come from begin).
  double paper_memory_bits() const noexcept;
  /// 1 - paper_memory_bits() / the same formula at U's widths (64, 32, no degree array): the paper's saving.
  double paper_saving() const noexcept;

  /// The largest and mean degrees and the vertices without out- or in-edges, from begin and rbegin
  /// decoded in parallel on pool.
  DegreeStats degree_stats(runtime::ThreadPool& pool = runtime::default_pool()) const;

  /// Checks what every traversal relies on to stay inside the arrays: each CSR's offsets start at 0
  /// and never decrease (the constructor saw them end at m) and every neighbour id is below n. O(n + m)
  /// on pool, each worker decoding a small block at a time (no decoded copy). Throws
  /// Error(invalid_argument) naming the array, the position and the value. Readers of bytes from
  /// outside (a mapped or loaded store, a received stream, unpickling) run it; validate() checks more.
  void check_bounds(runtime::ThreadPool& pool = runtime::default_pool()) const;

  /// Checks every CSR invariant (decoding, range checks and the transpose run on the default pool):
  /// offsets start at 0, never decrease and end at m; ids
  /// below n and ascending per vertex; the reverse graph is the exact
  /// transpose of the forward one. Throws Error(internal) naming the first violation found.
  void validate() const;

 private:
  // Where array a lives in arrays_: its own slot, or begin's / edge's when the reverse is shared.
  std::size_t slot(GraphArray a) const noexcept {
    const auto k = static_cast<std::size_t>(a);
    return shares_reverse() ? k % 2 : k;
  }
  void check_lengths();

  std::vector<SmartArray> arrays_;  // the four arrays in GraphArray order, or begin and edge when shared
  std::uint64_t vertices_ = 0;
  std::uint64_t edges_ = 0;
  bool directed_ = true;
};

}  // namespace smartarrays::graph
