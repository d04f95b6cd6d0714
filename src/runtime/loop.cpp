// Owns how a Loop cuts its range into per-node parts (by node weights, or along the layout of the
// data it reads, e.g. a partitioned array's stripes) and aligned batches, and the lock-free
// batch hand-out (one atomic cursor per part) with local-first, nearest-remote-next stealing.
#include "smartarrays/runtime/loop.hpp"

#include <algorithm>
#include <numeric>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::runtime {

// One cache line per cursor: takers on different nodes hammer different cursors, and false
// sharing between them would put a cross-node cache-line transfer on every batch.
struct alignas(64) Loop::Cursor {
  std::atomic<std::uint64_t> next{0};  // index of the next batch of the part to hand out
  std::uint64_t base = 0;              // part begin rounded down to the alignment: batch k starts at base + k*batch
  std::uint64_t batches = 0;           // batches in the part
};

CancellationToken::CancellationToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}

void CancellationToken::cancel() const noexcept { flag_->store(true, std::memory_order_relaxed); }

bool CancellationToken::cancelled() const noexcept { return flag_->load(std::memory_order_relaxed); }

namespace {

std::uint64_t align_down(std::uint64_t x, std::uint64_t a) noexcept { return x - x % a; }

// Saturating round-up, so a huge requested batch cannot wrap around to a tiny one.
std::uint64_t align_up(std::uint64_t x, std::uint64_t a) noexcept {
  const std::uint64_t r = x % a;
  if (r == 0) return x;
  const std::uint64_t up = x + (a - r);
  return up < x ? align_down(~std::uint64_t{0}, a) : up;
}

std::vector<LoopPart> split_by_weight(std::uint64_t begin, std::uint64_t end, std::span<const std::size_t> weights,
                                      std::uint64_t alignment) {
  const unsigned __int128 total = std::accumulate(weights.begin(), weights.end(), static_cast<unsigned __int128>(0));
  if (total == 0) throw_error(ErrorCode::invalid_argument, "loop node weights are all zero");
  const unsigned __int128 span = end - begin;
  std::vector<LoopPart> parts;
  unsigned __int128 cumulative = 0;
  std::uint64_t lo = begin;
  for (std::size_t node = 0; node < weights.size(); ++node) {
    if (weights[node] == 0) continue;
    cumulative += weights[node];
    std::uint64_t hi = end;
    if (cumulative < total) {
      // Cut on an aligned index so no part boundary splits a chunk; clamp to keep parts ordered.
      const auto cut = static_cast<std::uint64_t>(begin + span * cumulative / total);
      hi = std::clamp(align_down(cut, alignment), lo, end);
    }
    parts.push_back({static_cast<int>(node), lo, hi});
    lo = hi;
  }
  return parts;
}

// [begin, end) cut along layout: each range of a node (its ends rounded down to the alignment) a
// part of that node, and the rest (ranges of node -1, gaps between ranges) split by weights.
std::vector<LoopPart> split_by_layout(std::uint64_t begin, std::uint64_t end, std::span<const LoopPart> layout,
                                      std::span<const std::size_t> weights, std::uint64_t alignment) {
  std::vector<LoopPart> sorted(layout.begin(), layout.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const LoopPart& a, const LoopPart& b) { return a.begin < b.begin; });
  std::vector<LoopPart> parts;
  std::uint64_t lo = begin;  // everything below lo is placed
  auto spread = [&](std::uint64_t hi) {
    if (lo >= hi) return;
    const std::vector<LoopPart> split = split_by_weight(lo, hi, weights, alignment);
    parts.insert(parts.end(), split.begin(), split.end());
    lo = hi;
  };
  for (const LoopPart& range : sorted) {
    if (range.begin > range.end) {
      throw_error(ErrorCode::invalid_argument, "loop layout range [" + std::to_string(range.begin) + ", " +
                                                   std::to_string(range.end) + ") ends before it begins");
    }
    if (range.node < 0) continue;
    const std::uint64_t first = std::clamp(align_down(range.begin, alignment), lo, end);
    const std::uint64_t last = range.end >= end ? end : std::clamp(align_down(range.end, alignment), first, end);
    if (first >= last) continue;
    spread(first);
    parts.push_back({range.node, first, last});
    lo = last;
  }
  spread(end);
  return parts;
}

