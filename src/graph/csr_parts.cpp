// Owns the parallel CSR steps on plain vectors. Scatters use relaxed atomic cursors, so the order
// within a neighbour list depends on scheduling; every list is sorted afterwards, which makes the
// result identical for any thread count.
#include "graph/csr_parts.hpp"

#include <algorithm>
#include <atomic>
#include <span>
#include <string>
#include <utility>

#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/checked.hpp"

namespace smartarrays::graph::detail {

namespace {

constexpr std::uint64_t no_index = ~std::uint64_t{0};

// Loops whose batches are blocks of independent work need no chunk alignment.
runtime::LoopOptions unaligned(std::uint64_t batch = 0) {
  runtime::LoopOptions options;
  options.alignment = 1;
  options.batch = batch;
  return options;
}

// The smallest index in [0, n) for which bad(i) holds, or no_index; parallel.
template <typename Pred>
std::uint64_t first_where(std::uint64_t n, Pred&& bad, runtime::ThreadPool& pool) {
  return pool.parallel_reduce(
      0, n, no_index,
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t i = lo; i < hi; ++i) {
          if (bad(i)) return i;
        }
        return no_index;
      },
      [](std::uint64_t a, std::uint64_t b) { return std::min(a, b); }, unaligned());
}

}  // namespace

void exclusive_scan(std::vector<std::uint64_t>& counts, runtime::ThreadPool& pool) {
  const std::uint64_t n = counts.size() - 1;
  // Below this a serial pass is faster than waking the workers twice.
  constexpr std::uint64_t serial_limit = 1u << 16;
  if (n < serial_limit) {
    std::uint64_t sum = 0;
    for (std::uint64_t i = 0; i < n; ++i) sum += std::exchange(counts[i], sum);
    counts[n] = sum;
    return;
  }
  const std::uint64_t blocks = std::max<std::uint64_t>(1, pool.size() * 4);
  const std::uint64_t block = (n + blocks - 1) / blocks;
  std::vector<std::uint64_t> block_sums(blocks + 1, 0);
  pool.parallel_for(
      0, blocks,
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t b = lo; b < hi; ++b) {
          std::uint64_t sum = 0;
          for (std::uint64_t i = b * block; i < std::min(n, (b + 1) * block); ++i) sum += counts[i];
          block_sums[b] = sum;
        }
      },
      unaligned(1));
  std::uint64_t total = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) total += std::exchange(block_sums[b], total);
  pool.parallel_for(
      0, blocks,
      [&](std::uint64_t lo, std::uint64_t hi) {
        for (std::uint64_t b = lo; b < hi; ++b) {
          std::uint64_t sum = block_sums[b];
          for (std::uint64_t i = b * block; i < std::min(n, (b + 1) * block); ++i) sum += std::exchange(counts[i], sum);
        }
      },
      unaligned(1));
  counts[n] = total;
}

void check_parts(const CsrParts& parts, std::uint64_t vertices, const std::string& what, runtime::ThreadPool& pool) {
  const auto& off = parts.offsets;
  const auto& tgt = parts.targets;
  if (off.size() != vertices + 1) {
    throw_error(ErrorCode::invalid_argument, what + ": " + std::to_string(off.size()) + " offsets for " +
                                                 std::to_string(vertices) + " vertices (expected " +
                                                 std::to_string(vertices + 1) + ")");
  }
  if (off[0] != 0) throw_error(ErrorCode::invalid_argument, what + ": offset 0 is " + std::to_string(off[0]) + ", not 0");
  const std::uint64_t down = first_where(vertices, [&](std::uint64_t v) { return off[v + 1] < off[v]; }, pool);
  if (down != no_index) {
    throw_error(ErrorCode::invalid_argument, what + ": offset " + std::to_string(down + 1) + " (" +
                                                 std::to_string(off[down + 1]) + ") is below offset " +
                                                 std::to_string(down) + " (" + std::to_string(off[down]) + ")");
  }
  if (off[vertices] != tgt.size()) {
    throw_error(ErrorCode::invalid_argument, what + ": the last offset is " + std::to_string(off[vertices]) + " but there are " +
                                                 std::to_string(tgt.size()) + " neighbour ids");
  }
  const std::uint64_t bad = first_where(tgt.size(), [&](std::uint64_t e) { return tgt[e] >= vertices; }, pool);
  if (bad != no_index) {
    throw_error(ErrorCode::invalid_argument, what + ": neighbour id " + std::to_string(tgt[bad]) + " at position " +
                                                 std::to_string(bad) + " is not below the vertex count " +
                                                 std::to_string(vertices));
  }
}

