// Owns format names and extensions (one table) and detection, load_graph (a GraphSource used once)
// and the three writers.
// Writers decode the graph's arrays block by block, so writing never holds a second copy of the graph.
#include "smartarrays/graph/formats.hpp"

#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph/buffered_output.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"
#include "graph/compact_hooks.hpp"

namespace smartarrays::graph {

namespace {

// Every format's names (the first is the one to_string gives, the others are accepted) and the file
// extensions that name it: the one list of both.
struct FormatRow {
  GraphFormat format;
  std::array<std::string_view, 4> names;       // unused entries ""
  std::array<std::string_view, 4> extensions;  // without the dot; unused entries ""
};

constexpr std::array<FormatRow, 4> format_rows{{
    {GraphFormat::edge_list, {"el", "edgelist", "snap", "txt"}, {"el", "txt", "edges", "tsv"}},
    {GraphFormat::matrix_market, {"mtx", "mm", "", ""}, {"mtx", "", "", ""}},
    {GraphFormat::gap_sg, {"sg", "", "", ""}, {"sg", "", "", ""}},
    {GraphFormat::compact, {"compact", "sa", "store", ""}, {"sa", "", "", ""}},
}};

// The number of names in format_rows.
constexpr std::size_t count_names() {
  std::size_t count = 0;
  for (const FormatRow& row : format_rows) {
    for (const std::string_view name : row.names) count += name.empty() ? 0 : 1;
  }
  return count;
}

constexpr std::size_t name_count = count_names();

// The names of format_rows for a name table: every format's first name before any other name, so
// the canonical names come first in messages.
constexpr std::array<util::Named<GraphFormat>, name_count> named_formats() {
  std::array<util::Named<GraphFormat>, name_count> named{};
  std::size_t next = 0;
  for (std::size_t rank = 0; rank < 4; ++rank) {
    for (const FormatRow& row : format_rows) {
      if (!row.names[rank].empty()) named[next++] = {row.format, row.names[rank]};
    }
  }
  return named;
}

constexpr util::NameTable<GraphFormat, name_count> graph_format_names{"graph format", named_formats()};

constexpr std::uint64_t block_values = std::uint64_t{1} << 16;

std::string extension_of(std::string_view path) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return "";
  return std::string(path.substr(dot + 1));
}

// Values of a block buffer for an array of length values: a block, or fewer for a short array (a
// small graph's writer touches no more memory than the graph's size).
std::uint64_t block_for(std::uint64_t length) { return std::min(block_values, length); }

// Calls f(v, ids, count) for every vertex with its out-neighbours, decoding blocks of the arrays.
template <typename F>
void for_each_out_list(const CsrGraph& graph, F&& f) {
  const std::uint64_t n = graph.vertices();
  std::vector<std::uint64_t> offsets(block_for(n) + 1);
  std::vector<std::uint64_t> ids;
  for (std::uint64_t first = 0; first < n; first += block_values) {
    const std::uint64_t count = std::min(block_values, n - first);
    graph.begin().decode(first, count + 1, offsets.data());
    ids.resize(offsets[count] - offsets[0]);
    if (!ids.empty()) graph.edge().decode(offsets[0], ids.size(), ids.data());
    for (std::uint64_t k = 0; k < count; ++k) {
      f(first + k, ids.data() + (offsets[k] - offsets[0]), offsets[k + 1] - offsets[k]);
    }
  }
}

void write_sg_part(BufferedOutput& out, const SmartArray& begin, const SmartArray& ids) {
  std::vector<std::uint64_t> values(block_for(std::max(begin.length(), ids.length())));
  for (std::uint64_t i = 0; i < begin.length(); i += block_values) {
    const std::uint64_t count = std::min(block_values, begin.length() - i);
    begin.decode(i, count, values.data());
    out.bytes(values.data(), count * sizeof(std::uint64_t));
  }
  std::vector<std::int32_t> narrow(block_for(ids.length()));
  for (std::uint64_t i = 0; i < ids.length(); i += block_values) {
    const std::uint64_t count = std::min(block_values, ids.length() - i);
    ids.decode(i, count, values.data());
    for (std::uint64_t k = 0; k < count; ++k) narrow[k] = static_cast<std::int32_t>(values[k]);
    out.bytes(narrow.data(), count * sizeof(std::int32_t));
  }
}

// The lines a text writer writes: the stored edges v -> id for which written(v, id) holds.
template <typename Written>
std::uint64_t lines_written(const CsrGraph& graph, Written&& written) {
  std::uint64_t lines = 0;
  for_each_out_list(graph, [&](std::uint64_t v, const std::uint64_t* ids, std::uint64_t count) {
    for (std::uint64_t k = 0; k < count; ++k) lines += written(v, ids[k]) ? 1 : 0;
  });
  return lines;
}

// One past the largest vertex with an edge (in or out), 0 without edges: the offsets decoded in
// blocks from the end, since only an isolated tail is scanned.
std::uint64_t ids_end_of(const CsrGraph& graph) {
  std::vector<std::uint64_t> out(block_for(graph.vertices()) + 1), in(block_for(graph.vertices()) + 1);
  for (std::uint64_t end = graph.vertices(); end > 0;) {
    const std::uint64_t first = end - std::min(block_values, end);
    graph.begin().decode(first, end - first + 1, out.data());
    graph.rbegin().decode(first, end - first + 1, in.data());
    for (std::uint64_t k = end - first; k > 0; --k) {
      if (out[k] != out[k - 1] || in[k] != in[k - 1]) return first + k;
    }
    end = first;
  }
  return 0;
}

// A text file declares its vertex count; the reader accepts vertices past the largest id only up to
// declared_vertex_limit of the file's size, so a graph whose isolated tail needs more is refused
// here rather than written as a file that would not read back. The file holds the header and at
// least min_line_bytes per line, which is all the check assumes of its size.
void check_readable_vertex_count(const CsrGraph& graph, std::uint64_t header_bytes, std::uint64_t lines,
                                 const char* what) {
  constexpr std::uint64_t min_line_bytes = 4;  // "0\t0\n", "1 1\n"
  const std::uint64_t least_bytes = header_bytes + lines * min_line_bytes;
  if (graph.vertices() <= declared_vertex_limit(least_bytes, 0)) return;
  const std::uint64_t ids_end = ids_end_of(graph);
  const std::uint64_t limit = declared_vertex_limit(least_bytes, ids_end);
  if (graph.vertices() <= limit) return;
  throw_error(ErrorCode::invalid_argument,
              "cannot write " + std::string(what) + " of this graph: its " + std::to_string(graph.vertices()) +
                  " vertices include " + std::to_string(graph.vertices() - ids_end) +
                  " isolated ones past the largest id, and the reader accepts at most " + std::to_string(limit) +
                  " vertices from a file of this size (docs/input-limits.md); a GAP .sg file holds any vertex count");
}

}  // namespace

