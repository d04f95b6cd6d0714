// Owns the aggregation workload of the smart-arrays paper (§5.1, Figure 10): sum += a1[i] + a2[i]
// over two SmartArrays as a parallel loop with per-worker partial sums, and its input data
// a[i] = (i + random{0,1,2}) & (2^bits - 1), generated in parallel.
#pragma once

#include <cstdint>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/util/mix64.hpp"

namespace smartarrays::algo {

/// Value i of the paper's aggregation data: (i + r) & (2^bits - 1), r in {0, 1, 2} drawn from (seed, i).
constexpr std::uint64_t aggregation_value(std::uint64_t i, unsigned bits, std::uint64_t seed) noexcept {
  const std::uint64_t mask = bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  return (i + util::mix64(seed ^ util::mix64(i)) % 3) & mask;
}

/// A length-value array of aggregation_value(i, options.bits, seed), built in parallel on pool
/// (each replica by its own node's workers). options.bits must be 1..64.
SMARTARRAYS_API SmartArray make_aggregation_array(std::uint64_t length, const ArrayOptions& options, std::uint64_t seed,
                                                  runtime::ThreadPool& pool = runtime::default_pool());

/// Wrapping sum over i of a1[i] + a2[i], in parallel on pool: each worker reads the replicas of its
/// own node with fused decode-and-add kernels chosen once per loop for each array's bit width, over
/// whole chunks per batch. batch 0 = the runtime's default. Throws Error(invalid_argument) if the
/// lengths differ.
SMARTARRAYS_API std::uint64_t aggregate(const SmartArray& a1, const SmartArray& a2,
                                        runtime::ThreadPool& pool = runtime::default_pool(), std::uint64_t batch = 0);

}  // namespace smartarrays::algo
