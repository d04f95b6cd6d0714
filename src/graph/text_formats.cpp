// Owns the readers of the two text formats: SNAP-style edge lists and Matrix Market coordinate
// files. Both check every field and name the file and line of the first bad one, quote input bytes
// with util::quoted, and hold the counts a file declares to the limits of graph/limits.hpp before
// anything is sized by them.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "graph/text_reader.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::graph {

namespace {

using util::quoted;

// The shortest Matrix Market entry: "1 1" and its newline.
constexpr std::uint64_t min_entry_bytes = 4;

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A count and the line it came from.
struct Counted {
  std::uint64_t value = 0;
  std::uint64_t line = 0;
};

// SNAP's header comments: "# Nodes: 875713 Edges: 5105039" declares the vertex count and
// "# Undirected graph: ..." says each line is one undirected edge; other comments are ignored.
void read_header(std::string_view comment, std::uint64_t line, Counted& declared, bool& directed) {
  comment.remove_prefix(1);
  const std::string_view word = detail::next_field(comment);
  if (word == "Nodes:") {
    std::uint64_t n = 0;
    if (detail::parse_u64(detail::next_field(comment), n) && n > declared.value) declared = {n, line};
  } else if (lower(word) == "undirected" && lower(detail::next_field(comment)).rfind("graph", 0) == 0) {
    directed = false;
  }
}

std::uint64_t parse_id(detail::LineReader& reader, std::string_view field, const char* what) {
  std::uint64_t id = 0;
  if (field.empty()) reader.fail(std::string("missing ") + what);
  if (!detail::parse_u64(field, id)) {
    reader.fail("bad " + std::string(what) + " " + quoted(field) + " (expected a non-negative integer)");
  }
  return id;
}

// Throws unless a file of file_bytes whose ids are below ids_end may declare declared.value vertices.
void check_declared_vertices(const detail::LineReader& reader, const Counted& declared, std::uint64_t ids_end) {
  const std::uint64_t file_bytes = std::max(reader.size(), reader.bytes_read());
  const std::uint64_t limit = declared_vertex_limit(file_bytes, ids_end);
  if (declared.value <= limit) return;
  throw_error(ErrorCode::invalid_argument,
              reader.where(declared.line) + std::to_string(declared.value) + " vertices declared, more than a file of " +
                  std::to_string(file_bytes) + " bytes whose ids are below " + std::to_string(ids_end) +
                  " may declare (at most " + std::to_string(limit) +
                  ": the largest id + 1, 2^20, or 8 per byte of the file, whichever is larger)");
}

EdgeList parse_edge_list(detail::LineReader& reader) {
  EdgeList list;
  Counted declared;
  Counted largest;  // the largest id
  std::uint64_t self_loops = 0;
  bool any = false;
  for (std::string_view line; reader.next(line);) {
    std::string_view rest = line;
    const std::string_view first = detail::next_field(rest);
    if (first.empty()) continue;
    if (first[0] == '#' || first[0] == '%') {
      read_header(line.substr(line.find(first[0])), reader.line_number(), declared, list.directed);
      continue;
    }
    const std::uint64_t src = parse_id(reader, first, "source vertex id");
    const std::uint64_t dst = parse_id(reader, detail::next_field(rest), "destination vertex id");
    const std::string_view extra = detail::next_field(rest);
    if (!extra.empty()) {
      reader.fail("unexpected third field " + quoted(extra) + " (an edge list line holds two vertex ids)");
    }
    if (src == ~std::uint64_t{0} || dst == ~std::uint64_t{0}) {
      reader.fail("vertex id 18446744073709551615 is too large (the vertex count, the id + 1, does not fit in 64 bits)");
    }
    if (!any || std::max(src, dst) > largest.value) largest = {std::max(src, dst), reader.line_number()};
    any = true;
    self_loops += src == dst ? 1 : 0;
    list.edges.push_back({src, dst});
  }
  const std::uint64_t ids_end = any ? largest.value + 1 : 0;
  check_declared_vertices(reader, declared, ids_end);
  list.vertices = std::max(declared.value, ids_end);
  check_build_memory(list.vertices, stored_edge_count(list.edges.size(), self_loops, list.directed),
                     reader.where(declared.value > ids_end ? declared.line : largest.line));
  return list;
}

// What a Matrix Market banner says: how many value fields follow each entry's indices, the field
// type's name (for messages), and whether the matrix is general (directed) or symmetric in a way.
struct MatrixMarketBanner {
  std::size_t value_fields = 0;
  std::string field;
  bool general = true;
};

// Reads and checks the %%MatrixMarket banner line.
MatrixMarketBanner read_banner(detail::LineReader& reader) {
  std::string_view line;
  if (!reader.next(line)) reader.fail("empty file (expected a %%MatrixMarket header)");
  std::string_view rest = line;
  std::array<std::string, 5> header;
  for (std::string& word : header) word = lower(detail::next_field(rest));
  if (header[0] != "%%matrixmarket") reader.fail("expected a %%MatrixMarket header, found " + quoted(line));
  if (header[1] != "matrix") reader.fail("object " + quoted(header[1]) + " is not supported (expected matrix)");
  if (header[2] != "coordinate") {
    reader.fail("format " + quoted(header[2]) + " is not supported (a graph needs coordinate format)");
  }
  MatrixMarketBanner banner;
  banner.field = header[3];
  if (header[3] == "pattern") {
    banner.value_fields = 0;
  } else if (header[3] == "real" || header[3] == "integer") {
    banner.value_fields = 1;
  } else if (header[3] == "complex") {
    banner.value_fields = 2;
  } else {
    reader.fail("field " + quoted(header[3]) + " is not one of pattern, integer, real, complex");
  }
  const std::string& symmetry = header[4];
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" && symmetry != "hermitian") {
    reader.fail("symmetry " + quoted(symmetry) + " is not one of general, symmetric, skew-symmetric, hermitian");
  }
  banner.general = symmetry == "general";
  return banner;
}

