// Owns GraphSource: a graph's input read (or generated) once — a file in any format, an R-MAT or
// uniform generator, or edge arrays — from which CsrGraphs of any layout are built, several from
// one read (the variants U / V / V+E side by side); naming the file in errors of memory; and the
// progress writer of long reads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "smartarrays/error.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/graph/csr_graph.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::graph {

namespace detail {
struct SgSource;
struct EdgeBlocks;
}  // namespace detail

/// How a compact (store) file's graph is opened.
enum class OpenMode : int {
  map = 0,   ///< read-only views over the file's pages: no copy, nothing read but header and directory
  load = 1,  ///< copied (checksums checked) into SourceOptions::placement, in parallel
};

/// "map" or "load".
SMARTARRAYS_API const char* to_string(OpenMode mode) noexcept;
/// The mode spelled "map" or "load" (any case); throws Error(invalid_argument) otherwise.
SMARTARRAYS_API OpenMode parse_open_mode(std::string_view name);

/// Runs f, naming the graph file path in an Error(out_of_memory) it throws ("graph 'g.el': ..."),
/// unless the message names the file already (a reader's "g.el:3: ..."); an empty path names none.
template <typename F>
decltype(auto) naming_graph_file(const std::string& path, F&& f) {
  try {
    return std::forward<F>(f)();
  } catch (const Error& e) {
    if (path.empty() || e.code() != ErrorCode::out_of_memory || e.message().starts_with(path + ":")) throw;
    throw Error(e.code(), "graph " + util::quoted(path) + ": " + e.message());
  }
}

/// How GraphSource::open reads a file.
struct SourceOptions {
  std::optional<GraphFormat> format;  ///< the file's format; none = the one its extension names
  bool undirected = false;            ///< store each edge of an edge list or Matrix Market file both ways
  ReadOptions read;                   ///< progress of the read
  OpenMode mode = OpenMode::map;      ///< compact files: use the stored arrays mapped, or load them
  GraphLayout placement{};            ///< compact files loaded: each array's placement (bits ignored: stored widths kept)
  std::string object;                 ///< compact files: the graph's name in the store; empty = its only graph

  /// The format path is read in. Throws Error(invalid_argument) when the extension names none, or
  /// when undirected is asked of a .sg or compact file (which says itself whether it is directed);
  /// callers may call it before reading to check their arguments.
  SMARTARRAYS_API GraphFormat format_of(std::string_view path) const;
};

/// A graph's edges held once, as read or generated; build() makes a CsrGraph from them as often as
/// asked, each with its own layout. Move-only.
class SMARTARRAYS_API GraphSource {
 public:
  /// Reads path in options.format_of(path) on pool. Throws Error naming the file and the line or
  /// byte offset of malformed input, or the option that does not fit. A compact file's graph is
  /// opened as stored (options.mode: mapped, or loaded into options.placement) and is then
  /// stored_graph(); build() makes other layouts of it. Of a .sg file only the header and the
  /// offsets are read and checked; each build() reads its ids straight into the graph's arrays, the
  /// first checking them in the same pass, so malformed ids are the first build's error (see
  /// docs/graph.md, "Loading .sg files").
  static GraphSource open(const std::string& path, const SourceOptions& options = {},
                          runtime::ThreadPool& pool = runtime::default_pool());
  /// The R-MAT graph of options, generated on pool; undirected stores each edge both ways.
  static GraphSource rmat(const RmatOptions& options, bool undirected = false,
                          runtime::ThreadPool& pool = runtime::default_pool());
  /// The uniform random graph of options, generated on pool; undirected stores each edge both ways.
  static GraphSource uniform(const UniformOptions& options, bool undirected = false,
                             runtime::ThreadPool& pool = runtime::default_pool());
  /// Takes over an edge list.
  static GraphSource from_edges(EdgeList edges);
  /// The edges src[i] -> dst[i] over `vertices` vertices (0 = the largest id + 1). Throws
  /// Error(invalid_argument) when src and dst differ in length.
  static GraphSource from_edges(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst,
                                std::uint64_t vertices = 0, bool directed = true);

  GraphSource(const GraphSource&) = delete;
  GraphSource& operator=(const GraphSource&) = delete;
  GraphSource(GraphSource&&) noexcept = default;
  GraphSource& operator=(GraphSource&&) noexcept = default;

  /// A new CsrGraph of the edges, built with options on pool (throws as build_csr does; an
  /// Error(out_of_memory) names the file, naming_graph_file).
  CsrGraph build(const BuildOptions& options = {}, runtime::ThreadPool& pool = runtime::default_pool()) const&;
  /// The same from a source used once: a text file's edges, or the lists of a .sg file that had to be
  /// sorted, are moved into the build (the edges freed once placed: a large text file's per-range
  /// blocks one by one), not copied. Throws Error(invalid_argument) when a .sg file changed since open().
  CsrGraph build(const BuildOptions& options = {}, runtime::ThreadPool& pool = runtime::default_pool()) &&;

  /// True for a compact file's graph, which is used as stored (stored_graph()) or built anew (build()).
  bool stored() const noexcept { return stored_.has_value(); }
  /// The compact file's graph as opened (mapped views or loaded copies); throws Error(invalid_argument) unless stored().
  const CsrGraph& stored_graph() const;
  /// Takes the compact file's graph out of the source (which is then empty); throws like stored_graph().
  CsrGraph take_stored() &&;

  /// Number of vertices n.
  std::uint64_t vertices() const noexcept { return vertices_; }
  /// False when each edge stands for both directions.
  bool directed() const noexcept { return directed_; }

 private:
  GraphSource() = default;

  EdgeList edges_;
  std::optional<CsrGraph> stored_;  // a compact file's graph as opened
  std::shared_ptr<detail::SgSource> sg_;  // a .sg file: its header and offsets (and what its builds learn of it)
  std::shared_ptr<detail::EdgeBlocks> blocks_;  // a text file read in parallel, in narrow blocks (then edges_ is empty)
  std::string path_;  // the file read, "" for a generated graph or given edges
  std::uint64_t vertices_ = 0;
  bool directed_ = true;
};

/// A ReadOptions::progress callback writing "reading NAME: P% (X MiB of Y MiB)" to out for inputs
/// of at least min_bytes: one line rewritten in place when interactive (a terminal), else a line
/// every 10%; while the total is unknown (0, a pipe) "reading NAME: X MiB so far" at every call
/// once X reaches min_bytes. out must outlive the callback.
SMARTARRAYS_API std::function<void(std::uint64_t, std::uint64_t)> progress_writer(
    std::string name, std::ostream& out, bool interactive, std::uint64_t min_bytes = std::uint64_t{64} << 20);

}  // namespace smartarrays::graph
