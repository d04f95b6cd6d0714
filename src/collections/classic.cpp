// Owns the classic workload implementations: ordinary containers, one lock per shard of the
// concurrent map, one allocation per tuple of the chained table, as the study's code has them.
#include "smartarrays/collections/classic.hpp"

#include <algorithm>
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "collections/task_ranges.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/mix64.hpp"

namespace smartarrays::collections::classic {

namespace {

constexpr std::size_t shard_count = 1024;

// A concurrent hash map as a lock per shard over std::unordered_map (what libcuckoo-style tables
// give a hash aggregation: a lock per bucket group, any thread inserting any key).
template <typename Value>
class ShardedMap {
 public:
  ShardedMap() : shards_(shard_count) {}

  template <typename Update>
  void update(std::uint64_t key, Update&& update_value) {
    Shard& shard = shards_[util::mix64(key) % shard_count];
    const std::lock_guard<std::mutex> lock(shard.mutex);
    update_value(shard.map[key]);
  }

  /// (key, reduce(value)) for every key, ascending, shards reduced in parallel.
  template <typename Reduce>
  Groups collect(runtime::ThreadPool& pool, Reduce&& reduce) {
    std::vector<Groups> found(shard_count);
    pool.parallel_for(0, shard_count, [&](std::uint64_t lo, std::uint64_t hi) {
      for (std::uint64_t s = lo; s < hi; ++s) {
        for (auto& [key, value] : shards_[s].map) found[s].emplace_back(key, reduce(value));
      }
    }, collections::detail::one_per_batch());
    Groups groups;
    for (Groups& part : found) groups.insert(groups.end(), part.begin(), part.end());
    std::sort(groups.begin(), groups.end());
    return groups;
  }

 private:
  struct Shard {
    std::mutex mutex;
    std::unordered_map<std::uint64_t, Value> map;
  };
  std::vector<Shard> shards_;
};

struct Node {
  std::uint64_t key;
  std::uint64_t row;
  Node* next;
};

}  // namespace

Groups median_by_key(std::span<const std::uint64_t> keys, std::span<const std::uint64_t> values, runtime::ThreadPool& pool) {
  if (keys.size() != values.size()) {
    throw_error(ErrorCode::invalid_argument, "median by key: keys and values differ in length (" + std::to_string(keys.size()) +
                                                 " and " + std::to_string(values.size()) + ")");
  }
  ShardedMap<std::vector<std::uint64_t>> map;
  pool.parallel_for(0, keys.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) map.update(keys[i], [&](std::vector<std::uint64_t>& v) { v.push_back(values[i]); });
  });
  return map.collect(pool, [](std::vector<std::uint64_t>& v) {
    const auto middle = v.begin() + static_cast<std::ptrdiff_t>((v.size() - 1) / 2);
    std::nth_element(v.begin(), middle, v.end());
    return *middle;
  });
}

Groups count_by_key(std::span<const std::uint64_t> keys, runtime::ThreadPool& pool) {
  ShardedMap<std::uint64_t> map;
  pool.parallel_for(0, keys.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) map.update(keys[i], [](std::uint64_t& count) { ++count; });
  });
  return map.collect(pool, [](std::uint64_t count) { return count; });
}

std::uint64_t hash_join_count(std::span<const std::uint64_t> build, std::span<const std::uint64_t> probe,
                              runtime::ThreadPool& pool) {
  const std::size_t buckets = std::bit_ceil(std::max<std::size_t>(build.size(), 1));
  const std::unique_ptr<std::atomic<Node*>[]> heads(new std::atomic<Node*>[buckets]);
  for (std::size_t b = 0; b < buckets; ++b) heads[b].store(nullptr, std::memory_order_relaxed);
  auto bucket = [buckets](std::uint64_t key) { return util::mix64(key) & (buckets - 1); };
  pool.parallel_for(0, build.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t i = lo; i < hi; ++i) {
      std::atomic<Node*>& head = heads[bucket(build[i])];
      Node* node = new Node{build[i], i, head.load(std::memory_order_relaxed)};
      while (!head.compare_exchange_weak(node->next, node, std::memory_order_release, std::memory_order_relaxed)) {
      }
    }
  });
  const std::uint64_t matches = pool.parallel_reduce(
      0, probe.size(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t found = 0;
        for (std::uint64_t i = lo; i < hi; ++i) {
          for (const Node* n = heads[bucket(probe[i])].load(std::memory_order_acquire); n != nullptr; n = n->next) {
            found += n->key == probe[i] ? 1 : 0;
          }
        }
        return found;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
  pool.parallel_for(0, buckets, [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t b = lo; b < hi; ++b) {
      for (Node* n = heads[b].load(std::memory_order_relaxed); n != nullptr;) delete std::exchange(n, n->next);
    }
  });
  return matches;
}

TreeIndex::TreeIndex(std::span<const std::uint64_t> keys) {
  for (std::uint64_t i = 0; i < keys.size(); ++i) tree_.emplace(keys[i], i);
}

std::uint64_t index_join_count(const TreeIndex& index, std::span<const std::uint64_t> probe, runtime::ThreadPool& pool) {
  return pool.parallel_reduce(
      0, probe.size(), std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t found = 0;
        for (std::uint64_t i = lo; i < hi; ++i) found += index.count(probe[i]);
        return found;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; });
}

}  // namespace smartarrays::collections::classic