// The size line (after any comments): the square matrix's order with its line, and the entry count.
struct MatrixMarketSize {
  Counted rows;
  std::uint64_t entries = 0;
};

// Reads and checks the size line: square, and no more entries than the file's bytes can hold.
MatrixMarketSize read_size_line(detail::LineReader& reader) {
  std::string_view line, rest;
  bool have_size = false;
  while (!have_size && reader.next(line)) {
    rest = line;
    const std::string_view first = detail::next_field(rest);
    have_size = !first.empty() && first[0] != '%';
  }
  if (!have_size) reader.fail("missing the size line (rows columns entries)");
  rest = line;
  const std::uint64_t rows = parse_id(reader, detail::next_field(rest), "row count");
  const std::uint64_t cols = parse_id(reader, detail::next_field(rest), "column count");
  const std::uint64_t entries = parse_id(reader, detail::next_field(rest), "entry count");
  if (!detail::next_field(rest).empty()) reader.fail("the size line holds more than rows, columns and entries");
  if (rows != cols) {
    reader.fail("the matrix is " + std::to_string(rows) + " x " + std::to_string(cols) + "; a graph needs a square matrix");
  }
  // The entries must fit in the file, and their graph in memory, before any is held.
  if (reader.size() != 0 && entries > (reader.size() + 1) / min_entry_bytes) {
    reader.fail(std::to_string(entries) + " entries declared, more than a file of " + std::to_string(reader.size()) +
                " bytes can hold (an entry takes at least " + std::to_string(min_entry_bytes) + " bytes)");
  }
  return {{rows, reader.line_number()}, entries};
}

EdgeList parse_matrix_market(detail::LineReader& reader) {
  const MatrixMarketBanner banner = read_banner(reader);
  const MatrixMarketSize size = read_size_line(reader);
  const std::uint64_t rows = size.rows.value, entries = size.entries;
  const Counted& size_line = size.rows;
  EdgeList list;
  list.vertices = rows;
  list.directed = banner.general;
  // At least one stored edge per entry (the exact count, with loops stored once, is known at the end).
  check_build_memory(rows, entries, reader.where(size_line.line));
  // Only a regular file's size bounds the count; a pipe's edges grow with what arrives.
  if (reader.size() != 0) list.edges.reserve(entries);

  std::uint64_t ids_end = 0;
  std::uint64_t self_loops = 0;
  for (std::string_view line; reader.next(line);) {
    std::string_view rest = line;
    const std::string_view first = detail::next_field(rest);
    if (first.empty() || first[0] == '%') continue;
    if (list.edges.size() == entries) {
      reader.fail("more entries than the " + std::to_string(entries) + " the size line declares");
    }
    const std::uint64_t i = parse_id(reader, first, "row index");
    const std::uint64_t j = parse_id(reader, detail::next_field(rest), "column index");
    for (std::uint64_t index : {i, j}) {
      if (index == 0 || index > rows) {
        reader.fail("index " + std::to_string(index) + " is outside 1.." + std::to_string(rows));
      }
    }
    for (std::size_t k = 0; k < banner.value_fields; ++k) {
      const std::string_view value = detail::next_field(rest);
      if (value.empty()) reader.fail("missing value of a " + banner.field + " entry");
      if (!detail::is_number(value)) reader.fail("bad value " + quoted(value) + " (expected a number)");
    }
    const std::string_view extra = detail::next_field(rest);
    if (!extra.empty()) reader.fail("unexpected field " + quoted(extra) + " after the entry");
    ids_end = std::max({ids_end, i, j});
    self_loops += i == j ? 1 : 0;
    list.edges.push_back({i - 1, j - 1});
  }
  if (list.edges.size() != entries) {
    reader.fail("the file ends after " + std::to_string(list.edges.size()) + " of the " + std::to_string(entries) +
                " entries the size line declares");
  }
  check_declared_vertices(reader, size_line, ids_end);
  check_build_memory(rows, stored_edge_count(entries, self_loops, list.directed), reader.where(size_line.line));
  return list;
}

}  // namespace

EdgeList read_edge_list(const std::string& path, const ReadOptions& options) {
  detail::LineReader reader(path, options);
  return detail::out_of_memory_naming([&] { return reader.where(reader.line_number()); },
                                      [&] { return parse_edge_list(reader); });
}

EdgeList read_matrix_market(const std::string& path, const ReadOptions& options) {
  detail::LineReader reader(path, options);
  return detail::out_of_memory_naming([&] { return reader.where(reader.line_number()); },
                                      [&] { return parse_matrix_market(reader); });
}

}  // namespace smartarrays::graph
