// Owns the group-by operator: the dense path (keys within a small range: per-task histograms and
// accumulators, and for the median a counting-sort scatter into group order followed by a
// selection per group) and the general path (pairs partitioned by key hash, each partition sorted,
// groups read off the runs).
#include "smartarrays/collections/group_by.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "collections/task_ranges.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/mix64.hpp"
#include "smartarrays/util/names.hpp"

namespace smartarrays::collections {

namespace {

constexpr util::NameTable<Aggregate, 5> aggregate_names{"aggregate",
                                                        {{{Aggregate::count, "count"},
                                                          {Aggregate::sum, "sum"},
                                                          {Aggregate::min, "min"},
                                                          {Aggregate::max, "max"},
                                                          {Aggregate::median, "median"}}}};

// Per-task tables of the dense path stay under this many entries in all.
constexpr std::uint64_t dense_entry_limit = std::uint64_t{1} << 27;
constexpr unsigned partition_bits = 8;

struct Groups {
  std::vector<std::uint64_t> keys;
  std::vector<std::uint64_t> values;
};

std::uint64_t initial(Aggregate aggregate) { return aggregate == Aggregate::min ? ~std::uint64_t{0} : 0; }

std::uint64_t combine(Aggregate aggregate, std::uint64_t acc, std::uint64_t v) {
  switch (aggregate) {
    case Aggregate::sum: return acc + v;
    case Aggregate::min: return std::min(acc, v);
    case Aggregate::max: return std::max(acc, v);
    default: return acc + 1;
  }
}

// The median of the dense path: values scattered into group order in a T-typed scratch, each
// group's middle selected. starts[t][k] are task t's first position for key k on entry.
template <typename T>
void dense_medians(const SmartArray& keys, const SmartArray& values, std::uint64_t base,
                   std::vector<std::vector<std::uint64_t>>& starts, const std::vector<std::uint64_t>& offsets,
                   const detail::TaskRanges& ranges, runtime::ThreadPool& pool, std::vector<std::uint64_t>& out) {
  std::vector<T> scratch(keys.length());
  detail::for_each_task(ranges, pool, [&](std::uint64_t t) {
    std::vector<std::uint64_t>& cursor = starts[t];
    detail::for_block_pairs(keys, values, ranges.begin(t), ranges.begin(t + 1),
                            [&](std::uint64_t, std::uint64_t n, const std::uint64_t* k, const std::uint64_t* v) {
                              for (std::uint64_t i = 0; i < n; ++i) scratch[cursor[k[i] - base]++] = static_cast<T>(v[i]);
                            });
  });
  out.assign(offsets.size() - 1, 0);
  pool.parallel_for(0, out.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t g = lo; g < hi; ++g) {
      if (offsets[g + 1] == offsets[g]) continue;
      T* first = scratch.data() + offsets[g];
      T* middle = first + (offsets[g + 1] - offsets[g] - 1) / 2;
      std::nth_element(first, middle, scratch.data() + offsets[g + 1]);
      out[g] = *middle;
    }
  });
}

// Keys in [base, base + range): per-task counts (and accumulators), merged per key.
Groups dense_groups(const SmartArray& keys, const SmartArray& values, Aggregate aggregate, std::uint64_t base,
                    std::uint64_t range, runtime::ThreadPool& pool, std::uint64_t& scratch) {
  const detail::TaskRanges ranges = detail::task_ranges(keys, pool);
  std::vector<std::vector<std::uint64_t>> counts(ranges.count);
  std::vector<std::vector<std::uint64_t>> accs(aggregate == Aggregate::count || aggregate == Aggregate::median ? 0 : ranges.count);
  detail::for_each_task(ranges, pool, [&](std::uint64_t t) {
    std::vector<std::uint64_t>& count = counts[t];
    count.assign(range, 0);
    if (accs.empty()) {
      detail::for_blocks(keys, ranges.begin(t), ranges.begin(t + 1), [&](std::uint64_t, std::uint64_t n, const std::uint64_t* k) {
        for (std::uint64_t i = 0; i < n; ++i) ++count[k[i] - base];
      });
      return;
    }
    std::vector<std::uint64_t>& acc = accs[t];
    acc.assign(range, initial(aggregate));
    detail::for_block_pairs(keys, values, ranges.begin(t), ranges.begin(t + 1),
                            [&](std::uint64_t, std::uint64_t n, const std::uint64_t* k, const std::uint64_t* v) {
                              for (std::uint64_t i = 0; i < n; ++i) {
                                ++count[k[i] - base];
                                acc[k[i] - base] = combine(aggregate, acc[k[i] - base], v[i]);
                              }
                            });
  });
  scratch = (counts.size() + accs.size()) * range * sizeof(std::uint64_t);
  // offsets[k]: rows of keys below base + k; starts become each task's first position per key.
  std::vector<std::uint64_t> offsets(range + 1, 0);
  std::vector<std::uint64_t> merged(range, initial(aggregate));
  for (std::uint64_t k = 0; k < range; ++k) {
    if (!accs.empty()) {
      for (std::uint64_t t = 0; t < ranges.count; ++t) {
        if (counts[t][k] != 0) merged[k] = combine(aggregate, merged[k], accs[t][k]);
      }
    }
    offsets[k + 1] = detail::to_task_starts(counts, k, offsets[k]);
    if (aggregate == Aggregate::count) merged[k] = offsets[k + 1] - offsets[k];
  }
  if (aggregate == Aggregate::median) {
    scratch += keys.length() * (values.bits() <= 32 ? 4 : 8);
    if (values.bits() <= 32) {
      dense_medians<std::uint32_t>(keys, values, base, counts, offsets, ranges, pool, merged);
    } else {
      dense_medians<std::uint64_t>(keys, values, base, counts, offsets, ranges, pool, merged);
    }
  }
  Groups groups;
  for (std::uint64_t k = 0; k < range; ++k) {
    if (offsets[k + 1] == offsets[k]) continue;
    groups.keys.push_back(base + k);
    groups.values.push_back(merged[k]);
  }
  return groups;
}

