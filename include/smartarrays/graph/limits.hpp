// Owns the limits that keep the memory of reading and building a graph proportional to its input
// and within what the process can be given: the longest text line, how many vertices a file may
// declare beyond the ids it holds, and the check of a graph's build memory against
// os::memory_limit(), each refusing before anything is allocated. docs/input-limits.md states them.
#pragma once

#include <cstdint>
#include <string_view>

#include "smartarrays/export.hpp"

namespace smartarrays::graph {

/// The longest line of a text graph file, in bytes (1 MiB, the line terminator not counted).
inline constexpr std::uint64_t max_line_bytes = std::uint64_t{1} << 20;

/// Vertices any file may declare (an edge list's "# Nodes:" header, a Matrix Market size line),
/// however small it is.
inline constexpr std::uint64_t declared_vertices_floor = std::uint64_t{1} << 20;

/// Vertices each byte of a file may declare beyond the floor.
inline constexpr std::uint64_t declared_vertices_per_byte = 8;

/// The most vertices a file of file_bytes whose ids are all below ids_end may declare:
/// max(ids_end, declared_vertices_floor, declared_vertices_per_byte * file_bytes). Vertices past
/// the largest id are isolated, so only this rule, not the file's contents, bounds their memory.
SMARTARRAYS_API std::uint64_t declared_vertex_limit(std::uint64_t file_bytes, std::uint64_t ids_end) noexcept;

/// The edges build_csr stores for a list of `edges` edges, `self_loops` of them loops, before any
/// is dropped: all of them when directed, both directions of every other edge when not. Throws
/// Error(out_of_memory) when that does not fit in 64 bits.
SMARTARRAYS_API std::uint64_t stored_edge_count(std::uint64_t edges, std::uint64_t self_loops, bool directed);

/// Bytes build_csr holds at least for a graph of `vertices` vertices and `edges` stored (directed)
/// edges: the forward and reverse CSR as 64-bit vectors, 16 bytes per vertex and per edge. Throws
/// Error(out_of_memory) naming the counts when that does not fit in 64 bits.
SMARTARRAYS_API std::uint64_t csr_build_bytes(std::uint64_t vertices, std::uint64_t edges);

/// Throws Error(out_of_memory) "<where>a graph of V vertices and E edges needs at least B to build;
/// the memory limit is L (<source>)" when csr_build_bytes exceeds os::memory_limit(). where
/// prefixes the message (e.g. "FILE:LINE: ").
SMARTARRAYS_API void check_build_memory(std::uint64_t vertices, std::uint64_t edges, std::string_view where = {});

/// Throws Error(out_of_memory) "<where>N lines of edges need at least B to read (room for an edge
/// on each); the memory limit is L (<source>)" when 16 bytes per line exceed os::memory_limit(): a
/// text reader that knows how many lines its file holds has room for their edges before it parses one.
SMARTARRAYS_API void check_text_lines_memory(std::uint64_t lines, std::string_view where = {});

/// Throws Error(out_of_memory) "<where>a graph of V vertices and E edges needs at least B to load;
/// the memory limit is L (<source>)" when bytes (what a streaming loader holds) exceed os::memory_limit().
SMARTARRAYS_API void check_load_memory(std::uint64_t bytes, std::uint64_t vertices, std::uint64_t edges,
                                       std::string_view where = {});

}  // namespace smartarrays::graph
