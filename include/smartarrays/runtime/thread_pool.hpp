// Owns the worker pool: threads placed on the topology by a pinning policy (none / sparse / dense),
// each knowing its node, running Loops in batches; parallel_for and parallel_reduce on top, and the
// process-wide default pool sized by SMARTARRAYS_THREADS.
//
// The calling thread of parallel_for waits (it does not run batches): a caller is usually not
// pinned, so letting it take batches would give the loop a worker of unknown node and would put one
// thread more than there are CPUs on a fully pinned pool. A pool of one worker that the caller can
// stand in for (unpinned, or on a one-node topology, where any thread runs on the worker's node) is
// the exception: its caller runs each loop itself as worker 0 while the worker sleeps, saving the
// two thread hand-offs per loop that dominate short loops. A parallel_for started from inside a loop
// body (any pool's) runs inline on that thread, batch by batch, with the enclosing worker's context:
// nested loops never deadlock and never oversubscribe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/runtime/loop.hpp"

namespace smartarrays::os {
class Topology;
}

namespace smartarrays::runtime {

/// Where workers run (numa-analytics-strategies §3.2).
enum class PinPolicy {
  none,    ///< not pinned: the OS may migrate workers; a worker's node is read when it starts a loop
  sparse,  ///< spread over nodes first (round-robin), for the most memory bandwidth at low counts
  dense,   ///< fill a node's CPUs before the next node, for the least remote traffic
};

/// "none", "sparse" or "dense".
SMARTARRAYS_API const char* to_string(PinPolicy policy) noexcept;
/// The policy spelled name; throws Error(invalid_argument) listing the valid names.
SMARTARRAYS_API PinPolicy parse_pin_policy(std::string_view name);

/// The node each of threads workers gets under policy (for none: the nominal sparse spread that
/// sizes the per-node queues). Workers beyond the usable CPUs wrap around in the same order.
SMARTARRAYS_API std::vector<int> plan_worker_nodes(const os::Topology& topology, std::size_t threads,
                                                   PinPolicy policy);

/// SMARTARRAYS_THREADS (1..4096) if set, else the usable CPUs; throws Error naming a bad value.
SMARTARRAYS_API std::size_t default_thread_count();

/// How to build a pool.
struct PoolOptions {
  std::size_t threads = 0;              ///< workers; 0 = default_thread_count()
  PinPolicy pinning = PinPolicy::sparse;  ///< thread placement
};

/// What a loop body learns about the worker running it.
struct WorkerContext {
  std::size_t worker = 0;   ///< worker index in its pool, 0..workers-1 (indexes per-worker state)
  int node = 0;             ///< logical node the worker runs on: read the replica of this node
  std::size_t workers = 1;  ///< workers in the pool
};

/// The context of the loop body running on the calling thread, or nullptr outside loop bodies.
SMARTARRAYS_API const WorkerContext* current_worker() noexcept;

/// What a pool ran while tracing (ThreadPool::trace): each loop's parts and, per worker, the batches it
/// took in order, so a test or tool can see where each batch ran (its part's node vs the worker's).
struct LoopTrace {
  /// One loop the pool ran.
  struct Traced {
    std::vector<LoopPart> parts;                 ///< the loop's per-node parts
    std::vector<int> worker_nodes;               ///< node of each worker
    std::vector<std::vector<Batch>> by_worker;   ///< batches each worker took, in the order taken
  };
  std::vector<Traced> loops;  ///< in the order the loops ran (nested, inline loops are not traced)
};

/// A fixed set of worker threads that run one loop at a time; submitting threads queue up.
/// Destroy it from outside its loop bodies; destruction joins every worker.
class SMARTARRAYS_API ThreadPool {
 public:
  /// Starts and places the workers over os::topology(); throws Error if a thread cannot be made or pinned.
  explicit ThreadPool(const PoolOptions& options = {});
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  /// Number of workers.
  std::size_t size() const noexcept;
  /// The placement policy the workers were started with.
  PinPolicy pinning() const noexcept;
  /// The planned node of worker w.
  int worker_node(std::size_t w) const;
  /// Workers per logical node (index = node id).
  const std::vector<std::size_t>& workers_per_node() const noexcept;
  /// Records every loop this pool runs from now on into trace (nullptr stops). Set it while no loop runs.
  void trace(LoopTrace* trace) noexcept;

