// Owns the readers of the two text formats: SNAP-style edge lists and Matrix Market coordinate
// files. Both check every field and name the file and line of the first bad one.
#include <algorithm>
#include <array>
#include <cctype>
#include <string>

#include "graph/text_reader.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"

namespace smartarrays::graph {

namespace {

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "# Nodes: 875713 Edges: 5105039" (SNAP's header) declares the vertex count; other comments are ignored.
void read_nodes_header(std::string_view comment, std::uint64_t& declared) {
  comment.remove_prefix(1);
  if (detail::next_field(comment) != "Nodes:") return;
  std::uint64_t n = 0;
  if (detail::parse_u64(detail::next_field(comment), n)) declared = std::max(declared, n);
}

std::uint64_t parse_id(detail::LineReader& reader, std::string_view field, const char* what) {
  std::uint64_t id = 0;
  if (field.empty()) reader.fail(std::string("missing ") + what);
  if (!detail::parse_u64(field, id)) {
    reader.fail("bad " + std::string(what) + " " + detail::quote(field) + " (expected a non-negative integer)");
  }
  return id;
}

}  // namespace

EdgeList read_edge_list(const std::string& path, const ReadOptions& options) {
  detail::LineReader reader(path, options);
  EdgeList list;
  std::uint64_t declared = 0;
  std::uint64_t max_id = 0;
  bool any = false;
  for (std::string_view line; reader.next(line);) {
    std::string_view rest = line;
    const std::string_view first = detail::next_field(rest);
    if (first.empty()) continue;
    if (first[0] == '#' || first[0] == '%') {
      read_nodes_header(line.substr(line.find(first[0])), declared);
      continue;
    }
    const std::uint64_t src = parse_id(reader, first, "source vertex id");
    const std::uint64_t dst = parse_id(reader, detail::next_field(rest), "destination vertex id");
    const std::string_view extra = detail::next_field(rest);
    if (!extra.empty()) {
      reader.fail("unexpected third field " + detail::quote(extra) + " (an edge list line holds two vertex ids)");
    }
    if (src == ~std::uint64_t{0} || dst == ~std::uint64_t{0}) reader.fail("vertex id 18446744073709551615 is too large");
    max_id = std::max({max_id, src, dst});
    any = true;
    list.edges.push_back({src, dst});
  }
  list.vertices = std::max(declared, any ? max_id + 1 : 0);
  return list;
}

EdgeList read_matrix_market(const std::string& path, const ReadOptions& options) {
  detail::LineReader reader(path, options);
  std::string_view line;
  if (!reader.next(line)) reader.fail("empty file (expected a %%MatrixMarket header)");
  std::string_view rest = line;
  std::array<std::string, 5> header;
  for (std::string& word : header) word = lower(detail::next_field(rest));
  if (header[0] != "%%matrixmarket") reader.fail("expected a %%MatrixMarket header, found " + detail::quote(line));
  if (header[1] != "matrix") reader.fail("object " + detail::quote(header[1]) + " is not supported (expected matrix)");
  if (header[2] != "coordinate") {
    reader.fail("format " + detail::quote(header[2]) + " is not supported (a graph needs coordinate format)");
  }
  std::size_t value_fields = 0;
  if (header[3] == "pattern") {
    value_fields = 0;
  } else if (header[3] == "real" || header[3] == "integer") {
    value_fields = 1;
  } else if (header[3] == "complex") {
    value_fields = 2;
  } else {
    reader.fail("field " + detail::quote(header[3]) + " is not one of pattern, integer, real, complex");
  }
  const std::string& symmetry = header[4];
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" && symmetry != "hermitian") {
    reader.fail("symmetry " + detail::quote(symmetry) + " is not one of general, symmetric, skew-symmetric, hermitian");
  }

  // The size line comes after any comments.
  bool have_size = false;
  while (!have_size && reader.next(line)) {
    rest = line;
    const std::string_view first = detail::next_field(rest);
    if (first.empty() || first[0] == '%') continue;
    have_size = true;
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

  EdgeList list;
  list.vertices = rows;
  list.directed = symmetry == "general";
  // The count comes from the file, so reserve only what a sane file could hold.
  list.edges.reserve(std::min<std::uint64_t>(entries, std::uint64_t{1} << 24));
  while (reader.next(line)) {
    rest = line;
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
    for (std::size_t k = 0; k < value_fields; ++k) {
      const std::string_view value = detail::next_field(rest);
      if (value.empty()) reader.fail("missing value of a " + header[3] + " entry");
      if (!detail::is_number(value)) reader.fail("bad value " + detail::quote(value) + " (expected a number)");
    }
    const std::string_view extra = detail::next_field(rest);
    if (!extra.empty()) reader.fail("unexpected field " + detail::quote(extra) + " after the entry");
    list.edges.push_back({i - 1, j - 1});
  }
  if (list.edges.size() != entries) {
    reader.fail("the file ends after " + std::to_string(list.edges.size()) + " of the " + std::to_string(entries) +
                " entries the size line declares");
  }
  return list;
}

}  // namespace smartarrays::graph