std::vector<std::size_t> cpus_per_node(const os::Topology& topology) {
  std::vector<std::size_t> weights;
  for (const os::Node& node : topology.nodes()) weights.push_back(node.cpus.size());
  return weights;
}

}  // namespace

Loop::Loop(std::uint64_t begin, std::uint64_t end, std::span<const std::size_t> node_weights,
           const LoopOptions& options)
    : alignment_(options.alignment), steal_(options.steal), token_(options.token), stats_(options.stats) {
  if (begin > end) {
    throw_error(ErrorCode::invalid_argument,
                "loop range [" + std::to_string(begin) + ", " + std::to_string(end) + ") ends before it begins");
  }
  if (alignment_ == 0) throw_error(ErrorCode::invalid_argument, "loop alignment must be at least 1, got 0");
  const os::Topology& topology = os::topology();
  std::vector<std::size_t> weights(node_weights.begin(), node_weights.end());
  if (weights.empty()) weights = cpus_per_node(topology);
  if (weights.size() != topology.node_count()) {
    throw_error(ErrorCode::invalid_argument, "loop has " + std::to_string(weights.size()) +
                                                 " node weights but the topology has " +
                                                 std::to_string(topology.node_count()) + " nodes");
  }
  for (const LoopPart& range : options.layout) {
    if (range.node >= 0 && static_cast<std::size_t>(range.node) >= topology.node_count()) {
      throw_error(ErrorCode::invalid_argument, "loop layout node " + std::to_string(range.node) +
                                                   " does not exist (topology has " +
                                                   std::to_string(topology.node_count()) + " nodes)");
    }
  }
  parts_ = options.layout.empty() ? split_by_weight(begin, end, weights, alignment_)
                                  : split_by_layout(begin, end, options.layout, weights, alignment_);
  build(options, std::accumulate(weights.begin(), weights.end(), std::uint64_t{0}));
}

Loop::Loop(std::vector<LoopPart> parts, const LoopOptions& options)
    : parts_(std::move(parts)),
      alignment_(options.alignment),
      steal_(options.steal),
      token_(options.token),
      stats_(options.stats) {
  if (alignment_ == 0) throw_error(ErrorCode::invalid_argument, "loop alignment must be at least 1, got 0");
  const std::size_t nodes = os::topology().node_count();
  for (const LoopPart& part : parts_) {
    if (part.begin > part.end) {
      throw_error(ErrorCode::invalid_argument, "loop part [" + std::to_string(part.begin) + ", " +
                                                   std::to_string(part.end) + ") ends before it begins");
    }
    if (part.node < 0 || static_cast<std::size_t>(part.node) >= nodes) {
      throw_error(ErrorCode::invalid_argument, "loop part node " + std::to_string(part.node) +
                                                   " does not exist (topology has " + std::to_string(nodes) +
                                                   " nodes)");
    }
  }
  build(options, os::topology().all_cpus().size());
}

Loop::~Loop() = default;

void Loop::build(const LoopOptions& options, std::uint64_t participants) {
  std::uint64_t span = 0;
  for (const LoopPart& part : parts_) span = std::max(span, part.end - part.begin);
  std::uint64_t batch = options.batch;
  if (batch == 0) {
    // About eight batches per participant balance load; the cap keeps huge loops dynamic too.
    const std::uint64_t share = span / (std::max<std::uint64_t>(participants, 1) * 8) + 1;
    batch = std::min(share, default_max_batch);
  }
  batch_ = align_up(std::min(batch, std::max<std::uint64_t>(span, 1)), alignment_);

  cursors_ = std::make_unique<Cursor[]>(parts_.size());
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    const LoopPart& part = parts_[p];
    Cursor& cursor = cursors_[p];
    cursor.base = align_down(part.begin, alignment_);
    const std::uint64_t covered = part.end - cursor.base;
    cursor.batches = part.end > part.begin ? covered / batch_ + (covered % batch_ != 0) : 0;
  }

  // Per taker node: its own parts, then (when stealing) the others by distance, then id.
  const os::Topology& topology = os::topology();
  const std::size_t nodes = topology.node_count();
  take_order_.assign(nodes, {});
  for (std::size_t taker = 0; taker < nodes; ++taker) {
    std::vector<std::uint32_t>& order = take_order_[taker];
    for (std::uint32_t p = 0; p < parts_.size(); ++p) {
      if (static_cast<std::size_t>(parts_[p].node) == taker || steal_) order.push_back(p);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto key = [&](std::uint32_t p) {
        const auto owner = static_cast<std::size_t>(parts_[p].node);
        return std::pair{owner == taker ? 0u : topology.distance(taker, owner), owner};
      };
      return key(a) < key(b);
    });
  }
}

