// Owns HashMap and HashSet: their builds (the HashTable build with a presence field, and a map's
// values in the slots or as payload) and their batch probes (HashTable::locate per block of probe
// keys on the worker's node, then each found slot's value read from the slot just located or from
// that node's payload replica, prefetched).
#include "smartarrays/collections/hash_map.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "collections/hash_table_build.hpp"
#include "collections/task_ranges.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::collections {

namespace {

void check_length(const char* what, const char* name, std::uint64_t probe, std::uint64_t out) {
  if (probe != out) {
    throw_error(ErrorCode::invalid_argument, std::string(what) + ": " + name + " has " + std::to_string(out) +
                                                 " places for " + std::to_string(probe) + " probe keys");
  }
}

// Runs located(lo, count, slots, node) over probe in blocks, in parallel on pool, with the slots
// of probe[lo, lo + count) found on the worker's node.
template <typename F>
void for_located_blocks(const HashTable& table, std::span<const std::uint64_t> probe, runtime::ThreadPool& pool, F&& located) {
  pool.parallel_for(0, probe.size(), [&](std::uint64_t lo, std::uint64_t hi, const runtime::WorkerContext& ctx) {
    std::vector<std::uint64_t> slots(std::min<std::uint64_t>(detail::block_values, hi - lo));
    for (std::uint64_t start = lo; start < hi; start += detail::block_values) {
      const std::uint64_t count = std::min(detail::block_values, hi - start);
      table.locate(probe.data() + start, count, ctx.node, slots.data());
      located(start, count, slots.data(), ctx.node);
    }
  });
}

}  // namespace

HashSet HashSet::build(const SmartArray& keys, const ArrayOptions& options, runtime::ThreadPool& pool) {
  detail::TableSpec spec;
  spec.presence = true;
  spec.what = "hash set";
  return HashSet(detail::build_table(keys, spec, options, pool));
}

bool HashSet::contains(std::uint64_t key) const noexcept { return table_.find(key).count != 0; }

void HashSet::contains(std::span<const std::uint64_t> probe, std::span<std::uint8_t> out, runtime::ThreadPool& pool) const {
  check_length("hash set", "out", probe.size(), out.size());
  for_located_blocks(table_, probe, pool, [&](std::uint64_t start, std::uint64_t count, const std::uint64_t* slots, int) {
    for (std::uint64_t i = 0; i < count; ++i) out[start + i] = slots[i] == HashTable::not_found ? 0 : 1;
  });
}

std::uint64_t HashSet::count_contained(const SmartArray& probe, runtime::ThreadPool& pool) const {
  return table_.count_matches(probe, pool);  // every present slot's field is 1
}

HashMap HashMap::build(const SmartArray& keys, const SmartArray& values, const ArrayOptions& options,
                       runtime::ThreadPool& pool) {
  detail::TableSpec spec;
  spec.presence = true;
  spec.values = &values;
  spec.what = "hash map";
  return HashMap(detail::build_table(keys, spec, options, pool));
}

std::optional<std::uint64_t> HashMap::find(std::uint64_t key) const noexcept {
  const Match m = table_.find(key);
  if (m.count == 0) return std::nullopt;
  return table_.value_in_slot_ ? m.count - 1 : m.begin;
}

std::uint64_t HashMap::get(std::uint64_t key, std::uint64_t missing) const noexcept { return find(key).value_or(missing); }

void HashMap::get(std::span<const std::uint64_t> probe, std::span<std::uint64_t> out, std::uint64_t missing,
                  std::span<std::uint8_t> found, runtime::ThreadPool& pool) const {
  check_length("hash map", "out", probe.size(), out.size());
  if (!found.empty()) check_length("hash map", "found", probe.size(), found.size());
  // Values in the slots: the located slot (just read, so cached) holds value + 1 in its low bits.
  const bool in_slot = table_.value_in_slot_;
  const SmartArray& values = in_slot ? table_.slots_ : table_.payload_;
  const std::uint64_t mask = in_slot ? codec::value_mask(table_.count_bits_) : ~std::uint64_t{0};
  const std::uint64_t offset = in_slot ? 1 : 0;
  codec::with_bits(values.bits(), [&](auto b) {
    constexpr unsigned B = decltype(b)::value;
    for_located_blocks(table_, probe, pool, [&](std::uint64_t start, std::uint64_t count, const std::uint64_t* slots, int node) {
      const std::uint64_t* words = values.replica(values.replica_index_for_node(node));
      constexpr std::uint64_t ahead = 16;
      for (std::uint64_t i = 0; i < count; ++i) {
        if (!in_slot && i + ahead < count && slots[i + ahead] != HashTable::not_found) {
          __builtin_prefetch(words + slots[i + ahead] * B / 64);
        }
        const bool hit = slots[i] != HashTable::not_found;
        out[start + i] = hit ? (codec::get_padded<B>(words, slots[i]) & mask) - offset : missing;
        if (!found.empty()) found[start + i] = hit ? 1 : 0;
      }
    });
  });
}

}  // namespace smartarrays::collections