  /// Runs body over [begin, end) in batches on the workers: body(lo, hi) or body(lo, hi, const
  /// WorkerContext&). Returns when every batch is done; rethrows the first exception a body threw
  /// (the rest of the loop is skipped), or throws Error(cancelled) if options.token was cancelled.
  template <typename Body>
  void parallel_for(std::uint64_t begin, std::uint64_t end, Body&& body, const LoopOptions& options = {}) {
    Loop loop(begin, end, workers_per_node(), options);
    run(loop, std::forward<Body>(body));
  }

  /// Folds body(lo, hi[, ctx]) -> T over [begin, end) with combine, one partial per worker, then
  /// the partials in worker order; combine must be associative and identity its neutral element.
  template <typename T, typename Body, typename Combine>
  T parallel_reduce(std::uint64_t begin, std::uint64_t end, T identity, Body&& body, Combine&& combine,
                    const LoopOptions& options = {}) {
    Loop loop(begin, end, workers_per_node(), options);
    return reduce(loop, std::move(identity), std::forward<Body>(body), std::forward<Combine>(combine));
  }

  /// parallel_reduce over the batches of an existing loop (for instance one with explicit parts).
  template <typename T, typename Body, typename Combine>
  T reduce(Loop& loop, T identity, Body&& body, Combine&& combine);

  /// Runs body over the batches of an existing loop (external threads may pull from it too).
  template <typename Body>
  void run(Loop& loop, Body&& body) {
    using B = std::remove_reference_t<Body>;
    run_erased(
        loop,
        [](void* state, std::uint64_t lo, std::uint64_t hi, const WorkerContext& ctx) {
          B& fn = *static_cast<B*>(state);
          if constexpr (std::is_invocable_v<B&, std::uint64_t, std::uint64_t, const WorkerContext&>) {
            fn(lo, hi, ctx);
          } else {
            fn(lo, hi);
          }
        },
        const_cast<void*>(static_cast<const void*>(std::addressof(body))));
  }

 private:
  using BatchFn = void (*)(void* state, std::uint64_t lo, std::uint64_t hi, const WorkerContext& ctx);
  void run_erased(Loop& loop, BatchFn fn, void* state);
  struct State;
  std::unique_ptr<State> state_;
};

namespace detail {
// One partial per cache line, so workers updating their partials do not share lines.
template <typename T>
struct alignas(64) Partial {
  T value;
};
}  // namespace detail

template <typename T, typename Body, typename Combine>
T ThreadPool::reduce(Loop& loop, T identity, Body&& body, Combine&& combine) {
  // Nested (inline) runs carry the enclosing pool's worker index, so they get a single partial.
  const bool nested = current_worker() != nullptr;
  std::vector<detail::Partial<T>> partials(nested ? 1 : size(), detail::Partial<T>{identity});
  run(loop, [&](std::uint64_t lo, std::uint64_t hi, const WorkerContext& ctx) {
    T& partial = partials[nested ? 0 : ctx.worker].value;
    if constexpr (std::is_invocable_v<Body&, std::uint64_t, std::uint64_t, const WorkerContext&>) {
      partial = combine(std::move(partial), body(lo, hi, ctx));
    } else {
      partial = combine(std::move(partial), body(lo, hi));
    }
  });
  T result = std::move(identity);
  for (detail::Partial<T>& partial : partials) result = combine(std::move(result), std::move(partial.value));
  return result;
}

/// The process-wide pool (default_thread_count() workers, sparse pinning), made on first use and
/// remade when os::set_fake_topology() changed the topology (same rule: no loop may be running).
SMARTARRAYS_API ThreadPool& default_pool();

/// ThreadPool::parallel_for on the default pool.
template <typename Body>
void parallel_for(std::uint64_t begin, std::uint64_t end, Body&& body, const LoopOptions& options = {}) {
  default_pool().parallel_for(begin, end, std::forward<Body>(body), options);
}

/// ThreadPool::parallel_reduce on the default pool.
template <typename T, typename Body, typename Combine>
T parallel_reduce(std::uint64_t begin, std::uint64_t end, T identity, Body&& body, Combine&& combine,
                  const LoopOptions& options = {}) {
  return default_pool().parallel_reduce(begin, end, std::move(identity), std::forward<Body>(body),
                                        std::forward<Combine>(combine), options);
}

}  // namespace smartarrays::runtime
