// Owns the parallel loop as a shared work source: a range split into per-node parts, each consumed
// in batches through an atomic cursor, local parts first and remote ones nearest first, plus the
// cancellation token and the first-error slot. Any thread may pull batches from a Loop: the pool's
// workers, or external threads (the Java binding's) through next().
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::runtime {

/// Indices per batch at most when the batch size is chosen automatically: enough that one batch
/// is tens of microseconds of streaming work, so one atomic increment per batch is noise.
inline constexpr std::uint64_t default_max_batch = 16384;

/// Default batch alignment: one chunk of a bit-compressed array, so batches never split a chunk.
inline constexpr std::uint64_t default_alignment = 64;

/// A shareable flag that cancels every loop it is given to; copies share the flag.
class SMARTARRAYS_API CancellationToken {
 public:
  /// A fresh, not yet cancelled token.
  CancellationToken();
  /// Asks every loop holding this token to stop handing out batches; running batches finish.
  void cancel() const noexcept;
  /// True once cancel() was called on this token or a copy.
  bool cancelled() const noexcept;

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

/// Per-worker counters of one pool loop, filled when LoopOptions::stats is set.
struct LoopStats {
  std::vector<std::uint64_t> batches;  ///< batches each worker ran
  std::vector<std::uint64_t> stolen;   ///< of those, batches taken from another node's part
  std::vector<std::uint64_t> indices;  ///< indices each worker ran
};

/// A contiguous piece of a loop's range that belongs to one node's queue (node must be a logical
/// node, 0..node_count()-1). The same type as the array layer's partitions (os::NodeRange).
using LoopPart = os::NodeRange;

/// How a loop hands out work.
struct LoopOptions {
  /// Indices per batch; 0 picks one from the range and participant count (at most
  /// default_max_batch). Rounded up to a multiple of alignment.
  std::uint64_t batch = 0;
  /// Batch boundaries fall on multiples of this absolute index (1 = anywhere); the default keeps
  /// the 64-value chunks of bit-compressed arrays whole, so a batch can decode whole chunks.
  std::uint64_t alignment = default_alignment;
  /// When false a participant takes batches only from its own node's parts (and, in a pool loop,
  /// from parts of nodes the pool has no worker on): used to write each replica from its own node.
  bool steal = true;
  /// Cancels the loop from any thread; a cancelled pool loop throws Error(ErrorCode::cancelled).
  CancellationToken token{};
  /// Filled with per-worker counters by a pool loop when not null (not by external threads).
  LoopStats* stats = nullptr;
  /// Where the data of the loop's indices lives, e.g. SmartArray::partitions() of the array the loop
  /// reads: a range loop is cut along these ranges, each piece going to its node's queue, so each
  /// node's workers run the batches of their own stripes first. Ranges of node -1 and indices no
  /// range covers are split by the node weights as without a layout; cuts fall on the alignment.
  /// Empty (the default) = no layout.
  std::vector<LoopPart> layout{};
};


/// The layout of a loop over items 0..count-1 whose data starts at position first(k) of data laid out
/// as ranges (first non-decreasing in k; e.g. vertex k's first edge in a partitioned edge array, or
/// task k's first row): item k goes to the node of the range holding first(k). Ranges of node -1
/// are left out (their items are split by node weights). O(ranges * log count) calls of first.
template <typename First>
std::vector<LoopPart> layout_through(std::span<const LoopPart> ranges, std::uint64_t count, First&& first) {
  // The first item whose data starts at or after position.
  const auto first_item_from = [&](std::uint64_t position) {
    std::uint64_t lo = 0, hi = count;
    while (lo < hi) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (first(mid) < position) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };
  std::vector<LoopPart> items;
  for (const LoopPart& range : ranges) {
    if (range.node < 0) continue;
    const std::uint64_t lo = first_item_from(range.begin);
    const std::uint64_t hi = first_item_from(range.end);
    if (lo < hi) items.push_back({range.node, lo, hi});
  }
  return items;
}

/// One batch handed out by Loop::next: indices [lo, hi) from the part of node `node`.
struct Batch {
  std::uint64_t lo = 0;  ///< first index
  std::uint64_t hi = 0;  ///< one past the last index
  int node = 0;          ///< node of the part the batch came from (differs from the taker's when stolen)
};

/// Pass as next()'s node to mean "the calling thread's node" (os::current_node()).
inline constexpr int calling_thread_node = -1;

/// A range of indices handed out exactly once in batches to any number of concurrent takers.
/// Not movable: takers hold references to it while it runs.
class SMARTARRAYS_API Loop {
 public:
  /// [begin, end) split over the nodes of the process topology in proportion to node_weights
  /// (one entry per node; typically workers per node). Empty weights = each node's usable CPUs.
  /// With options.layout, the range is first cut along the layout's ranges (see LoopOptions::layout).
  Loop(std::uint64_t begin, std::uint64_t end, std::span<const std::size_t> node_weights = {},
       const LoopOptions& options = {});
  /// A loop over explicit parts (for instance one per replica, or one per partition stripe).
  explicit Loop(std::vector<LoopPart> parts, const LoopOptions& options = {});
  ~Loop();
  Loop(const Loop&) = delete;
  Loop& operator=(const Loop&) = delete;

  /// Takes the next batch for a taker on node (calling_thread_node = os::current_node()): its own
  /// node's parts first, then other nodes' parts nearest first. False when the range is exhausted
  /// or the loop was stopped. Thread-safe; every index is handed out at most once.
  bool next(Batch& batch, int node = calling_thread_node);
  /// Like next(Batch&, node), filling lo and hi.
  bool next(std::uint64_t* lo, std::uint64_t* hi, int node = calling_thread_node);

  /// True once no batch is left to hand out to anyone (every part exhausted, or the loop stopped);
  /// batches already handed out may still be running.
  bool finished() const noexcept;

  /// Stops handing out batches (running batches finish); the loop counts as cancelled.
  void cancel() noexcept;
  /// Records the first failure of a body and stops the loop; later failures are dropped.
  void fail(std::exception_ptr error) noexcept;
  /// True once cancel(), fail() or the token stopped the loop.
  bool stopped() const noexcept { return stopped_.load(std::memory_order_relaxed); }
  /// True when stopped by cancel() or the token rather than by a failure.
  bool cancelled() const noexcept;
  /// Rethrows the first failure, or throws Error(cancelled) if the loop was cancelled; else returns.
  void rethrow_if_stopped() const;

  /// Indices per batch after rounding (the last batch of a part may be shorter).
  std::uint64_t batch_size() const noexcept { return batch_; }
  /// The alignment of batch boundaries.
  std::uint64_t alignment() const noexcept { return alignment_; }
  /// The parts, in construction order.
  const std::vector<LoopPart>& parts() const noexcept { return parts_; }
  /// Number of nodes the loop knows (the topology's when the loop was made).
  std::size_t node_count() const noexcept { return take_order_.size(); }

 private:
  friend class ThreadPool;
  struct Cursor;
  void build(const LoopOptions& options, std::uint64_t participants);
  // Lets nodes the pool has no worker on have their parts taken by everyone, even without stealing.
  void mark_unserved_nodes(const std::vector<bool>& served);
  void check_token();

  std::vector<LoopPart> parts_;
  std::unique_ptr<Cursor[]> cursors_;
  std::vector<std::vector<std::uint32_t>> take_order_;  // per taker node: part indices, local first
  std::uint64_t batch_ = 1;
  std::uint64_t alignment_ = 1;
  bool steal_ = true;
  CancellationToken token_;
  LoopStats* stats_ = nullptr;
  std::atomic<bool> stopped_{false};
  mutable std::mutex error_mutex_;
  std::exception_ptr error_;
  bool cancelled_ = false;  // guarded by error_mutex_
};

}  // namespace smartarrays::runtime
