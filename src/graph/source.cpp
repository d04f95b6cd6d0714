// Owns GraphSource: the one place that turns a format into the right reader, the generators and
// edge arrays into an edge list, and those into graphs; and the progress writer for long reads.
#include "smartarrays/graph/source.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <utility>

#include "graph/compact_hooks.hpp"
#include "graph/parallel_text.hpp"
#include "graph/sg_load.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/checked.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::graph {

namespace {

constexpr util::NameTable<OpenMode, 2> open_mode_names{"open mode", {{{OpenMode::map, "map"}, {OpenMode::load, "load"}}}};

// The forward CSR of a stored graph, decoded, for rebuilding it in another layout.
CsrParts forward_parts(const CsrGraph& graph) {
  CsrParts parts;
  parts.offsets.resize(graph.begin().length());
  parts.targets.resize(graph.edge().length());
  if (!parts.offsets.empty()) graph.begin().decode(0, parts.offsets.size(), parts.offsets.data());
  if (!parts.targets.empty()) graph.edge().decode(0, parts.targets.size(), parts.targets.data());
  return parts;
}

std::string mib(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

}  // namespace

const char* to_string(OpenMode mode) noexcept { return open_mode_names.c_name(mode); }

OpenMode parse_open_mode(std::string_view name) { return open_mode_names.parse(name); }

GraphFormat SourceOptions::format_of(std::string_view path) const {
  const GraphFormat resolved = format ? *format : format_of_path(path);
  if (undirected && (resolved == GraphFormat::gap_sg || resolved == GraphFormat::compact)) {
    throw_error(ErrorCode::invalid_argument, std::string("undirected applies to edge lists and Matrix Market files; the ") +
                                                 (resolved == GraphFormat::gap_sg ? ".sg" : "compact") + " file " +
                                                 util::quoted(path, 4096) + " says itself whether it is directed");
  }
  return resolved;
}

GraphSource GraphSource::open(const std::string& path, const SourceOptions& options, runtime::ThreadPool& pool) {
  GraphSource source;
  source.path_ = path;
  const GraphFormat format = options.format_of(path);
  switch (format) {
    case GraphFormat::edge_list:
    case GraphFormat::matrix_market: {
      if (std::optional<detail::EdgeBlocks> blocks = detail::read_text_parallel(path, format, options.read, pool)) {
        if (options.undirected) blocks->directed = false;
        source.vertices_ = blocks->vertices;
        source.directed_ = blocks->directed;
        source.blocks_ = std::make_shared<detail::EdgeBlocks>(std::move(*blocks));
        return source;
      }
      source.edges_ = format == GraphFormat::edge_list ? read_edge_list(path, options.read) : read_matrix_market(path, options.read);
      break;
    }
    case GraphFormat::gap_sg: {
      source.sg_ = detail::open_sg(path, options.read, pool);
      source.vertices_ = source.sg_->vertices;
      source.directed_ = source.sg_->directed;
      return source;
    }
    case GraphFormat::compact: {
      source.stored_.emplace(detail::open_compact(path, options, pool));
      source.vertices_ = source.stored_->vertices();
      source.directed_ = source.stored_->directed();
      return source;
    }
    default:
      throw_error(ErrorCode::invalid_argument, "unknown graph format " + std::to_string(static_cast<int>(*options.format)));
  }
  if (options.undirected) source.edges_.directed = false;
  source.vertices_ = source.edges_.vertices;
  source.directed_ = source.edges_.directed;
  return source;
}

GraphSource GraphSource::rmat(const RmatOptions& options, bool undirected, runtime::ThreadPool& pool) {
  EdgeList edges = generate_rmat(options, pool);
  edges.directed = !undirected;
  return from_edges(std::move(edges));
}

GraphSource GraphSource::uniform(const UniformOptions& options, bool undirected, runtime::ThreadPool& pool) {
  EdgeList edges = generate_uniform(options, pool);
  edges.directed = !undirected;
  return from_edges(std::move(edges));
}

GraphSource GraphSource::from_edges(EdgeList edges) {
  GraphSource source;
  source.vertices_ = edges.vertices;
  source.directed_ = edges.directed;
  source.edges_ = std::move(edges);
  return source;
}

GraphSource GraphSource::from_edges(std::span<const std::uint64_t> src, std::span<const std::uint64_t> dst,
                                    std::uint64_t vertices, bool directed) {
  if (src.size() != dst.size()) {
    throw_error(ErrorCode::invalid_argument,
                "src has " + std::to_string(src.size()) + " ids but dst has " + std::to_string(dst.size()));
  }
  EdgeList list;
  list.directed = directed;
  list.edges.resize(src.size());
  std::uint64_t largest = 0;
  for (std::size_t i = 0; i < src.size(); ++i) {
    list.edges[i] = {src[i], dst[i]};
    largest = std::max({largest, src[i], dst[i]});
  }
  // A given count that is too small is the builder's error to name, with the offending edge.
  list.vertices = vertices != 0 ? vertices
                  : src.empty() ? 0
                                : util::checked_add(largest, 1, "the vertex count (the largest id + 1)");
  return from_edges(std::move(list));
}

const CsrGraph& GraphSource::stored_graph() const {
  if (!stored_) throw_error(ErrorCode::invalid_argument, "this graph source holds no stored graph (only compact files do)");
  return *stored_;
}

CsrGraph GraphSource::take_stored() && {
  if (!stored_) throw_error(ErrorCode::invalid_argument, "this graph source holds no stored graph (only compact files do)");
  CsrGraph graph = std::move(*stored_);
  stored_.reset();
  return graph;
}

CsrGraph GraphSource::build(const BuildOptions& options, runtime::ThreadPool& pool) const& {
  return naming_graph_file(path_, [&] {
    if (stored_) return build_csr(forward_parts(*stored_), directed_, options, pool);
    if (sg_) return detail::build_sg(*sg_, options, pool, false);
    if (blocks_) return detail::build_csr(*blocks_, options, pool, false);
    return build_csr(edges_, options, pool);
  });
}

CsrGraph GraphSource::build(const BuildOptions& options, runtime::ThreadPool& pool) && {
  return naming_graph_file(path_, [&] {
    if (stored_) return build_csr(forward_parts(*stored_), directed_, options, pool);
    if (sg_) return detail::build_sg(*sg_, options, pool, true);
    if (blocks_) return detail::build_csr(*blocks_, options, pool, true);
    return build_csr(std::move(edges_), options, pool);
  });
}

std::function<void(std::uint64_t, std::uint64_t)> progress_writer(std::string name, std::ostream& out, bool interactive,
                                                                  std::uint64_t min_bytes) {
  auto last_decile = std::make_shared<int>(-1);
  return [name = std::move(name), &out, interactive, min_bytes, last_decile](std::uint64_t done, std::uint64_t total) {
    if (total == 0) {
      // A pipe: the bytes read so far, with no total to measure them against.
      if (done < min_bytes || done == 0) return;
      const std::string line = "reading " + name + ": " + mib(done) + " so far";
      out << (interactive ? "\r\033[K" : "") << line << (interactive ? "" : "\n") << std::flush;
      return;
    }
    if (total < min_bytes) return;
    const int percent = static_cast<int>(100 * done / total);
    const std::string line = "reading " + name + ": " + std::to_string(percent) + "% (" + mib(done) + " of " + mib(total) + ")";
    if (interactive) {
      out << "\r\033[K" << line << (done == total ? "\n" : "") << std::flush;
    } else if (percent / 10 != *last_decile) {
      *last_decile = percent / 10;
      out << line << "\n";
    }
  };
}

}  // namespace smartarrays::graph
