// Owns the internal parallel steps of CSR construction on plain vectors: prefix sums, structural
// checks, per-vertex sorting with duplicate and self-loop removal, transposition, comparison, and
// decoding a smart array back into a vector. Shared by the builder and CsrGraph::validate.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/graph/build.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::graph::detail {

/// Frees v's storage now (`v = {}` would not: it assigns an empty initializer list, keeping the capacity).
template <typename T>
void release(std::vector<T>& v) noexcept {
  std::vector<T>().swap(v);
}

/// Turns counts[0..n) (counts.size() == n + 1, last entry ignored) into exclusive prefix sums in
/// place, so counts[n] is the total. Parallel over blocks.
void exclusive_scan(std::vector<std::uint64_t>& counts, runtime::ThreadPool& pool);

/// Throws Error(invalid_argument) "<what>: ..." unless parts is a CSR over `vertices` vertices:
/// n+1 offsets from 0, never decreasing, ending at targets.size(), every id below vertices.
void check_parts(const CsrParts& parts, std::uint64_t vertices, const std::string& what, runtime::ThreadPool& pool);

/// A forward CSR whose neighbour ids are staged in 32 bits (a graph of at most 2^32 vertices), so a
/// build holds half the bytes per edge of CsrParts; the same steps below apply to both.
struct NarrowCsrParts {
  std::vector<std::uint64_t> offsets;  ///< n+1 offsets
  std::vector<std::uint32_t> targets;  ///< offsets[n] neighbour ids
};

/// Sorts every neighbour list, then drops self-loops and repeated ids as asked, compacting the
/// arrays when anything was dropped. Parts is CsrParts or NarrowCsrParts.
template <typename Parts>
void normalize(Parts& parts, bool drop_self_loops, bool dedup, runtime::ThreadPool& pool);

/// The transpose of a CSR over `vertices` vertices, neighbour lists ascending, with the same id width.
template <typename Parts>
Parts transpose(const Parts& parts, std::uint64_t vertices, runtime::ThreadPool& pool);

/// Where two CSRs first differ: neighbour `id` appears count_a times in vertex `vertex`'s list of
/// the first CSR and count_b times in the second's.
struct ListDifference {
  std::uint64_t vertex = 0;   ///< the first vertex whose lists differ
  std::uint64_t id = 0;       ///< the smallest neighbour id whose count differs there
  std::uint64_t count_a = 0;  ///< its count in the first CSR's list
  std::uint64_t count_b = 0;  ///< its count in the second's
};

/// The first difference between two CSRs over `vertices` vertices (both valid, as check_parts
/// accepts them, with ascending lists), or none when they are equal. Parallel.
std::optional<ListDifference> first_difference(const CsrParts& a, const CsrParts& b, std::uint64_t vertices,
                                               runtime::ThreadPool& pool);

/// "1 time" or "N times", for messages about a ListDifference's counts.
std::string times(std::uint64_t count);

/// The index in parts.targets of the first `id` in vertex's list (its stored order), or none.
std::optional<std::uint64_t> position_in_list(const CsrParts& parts, std::uint64_t vertex, std::uint64_t id);

/// "graph array edge of 12 values": how errors name graph array `which` of length values.
std::string array_context(GraphArray which, std::uint64_t length);

/// values encoded in parallel as graph array `which` with options, naming the array in any error.
SmartArray encode_graph_array(GraphArray which, std::span<const std::uint64_t> values, const ArrayOptions& options,
                              runtime::ThreadPool& pool);
/// The same from 32-bit values (a NarrowCsrParts' ids), widened per batch.
SmartArray encode_graph_array(GraphArray which, std::span<const std::uint32_t> values, const ArrayOptions& options,
                              runtime::ThreadPool& pool);

/// Every value of array, decoded in parallel.
std::vector<std::uint64_t> decode_all(const SmartArray& array, runtime::ThreadPool& pool);

}  // namespace smartarrays::graph::detail
