// Owns the hash join: the build side chosen by size, the counting probe delegated to the table,
// and the pair-emitting probe (per-task pair lists, put in order by a counting sort).
#include "smartarrays/collections/hash_join.hpp"

#include <string>
#include <utility>
#include <vector>

#include "collections/task_ranges.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/collections/hash_table.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_limit.hpp"
#include "smartarrays/runtime/interrupt.hpp"
#include "smartarrays/util/byte_size.hpp"
#include "smartarrays/util/checked.hpp"

namespace smartarrays::collections {

namespace {

// Refuses, before any pair is made, a join whose pairs cannot be held: each is held twice while they
// are put in order (a task's list, then the left and right vectors), 32 bytes, within the memory limit.
void check_pairs_memory(std::uint64_t pairs) {
  const std::uint64_t bytes = util::checked_mul(pairs, 32, "the memory of the hash join's pairs");
  const os::MemoryLimit& limit = os::memory_limit();
  if (bytes > limit.bytes) {
    throw_error(ErrorCode::out_of_memory, "hash join: " + std::to_string(pairs) + " pairs need at least " +
                                              util::format_bytes(bytes) + " (32 bytes a pair); the memory limit is " +
                                              util::format_bytes(limit.bytes) + " (" + limit.source + ")");
  }
}

}  // namespace

std::uint64_t hash_join_count(const SmartArray& left, const SmartArray& right, const ArrayOptions& table_options,
                              runtime::ThreadPool& pool) {
  const bool build_left = left.length() <= right.length();
  const HashTable table = HashTable::build(build_left ? left : right, table_options, false, pool);
  return table.count_matches(build_left ? right : left, pool);
}

JoinPairs hash_join_pairs(const SmartArray& left, const SmartArray& right, const ArrayOptions& table_options,
                          runtime::ThreadPool& pool) {
  using Pair = std::pair<std::uint64_t, std::uint64_t>;
  const bool build_left = left.length() <= right.length();
  const SmartArray& probe = build_left ? right : left;
  const HashTable table = HashTable::build(build_left ? left : right, table_options, true, pool);
  check_pairs_memory(table.count_matches(probe, pool));
  const detail::TaskRanges ranges = detail::task_ranges(probe, pool);
  std::vector<std::vector<Pair>> found(ranges.count);
  detail::for_each_task(ranges, pool, [&](std::uint64_t t) {
    detail::for_blocks(probe, ranges.begin(t), ranges.begin(t + 1), [&](std::uint64_t first, std::uint64_t n, const std::uint64_t* k) {
      for (std::uint64_t i = 0; i < n; ++i) {
        const Match m = table.find(k[i]);
        for (std::uint64_t r = m.begin; r < m.begin + m.count; ++r) {
          const std::uint64_t built = table.rows().get_unchecked(r);
          found[t].emplace_back(build_left ? built : first + i, build_left ? first + i : built);
        }
      }
    });
  });
  // Into (left, right) order. The probe's rows come in ascending order (tasks in order, rows in
  // order within one) and a key's built rows in row order, so with the probe on the left the pairs
  // are in order as found; with it on the right, a stable counting sort by left row puts them in
  // order in O(pairs + left rows). Serial, with the interrupt checked per block of pairs.
  std::uint64_t total = 0;
  for (const std::vector<Pair>& part : found) total += part.size();
  std::vector<std::uint64_t> lefts(total), rights(total);
  std::vector<std::uint64_t> next;
  if (build_left) {
    next.assign(left.length() + 1, 0);
    for (const std::vector<Pair>& part : found) {
      runtime::check_interrupt();
      for (const Pair& p : part) ++next[p.first + 1];
    }
    for (std::uint64_t l = 1; l < next.size(); ++l) next[l] += next[l - 1];
  }
  std::uint64_t at = 0;
  for (std::vector<Pair>& part : found) {
    runtime::check_interrupt();
    for (const Pair& p : part) {
      const std::uint64_t to = build_left ? next[p.first]++ : at++;
      lefts[to] = p.first;
      rights[to] = p.second;
    }
    std::vector<Pair>().swap(part);
  }
  return {build::build_array_from_values(lefts, table_options, pool), build::build_array_from_values(rights, table_options, pool)};
}

}  // namespace smartarrays::collections