void Loop::mark_unserved_nodes(const std::vector<bool>& served) {
  if (steal_) return;
  const os::Topology& topology = os::topology();
  for (std::size_t taker = 0; taker < take_order_.size(); ++taker) {
    std::vector<std::uint32_t> orphans;
    for (std::uint32_t p = 0; p < parts_.size(); ++p) {
      const auto owner = static_cast<std::size_t>(parts_[p].node);
      if (owner != taker && (owner >= served.size() || !served[owner])) orphans.push_back(p);
    }
    std::stable_sort(orphans.begin(), orphans.end(), [&](std::uint32_t a, std::uint32_t b) {
      const auto key = [&](std::uint32_t p) {
        const auto owner = static_cast<std::size_t>(parts_[p].node);
        return std::pair{topology.distance(taker, owner), owner};
      };
      return key(a) < key(b);
    });
    take_order_[taker].insert(take_order_[taker].end(), orphans.begin(), orphans.end());
  }
}

void Loop::check_token() {
  if (!stopped() && token_.cancelled()) cancel();
}

bool Loop::next(Batch& batch, int node) {
  if (node == calling_thread_node) node = os::current_node();
  if (node < 0 || static_cast<std::size_t>(node) >= take_order_.size()) {
    throw_error(ErrorCode::invalid_argument, "loop taker node " + std::to_string(node) + " does not exist (loop has " +
                                                 std::to_string(take_order_.size()) + " nodes)");
  }
  check_token();
  if (stopped()) return false;
  for (const std::uint32_t p : take_order_[static_cast<std::size_t>(node)]) {
    Cursor& cursor = cursors_[p];
    // A plain load first: exhausted parts are probed without writing their cache line.
    if (cursor.next.load(std::memory_order_relaxed) >= cursor.batches) continue;
    const std::uint64_t k = cursor.next.fetch_add(1, std::memory_order_relaxed);
    if (k >= cursor.batches) continue;
    const LoopPart& part = parts_[p];
    const std::uint64_t start = cursor.base + k * batch_;
    batch.lo = std::max(start, part.begin);
    batch.hi = k + 1 < cursor.batches ? start + batch_ : part.end;
    batch.node = part.node;
    return true;
  }
  return false;
}

bool Loop::next(std::uint64_t* lo, std::uint64_t* hi, int node) {
  Batch batch;
  if (!next(batch, node)) return false;
  *lo = batch.lo;
  *hi = batch.hi;
  return true;
}

bool Loop::finished() const noexcept {
  if (stopped()) return true;
  for (std::size_t p = 0; p < parts_.size(); ++p) {
    if (cursors_[p].next.load(std::memory_order_relaxed) < cursors_[p].batches) return false;
  }
  return true;
}

void Loop::cancel() noexcept {
  {
    std::lock_guard lock(error_mutex_);
    if (!error_) cancelled_ = true;
  }
  stopped_.store(true, std::memory_order_relaxed);
}

void Loop::fail(std::exception_ptr error) noexcept {
  {
    std::lock_guard lock(error_mutex_);
    if (!error_ && !cancelled_) error_ = std::move(error);
  }
  stopped_.store(true, std::memory_order_relaxed);
}

bool Loop::cancelled() const noexcept {
  std::lock_guard lock(error_mutex_);
  return cancelled_;
}

void Loop::rethrow_if_stopped() const {
  std::lock_guard lock(error_mutex_);
  if (error_) std::rethrow_exception(error_);
  if (cancelled_) throw_error(ErrorCode::cancelled, "parallel loop cancelled");
}

}  // namespace smartarrays::runtime