template <typename Parts>
void normalize(Parts& parts, bool drop_self_loops, bool dedup, runtime::ThreadPool& pool) {
  using Id = typename decltype(parts.targets)::value_type;
  const std::uint64_t n = parts.offsets.size() - 1;
  std::vector<std::uint64_t> kept(n + 1, 0);
  Id* targets = parts.targets.data();
  const std::uint64_t* offsets = parts.offsets.data();
  pool.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t v = lo; v < hi; ++v) {
      Id* first = targets + offsets[v];
      Id* last = targets + offsets[v + 1];
      std::sort(first, last);
      if (drop_self_loops) {
        // v fits Id: every id of the list is below the vertex count.
        auto [self_lo, self_hi] = std::equal_range(first, last, static_cast<Id>(v));
        last = std::move(self_hi, last, self_lo);
      }
      if (dedup) last = std::unique(first, last);
      kept[v] = static_cast<std::uint64_t>(last - first);
    }
  });
  if (!drop_self_loops && !dedup) return;
  const std::uint64_t total_before = parts.targets.size();
  exclusive_scan(kept, pool);
  if (kept[n] == total_before) return;
  std::vector<Id> compact(kept[n]);
  pool.parallel_for(0, n, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t v = lo; v < hi; ++v) {
      std::copy(targets + offsets[v], targets + offsets[v] + (kept[v + 1] - kept[v]), compact.data() + kept[v]);
    }
  });
  parts.offsets = std::move(kept);
  parts.targets = std::move(compact);
}

template <typename Parts>
Parts transpose(const Parts& parts, std::uint64_t vertices, runtime::ThreadPool& pool) {
  using Id = typename decltype(parts.targets)::value_type;
  Parts result;
  result.offsets.assign(util::checked_add(vertices, 1, "the offsets of a transposed graph"), 0);
  const std::uint64_t* offsets = parts.offsets.data();
  const Id* targets = parts.targets.data();
  std::uint64_t* counts = result.offsets.data();
  pool.parallel_for(0, parts.targets.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t e = lo; e < hi; ++e) std::atomic_ref<std::uint64_t>(counts[targets[e]]).fetch_add(1, std::memory_order_relaxed);
  });
  exclusive_scan(result.offsets, pool);
  std::vector<std::uint64_t> cursor(result.offsets.begin(), result.offsets.end() - 1);
  result.targets.resize(parts.targets.size());
  Id* out = result.targets.data();
  pool.parallel_for(0, vertices, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t v = lo; v < hi; ++v) {
      for (std::uint64_t e = offsets[v]; e < offsets[v + 1]; ++e) {
        out[std::atomic_ref<std::uint64_t>(cursor[targets[e]]).fetch_add(1, std::memory_order_relaxed)] = static_cast<Id>(v);
      }
    }
  });
  normalize(result, false, false, pool);
  return result;
}

template void normalize(CsrParts&, bool, bool, runtime::ThreadPool&);
template void normalize(NarrowCsrParts&, bool, bool, runtime::ThreadPool&);
template CsrParts transpose(const CsrParts&, std::uint64_t, runtime::ThreadPool&);
template NarrowCsrParts transpose(const NarrowCsrParts&, std::uint64_t, runtime::ThreadPool&);

std::optional<ListDifference> first_difference(const CsrParts& a, const CsrParts& b, std::uint64_t vertices,
                                               runtime::ThreadPool& pool) {
  auto list = [](const CsrParts& parts, std::uint64_t u) {
    return std::span<const std::uint64_t>(parts.targets.data() + parts.offsets[u], parts.offsets[u + 1] - parts.offsets[u]);
  };
  const std::uint64_t v = first_where(
      vertices, [&](std::uint64_t u) { return !std::ranges::equal(list(a, u), list(b, u)); }, pool);
  if (v == no_index) return std::nullopt;
  // Both lists ascend: walk them together to the first id whose counts differ.
  const std::span<const std::uint64_t> la = list(a, v), lb = list(b, v);
  std::size_t i = 0, j = 0;
  for (;;) {
    const std::uint64_t id = i == la.size() ? lb[j] : j == lb.size() ? la[i] : std::min(la[i], lb[j]);
    std::uint64_t count_a = 0, count_b = 0;
    for (; i < la.size() && la[i] == id; ++i) ++count_a;
    for (; j < lb.size() && lb[j] == id; ++j) ++count_b;
    if (count_a != count_b) return ListDifference{v, id, count_a, count_b};
  }
}

std::string times(std::uint64_t count) { return std::to_string(count) + (count == 1 ? " time" : " times"); }

std::optional<std::uint64_t> position_in_list(const CsrParts& parts, std::uint64_t vertex, std::uint64_t id) {
  for (std::uint64_t e = parts.offsets[vertex]; e < parts.offsets[vertex + 1]; ++e) {
    if (parts.targets[e] == id) return e;
  }
  return std::nullopt;
}

std::vector<std::uint64_t> decode_all(const SmartArray& array, runtime::ThreadPool& pool) {
  std::vector<std::uint64_t> values(array.length());
  pool.parallel_for(0, array.length(), [&](std::uint64_t lo, std::uint64_t hi) { array.decode(lo, hi - lo, values.data() + lo); });
  return values;
}

}  // namespace smartarrays::graph::detail