const char* to_string(GraphFormat format) noexcept { return graph_format_names.c_name(format); }

GraphFormat parse_graph_format(std::string_view name) { return graph_format_names.parse(name); }

GraphFormat format_of_path(std::string_view path) {
  const std::string ext = extension_of(path);
  std::string known;
  std::string_view last;
  for (const FormatRow& row : format_rows) {
    for (const std::string_view extension : row.extensions) {
      if (extension.empty()) continue;
      if (ext == extension) return row.format;
      if (!last.empty()) known += (known.empty() ? "." : ", .") + std::string(last);
      last = extension;
    }
  }
  throw_error(ErrorCode::invalid_argument, "cannot tell the format of " + util::quoted(path, 4096) + " from its extension (" +
                                               known + " or ." + std::string(last) + "); name it explicitly");
}

CsrGraph load_graph(const std::string& path, GraphFormat format, const BuildOptions& options,
                    const ReadOptions& read_options, runtime::ThreadPool& pool) {
  SourceOptions source;
  source.format = format;
  source.read = read_options;
  return GraphSource::open(path, source, pool).build(options, pool);
}

void write_edge_list(const CsrGraph& graph, const std::string& path) {
  const bool undirected = !graph.directed();
  // An undirected graph is written one line per edge (source <= destination), as SNAP does.
  auto written = [undirected](std::uint64_t v, std::uint64_t id) { return !undirected || v <= id; };
  const std::uint64_t lines = undirected ? lines_written(graph, written) : graph.edges();
  std::string header = undirected ? "# Undirected graph: one line per edge, stored in both directions when read\n"
                                  : "# Directed graph\n";
  header += "# Nodes: " + std::to_string(graph.vertices()) + " Edges: " + std::to_string(lines) + "\n";
  check_readable_vertex_count(graph, header.size(), lines, "an edge list");
  BufferedOutput out(path);
  out.text(header);
  for_each_out_list(graph, [&](std::uint64_t v, const std::uint64_t* ids, std::uint64_t count) {
    for (std::uint64_t k = 0; k < count; ++k) {
      if (!written(v, ids[k])) continue;
      out.number(v);
      out.text("\t");
      out.number(ids[k]);
      out.text("\n");
    }
  });
  out.close();
}