// Any keys: (key, value) pairs partitioned by key hash, each partition sorted, runs aggregated.
Groups sorted_groups(const SmartArray& keys, const SmartArray& values, Aggregate aggregate, runtime::ThreadPool& pool,
                     std::uint64_t& scratch) {
  using Pair = std::pair<std::uint64_t, std::uint64_t>;
  constexpr std::uint64_t partitions = std::uint64_t{1} << partition_bits;
  auto partition_of = [](std::uint64_t key) { return util::mix64(key) >> (64 - partition_bits); };
  const detail::TaskRanges ranges = detail::task_ranges(keys, pool);
  std::vector<std::vector<std::uint64_t>> cursor(ranges.count, std::vector<std::uint64_t>(partitions, 0));
  detail::for_each_task(ranges, pool, [&](std::uint64_t t) {
    detail::for_blocks(keys, ranges.begin(t), ranges.begin(t + 1), [&](std::uint64_t, std::uint64_t n, const std::uint64_t* k) {
      for (std::uint64_t i = 0; i < n; ++i) ++cursor[t][partition_of(k[i])];
    });
  });
  std::vector<std::uint64_t> offsets(partitions + 1, 0);
  for (std::uint64_t p = 0; p < partitions; ++p) {
    offsets[p + 1] = detail::to_task_starts(cursor, p, offsets[p]);
  }
  std::vector<Pair> pairs(keys.length());
  scratch = pairs.size() * sizeof(Pair);
  detail::for_each_task(ranges, pool, [&](std::uint64_t t) {
    detail::for_block_pairs(keys, values, ranges.begin(t), ranges.begin(t + 1),
                            [&](std::uint64_t, std::uint64_t n, const std::uint64_t* k, const std::uint64_t* v) {
                              for (std::uint64_t i = 0; i < n; ++i) pairs[cursor[t][partition_of(k[i])]++] = {k[i], v[i]};
                            });
  });
  std::vector<Groups> found(partitions);
  pool.parallel_for(0, partitions, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t p = lo; p < hi; ++p) {
      std::sort(pairs.begin() + static_cast<std::ptrdiff_t>(offsets[p]), pairs.begin() + static_cast<std::ptrdiff_t>(offsets[p + 1]));
      for (std::uint64_t a = offsets[p]; a < offsets[p + 1];) {
        std::uint64_t b = a;
        std::uint64_t acc = initial(aggregate);
        for (; b < offsets[p + 1] && pairs[b].first == pairs[a].first; ++b) acc = combine(aggregate, acc, pairs[b].second);
        found[p].keys.push_back(pairs[a].first);
        found[p].values.push_back(aggregate == Aggregate::median ? pairs[a + (b - a - 1) / 2].second : acc);
        a = b;
      }
    }
  }, detail::one_per_batch());
  std::vector<Pair> all;
  for (const Groups& g : found) {
    for (std::size_t i = 0; i < g.keys.size(); ++i) all.emplace_back(g.keys[i], g.values[i]);
  }
  std::sort(all.begin(), all.end());
  Groups groups;
  for (const Pair& p : all) {
    groups.keys.push_back(p.first);
    groups.values.push_back(p.second);
  }
  return groups;
}

}  // namespace

const char* to_string(Aggregate aggregate) noexcept { return aggregate_names.c_name(aggregate); }

Aggregate parse_aggregate(std::string_view name) { return aggregate_names.parse(name); }

GroupBy::GroupBy(const SmartArray& keys, const SmartArray& values, runtime::ThreadPool& pool, const ArrayOptions& result_options)
    : keys_(keys), values_(values), pool_(pool), result_options_(result_options) {
  if (keys.length() != values.length()) {
    throw_error(ErrorCode::invalid_argument, "group by: keys and values differ in length (" + std::to_string(keys.length()) +
                                                 " and " + std::to_string(values.length()) + ")");
  }
  if (result_options.bits != 0) throw_error(ErrorCode::invalid_argument, "group by: result bits must be 0 (the fewest are used)");
}

GroupResult GroupBy::run(Aggregate aggregate) const {
  if (aggregate_names.name(aggregate) == "invalid") throw_error(ErrorCode::invalid_argument, "group by: invalid aggregate");
  const detail::ValueRange range = detail::value_range(keys_, pool_);
  const std::uint64_t rows = keys_.length();
  const std::uint64_t span = range.max - range.min;  // range - 1, so all 64-bit keys cannot overflow
  const bool dense = rows > 0 && span < rows + 4096 && (span + 1) * std::max<std::size_t>(pool_.size(), 1) <= dense_entry_limit;
  const Groups groups = dense ? dense_groups(keys_, values_, aggregate, range.min, span + 1, pool_, scratch_bytes_)
                              : sorted_groups(keys_, values_, aggregate, pool_, scratch_bytes_);
  return {build::build_array_from_values(groups.keys, result_options_, pool_),
          build::build_array_from_values(groups.values, result_options_, pool_)};
}

}  // namespace smartarrays::collections
