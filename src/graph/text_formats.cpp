// Owns the readers of the two text formats: SNAP-style edge lists and Matrix Market coordinate
// files. Both check every field and name the file and line of the first bad one, quote input bytes
// with util::quoted, and hold the counts a file declares to the limits of graph/limits.hpp before
// anything is sized by them.
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "graph/parallel_text.hpp"
#include "graph/text_reader.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/os/mapped_file.hpp"
#include "smartarrays/runtime/interrupt.hpp"
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

// The edge counts an edge list's header comments declare: the smallest and the largest, each with
// its line (a file declares one; one that declares several must hold each).
struct DeclaredEdges {
  bool any = false;
  Counted least;
  Counted most;

  void add(Counted count) {
    if (!any || count.value < least.value) least = count;
    if (!any || count.value > most.value) most = count;
    any = true;
  }
  void add(const DeclaredEdges& other) {
    if (!other.any) return;
    add(other.least);
    add(other.most);
  }
  // True when every declared count is lines, the edge lines the file holds.
  bool holds(std::uint64_t lines) const { return !any || (least.value == lines && most.value == lines); }
};

// SNAP's header comments: "# Nodes: 875713 Edges: 5105039" declares the vertex count and the edge
// lines that follow, and "# Undirected graph: ..." says each line is one undirected edge; other
// comments are ignored.
void read_header(std::string_view comment, std::uint64_t line, Counted& declared, DeclaredEdges& edges, bool& directed) {
  comment.remove_prefix(1);
  const std::string_view word = detail::next_field(comment);
  if (word == "Nodes:") {
    std::uint64_t n = 0;
    if (detail::parse_u64(detail::next_field(comment), n) && n > declared.value) declared = {n, line};
    std::uint64_t m = 0;
    if (detail::next_field(comment) == "Edges:" && detail::parse_u64(detail::next_field(comment), m)) edges.add(Counted{m, line});
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

// Throws unless the file holds the edge lines its header declares: a file cut short (a full disk, a
// download that stopped) would otherwise read as a smaller graph.
void check_declared_edges(const detail::LineReader& reader, const DeclaredEdges& declared, std::uint64_t lines) {
  if (declared.holds(lines)) return;
  const Counted& wrong = declared.most.value != lines ? declared.most : declared.least;
  throw_error(ErrorCode::invalid_argument, reader.where(wrong.line) + "the header declares " + std::to_string(wrong.value) +
                                               " edges, but the file holds " + std::to_string(lines) + " edge lines" +
                                               (lines < wrong.value ? " (was it cut short?)" : ""));
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

// Called before edges grows to hold one more edge (ids below ids_end): throws Error(out_of_memory)
// naming the file and line when the grown list (with the old one while it is copied) and the CSR
// its edges build would exceed os::memory_limit(), so an endless pipe is refused early, not when
// memory runs out. A regular file's list has room for all its lines and grows only when the file
// grew while it was read.
void check_edges_growth(const detail::LineReader& reader, const std::vector<Edge>& edges, std::uint64_t ids_end,
                        std::uint64_t self_loops, bool directed) {
  if (edges.size() < edges.capacity()) return;
  const std::string where = reader.where(reader.line_number());
  const std::uint64_t stored = stored_edge_count(edges.size() + 1, self_loops, directed);
  check_build_memory(ids_end, stored, where);  // names a CSR whose size does not fit in 64 bits
  // std::vector at least doubles; while it copies, the old and the new list are both held (the
  // list lives in memory, so these products are far from 2^64).
  const std::uint64_t held = (3 * edges.capacity() + 1) * sizeof(Edge);
  check_load_memory(held + csr_build_bytes(ids_end, stored), ids_end, stored, where);
}

EdgeList parse_edge_list(detail::LineReader& reader) {
  EdgeList list;
  Counted declared;
  DeclaredEdges declared_edges;
  Counted largest;  // the largest id
  std::uint64_t self_loops = 0;
  bool any = false;
  // A regular file's data lines bound its edges: room for one per line is held before any is parsed,
  // so the list never grows and whether it fits does not depend on the order of the lines (a file
  // that loads is loaded again when rewritten sorted); a pipe's list grows with what arrives.
  if (const std::uint64_t lines = reader.count_data_lines("#%"); lines != 0) {
    check_text_lines_memory(lines, reader.path() + ": ");
    list.edges.reserve(lines);
  }
  for (std::string_view line; reader.next(line);) {
    std::string_view rest = line;
    const std::string_view first = detail::next_field(rest);
    if (first.empty()) continue;
    if (first[0] == '#' || first[0] == '%') {
      read_header(line.substr(line.find(first[0])), reader.line_number(), declared, declared_edges, list.directed);
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
    check_edges_growth(reader, list.edges, largest.value + 1, self_loops, list.directed);
    list.edges.push_back({src, dst});
  }
  const std::uint64_t ids_end = any ? largest.value + 1 : 0;
  check_declared_edges(reader, declared_edges, list.edges.size());
  check_declared_vertices(reader, declared, ids_end);
  list.vertices = std::max(declared.value, ids_end);
  check_build_memory(list.vertices, stored_edge_count(list.edges.size(), self_loops, list.directed),
                     reader.where(declared.value > ids_end ? declared.line : largest.line));
  return list;
}

// What the parallel reader found in one line-aligned range of an edge list.
struct RangeEdges {
  detail::EdgeBlock block;    // the range's edges, room reserved for one per line it holds
  std::uint64_t largest = 0;  // the largest id (when block is not empty)
  std::uint64_t self_loops = 0;
  Counted declared;           // the largest "# Nodes:" count (line numbers are not kept)
  DeclaredEdges declared_edges;
  bool directed = true;       // false once a "# Undirected graph" comment is seen
};

// Parses the lines of [p, end) into r; false at anything but a plain edge line, a comment or a
// blank line within the line cap (the serial reader then names it).
bool next_line(const char*& p, const char* end, std::string_view& line);

bool parse_edge_range(const char* p, const char* end, RangeEdges& r) {
  for (std::string_view line; p < end;) {
    if (!next_line(p, end, line)) return false;
    std::string_view rest = line;
    const std::string_view first = detail::next_field(rest);
    if (first.empty()) continue;
    if (first[0] == '#' || first[0] == '%') {
      read_header(line.substr(line.find(first[0])), 0, r.declared, r.declared_edges, r.directed);
      continue;
    }
    std::uint64_t src = 0;
    std::uint64_t dst = 0;
    if (!detail::parse_u64(first, src) || !detail::parse_u64(detail::next_field(rest), dst)) return false;
    if (!detail::next_field(rest).empty() || src == ~std::uint64_t{0} || dst == ~std::uint64_t{0}) return false;
    r.largest = std::max({r.largest, src, dst});
    r.self_loops += src == dst ? 1 : 0;
    r.block.add(src, dst);
  }
  return true;
}

// The mapped file's bytes.
const char* text_of(const os::MappedFile& file) { return reinterpret_cast<const char*>(file.data()); }

// The bytes a scan of a mapped file reads before it releases them (and looks for an interrupt), so
// a range of one long line is never resident whole.
constexpr std::uint64_t scan_slice_bytes = std::uint64_t{8} << 20;

// Calls scan(p, bytes) on the slices of bytes [from, to) of file in order (slices start at multiples
// of scan_slice_bytes, so each release is of whole pages), each released once scanned, with an
// interrupt check before each; stops, leaving that slice resident, at the first scan that returns false.
template <typename Scan>
void scan_slices(const os::MappedFile& file, std::uint64_t from, std::uint64_t to, Scan&& scan) {
  for (std::uint64_t at = from; at < to;) {
    runtime::check_interrupt();
    const std::uint64_t bytes = std::min((at / scan_slice_bytes + 1) * scan_slice_bytes, to) - at;
    if (!scan(text_of(file) + at, bytes)) return;
    file.release_pages(at, bytes);
    at += bytes;
  }
}

// The lines of bytes [begin, end) of file: its newlines, plus one for a last line without one.
std::uint64_t count_lines(const os::MappedFile& file, std::uint64_t begin, std::uint64_t end) {
  std::uint64_t lines = 0;
  scan_slices(file, begin, end, [&lines](const char* p, std::uint64_t bytes) {
    lines += static_cast<std::uint64_t>(std::count(p, p + bytes, '\n'));
    return true;
  });
  return lines + (begin != end && text_of(file)[end - 1] != '\n' ? 1 : 0);
}

// The offset after the first newline of file at or past from, or the file's size when none is.
std::uint64_t line_start_after(const os::MappedFile& file, std::uint64_t from) {
  std::uint64_t start = file.size();
  scan_slices(file, from, file.size(), [&](const char* p, std::uint64_t bytes) {
    const auto* newline = static_cast<const char*>(std::memchr(p, '\n', bytes));
    if (newline != nullptr) start = static_cast<std::uint64_t>(newline - text_of(file)) + 1;
    return newline == nullptr;
  });
  return start;
}

// Cuts bytes [first, size) of file into line-aligned ranges of about 4 MiB, at least four per
// worker, and parses them in parallel with parse(begin, end, part), each range's edges kept in its
// own block (room for one edge per line, so no block grows or is copied into a joined list); the
// parts in file order, or none when a range was declined or the lines' edges do not fit in memory.
// A range's pages are dropped once counted and once parsed, so the file is never resident whole.
template <typename Parse>
std::optional<std::vector<RangeEdges>> parse_ranges(const os::MappedFile& file, std::uint64_t first,
                                                    runtime::ThreadPool& pool, Parse&& parse) {
  const char* data = text_of(file);
  const std::uint64_t size = file.size();
  const std::uint64_t bytes = size - first;
  const std::uint64_t ranges = std::max<std::uint64_t>(pool.size() * 4, bytes >> 22);
  std::vector<std::uint64_t> starts(ranges + 1, size);
  starts[0] = first;
  // Each range starts after the first newline at or past its nominal start, searched from no earlier
  // than the previous range's start, so the searches cover the file once even when lines are long
  // (a file without a newline is one range, found in one pass, not one pass per range).
  for (std::uint64_t k = 1; k < ranges && starts[k - 1] < size; ++k) {
    starts[k] = line_start_after(file, std::max({first + bytes / ranges * k, starts[k - 1], std::uint64_t{1}}) - 1);
  }
  std::vector<RangeEdges> parts(ranges);
  runtime::LoopOptions one_each;
  one_each.alignment = 1;
  one_each.batch = 1;
  std::vector<std::uint64_t> lines(ranges, 0);
  pool.parallel_for(
      0, ranges,
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t k = lo; k < hi; ++k) {
          lines[k] = count_lines(file, starts[k], starts[k + 1]);
        }
      },
      one_each);
  std::uint64_t total_lines = 0;
  for (const std::uint64_t count : lines) total_lines += count;
  try {
    check_text_lines_memory(total_lines);  // comments and blank lines have room too
  } catch (const Error&) {
    return std::nullopt;
  }
  const bool parsed = pool.parallel_reduce(
      0, ranges, true,
      [&](std::uint64_t lo, std::uint64_t hi) {
        bool ok = true;
        for (std::uint64_t k = lo; k < hi && ok; ++k) {
          runtime::check_interrupt();
          parts[k].block.reserve(lines[k]);
          ok = parse(data + starts[k], data + starts[k + 1], parts[k]);
          file.release_pages(starts[k], starts[k + 1] - starts[k]);
        }
        return ok;
      },
      [](bool a, bool b) { return a && b; }, one_each);
  if (!parsed) return std::nullopt;
  return parts;
}

// The ranges' blocks, in file order, as the file's edges.
std::vector<detail::EdgeBlock> blocks_of(std::vector<RangeEdges>& parts) {
  std::vector<detail::EdgeBlock> blocks;
  blocks.reserve(parts.size());
  for (RangeEdges& r : parts) blocks.push_back(std::move(r.block));
  return blocks;
}

// The parallel edge-list read over a mapped file of size bytes, or none (see parallel_text.hpp).
std::optional<detail::EdgeBlocks> parse_edge_list_parallel(const os::MappedFile& file, runtime::ThreadPool& pool) {
  const std::uint64_t size = file.size();
  detail::EdgeBlocks list;
  std::optional<std::vector<RangeEdges>> parts = parse_ranges(file, 0, pool, parse_edge_range);
  if (!parts) return std::nullopt;
  std::uint64_t total = 0, self_loops = 0, largest = 0;
  std::uint64_t declared = 0;
  DeclaredEdges declared_edges;
  for (const RangeEdges& r : *parts) {
    total += r.block.size();
    self_loops += r.self_loops;
    if (r.block.size() != 0) largest = std::max(largest, r.largest);
    declared = std::max(declared, r.declared.value);
    declared_edges.add(r.declared_edges);
    list.directed = list.directed && r.directed;
  }
  const std::uint64_t ids_end = total == 0 ? 0 : largest + 1;
  if (!declared_edges.holds(total) || declared > declared_vertex_limit(size, ids_end)) return std::nullopt;
  list.vertices = std::max(declared, ids_end);
  try {
    check_build_memory(list.vertices, stored_edge_count(total, self_loops, list.directed));
  } catch (const Error&) {
    return std::nullopt;
  }
  list.blocks = blocks_of(*parts);
  return list;
}

// The next line of [p, end) (without "\r\n"), advancing p; false at the end or for a line over the cap.
bool next_line(const char*& p, const char* end, std::string_view& line) {
  if (p >= end) return false;
  // A line within the cap ends within its bytes, a "\r" and the newline: no search past them.
  const auto left = static_cast<std::size_t>(end - p);
  const std::size_t reach = std::min(left, max_line_bytes + 2);
  const auto* newline = static_cast<const char*>(std::memchr(p, '\n', reach));
  if (newline == nullptr && reach < left) return false;
  const char* line_end = newline != nullptr ? newline : end;
  line = std::string_view(p, static_cast<std::size_t>(line_end - p));
  p = newline != nullptr ? newline + 1 : end;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line.size() <= max_line_bytes;
}

// Parses the Matrix Market entries of [p, end) into r (0-based edges; r.largest is the largest
// 1-based index); false at anything the serial reader would refuse or name.
bool parse_entry_range(const char* p, const char* end, std::uint64_t rows, std::size_t value_fields, RangeEdges& r) {
  for (std::string_view line; p < end;) {
    if (!next_line(p, end, line)) return false;
    std::string_view rest = line;
    const std::string_view first = detail::next_field(rest);
    if (first.empty() || first[0] == '%') continue;
    std::uint64_t i = 0;
    std::uint64_t j = 0;
    if (!detail::parse_u64(first, i) || !detail::parse_u64(detail::next_field(rest), j)) return false;
    if (i == 0 || i > rows || j == 0 || j > rows) return false;
    for (std::size_t k = 0; k < value_fields; ++k) {
      if (!detail::is_number(detail::next_field(rest))) return false;
    }
    if (!detail::next_field(rest).empty()) return false;
    r.largest = std::max({r.largest, i, j});
    r.self_loops += i == j ? 1 : 0;
    r.block.add(i - 1, j - 1);
  }
  return true;
}

// The parallel Matrix Market read: the header and size line read here (declining anything but
// a well-formed one), the entries in parallel ranges; none when the serial reader must name a problem.
std::optional<detail::EdgeBlocks> parse_matrix_market_parallel(const os::MappedFile& file, runtime::ThreadPool& pool) {
  const char* data = text_of(file);
  const std::uint64_t size = file.size();
  const char* p = data;
  const char* end = data + size;
  std::string_view line;
  if (!next_line(p, end, line)) return std::nullopt;
  std::string_view rest = line;
  std::array<std::string, 5> header;
  for (std::string& word : header) word = lower(detail::next_field(rest));
  if (header[0] != "%%matrixmarket" || header[1] != "matrix" || header[2] != "coordinate") return std::nullopt;
  const std::size_t value_fields = header[3] == "pattern" ? 0 : header[3] == "real" || header[3] == "integer" ? 1
                                   : header[3] == "complex"                                             ? 2
                                                                                                         : 3;
  const std::string& symmetry = header[4];
  if (value_fields == 3 ||
      (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" && symmetry != "hermitian")) {
    return std::nullopt;
  }
  bool have_size = false;
  while (!have_size && p < end) {
    if (!next_line(p, end, line)) return std::nullopt;
    rest = line;
    const std::string_view first = detail::next_field(rest);
    have_size = !first.empty() && first[0] != '%';
  }
  if (!have_size) return std::nullopt;
  rest = line;
  std::uint64_t rows = 0, cols = 0, entries = 0;
  if (!detail::parse_u64(detail::next_field(rest), rows) || !detail::parse_u64(detail::next_field(rest), cols) ||
      !detail::parse_u64(detail::next_field(rest), entries) || !detail::next_field(rest).empty() || rows != cols ||
      entries > (size + 1) / min_entry_bytes) {
    return std::nullopt;
  }
  try {
    check_build_memory(rows, entries);
  } catch (const Error&) {
    return std::nullopt;
  }
  const auto body = static_cast<std::uint64_t>(p - data);
  detail::EdgeBlocks list;
  std::optional<std::vector<RangeEdges>> parts =
      body == size ? std::vector<RangeEdges>{}
                   : parse_ranges(file, body, pool, [&](const char* b, const char* e, RangeEdges& r) {
                       return parse_entry_range(b, e, rows, value_fields, r);
                     });
  if (!parts) return std::nullopt;
  std::uint64_t total = 0, self_loops = 0, ids_end = 0;
  for (const RangeEdges& r : *parts) {
    total += r.block.size();
    self_loops += r.self_loops;
    ids_end = std::max(ids_end, r.largest);
  }
  list.vertices = rows;
  list.directed = symmetry == "general";
  if (total != entries || rows > declared_vertex_limit(size, ids_end)) return std::nullopt;
  try {
    check_build_memory(rows, stored_edge_count(entries, self_loops, list.directed));
  } catch (const Error&) {
    return std::nullopt;
  }
  list.blocks = blocks_of(*parts);
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
    check_edges_growth(reader, list.edges, rows, self_loops, list.directed);
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

std::optional<detail::EdgeBlocks> detail::read_text_parallel(const std::string& path, GraphFormat format,
                                                            const ReadOptions& options, runtime::ThreadPool& pool,
                                                            std::uint64_t min_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_size) < min_bytes ||
      st.st_size == 0) {
    return std::nullopt;
  }
  const os::MappedFile file = os::MappedFile::open(path);
  std::optional<EdgeBlocks> list;
  try {
    list = format == GraphFormat::matrix_market ? parse_matrix_market_parallel(file, pool)
                                                : parse_edge_list_parallel(file, pool);
  } catch (const std::bad_alloc&) {
    return std::nullopt;  // what was parsed is freed; the serial reader names the line it reaches
  }
  if (list && options.progress) options.progress(file.size(), file.size());
  return list;
}

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
