// Owns the degree centrality workload of the smart-arrays paper (§5.2, Figure 11): for every
// vertex, out-degree plus in-degree from two consecutive values of the CSR offset arrays begin and
// rbegin, written to an output array; and picking the k vertices with the largest values.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::algo {

/// Fills out[v] = (begin[v+1] - begin[v]) + (rbegin[v+1] - rbegin[v]) in parallel on pool, each
/// worker decoding begin and rbegin from its own node's replicas in chunk-aligned batches.
/// Throws Error(invalid_argument) unless begin and rbegin hold out.length() + 1 values, or naming
/// a degree too wide for out.
SMARTARRAYS_API void degree_centrality(const SmartArray& begin, const SmartArray& rbegin, SmartArray& out,
                                       runtime::ThreadPool& pool = runtime::default_pool());

/// degree_centrality into a new array made with output (bits 0 = the fewest bits that hold
/// begin[n] + rbegin[n], a bound on every vertex's degree; the paper interleaves this array).
SMARTARRAYS_API SmartArray degree_centrality(const SmartArray& begin, const SmartArray& rbegin, const ArrayOptions& output,
                                             runtime::ThreadPool& pool = runtime::default_pool());

/// The k largest values of an unsigned array with their indices, largest first, ties by smaller index.
SMARTARRAYS_API std::vector<std::pair<std::uint64_t, std::uint64_t>> top_k(const SmartArray& values, std::size_t k);

}  // namespace smartarrays::algo
