// Owns the declaration of the parallel text readers (implemented with the serial readers in
// text_formats.cpp): a regular file mapped and parsed over line-aligned ranges by the pool's
// workers, for edge lists made only of plain "src dst" lines, comments and blank lines, and Matrix
// Market files with a well-formed header and size line and plain entries, within the limits;
// anything else goes to the serial reader, which names the file and line of a problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "graph/edge_blocks.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph::detail {

/// Files below this many bytes are read serially (waking the workers costs more than it saves).
inline constexpr std::uint64_t parallel_text_min_bytes = std::uint64_t{4} << 20;

/// The edges read_edge_list(path) or read_matrix_market(path) (format: edge_list or
/// matrix_market) gives, in the same order, read in parallel on pool into narrow blocks; none when the file is not a regular file of at
/// least min_bytes, or holds anything the serial reader would refuse, or breaks a limit (the serial
/// reader then reads it and names the problem). Throws Error(os_error) when the file cannot be
/// mapped, Error(cancelled) on an interrupt.
std::optional<EdgeBlocks> read_text_parallel(const std::string& path, GraphFormat format, const ReadOptions& options,
                                             runtime::ThreadPool& pool, std::uint64_t min_bytes = parallel_text_min_bytes);

}  // namespace smartarrays::graph::detail
