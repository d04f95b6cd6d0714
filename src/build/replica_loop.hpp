// Owns the one loop shape every whole-array operation of the build layer runs on: the values of a
// range of replicas as batches of a pool loop, each replica's values taken only by its own node's
// workers (a replicated array), a partitioned array's stripes by their nodes' workers first, any
// other array's values by all workers; and the per-worker scratch buffers of such loops.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/runtime/loop.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::build::detail {

/// Values [begin, end) of one replica: a batch of a replica loop.
struct ReplicaBatch {
  std::size_t replica = 0;  ///< the replica the batch belongs to
  std::uint64_t begin = 0;  ///< first value index (a multiple of a chunk)
  std::uint64_t end = 0;    ///< one past the last value index
};

/// The parts of a loop over replicas [first, last) of array: replica r's values occupy the stretch
/// [(r - first) * stretch, ... + length) of the loop's index space, owned by r's node.
struct ReplicaParts {
  std::vector<runtime::LoopPart> parts;  ///< empty: split [0, length) over the pool's nodes
  runtime::LoopOptions options;          ///< the caller's, with stealing off for per-replica parts
  std::uint64_t stretch = 0;             ///< index-space stride between replicas (a multiple of the alignment)
};

/// The parts for replicas [first, last) (last <= array.replicas(), first < last) with options'
/// alignment (a multiple of a chunk). Throws Error(out_of_range) for a bad replica range.
ReplicaParts replica_parts(const SmartArray& array, std::size_t first, std::size_t last, runtime::LoopOptions options);

/// Runs body(const ReplicaBatch&, const runtime::WorkerContext&) on pool over every value of
/// replicas [first, last) of array, as replica_parts lays them out; nothing for an empty array.
template <typename Body>
void for_each_replica_batch(const SmartArray& array, std::size_t first, std::size_t last, runtime::ThreadPool& pool,
                            const runtime::LoopOptions& options, Body&& body) {
  const ReplicaParts plan = replica_parts(array, first, last, options);
  if (array.length() == 0) return;
  runtime::Loop loop = plan.parts.empty() ? runtime::Loop(0, array.length(), pool.workers_per_node(), plan.options)
                                          : runtime::Loop(plan.parts, plan.options);
  pool.run(loop, [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
    const std::uint64_t k = lo / plan.stretch;
    body(ReplicaBatch{first + k, lo - k * plan.stretch, hi - k * plan.stretch}, ctx);
  });
}

/// One growable scratch buffer per worker of a pool (one in all when the loop runs nested, inline).
class WorkerBuffers {
 public:
  /// Buffers for the workers of pool, empty until first used.
  explicit WorkerBuffers(const runtime::ThreadPool& pool)
      : nested_(runtime::current_worker() != nullptr), buffers_(nested_ ? 1 : pool.size()) {}
  /// The calling worker's buffer, at least count words long.
  std::uint64_t* get(const runtime::WorkerContext& ctx, std::uint64_t count) {
    std::vector<std::uint64_t>& buffer = buffers_[nested_ ? 0 : ctx.worker];
    if (buffer.size() < count) buffer.resize(count);
    return buffer.data();
  }

 private:
  bool nested_;
  std::vector<std::vector<std::uint64_t>> buffers_;
};

}  // namespace smartarrays::build::detail