void write_matrix_market(const CsrGraph& graph, const std::string& path) {
  const bool symmetric = !graph.directed();
  // A symmetric file stores the lower triangle (row >= column) only.
  auto written = [symmetric](std::uint64_t v, std::uint64_t id) { return !symmetric || id <= v; };
  const std::uint64_t entries = symmetric ? lines_written(graph, written) : graph.edges();
  std::string header = symmetric ? "%%MatrixMarket matrix coordinate pattern symmetric\n"
                                 : "%%MatrixMarket matrix coordinate pattern general\n";
  header += "% written by smartarrays: entry (i, j) is the edge i-1 -> j-1\n";
  header += std::to_string(graph.vertices()) + " " + std::to_string(graph.vertices()) + " " + std::to_string(entries) + "\n";
  check_readable_vertex_count(graph, header.size(), entries, "a Matrix Market file");
  BufferedOutput out(path);
  out.text(header);
  for_each_out_list(graph, [&](std::uint64_t v, const std::uint64_t* ids, std::uint64_t count) {
    for (std::uint64_t k = 0; k < count; ++k) {
      if (!written(v, ids[k])) continue;
      out.number(v + 1);
      out.text(" ");
      out.number(ids[k] + 1);
      out.text("\n");
    }
  });
  out.close();
}

void write_gap_sg(const CsrGraph& graph, const std::string& path) {
  if (graph.vertices() > std::uint64_t{std::numeric_limits<std::int32_t>::max()} + 1) {
    throw_error(ErrorCode::invalid_argument, "a GAP .sg file holds int32 vertex ids; this graph has " +
                                                 std::to_string(graph.vertices()) + " vertices");
  }
  BufferedOutput out(path);
  const std::uint8_t flag = graph.directed() ? 1 : 0;
  const auto m = static_cast<std::int64_t>(graph.edges());
  const auto n = static_cast<std::int64_t>(graph.vertices());
  out.bytes(&flag, 1);
  out.bytes(&m, sizeof m);
  out.bytes(&n, sizeof n);
  write_sg_part(out, graph.begin(), graph.edge());
  if (graph.directed()) write_sg_part(out, graph.rbegin(), graph.redge());
  out.close();
}

void save_graph(const CsrGraph& graph, const std::string& path, GraphFormat format) {
  switch (format) {
    case GraphFormat::edge_list:
      return write_edge_list(graph, path);
    case GraphFormat::matrix_market:
      return write_matrix_market(graph, path);
    case GraphFormat::gap_sg:
      return write_gap_sg(graph, path);
    case GraphFormat::compact:
      return detail::write_compact(graph, path);
  }
  throw_error(ErrorCode::invalid_argument, "unknown graph format " + std::to_string(static_cast<int>(format)));
}

}  // namespace smartarrays::graph
