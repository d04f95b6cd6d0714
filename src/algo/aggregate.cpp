// Owns the aggregation loop and its data generator. The loop's batches are chunk-aligned, so a
// batch is whole chunks of both streams (the last chunk's padding is zero and adds nothing), and
// sum(a1[i] + a2[i]) over a batch is the fused kernel sum of a1's chunks plus that of a2's: the
// same value modulo 2^64, with no per-element dispatch or buffer.
#include "smartarrays/algo/aggregate.hpp"

#include <algorithm>
#include <string>

#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::algo {

SmartArray make_aggregation_array(std::uint64_t length, const ArrayOptions& options, std::uint64_t seed,
                                  runtime::ThreadPool& pool) {
  const unsigned bits = options.bits;
  return build::build_array(
      length, options,
      [bits, seed](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = aggregation_value(i, bits, seed);
      },
      pool);
}

std::uint64_t aggregate(const SmartArray& a1, const SmartArray& a2, runtime::ThreadPool& pool, std::uint64_t batch) {
  if (a1.length() != a2.length()) {
    throw_error(ErrorCode::invalid_argument, "aggregate: arrays differ in length (" + std::to_string(a1.length()) +
                                                 " and " + std::to_string(a2.length()) + ")");
  }
  const codec::Kernels& k1 = codec::kernels(a1.bits());
  const codec::Kernels& k2 = codec::kernels(a2.bits());
  // Chunks per step: about 4 KiB (one base page) of the wider array's words, at least 8 chunks.
  const std::uint64_t step = std::max<std::uint64_t>(8, 4096 / (8 * std::max(a1.bits(), a2.bits())));
  runtime::LoopOptions options;
  options.batch = batch;
  options.alignment = codec::chunk_values;
  // A partitioned array's stripes become the loop's per-node parts, so each worker scans the
  // stripes of its own node first; otherwise the range is split by workers per node.
  options.layout = build::stripe_parts(a1);
  runtime::Loop loop(0, a1.length(), pool.workers_per_node(), options);
  return pool.reduce(
      loop, std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
        // Replica choice once per batch from the worker's node: no per-element lookup.
        const std::uint64_t* w1 = a1.replica(a1.replica_index_for_node(ctx.node));
        const std::uint64_t* w2 = a2.replica(a2.replica_index_for_node(ctx.node));
        const std::uint64_t end = codec::chunk_count(hi);
        std::uint64_t sum = 0;
        // Alternate between the arrays every few KiB rather than once per batch, so both streams
        // stay in flight (as in the element-wise loop) instead of restarting a stream per batch.
        for (std::uint64_t c = lo / codec::chunk_values; c < end; c += step) {
          const std::uint64_t count = std::min(step, end - c);
          sum += k1.sum(w1, c, count) + k2.sum(w2, c, count);
        }
        return sum;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

}  // namespace smartarrays::algo
