// Owns the graph size limits: the declared-vertex rule and the build-memory check, with sizes
// formed through util::checked_* so a count near 2^64 is refused instead of wrapping.
#include "smartarrays/graph/limits.hpp"

#include <algorithm>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_limit.hpp"
#include "smartarrays/util/byte_size.hpp"
#include "smartarrays/util/checked.hpp"

namespace smartarrays::graph {

namespace {

// The forward and reverse CSR, offsets and ids, each value 64 bits.
constexpr std::uint64_t bytes_per_vertex = 2 * sizeof(std::uint64_t);
constexpr std::uint64_t bytes_per_edge = 2 * sizeof(std::uint64_t);
// An edge a text reader holds before the build: its source and destination ids.
constexpr std::uint64_t bytes_per_read_edge = 2 * sizeof(std::uint64_t);

std::string graph_text(std::uint64_t vertices, std::uint64_t edges) {
  return "a graph of " + std::to_string(vertices) + " vertices and " + std::to_string(edges) + " edges";
}

// f()'s byte count; a count that does not fit in 64 bits is refused with where before its message.
template <typename F>
std::uint64_t sized(std::string_view where, F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    throw Error(e.code(), std::string(where) + e.what());
  }
}

// Throws Error(out_of_memory) "<where><needs()> at least B <purpose>; the memory limit is L
// (<source>)" when bytes exceed os::memory_limit(); needs() ("a graph of ... needs") is formed only then.
template <typename Needs>
void check_within_limit(std::uint64_t bytes, std::string_view where, Needs&& needs, std::string_view purpose) {
  const os::MemoryLimit& limit = os::memory_limit();
  if (bytes <= limit.bytes) return;
  throw_error(ErrorCode::out_of_memory, std::string(where) + needs() + " at least " + util::format_bytes(bytes) + " " +
                                            std::string(purpose) + "; the memory limit is " +
                                            util::format_bytes(limit.bytes) + " (" + limit.source + ")");
}

}  // namespace

std::uint64_t declared_vertex_limit(std::uint64_t file_bytes, std::uint64_t ids_end) noexcept {
  std::uint64_t by_size = 0;
  if (__builtin_mul_overflow(file_bytes, declared_vertices_per_byte, &by_size)) by_size = ~std::uint64_t{0};
  return std::max({ids_end, declared_vertices_floor, by_size});
}

std::uint64_t stored_edge_count(std::uint64_t edges, std::uint64_t self_loops, bool directed) {
  if (directed) return edges;
  return util::checked_mul(edges, 2, "the stored edges of an undirected graph") - self_loops;
}

std::uint64_t csr_build_bytes(std::uint64_t vertices, std::uint64_t edges) {
  const std::string what = "the build memory of " + graph_text(vertices, edges);
  const std::uint64_t offsets = util::checked_mul(util::checked_add(vertices, 1, what), bytes_per_vertex, what);
  return util::checked_add(offsets, util::checked_mul(edges, bytes_per_edge, what), what);
}

void check_build_memory(std::uint64_t vertices, std::uint64_t edges, std::string_view where) {
  const std::uint64_t bytes = sized(where, [&] { return csr_build_bytes(vertices, edges); });
  check_within_limit(bytes, where, [&] { return graph_text(vertices, edges) + " needs"; }, "to build");
}

void check_text_lines_memory(std::uint64_t lines, std::string_view where) {
  const std::uint64_t bytes = sized(where, [&] {
    return util::checked_mul(lines, bytes_per_read_edge, "the room for the edges of " + std::to_string(lines) + " lines");
  });
  check_within_limit(bytes, where, [&] { return std::to_string(lines) + " lines of edges need"; },
                     "to read (room for an edge on each)");
}

void check_load_memory(std::uint64_t bytes, std::uint64_t vertices, std::uint64_t edges, std::string_view where) {
  check_within_limit(bytes, where, [&] { return graph_text(vertices, edges) + " needs"; }, "to load");
}

}  // namespace smartarrays::graph
