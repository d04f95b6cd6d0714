// Owns the static split of a row range into one chunk-aligned range per task, and the block-wise
// decoding of smart arrays over such a range: operators whose passes must see the same rows per
// task (a histogram, then a scatter at the positions it gave) use it instead of dynamic batches.
// Tasks over a partitioned input run on the nodes of their rows' stripes first.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::collections::detail {

/// Values decoded per block.
inline constexpr std::uint64_t block_values = 4096;

/// Rows [begin(t), begin(t + 1)) belong to task t of count tasks; boundaries are multiples of 64.
struct TaskRanges {
  std::uint64_t rows = 0;
  std::uint64_t count = 1;
  /// The tasks' loop layout: task t on the node of the input's stripe holding its first row.
  std::vector<runtime::LoopPart> layout{};
  /// First row of task t (rows for t == count).
  std::uint64_t begin(std::uint64_t t) const noexcept {
    if (t >= count) return rows;
    const std::uint64_t chunks = (rows + 63) / 64;
    return std::min(rows, chunks * t / count * 64);
  }
};

/// One task per worker of pool over the rows of input; when input is partitioned each task runs on
/// the node of its first row's stripe first (runtime::layout_through over build::stripe_parts).
inline TaskRanges task_ranges(const SmartArray& input, const runtime::ThreadPool& pool) {
  TaskRanges ranges{input.length(), std::max<std::uint64_t>(1, pool.size()), {}};
  ranges.layout = runtime::layout_through(build::stripe_parts(input), ranges.count,
                                          [&](std::uint64_t t) { return ranges.begin(t); });
  return ranges;
}

/// Loop options handing out one index per batch (for loops over tasks, partitions, shards).
inline runtime::LoopOptions one_per_batch() {
  runtime::LoopOptions options;
  options.batch = 1;
  options.alignment = 1;
  return options;
}

/// Options of a loop over the rows of input: a partitioned input's stripes run on their nodes first.
inline runtime::LoopOptions over_rows(const SmartArray& input) {
  runtime::LoopOptions options;
  options.layout = build::stripe_parts(input);
  return options;
}

/// Runs body(t) for every task of ranges on pool, one task per batch.
template <typename Body>
void for_each_task(const TaskRanges& ranges, runtime::ThreadPool& pool, Body&& body) {
  runtime::LoopOptions options = one_per_batch();
  options.layout = ranges.layout;
  pool.parallel_for(0, ranges.count, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t t = lo; t < hi; ++t) body(t);
  }, options);
}

/// Turns the per-task counts of bucket b into each task's first position, the tasks' rows laid out
/// in task order from first; returns the position after the bucket's last row.
inline std::uint64_t to_task_starts(std::vector<std::vector<std::uint64_t>>& counts, std::uint64_t b, std::uint64_t first) {
  for (std::vector<std::uint64_t>& task : counts) {
    const std::uint64_t c = task[b];
    task[b] = first;
    first += c;
  }
  return first;
}

/// Calls f(first_row, count, values) over rows [lo, hi) of array, decoded a block at a time.
template <typename F>
void for_blocks(const SmartArray& array, std::uint64_t lo, std::uint64_t hi, F&& f) {
  std::vector<std::uint64_t> buffer(block_values);
  for (std::uint64_t start = lo; start < hi; start += block_values) {
    const std::uint64_t count = std::min(block_values, hi - start);
    array.decode(start, count, buffer.data());
    f(start, count, static_cast<const std::uint64_t*>(buffer.data()));
  }
}

/// Calls f(first_row, count, a_values, b_values) over rows [lo, hi) of two equal-length arrays.
template <typename F>
void for_block_pairs(const SmartArray& a, const SmartArray& b, std::uint64_t lo, std::uint64_t hi, F&& f) {
  std::vector<std::uint64_t> buffer(2 * block_values);
  for (std::uint64_t start = lo; start < hi; start += block_values) {
    const std::uint64_t count = std::min(block_values, hi - start);
    a.decode(start, count, buffer.data());
    b.decode(start, count, buffer.data() + block_values);
    f(start, count, static_cast<const std::uint64_t*>(buffer.data()),
      static_cast<const std::uint64_t*>(buffer.data() + block_values));
  }
}

/// The smallest and largest value of array (0 and 0 when empty), in parallel.
struct ValueRange {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
};
inline ValueRange value_range(const SmartArray& array, runtime::ThreadPool& pool) {
  if (array.length() == 0) return {};
  return pool.parallel_reduce(
      0, array.length(), ValueRange{~std::uint64_t{0}, 0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        ValueRange r{~std::uint64_t{0}, 0};
        for_blocks(array, lo, hi, [&](std::uint64_t, std::uint64_t n, const std::uint64_t* v) {
          for (std::uint64_t i = 0; i < n; ++i) {
            r.min = std::min(r.min, v[i]);
            r.max = std::max(r.max, v[i]);
          }
        });
        return r;
      },
      [](ValueRange a, ValueRange b) { return ValueRange{std::min(a.min, b.min), std::max(a.max, b.max)}; },
      over_rows(array));
}

}  // namespace smartarrays::collections::detail
